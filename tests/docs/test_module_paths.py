"""Every ``memoryd.x.y`` the architecture map names must exist: a map that points at a
module or class that was renamed or moved sends a new contributor nowhere.

A dotted path is resolved the way Python would: its longest prefix that is a module or
package under ``src/memoryd``, then each further part a name defined at the top level of
that module (a class, function, assignment or import) or, after a class, in its body.
Read with ``ast``; nothing is imported.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"
MAPS = [ROOT / "docs" / "architecture.md"]
DOTTED = re.compile(r"(?<![\w./-])memoryd(?:\.[A-Za-z_]\w*)+")


def module_file(dotted: str) -> Path | None:
    base = SRC / Path(*dotted.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def names_in(body: list[ast.stmt]) -> dict[str, ast.stmt]:
    """The names a module or class body defines, with the statement defining each."""
    found: dict[str, ast.stmt] = {}
    for node in body:
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            found[node.name] = node
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                found[(alias.asname or alias.name).split(".")[0]] = node
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        found[name.id] = node
        elif isinstance(node, ast.If | ast.Try):
            found.update(names_in(node.body))
    return found


def missing(dotted: str) -> str | None:
    """Why ``dotted`` names nothing, or None when it resolves."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        path = module_file(".".join(parts[:cut]))
        if path is not None:
            break
    else:
        return f"{dotted}: no module {parts[0]}"
    scope: list[ast.stmt] = ast.parse(path.read_text(encoding="utf-8")).body
    where = ".".join(parts[:cut])
    for part in parts[cut:]:
        defined = names_in(scope).get(part)
        if defined is None:
            return f"{dotted}: {where} defines no {part}"
        scope = defined.body if isinstance(defined, ast.ClassDef) else []
        where = f"{where}.{part}"
    return None


def test_a_wrong_path_is_named() -> None:
    assert missing("memoryd.app.service.Memoryd") is None
    assert missing("memoryd.app.turns.TurnService.context") is None
    assert missing("memoryd.testing.FakeOpenAIServer") is None  # re-exported by an import
    assert missing("memoryd.nowhere") == "memoryd.nowhere: memoryd defines no nowhere"
    assert (
        missing("memoryd.app.turns.Nope")
        == "memoryd.app.turns.Nope: memoryd.app.turns defines no Nope"
    )
    assert missing("memoryd.app.turns.TurnService.nope") == (
        "memoryd.app.turns.TurnService.nope: memoryd.app.turns.TurnService defines no nope"
    )


@pytest.mark.parametrize("doc", MAPS, ids=lambda d: str(d.relative_to(ROOT)))
def test_every_module_path_in_the_map_exists(doc: Path) -> None:
    paths = sorted(set(DOTTED.findall(doc.read_text(encoding="utf-8"))))
    assert len(paths) > 20  # the map names modules; a broken pattern would find none
    problems = [problem for path in paths if (problem := missing(path)) is not None]
    assert not problems, "\n".join(problems)
