"""The ``memoryd`` command: the root typer app and the entry point.

Each command group lives in its own module under ``memoryd.cli`` and is attached here,
so adding a group is one import and one ``add_typer`` line.
"""

from __future__ import annotations

import typer

app = typer.Typer(
    name="memoryd",
    help="Persistent per-user memory for LLM chat: manage users, workspaces and memories.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


def main() -> None:
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
