"""The layering of ``src/memoryd``, read from its import graph (docs/architecture.md).

memoryd is built in layers: a core of plain rules with no I/O (``memoryd.domain``); thin
layers around it (storage, embedders, rerankers, LLM providers); the write rules and the
extraction pipeline above those; the ``Memoryd`` facade and its services; the access layer
(``memoryd.access``: who may read or change what); and the surfaces on top (REST, web UI,
MCP, CLI, client, integrations, workers), none of which imports another. Nothing enforces
that but this test: it parses every module with ``ast`` (no imports run, so it takes a
fraction of a second), resolves every import -- at module level, inside functions,
relative ones and ``from pkg import submodule`` -- to the memoryd module it names, and
checks the rules below. A failure names the importing module, the line and what it imports.

``if TYPE_CHECKING:`` imports are collected (marked ``typing``) and held to the same rules
as the others: a type from a higher layer in a lower layer's signatures is as much a
dependency on that layer as a call into it, even though nothing is imported at run time.
For the same reason no import of any kind may close a cycle: modules that need each other
are one module in two files (the facade's services are handed ``memoryd.app.backends.Backends``
rather than importing ``memoryd.app.service``).

Imports a string names (``importlib.import_module``, entry points) are not seen; the plugin
manager is the only user of those and it loads plugins, not layers.
"""

from __future__ import annotations

import ast
import sys
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"
PACKAGE = SRC / "memoryd"


@dataclass(frozen=True)
class Import:
    """One import statement's target, as seen from the module that has it."""

    module: str  # the importing module, e.g. memoryd.storage.repository
    target: str  # the module imported: a memoryd submodule when one is named, else a package
    line: int
    kind: str  # "module" (top level), "function" (inside a def) or "typing" (TYPE_CHECKING)

    def __str__(self) -> str:
        where = {"module": "", "function": " inside a function", "typing": " under TYPE_CHECKING"}
        return f"{self.module} imports {self.target} (line {self.line}{where[self.kind]})"


