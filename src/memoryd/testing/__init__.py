"""Test helpers memoryd ships for its own tests and yours: ``FakeOpenAIServer``, a scripted
OpenAI- and Anthropic-compatible HTTP server on loopback (replies, malformed JSON, delays,
HTTP errors), and what it records of each request."""

from memoryd.testing.fake_openai import FakeOpenAIServer, RecordedRequest, Reply, Responder

__all__ = ["FakeOpenAIServer", "RecordedRequest", "Reply", "Responder"]
