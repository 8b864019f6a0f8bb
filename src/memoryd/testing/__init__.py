""""""

from memoryd.testing.fake_openai import FakeOpenAIServer, RecordedRequest, Reply, Responder

__all__ = ["FakeOpenAIServer", "RecordedRequest", "Reply", "Responder"]