def module_name(path: Path, root: Path) -> tuple[str, bool]:
    """``memoryd.x.y`` for ``root/memoryd/x/y.py``, and whether it is a package's __init__."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    is_package = parts[-1] == "__init__"
    if is_package:
        parts.pop()
    return ".".join(parts), is_package


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports_of(source: str, module: str, is_package: bool, known: set[str]) -> list[Import]:
    """Every import in ``source``; ``known`` is the set of module names that exist, used to
    tell ``from memoryd.plugins import hookspecs`` (a module) from
    ``from memoryd import Memoryd``."""
    found: list[Import] = []
    package = module.split(".") if is_package else module.split(".")[:-1]

    def resolve(node: ast.ImportFrom) -> str:
        if not node.level:
            return node.module or ""
        base = package[: len(package) - (node.level - 1)]
        return ".".join(base + ([node.module] if node.module else []))

    def visit(nodes: Iterable[ast.AST], kind: str) -> None:
        for node in nodes:
            if isinstance(node, ast.Import):
                found.extend(Import(module, a.name, node.lineno, kind) for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = resolve(node)
                targets = {f"{base}.{a.name}" for a in node.names} & known
                if len(targets) < len(node.names):
                    targets.add(base)  # some names are attributes of the module itself
                found.extend(Import(module, t, node.lineno, kind) for t in sorted(targets))
            elif isinstance(node, ast.If) and _is_type_checking(node.test):
                visit(node.body, "typing")
                visit(node.orelse, kind)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                visit(node.body, "function" if kind == "module" else kind)
            else:
                visit(ast.iter_child_nodes(node), kind)

    visit(ast.parse(source).body, "module")
    return found


def import_graph(root: Path = SRC) -> list[Import]:
    """Every import of every module under ``root/memoryd`` (its bundled data left out)."""
    files = [p for p in sorted((root / "memoryd").rglob("*.py")) if "data" not in p.parts]
    names = {p: module_name(p, root) for p in files}
    known = {name for name, _ in names.values()}
    graph: list[Import] = []
    for path, (name, is_package) in names.items():
        graph.extend(imports_of(path.read_text(encoding="utf-8"), name, is_package, known))
    return graph


def within(module: str, prefix: str) -> bool:
    """``module`` is ``prefix`` or inside it; the bare package ``memoryd`` means only itself
    (its ``__init__``, which re-exports the facade), not everything."""
    if prefix == "memoryd":
        return module == "memoryd"
    return module == prefix or module.startswith(prefix + ".")


def in_any(module: str, prefixes: Iterable[str]) -> bool:
    return any(within(module, p) for p in prefixes)


# The layers, bottom up. Each name is a module or a package (with everything in it).
DOMAIN = ("memoryd.domain",)
FOUNDATION = ("memoryd.config", "memoryd.plugins", "memoryd.models.blas")
ADAPTERS = ("memoryd.storage", "memoryd.models")
WRITE_RULES = ("memoryd.storage.write_rules",)
PIPELINE = ("memoryd.extraction",)
ACCESS = ("memoryd.access",)
FACADE = (
    "memoryd",  # the package's __init__: re-exports Memoryd and the domain types
    "memoryd.app",
    "memoryd.extraction.facade",
)
SURFACES = (
    "memoryd.server",
    "memoryd.cli",
    "memoryd.__main__",
    "memoryd.mcp",
    "memoryd.client",
    "memoryd.integrations",
    "memoryd.scale",
    "memoryd.testing",
    "memoryd.evaluation",
)

# What the domain core must never reach for: I/O of any kind, and the libraries that do it.
IO_LIBRARIES = {
    "sqlalchemy", "alembic", "httpx", "fastapi", "starlette", "uvicorn", "onnxruntime",
    "tokenizers", "openai", "anthropic", "psycopg", "procrastinate", "typer", "click",
    "requests", "xllamacpp", "mcp", "pydantic", "pydantic_settings",
    "socket", "ssl", "subprocess", "urllib", "http", "sqlite3", "asyncio", "multiprocessing",
    "selectors", "ftplib", "smtplib", "os", "io", "pathlib", "shutil", "tempfile", "glob",
}  # fmt: skip
# Third-party packages the domain may use: numpy holds the vectors a memory carries.
DOMAIN_THIRD_PARTY = {"numpy"}


@dataclass(frozen=True)
class Rule:
    """Modules under ``applies_to`` may import from memoryd only ``allowed`` (if given),
    and never ``forbidden``."""

    name: str
    applies_to: tuple[str, ...] | None  # None: every module of memoryd
    allowed: tuple[str, ...] | None = None
    forbidden: tuple[str, ...] = ()
    exempt: tuple[str, ...] = ()  # modules under applies_to the rule skips

    def broken_by(self, imp: Import) -> bool:
        applies = self.applies_to is None or in_any(imp.module, self.applies_to)
        if not applies or in_any(imp.module, self.exempt):
            return False
        if not within(imp.target, "memoryd") and not imp.target.startswith("memoryd."):
            return False
        if in_any(imp.target, self.forbidden):
            return True
        return self.allowed is not None and not in_any(imp.target, self.allowed)


RULES = (
    Rule(
        "the domain core imports nothing from memoryd outside memoryd.domain",
        applies_to=DOMAIN,
        allowed=DOMAIN,
    ),
    Rule(
        "config, hookspecs, plugins and blas import from memoryd only the domain and each other",
        applies_to=FOUNDATION,
        allowed=(*DOMAIN, *FOUNDATION),
    ),
    Rule(
        "storage imports from memoryd only the domain: it keeps rows and decides nothing",
        applies_to=("memoryd.storage",),
        allowed=(*DOMAIN, "memoryd.storage"),
    ),
    Rule(
        "embedders, rerankers and LLM providers import from memoryd only the domain, "
        "config/hookspecs/plugins/blas and the embedders (never storage, the pipeline, "
        "the facade or a surface)",
        applies_to=("memoryd.models.embedding", "memoryd.models.rerank", "memoryd.models.llm"),
        allowed=(
            *DOMAIN,
            *FOUNDATION,
            "memoryd.models.embedding",
            "memoryd.models.rerank",
            "memoryd.models.llm",
        ),
    ),
    Rule(
        "the write rules (memoryd.storage.write_rules) sit on storage and the domain only",
        applies_to=WRITE_RULES,
        allowed=(*DOMAIN, "memoryd.storage"),
    ),
    Rule(
        "the extraction pipeline never imports the facade or a surface: the facade passes "
        "itself in as ExtractionDeps (memoryd.extraction.deps)",
        applies_to=PIPELINE,
        exempt=("memoryd.extraction.facade",),
        allowed=(*DOMAIN, *FOUNDATION, *ADAPTERS, *WRITE_RULES, *PIPELINE),
    ),
    Rule(
        "the facade and its services never import the access layer or a surface (server, "
        "CLI, MCP, client, integrations, workers, testing)",
        applies_to=FACADE,
        forbidden=(*ACCESS, *SURFACES),
    ),
    Rule(
        "the access layer (memoryd.access: who may read or change what) sits on the facade "
        "and never imports a surface, nor the server's HTTP plumbing",
        applies_to=ACCESS,
        forbidden=SURFACES,
    ),
    Rule(
        "only the server itself, the CLI (which starts it), MCP's HTTP transport (mounted "
        "in it, authenticating with its credentials) and memoryd.testing (which runs it for "
        "tests) import memoryd.server",
        applies_to=None,
        forbidden=("memoryd.server",),
        exempt=("memoryd.server", "memoryd.cli", "memoryd.mcp.http", "memoryd.testing"),
    ),
    Rule(
        "only the command line itself and `python -m memoryd` import memoryd.cli",
        applies_to=None,
        forbidden=("memoryd.cli",),
        exempt=("memoryd.cli", "memoryd.__main__"),
    ),
    Rule(
        "the HTTP client talks to the server over HTTP only: it imports from memoryd only "
        "the domain (the results it rebuilds are in memoryd.domain.results) and itself, so "
        "importing it loads neither the library nor SQLAlchemy (tests/client/"
        "test_client_import.py checks the run-time side)",
        applies_to=("memoryd.client",),
        allowed=(*DOMAIN, "memoryd.client"),
    ),
    Rule(
        "the framework integrations take a backend (Memoryd or MemorydClient) and import "
        "from memoryd only the domain",
        applies_to=("memoryd.integrations",),
        allowed=(*DOMAIN, "memoryd.integrations"),
    ),
    Rule(
        "the queue workers never import the server, the CLI or MCP",
        applies_to=("memoryd.scale",),
        forbidden=("memoryd.server", "memoryd.cli", "memoryd.mcp"),
    ),
)


# The surfaces, each a way in for people or programs; none imports another, so what they
# share (who may read or change what, and the operations behind it) is memoryd.access's,
# not one surface's route functions that another calls (issue 36).
SURFACE_GROUPS: dict[str, tuple[str, ...]] = {
    "REST": ("memoryd.server.routers", "memoryd.server.schemas"),
    "web": ("memoryd.server.web",),
    "MCP": ("memoryd.mcp",),
    "CLI": ("memoryd.cli", "memoryd.__main__"),
    "client": ("memoryd.client",),
    "integrations": ("memoryd.integrations",),
    "scale": ("memoryd.scale",),
}
# The server's shared plumbing (auth edge, errors, guard, throttle, proxy relay) is no
# surface: the surfaces served over HTTP use it, and it imports none of them, except the
# composition root, which mounts them.
SERVER_PLUMBING = ("memoryd.server",)
# The only imports of one surface by another (or by the plumbing), each for a reason:
SURFACE_IMPORTS_ALLOWED = (
    # the composition root builds the app: it mounts the REST routers, the web UI's pages
    # and MCP's HTTP transport at /mcp (loaded only when the mcp extra is installed)
    ("memoryd.server.app", "memoryd.server.routers"),
    ("memoryd.server.app", "memoryd.server.schemas"),
    ("memoryd.server.app", "memoryd.server.web"),
    ("memoryd.server.app", "memoryd.mcp.http"),
    # `memoryd mcp` starts the MCP server on stdio and `memoryd worker` the queue worker
    # (`memoryd serve` starts the app through memoryd.server.app, which is no surface)
    ("memoryd.cli.mcp", "memoryd.mcp"),
    ("memoryd.cli.worker", "memoryd.scale"),
)


def surface_of(module: str) -> str | None:
    for name, prefixes in SURFACE_GROUPS.items():
        if in_any(module, prefixes):
            return name
    return "server plumbing" if in_any(module, SERVER_PLUMBING) else None


def surface_crossings(graph: Iterable[Import]) -> Iterator[str]:
    """No surface imports another (issue 36): each calls memoryd.access."""
    for imp in graph:
        source, target = surface_of(imp.module), surface_of(imp.target)
        if target in (None, "server plumbing") or target == source or source is None:
            continue
        if any(within(imp.module, m) and within(imp.target, t) for m, t in SURFACE_IMPORTS_ALLOWED):
            continue
        yield (
            f"{imp}: the {source} imports the {target} surface; surfaces share what "
            "memoryd.access holds, never each other's functions"
        )


# What the access layer must not reach for: it decides, the surfaces speak a protocol.
PROTOCOL_LIBRARIES = {"fastapi", "starlette", "httpx", "uvicorn", "mcp", "typer", "click"}


def access_protocol_imports(graph: Iterable[Import]) -> Iterator[str]:
    """memoryd.access raises domain errors and returns domain types; each surface maps
    them to its own form (HTTP status, page message, MCP tool error, exit code)."""
    for imp in graph:
        top = imp.target.split(".")[0]
        if in_any(imp.module, ACCESS) and top in PROTOCOL_LIBRARIES:
            yield f"{imp}: memoryd.access speaks no protocol, so never imports {top}"


def violations(graph: Iterable[Import], rules: Iterable[Rule] = RULES) -> Iterator[str]:
    for rule in rules:
        for imp in graph:
            if rule.broken_by(imp):
                yield f"{imp}: breaks '{rule.name}'"


def cycles(graph: Iterable[Import]) -> Iterator[str]:
    """Each import cycle among memoryd's modules once, as the shortest chain of imports
    (of any kind) that leads from one of its modules back to itself."""
    edges: dict[str, dict[str, Import]] = {}
    for imp in graph:
        if imp.target.startswith("memoryd") and imp.target != imp.module:
            edges.setdefault(imp.module, {}).setdefault(imp.target, imp)
    reported: set[frozenset[str]] = set()
    for start in sorted(edges):
        reached: dict[str, Import] = {}  # module -> the import that first reached it
        queue = deque([start])
        while queue and start not in reached:
            for target, imp in edges.get(queue.popleft(), {}).items():
                if target not in reached:
                    reached[target] = imp
                    queue.append(target)
        if start not in reached:
            continue
        chain = [reached[start]]
        while chain[-1].module != start:
            chain.append(reached[chain[-1].module])
        members = frozenset(i.module for i in chain)
        if members not in reported:
            reported.add(members)
            yield "import cycle: " + ", ".join(str(i) for i in reversed(chain))


def domain_libraries(graph: Iterable[Import]) -> Iterator[str]:
    """The domain core uses the standard library (less its I/O modules) and numpy only."""
    for imp in graph:
        if not in_any(imp.module, DOMAIN) or imp.target.startswith("memoryd"):
            continue
        top = imp.target.split(".")[0]
        if top in IO_LIBRARIES:
            yield f"{imp}: the domain core does no I/O, so never imports {top}"
        elif top not in sys.stdlib_module_names and top not in DOMAIN_THIRD_PARTY:
            yield f"{imp}: the domain core uses only the standard library and numpy"


# The database libraries, and the one layer that may import them: every SQL statement,
# the Alembic migrations and their runner (memoryd.storage.database) are in storage;
# above it code calls storage's functions with a Repository or its connection, and
# catches storage.opening's DatabaseError / DATABASE_DOWN. memoryd.scale is not a
# storage backend (procrastinate's queue keeps its own tables): it is held to this too.
DATABASE_LIBRARIES = {"sqlalchemy", "alembic"}
MAY_IMPORT_DATABASE_LIBRARIES = ("memoryd.storage",)


def database_imports(graph: Iterable[Import]) -> Iterator[str]:
    """Only storage imports SQLAlchemy or Alembic (issue 36)."""
    for imp in graph:
        top = imp.target.split(".")[0]
        if top in DATABASE_LIBRARIES and not in_any(imp.module, MAY_IMPORT_DATABASE_LIBRARIES):
            yield f"{imp}: only memoryd.storage imports {top}; add a storage function instead"


GRAPH = import_graph()


def test_the_graph_is_read_whole() -> None:
    seen = {(i.module, i.target, i.kind) for i in import_graph()}
    # one of each kind, from the real tree, so a collector that stopped seeing a kind fails
    assert ("memoryd.app.service", "memoryd.app.turns", "module") in seen
    assert ("memoryd.cli.serve", "memoryd.server.app", "function") in seen
    assert ("memoryd.app.turns", "memoryd.app.backends", "typing") in seen
    assert (
        "memoryd.plugins",
        "memoryd.plugins.hookspecs",
        "module",
    ) in seen  # from memoryd import x


def test_imports_are_resolved_the_way_python_does() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "from . import sibling\n"
        "from .. import domain\n"
        "from ..domain.models import Memory\n"
        "from memoryd import Memoryd\n"
        "from memoryd.plugins import hookspecs\n"
        "if TYPE_CHECKING:\n"
        "    from memoryd.app.service import Memoryd\n"
        "def f():\n"
        "    import memoryd.server.app\n"
    )
    known = {
        "memoryd",
        "memoryd.pkg",
        "memoryd.pkg.sibling",
        "memoryd.domain",
        "memoryd.plugins.hookspecs",
    }
    found = {(i.target, i.kind) for i in imports_of(source, "memoryd.pkg.mod", False, known)}
    assert found == {
        ("typing", "module"),
        ("memoryd.pkg.sibling", "module"),
        ("memoryd.domain", "module"),
        ("memoryd.domain.models", "module"),
        ("memoryd", "module"),
        ("memoryd.plugins.hookspecs", "module"),
        ("memoryd.app.service", "typing"),
        ("memoryd.server.app", "function"),
    }
    # in a package's __init__, one dot is the package itself
    inside = imports_of("from . import sibling\n", "memoryd.pkg", True, known)
    assert [i.target for i in inside] == ["memoryd.pkg.sibling"]


def test_the_layers_hold() -> None:
    found = list(violations(GRAPH))
    assert not found, "\n".join(found)


def test_no_surface_imports_another_surface() -> None:
    found = list(surface_crossings(GRAPH))
    assert not found, "\n".join(found)


def test_the_access_layer_speaks_no_protocol() -> None:
    found = list(access_protocol_imports(GRAPH))
    assert not found, "\n".join(found)


@pytest.mark.parametrize(
    ("module", "target", "crossing"),
    [
        ("memoryd.server.web.routes", "memoryd.server.routers.memories", "web imports the REST"),
        ("memoryd.server.web.review_items", "memoryd.server.schemas", "web imports the REST"),
        ("memoryd.mcp.server", "memoryd.server.routers.chats", "MCP imports the REST"),
        ("memoryd.cli.users", "memoryd.server.web.admin_actions", "CLI imports the web"),
        ("memoryd.server.deps", "memoryd.server.routers.memories", "plumbing imports the REST"),
        ("memoryd.scale.tasks", "memoryd.cli.common", "scale imports the CLI"),
        ("memoryd.cli.users", "memoryd.mcp.server", "CLI imports the MCP"),
    ],
)
def test_a_surface_crossing_is_named(module: str, target: str, crossing: str) -> None:
    found = list(surface_crossings([Import(module, target, 5, "module")]))
    assert len(found) == 1
    assert found[0].startswith(f"{module} imports {target} (line 5)")
    assert crossing in found[0]


@pytest.mark.parametrize(
    ("module", "target"),
    [
        ("memoryd.server.app", "memoryd.server.routers.memories"),
        ("memoryd.server.app", "memoryd.server.web.routes"),
        ("memoryd.cli.mcp", "memoryd.mcp.server"),
        ("memoryd.server.web.routes", "memoryd.server.deps"),
        ("memoryd.mcp.http", "memoryd.server.deps"),
        ("memoryd.server.routers.memories", "memoryd.access.memories"),
    ],
)
def test_the_allowed_surface_imports_pass(module: str, target: str) -> None:
    assert not list(surface_crossings([Import(module, target, 5, "module")]))


def test_there_is_no_import_cycle() -> None:
    found = list(cycles(GRAPH))
    assert not found, "\n".join(found)


def test_only_storage_imports_the_database_libraries() -> None:
    found = list(database_imports(GRAPH))
    assert not found, "\n".join(found)


@pytest.mark.parametrize(
    ("module", "target", "kind"),
    [
        ("memoryd.access.credentials", "sqlalchemy", "module"),
        ("memoryd.cli.common", "sqlalchemy.exc", "function"),
        ("memoryd.app.memberships", "sqlalchemy.engine", "typing"),
        ("memoryd.scale.worker", "alembic.command", "module"),
    ],
)
def test_a_database_import_above_storage_is_named(module: str, target: str, kind: str) -> None:
    found = list(database_imports([Import(module, target, 4, kind)]))
    top = target.split(".")[0]
    assert len(found) == 1
    assert found[0].startswith(f"{module} imports {target} (line 4")
    assert found[0].endswith(f"only memoryd.storage imports {top}; add a storage function instead")
    assert not list(database_imports([Import("memoryd.storage.credentials", target, 4, kind)]))


def test_the_domain_core_does_no_io() -> None:
    found = list(domain_libraries(GRAPH))
    assert not found, "\n".join(found)


@pytest.mark.parametrize(
    ("module", "target", "kind", "broken"),
    [
        ("memoryd.domain.rules", "memoryd.storage.repository", "module", "memoryd.domain"),
        ("memoryd.storage.repository", "memoryd.server.deps", "function", "storage imports"),
        (
            "memoryd.models.rerank.embedding",
            "memoryd.app.service",
            "typing",
            "embedders, rerankers",
        ),
        (
            "memoryd.models.llm.base",
            "memoryd.extraction.pipeline",
            "module",
            "embedders, rerankers",
        ),
        ("memoryd.extraction.pipeline", "memoryd.app.service", "typing", "extraction pipeline"),
        ("memoryd.extraction.scheduler", "memoryd.app.turns", "module", "extraction pipeline"),
        ("memoryd.app.turns", "memoryd.server.relay", "module", "facade and its services"),
        ("memoryd.app.lifecycle", "memoryd.access.memories", "typing", "facade and its services"),
        ("memoryd.access.memories", "memoryd.server.deps", "module", "access layer"),
        ("memoryd.access.callers", "memoryd.cli.common", "function", "access layer"),
        ("memoryd.scale.tasks", "memoryd.server.app", "function", "import memoryd.server"),
        ("memoryd.integrations.langchain", "memoryd.cli.app", "module", "memoryd.cli"),
        ("memoryd.client._shared", "memoryd.storage.tables", "module", "HTTP client"),
        ("memoryd.client._shared", "memoryd.app.transfer", "module", "HTTP client"),
        ("memoryd.client._async.client", "memoryd", "module", "HTTP client"),
    ],
)
def test_a_violating_import_is_named(module: str, target: str, kind: str, broken: str) -> None:
    found = list(violations([Import(module, target, 7, kind)]))
    assert len(found) >= 1
    assert found[0].startswith(f"{module} imports {target} (line 7")
    assert broken in found[0]


def test_a_cycle_is_named_once_with_its_imports() -> None:
    graph = [
        Import("memoryd.a", "memoryd.b", 3, "module"),
        Import("memoryd.b", "memoryd.c", 4, "function"),
        Import("memoryd.c", "memoryd.a", 5, "typing"),
        Import("memoryd.a", "memoryd.d", 6, "module"),
        Import("memoryd.d", "sqlalchemy", 7, "module"),
    ]
    assert list(cycles(graph)) == [
        "import cycle: memoryd.a imports memoryd.b (line 3), memoryd.b imports memoryd.c "
        "(line 4 inside a function), memoryd.c imports memoryd.a (line 5 under TYPE_CHECKING)"
    ]
    assert list(cycles(graph[:2] + graph[3:])) == []


@pytest.mark.parametrize("library", ["sqlalchemy", "httpx", "socket", "subprocess", "os.path"])
def test_io_in_the_domain_is_named(library: str) -> None:
    found = list(domain_libraries([Import("memoryd.domain.models", library, 9, "module")]))
    assert found == [
        f"memoryd.domain.models imports {library} (line 9): the domain core does no I/O, "
        f"so never imports {library.split('.')[0]}"
    ]
