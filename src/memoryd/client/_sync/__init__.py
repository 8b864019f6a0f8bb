"""The sync client, generated from the async one (scripts/generate_sync_client.py)."""
