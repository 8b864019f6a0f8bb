"""``MemorydClient``: the library's API (``context``, ``record_chat``, ``add_memory``, ...)
over a memoryd server, with httpx. ``AsyncMemorydClient`` is its async twin.

Swap ``Memoryd("sqlite:///memoryd.db")`` for ``MemorydClient(base_url, api_key)`` and the
same calls return the same types and raise the same exceptions (``memoryd.domain.errors``);
``ServerError`` is added for a server that cannot answer.
"""

from memoryd.client._async.client import AsyncMemorydClient
from memoryd.client._shared import NotAuthenticated, ServerError
from memoryd.client._sync.client import MemorydClient

__all__ = ["AsyncMemorydClient", "MemorydClient", "NotAuthenticated", "ServerError"]
