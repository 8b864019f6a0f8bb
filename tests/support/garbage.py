"""A pytest plugin (loaded by ``tests/conftest.py``) that keeps Python's garbage collector
from slowing a long run down; it changes nothing a test sees.

A full collection walks every live object that can hold references. Two kinds of object
would otherwise make each of them slow, and there is one every test or two:

- what the imports made (several hundred thousand objects, alive until the end): after
  collection they are moved to the permanent generation (``gc.freeze``), which no
  collection walks again;
- the apps of earlier tests: FastAPI remembers the last 4096 endpoint functions it
  classified (sync, async, generator) in module-level caches, and each endpoint closes
  over its app and with it the test's whole ``Memoryd``, so about 40 old apps, over a
  million objects, stayed alive. Those caches are emptied after every test.
"""

from __future__ import annotations

import gc
from typing import Any

import pytest

try:
    from fastapi.dependencies import models as _fastapi_models
except ImportError:  # pragma: no cover - without the server extra there is no app
    _fastapi_models = None
_FASTAPI_CACHES = ("_is_gen_callable_cached", "_is_async_gen_callable_cached")
_FASTAPI_CACHES += ("_is_coroutine_callable_cached",)


def _caches() -> list[Any]:
    if _fastapi_models is None:
        return []
    found = [getattr(_fastapi_models, name, None) for name in _FASTAPI_CACHES]
    return [cache for cache in found if hasattr(cache, "cache_clear")]


def pytest_collection_finish(session: pytest.Session) -> None:
    gc.collect()
    gc.freeze()


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item: pytest.Item) -> None:
    for cache in _caches():
        cache.cache_clear()
