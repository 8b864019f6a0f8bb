"""``memoryd settings``: read and change the run-time switches stored in the database
(``memoryd.domain.runtime_settings``), parsed as the API and the UI parse them.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from memoryd.cli.common import (
    DbOption,
    JsonOption,
    echo,
    emit,
    emit_json,
    open_memoryd,
    print_table,
)
from memoryd.domain import runtime_settings

app = typer.Typer(help="Run-time settings: get and set.", no_args_is_help=True)


def _shown(value: Any) -> str:
    return value if isinstance(value, str) and value else json.dumps(value)


@app.command("get")
def get(
    key: Annotated[
        str | None, typer.Argument(metavar="[KEY]", help="One setting (default: all).")
    ] = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Show every setting, or the value of one."""
    specs = [runtime_settings.spec_for(key)] if key is not None else None
    with open_memoryd(db) as md:
        values = md.get_settings()
    if specs is None:
        specs = [runtime_settings.spec_for(k) for k in sorted(values)]
    if as_json:
        emit_json({spec.key: values[spec.key] for spec in specs})
        return
    if key is not None:
        echo(_shown(values[key]))
        return
    rows = [(s.key, _shown(values[s.key]), _shown(s.default), s.description) for s in specs]
    print_table("Settings", ["Key", "Value", "Default", "Description"], rows)


# A negative number is a value to refuse with the setting's own message, not an option.
@app.command("set", context_settings={"ignore_unknown_options": True})
def set_(
    key: Annotated[str, typer.Argument(metavar="KEY", help="A setting name.")],
    value: Annotated[str, typer.Argument(metavar="VALUE", help="The new value (e.g. on/off).")],
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Change a setting for every memoryd process using this database."""
    runtime_settings.spec_for(key)
    with open_memoryd(db) as md:
        stored = md.set_setting(key, value)
    emit(as_json, {key: stored}, f"{key} = {_shown(stored)}")
