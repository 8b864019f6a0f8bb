"""The command reference in docs/cli.md, written from the real ``memoryd`` typer app.

Generated from the click command tree typer builds, so it says exactly what ``--help``
says: ``python scripts/gen_cli_docs.py`` rewrites it, tests/cli/test_cli_docs.py checks it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import typer
from typer.core import TyperArgument, TyperGroup, TyperOption

BEGIN = "<!-- BEGIN GENERATED REFERENCE: python scripts/gen_cli_docs.py -->"
END = "<!-- END GENERATED REFERENCE -->"
TYPE_NAMES = {"str": "TEXT", "int": "INTEGER", "float": "NUMBER"}


def walk(command: Any, path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every visible command and group under ``command``, depth first, in help order."""
    yield path, command
    for name, sub in _children(command, path):
        yield from walk(sub, (*path, name))


def _children(command: Any, path: tuple[str, ...]) -> list[tuple[str, Any]]:
    if not isinstance(command, TyperGroup):
        return []
    ctx = typer.Context(command, info_name=path[-1])
    found = [(name, command.get_command(ctx, name)) for name in command.list_commands(ctx)]
    return [(name, sub) for name, sub in found if sub is not None and not sub.hidden]


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _value(param: Any, ctx: Any) -> str:
    """What a parameter takes: its metavar, its choices, or its type (with a range)."""
    if isinstance(param, TyperOption) and param.is_flag:
        return ""
    if param.metavar:
        return str(param.metavar)
    shown = str(param.display_type(ctx)).strip("<>")
    if "|" in shown:
        return shown
    kind = TYPE_NAMES.get(shown.replace(" range", ""), shown.upper())
    span = param._get_number_range_help_str()
    return f"{kind} {span}" if span else kind


def _default(param: Any) -> str | None:
    if not isinstance(param, TyperOption) or param.required or param.show_default is False:
        return None
    default = param.default
    if param.is_flag:
        if param.secondary_opts:
            return str(param.opts[0] if default else param.secondary_opts[0])
        return None
    if default is None or callable(default) or default == ():
        return None
    return str(getattr(default, "value", default))


def _option_row(param: Any, ctx: Any) -> str:
    names = ", ".join(f"`{o}`" for o in [*param.opts, *param.secondary_opts])
    notes = []
    if param.required:
        notes.append("required")
    default = _default(param)
    if default is not None:
        notes.append(f"default: `{default}`")
    if param.envvar and param.show_envvar:
        envvars = [param.envvar] if isinstance(param.envvar, str) else list(param.envvar)
        notes.append("env: " + ", ".join(f"`{e}`" for e in envvars))
    help_text = _cell(param.help or "")
    if notes:
        help_text = f"{help_text} ({'; '.join(notes)})".lstrip()
    value = _value(param, ctx)
    return f"| {names} | {f'`{value}`' if value else ''} | {help_text} |".replace("|  |", "| |")


def _argument_name(param: Any) -> str:
    name = param.metavar or (param.name or "arg").upper()
    if param.nargs == -1:
        name += "..."
    return name.strip("[]")


def _options(command: Any) -> list[Any]:
    return [p for p in command.params if isinstance(p, TyperOption) and not p.hidden]


def _usage(path: tuple[str, ...], command: Any) -> str:
    pieces = [*path, "[OPTIONS]"] if _options(command) else [*path]
    if isinstance(command, TyperGroup):
        return " ".join([*pieces, command.subcommand_metavar])
    for param in command.params:
        if isinstance(param, TyperArgument):
            name = _argument_name(param)
            pieces.append(name if param.required else f"[{name}]")
    return " ".join(pieces)


def _section(path: tuple[str, ...], command: Any) -> list[str]:
    title = " ".join(path)
    lines = [f'<a id="{"-".join(path)}"></a>', "", f"### {title}", ""]
    help_text = (command.help or "").strip()
    if help_text:
        lines += [*(line.rstrip() for line in help_text.splitlines()), ""]
    lines += ["```console", f"$ {_usage(path, command)}", "```", ""]
    if isinstance(command, TyperGroup):
        lines += ["| command | does |", "|---|---|"]
        for name, sub in _children(command, path):
            short = _cell(sub.get_short_help_str(limit=200))
            lines.append(f"| [`{title} {name}`](#{'-'.join((*path, name))}) | {short} |")
        lines.append("")
        if not _options(command):  # a group that also runs by itself has options
            return lines
    ctx = typer.Context(command, info_name=path[-1])
    arguments = [p for p in command.params if isinstance(p, TyperArgument)]
    if arguments:
        lines += ["| argument | value | description |", "|---|---|---|"]
        for arg in arguments:
            state = "required" if arg.required else "optional"
            help_text = _cell(getattr(arg, "help", None) or "")
            choices = str(arg.display_type(ctx)).strip("<>")  # the name says the rest
            value = f"`{choices}`" if "|" in choices else ""
            lines.append(
                f"| `{_argument_name(arg)}` | {value} | {help_text} ({state}) |".replace("  ", " ")
            )
        lines.append("")
    lines += ["| option | value | description |", "|---|---|---|"]
    lines += [_option_row(o, ctx) for o in _options(command)]
    lines.append("| `--help` | | Show the command's help and exit. |")
    return [*lines, ""]


def render(app: typer.Typer, name: str = "memoryd") -> str:
    """The reference of every command of ``app``, as Markdown."""
    root = typer.main.get_command(app)
    out = [
        BEGIN,
        "",
        "## Command reference",
        "",
        "Every command, argument and option, generated from the commands themselves "
        "(`memoryd COMMAND --help` prints the same). Options go after the command.",
        "",
    ]
    for path, command in walk(root, (name,)):
        if path == (name,):
            continue
        out += _section(path, command)
    out.append(END)
    return "\n".join(out) + "\n"


def update(document: str, app: typer.Typer) -> str:
    """``document`` with its generated reference replaced (or appended) by a fresh one."""
    fresh = render(app)
    if BEGIN in document and END in document:
        head, _, rest = document.partition(BEGIN)
        _, _, tail = rest.partition(END)
        return head + fresh.rstrip("\n") + tail
    return document.rstrip("\n") + "\n\n" + fresh
