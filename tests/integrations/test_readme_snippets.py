"""The README's snippets for agents and apps run as written, against a real server.

Issue 38: the LangChain snippet once passed ``user_id=1``, which is the first admin on a
real install, so anyone else's key got PermissionDenied; the snippets now look the user up.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from memoryd.testing.live import LiveMemoryd

pytest.importorskip("langchain_core", reason="needs the 'langchain' extra")
pytest.importorskip("llama_index.core", reason="needs the 'llamaindex' extra")

README = Path(__file__).resolve().parents[2] / "README.md"


def snippet(title: str) -> str:
    """The first Python block after the bold ``title`` in the README."""
    text = README.read_text(encoding="utf-8")
    found = re.search(rf"\*\*{title}\*\*.*?```python\n(.*?)```", text, re.DOTALL)
    assert found, title
    return found.group(1)


def test_the_client_langchain_and_llamaindex_snippets_run_for_a_user_who_is_not_id_1(
    live: LiveMemoryd,
) -> None:
    assert live.ids["alice"] != 1  # the admin came first, as on a real install
    names: dict[str, Any] = {}
    for title in ("Python client", "LangChain", "LlamaIndex"):
        code = snippet(title).replace("http://127.0.0.1:8765", live.url)
        code = code.replace("mdk_...", live.keys["alice"]).replace('"phoenix"', '"alpha"')
        exec(code, names)  # the README's own code, as a reader pastes it
    assert names["me"].id == live.ids["alice"]
    assert names["docs"][0].page_content == "Prefers concise answers"
    assert names["memory"].memory_blocks[0].user_id == live.ids["alice"]
    names["md"].close()
