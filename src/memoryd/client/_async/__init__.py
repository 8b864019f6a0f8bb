"""The async client: the one implementation of every client method."""
