"""``memoryd mcp``: memoryd as an MCP server on stdin/stdout for one person (the ``mcp``
extra); stdout carries only the protocol, so remarks go to stderr.
"""

from __future__ import annotations

from typing import Annotated

import typer

from memoryd.cli.common import DbOption, find_user, note, open_memoryd
from memoryd.cli.serve import _auth_store
from memoryd.domain.errors import InvalidInput


def mcp(
    user: Annotated[
        str | None,
        typer.Option(
            "--user",
            "-u",
            metavar="NAME",
            help="Act for this user (default: the local single-user person).",
        ),
    ] = None,
    db: DbOption = None,
) -> None:
    """Serve memoryd's memory tools to an agent host over MCP (stdio)."""
    try:
        import mcp.server  # noqa: F401
    except ModuleNotFoundError:
        raise InvalidInput(
            "the MCP server needs the 'mcp' extra: pip install 'memoryd[mcp]'"
        ) from None
    from memoryd.access.callers import Local
    from memoryd.config import MemorydSettings
    from memoryd.mcp import build_server
    from memoryd.server.app import first_admin, first_start

    settings = MemorydSettings()
    with open_memoryd(db) as md:
        auth = _auth_store(md)
        if user is not None:
            person = find_user(md, user)
        else:
            first_start(md, auth, settings.model_copy(update={"single_user": True}))
            found = first_admin(md)
            assert found is not None
            person = found
        server = build_server(Local(md, auth), person.id)
        note(f"memoryd MCP server on stdio, acting for {person.name!r}")
        server.run("stdio")
