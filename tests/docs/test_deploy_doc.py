"""docs/deploy.md is followed literally by operators: what it names must exist as written.

Every variable of its environment table is one memoryd reads, with the default the table
gives, and every variable memoryd reads has a row; every ``memoryd ...`` command line in
it names real commands and options (it once gave a batch size of 8 where memoryd used 16,
and ``_PROVIDER`` where the variable is ``MEMORYD_PROXY_PROVIDER``).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import typer.main

from memoryd.cli.app import app
from memoryd.config import MemorydSettings

DEPLOY = Path(__file__).resolve().parents[2] / "docs" / "deploy.md"


def env_table() -> dict[str, str]:
    """Variable -> its Default cell, from the table under "Environment reference"."""
    section = DEPLOY.read_text().split("## Environment reference", 1)[1]
    rows: dict[str, str] = {}
    for line in section.splitlines():
        if not line.startswith("| `"):
            continue
        names_cell, default_cell = line.split(" | ")[:2]
        names = re.findall(r"`([A-Z_]+)`", names_cell)
        defaults = re.findall(r"`([^`]+)`", default_cell)
        for n, name in enumerate(names):
            # "`a`, `b`, `c`" gives one default per variable; one default may cover them all
            rows[name] = defaults[n] if len(defaults) == len(names) else default_cell.strip()
    return rows


def settings_variables() -> dict[str, object]:
    """Environment variable -> default, for every field of MemorydSettings."""
    found = {}
    for name, field in MemorydSettings.model_fields.items():
        alias = field.validation_alias
        choices = getattr(alias, "choices", None)
        variable = str(choices[0]) if choices else f"MEMORYD_{name.upper()}"
        found[variable] = field.default
    return found


def test_the_environment_table_lists_every_variable_with_its_default() -> None:
    table, real = env_table(), settings_variables()
    assert sorted(set(table) - set(real)) == []  # no variable memoryd does not read
    assert sorted(set(real) - set(table)) == []  # none it reads left out
    for variable, default in real.items():
        if isinstance(default, bool) or default is None:
            continue  # "off", "generated and printed once": said in words
        cell = table[variable]
        if isinstance(default, (int, float)):
            assert float(cell) == default, variable
        elif isinstance(default, str):
            assert cell == default, variable


def command_lines() -> list[list[str]]:
    """Every ``memoryd`` command line in the doc: inline code, and the lines of its shell,
    systemd and Procfile blocks that run one (``ExecStart=/opt/memoryd/bin/memoryd ...``,
    ``release: memoryd ... && memoryd ...``)."""
    text = DEPLOY.read_text()
    found = re.findall(r"`(memoryd [^`]+)`", text)
    for block in re.findall(r"```(?:sh|ini)?\n(.*?)```", text, re.DOTALL):
        found += re.findall(r"(?:^|/bin/|&& |: )(memoryd [^\n#&]*)", block, re.MULTILINE)
    lines = []
    for line in found:
        words = shlex.split(line.replace("{", "").replace("}", ""))
        if re.fullmatch(r"[a-z-]+", words[1]) and words[1] not in ("is", "on", "memoryd"):
            lines.append(words)
    return lines


def test_every_memoryd_command_in_the_doc_exists_with_its_options() -> None:
    root = typer.main.get_command(app)
    lines = command_lines()
    assert ["memoryd", "worker", "--setup-only"] in lines and len(lines) > 15
    for words in lines:
        command: Any = root  # typer's own click: groups have ``commands``
        rest = words[1:]
        while hasattr(command, "commands") and rest and not rest[0].startswith("-"):
            sub = command.commands.get(rest[0])
            assert sub is not None, f"{' '.join(words)}: no command {rest[0]!r}"
            command, rest = sub, rest[1:]
        if hasattr(command, "commands"):  # a group runs only with its own options
            assert command.invoke_without_command, " ".join(words)
        options = {o for param in command.params for o in (*param.opts, *param.secondary_opts)}
        for word in rest:
            if word.startswith("--"):
                assert word.split("=")[0] in options, f"{' '.join(words)}: no option {word}"
