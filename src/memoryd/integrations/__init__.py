"""Adapters for the frameworks apps already use: LangChain (``memoryd[langchain]``) and
LlamaIndex (``memoryd[llamaindex]``).

Each adapter takes a *backend*: the embedded ``memoryd.Memoryd`` or a
``memoryd.client.MemorydClient`` (they share method names and types), so the same
adapter works in-process or against a server.
"""
