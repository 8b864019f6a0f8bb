"""Every ``memoryd ...`` command line in the docs names real commands and options.

Readers copy these lines; the docs are edited by many hands and the commands change under
them. ``test_deploy_doc`` checks deploy.md's systemd and Procfile lines in more depth; this
covers every doc, in inline code and in shell or console blocks. The generated reference
at the end of docs/cli.md is left out: it is made from the commands themselves.
"""

from __future__ import annotations

import functools
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import typer.main

from memoryd.cli.app import app

ROOT = Path(__file__).resolve().parents[2]
DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *(ROOT / "bench").rglob("*.md")])
# Shown on purpose as what not to type.
COUNTER_EXAMPLES = {"memoryd --db URL users list", "memoryd user list"}
PROSE = {"memoryd", "on", "is"}


def command_lines(text: str) -> list[list[str]]:
    text = text.split("<!-- BEGIN GENERATED REFERENCE")[0]
    found = re.findall(r"`(memoryd [^`]+)`", text)
    for block in re.findall(r"```[a-z]*\n(.*?)```", text, re.DOTALL):
        # a command's own error output quotes the command line it refuses
        block = "\n".join(s for s in block.splitlines() if not s.startswith("error: "))
        found += re.findall(r"(?:^|/bin/|&& |: |\$ )(memoryd [^\n#&|>]*)", block, re.M)
    lines = []
    for line in found:
        if " ".join(line.split()) in COUNTER_EXAMPLES:
            continue
        try:
            words = shlex.split(re.sub(r"[{}\\]", "", line))
        except ValueError:  # an unbalanced quote: prose, not a command
            continue
        # "memoryd on http://..." is the server's banner, not a command
        if len(words) > 1 and re.fullmatch(r"[a-z-]+", words[1]) and words[1] not in PROSE:
            lines.append(words)
    return lines


@functools.cache
def root_command() -> Any:
    """typer's own click command for ``memoryd`` (groups have ``commands``), built once:
    building it takes about 90 ms, and the docs hold hundreds of command lines."""
    return typer.main.get_command(app)


def problems(words: list[str]) -> list[str]:
    command: Any = root_command()
    rest = words[1:]
    while hasattr(command, "commands") and rest and not rest[0].startswith("-"):
        # "chats rm|clear", "members add/rm": every alternative must exist
        names = re.split(r"[|/]", rest[0])
        subs = [command.commands.get(name) for name in names]
        if None in subs and "ID" in (command.subcommand_metavar or ""):
            break  # a run's id: "memoryd runs 3f2a9c" is "memoryd runs --run 3f2a9c"
        if None in subs:
            return [f"{' '.join(words)}: no command {rest[0]!r}"]
        command, rest = subs[-1], rest[1:]
    options = {o for param in command.params for o in (*param.opts, *param.secondary_opts)}
    options |= {"--help"}
    if "--" in rest:  # what follows is an argument, even when it starts with "-"
        rest = rest[: rest.index("--")]
    return [
        f"{' '.join(words)}: no option {word}"
        for word in rest
        if word.startswith("-") and word != "-" and word.split("=")[0] not in options
    ]


def test_a_wrong_command_or_option_is_caught() -> None:
    assert problems(["memoryd", "users", "nuke"]) == ["memoryd users nuke: no command 'nuke'"]
    assert problems(["memoryd", "export", "--user", "a", "--no-chat"]) == [
        "memoryd export --user a --no-chat: no option --no-chat"
    ]
    assert problems(["memoryd", "export", "--user", "a", "--no-chats"]) == []
    assert problems(["memoryd", "runs", "3f2a9c", "--json"]) == []
    assert problems(["memoryd", "runs", "3f2a9c", "--jsn"]) == [
        "memoryd runs 3f2a9c --jsn: no option --jsn"
    ]
    # the docs are read at all: cli.md's guide alone shows dozens of command lines
    assert len(command_lines((ROOT / "docs" / "cli.md").read_text())) > 50


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: str(d.relative_to(ROOT)))
def test_every_memoryd_command_line_exists(doc: Path) -> None:
    found = [p for words in command_lines(doc.read_text()) for p in problems(words)]
    assert found == []
