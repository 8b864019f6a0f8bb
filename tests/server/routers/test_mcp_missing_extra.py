"""``/mcp`` when the ``mcp`` extra is not installed: 501 saying what to install (issue 38).

It once answered 404 "no endpoint POST /mcp", which says nothing about the missing extra.
The import of the MCP SDK is made to fail, and the real app is built over it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from memoryd.models.embedding.minilm import MiniLMEmbedder
from support.server import build_world, make_settings

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}


def test_mcp_without_the_extra_says_to_install_it_and_restart(
    tmp_path: Path, embedder: MiniLMEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "mcp.server", None)  # `import mcp.server` fails
    with pytest.raises(ModuleNotFoundError):
        import mcp.server  # noqa: F401
    world = build_world(make_settings(tmp_path), embedder)
    with world.client:
        for method in ("POST", "GET", "DELETE"):
            answer = world.call("alice", method, "/mcp", json=INITIALIZE)
            assert answer.status_code == 501, (method, answer.text)
            error = answer.json()["error"]
            assert "pip install 'memoryd[mcp]'" in error["message"]
            assert "restart memoryd serve" in error["message"]
            assert error["data"] == {"type": "not_implemented", "code": "mcp_not_installed"}
        assert world.call("alice", "GET", "/api/v1/me").status_code == 200  # the rest works
