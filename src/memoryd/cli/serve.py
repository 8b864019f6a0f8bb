"""``memoryd serve`` (the HTTP service), ``memoryd apikey`` and ``memoryd users passwd``.

uvicorn runs the app factory, so every worker process builds its own app from the same
``MEMORYD_*`` settings.
"""

from __future__ import annotations

import os
import sys
from typing import Annotated, Any

import typer

from memoryd.cli.common import (
    DbOption,
    JsonOption,
    echo,
    emit_json,
    open_for,
    open_memoryd,
    shared_embedder,
)
from memoryd.domain.errors import InvalidInput


def _server_extra() -> None:
    try:
        import argon2  # noqa: F401
        import fastapi  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        raise InvalidInput(
            f"the server needs the 'server' extra ({exc.name} is missing): "
            "pip install 'memoryd[server]'"
        ) from None


def _auth_store(md: Any) -> Any:
    _server_extra()
    from memoryd.access.credentials import AuthStore

    return AuthStore(md.db, clock=md.clock)


def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to listen on.")] = 8765,
    workers: Annotated[int, typer.Option(min=1, max=64, help="Worker processes.")] = 1,
    single_user: Annotated[
        bool,
        typer.Option(
            "--single-user",
            envvar="MEMORYD_SINGLE_USER",
            help="One person on this machine: no sign-in, localhost only.",
        ),
    ] = False,
    scheduler: Annotated[
        bool, typer.Option(help="Run the extraction scheduler in this process.")
    ] = True,
    db: DbOption = None,
) -> None:
    """Run the REST API, the OpenAI-compatible proxy and the web UI."""
    _server_extra()
    import uvicorn

    from memoryd.config import MemorydSettings
    from memoryd.server.app import first_start
    from memoryd.server.deps import is_loopback_host
    from memoryd.server.upstream import describe_upstream

    if single_user and not is_loopback_host(host):
        raise InvalidInput(
            f"--single-user serves one person without sign-in, so it listens only on "
            f"127.0.0.1 or localhost, not {host!r}"
        )
    if db:
        os.environ["MEMORYD_DATABASE_URL"] = db
    if single_user:
        os.environ["MEMORYD_SINGLE_USER"] = "1"
    settings = MemorydSettings()
    with open_memoryd(db) as md:
        message = first_start(md, _auth_store(md), settings)
    if message:
        echo(message)
    where = "localhost" if host in ("0.0.0.0", "::") else host
    echo(f"memoryd on http://{where}:{port}  (API docs: /docs, OpenAI-compatible proxy: /v1)")
    echo(f"the proxy sends chats to {describe_upstream(settings)}")
    # Extraction in a thread of this process is the embedded default; with PostgreSQL and
    # procrastinate workers, --no-scheduler leaves it to them.
    if scheduler:
        from memoryd.app.service import Memoryd

        md = Memoryd(settings=settings, embedder=shared_embedder())
        interval = md.start_extraction_scheduler().interval
        echo(f"extraction runs every {settings.extraction_interval} ({interval})")
    uvicorn.run(
        "memoryd.server.app:app_from_env",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level="info",
    )


# API keys ------------------------------------------------------------------------------
apikey_app = typer.Typer(help="API keys for programs: create, list, revoke.", no_args_is_help=True)
UserOpt = Annotated[str, typer.Option("--user", "-u", metavar="NAME", help="Whose key.")]


@apikey_app.command("create")
def apikey_create(
    user: UserOpt,
    name: Annotated[str, typer.Option("--name", help="What the key is for.")] = "cli",
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Create an API key; its secret is printed once and stored only hashed."""
    with open_for(db, user) as (md, owner):
        created = _auth_store(md).create_api_key(owner.id, name)
    if as_json:
        emit_json({**created.key.to_dict(), "key": created.secret})
        return
    echo(f"API key {created.key.id} for {owner.name} ({created.key.name}):")
    echo(created.secret)
    echo("store it now: it is not shown again")


@apikey_app.command("list")
def apikey_list(user: UserOpt, db: DbOption = None, as_json: JsonOption = False) -> None:
    """List a user's API keys (never their secrets)."""
    with open_for(db, user) as (md, owner):
        keys = _auth_store(md).list_api_keys(owner.id)
    if as_json:
        emit_json([k.to_dict() for k in keys])
        return
    if not keys:
        echo(f"{user} has no API keys; create one with: memoryd apikey create --user {user}")
    for key in keys:
        state = "revoked" if key.revoked_at else "active"
        echo(f"{key.id}  {key.prefix}…  {state:7}  {key.created_at:%Y-%m-%d}  {key.name}")


@apikey_app.command("revoke")
def apikey_revoke(
    key_id: Annotated[str, typer.Argument(metavar="KEY_ID")], user: UserOpt, db: DbOption = None
) -> None:
    """Revoke an API key: it stops working at once."""
    with open_for(db, user) as (md, owner):
        _auth_store(md).revoke_api_key(owner.id, key_id)
    echo(f"revoked API key {key_id}")


# passwords -----------------------------------------------------------------------------
def passwd(
    name: Annotated[str, typer.Argument(metavar="NAME", help="The user's name.")],
    password_stdin: Annotated[
        bool, typer.Option("--password-stdin", help="Read the new password from stdin.")
    ] = False,
    db: DbOption = None,
) -> None:
    """Set a user's password for the web UI (signs their browsers out)."""
    with open_for(db, name) as (md, user):  # before asking: no password typed for nobody
        auth = _auth_store(md)
        if password_stdin:
            password = sys.stdin.readline().rstrip("\r\n")
        elif not sys.stdin.isatty():
            raise InvalidInput(
                "no terminal to ask for the password on; pipe it in with --password-stdin"
            )
        else:
            password = typer.prompt("New password", hide_input=True, confirmation_prompt=True)
        auth.set_password(user.id, password)
    echo(f"password set for {user.name}")
