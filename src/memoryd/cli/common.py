"""What every ``memoryd`` command shares: options, opening the database, output, errors.

One place decides how the CLI says no: every ``MemorydError``, bad input and every
mistake the option parser catches becomes one line ``error: <message>`` on stderr and
exit code 2, so command modules never catch exceptions themselves.

Nothing heavy is imported until a command runs (``memoryd --help`` builds every command
from its signature), so the library, SQLAlchemy and the embedder are imported inside
functions.
"""

from __future__ import annotations

import inspect
import json
import os
import re
import sys
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from enum import Enum
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, TypeVar

import typer
from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text
from typer.core import TyperGroup, TyperOption

from memoryd.access.callers import Owner, Site, operator_owner, operator_site
from memoryd.domain.errors import InvalidInput, MemorydError, NotFound, PermissionDenied
from memoryd.domain.models import Actor, Source, User

if TYPE_CHECKING:
    from memoryd.app.service import Memoryd
    from memoryd.models.embedding.base import Embedder
    from memoryd.storage.membership import Memberships

EXIT_BAD_INPUT = 2
EXIT_FAILURE = 1
MIN_ID_PREFIX = 6
SHORT_ID_CHARS = 8
DEBUG_ENV = "MEMORYD_DEBUG"
T = TypeVar("T")
Column = tuple[str, bool, Callable[[T], str]]  # see column_table

DbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        metavar="URL",
        envvar="MEMORYD_DATABASE_URL",
        show_envvar=True,
        help="SQLAlchemy database URL (default: memoryd.db under the user data directory).",
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]
UserOption = Annotated[
    str, typer.Option("--user", "-u", metavar="NAME", help="The user (by name) to act for.")
]


def workspace_option(help: str) -> Any:
    """``--workspace SLUG`` (``-w``), with what it means to this command."""
    return typer.Option("--workspace", "-w", metavar="SLUG", help=help)


# errors ------------------------------------------------------------------------------
MAX_ERROR_CHARS = 400


def one_line(message: str) -> str:
    """A message folded onto one line, with anything unprintable escaped. A message
    quoting a huge value (a 100 kB name) keeps its start and end, which say what went
    wrong and how to fix it, and loses its middle."""
    flat = " ".join(message.split())
    flat = flat.encode("utf-8", "backslashreplace").decode("utf-8")
    if len(flat) <= MAX_ERROR_CHARS:
        return flat
    head, tail = flat[:250], flat[-100:]
    return f"{head}…[{len(flat) - 350} characters left out]…{tail}"


def fail(message: str, code: int = EXIT_BAD_INPUT) -> NoReturn:
    typer.echo(f"error: {one_line(message)}", err=True)
    raise typer.Exit(code)


def shown_argument(arg: str) -> str:
    """An argument as the bytes the user typed, escaped (``caf\\xe9``)."""
    try:
        raw = arg.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        raw = arg.encode("utf-8", "backslashreplace")
    return raw.decode("ascii", "backslashreplace")


def has_surrogates(text: str) -> bool:
    return any(0xD800 <= ord(ch) <= 0xDFFF for ch in text)


def require_utf8(text: str, what: str) -> str:
    if has_surrogates(text):
        raise InvalidInput(f'{what} "{shown_argument(text)}" is not valid UTF-8 text')
    return text


def usage_error_line(exc: typer.TyperException) -> str:
    """What the option parser refused, as one line naming the command, e.g. ``memoryd
    runs: no such option: --bogus (see memoryd runs --help)``.

    In the typer memoryd requires (0.29+), click ships inside typer and its exceptions
    derive from ``TyperException``; a ``UsageError`` carries the context of the command
    it was parsing (``ctx``).
    """
    message = exc.format_message().strip()
    possible = getattr(exc, "possibilities", None)  # an unknown option close to known ones
    if possible:
        message = f"{exc.message}. Did you mean {', '.join(sorted(possible))}?"
    cause = exc.__cause__
    pydantic = sys.modules.get("pydantic")  # loaded by whoever raised its ValidationError
    if pydantic is not None and isinstance(cause, pydantic.ValidationError) and cause.errors():
        # typer checks a value's type, range or choice with pydantic, whose message does
        # not quote the value typed ("Input should be a valid integer").
        given = cause.errors()[0].get("input")
        message = message.replace("Value error, ", "")
        if isinstance(given, str | int | float) and repr(given) not in message:
            if ": Input should" in message:
                message = message.replace(": Input should", f": {given!r} should", 1)
            else:
                message = f"{message.rstrip('.')} (got {given!r})"
    message = (message[:1].lower() + message[1:]).removesuffix(".")
    ctx = getattr(exc, "ctx", None)
    if ctx is None:
        return message
    line = f"{ctx.command_path}: {message}"
    if ctx.command.get_help_option(ctx) is not None:
        line += f" (see {ctx.command_path} {ctx.help_option_names[0]})"
    return line


def refuse_usage(exc: typer.TyperException) -> NoReturn:
    """End with the parser's complaint as one ``error:`` line and exit 2. A group called
    without its subcommand (``memoryd users``) has printed its help already; that stays."""
    if type(exc).__name__ == "NoArgsIsHelpError":
        raise exc
    fail(usage_error_line(exc))


class MemorydGroup(TyperGroup):
    """The root command group: refuses non-UTF-8 arguments and turns errors into one line.

    Usage errors are caught here, in both places click raises them: while parsing the root
    command's own options (``make_context``) and while resolving and parsing a subcommand
    (``invoke``), so typer never prints its boxed usage panel. Every command's help is
    folded as it is built (``fold_help``).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        fold_help(self)

    def make_context(
        self, info_name: str | None, args: list[str], parent: Any = None, **extra: Any
    ) -> Any:
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except typer.TyperException as exc:
            refuse_usage(exc)

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        for arg in args:
            if has_surrogates(arg):
                fail(
                    f'command-line argument "{shown_argument(arg)}" is not valid UTF-8 text; '
                    "nothing was changed"
                )
        return super().parse_args(ctx, args)

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except (typer.Exit, typer.Abort):
            raise
        except typer.TyperException as exc:
            refuse_usage(exc)
        except MemorydError as exc:
            fail(str(exc))
        except BrokenPipeError:
            # The reader went away (``memoryd export | head``): stop quietly.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            raise typer.Exit(EXIT_FAILURE) from None
        except Exception as exc:
            if os.environ.get(DEBUG_ENV):
                raise
            fail(*_failure(exc))


def _failure(exc: Exception) -> tuple[str, int]:
    """The line and exit code for an exception no command raised on purpose: a database
    error, a bad environment variable (exit 2), anything else."""
    import pydantic

    from memoryd.config import environment_error
    from memoryd.storage.opening import DatabaseError, first_line

    if isinstance(exc, DatabaseError):
        return f"database error: {first_line(exc)}", EXIT_FAILURE
    message = environment_error(exc) if isinstance(exc, pydantic.ValidationError) else None
    if message is not None:
        return message, EXIT_BAD_INPUT
    return (
        f"unexpected {type(exc).__name__}: {exc} (set {DEBUG_ENV}=1 to see the traceback)",
        EXIT_FAILURE,
    )


def fold_help(command: Any) -> None:
    """Make each paragraph of ``command``'s help, and its subcommands', one flowing line.

    typer keeps a docstring's line breaks after the first paragraph, so at 80 columns a
    line ran to the edge and wrapped, leaving one word alone on the next line. A line
    break before an indented line (an example, a list) stays.
    """
    if command.help:
        paragraphs = inspect.cleandoc(command.help).split("\n\n")
        command.help = "\n\n".join(re.sub(r"\n(?![ \t])", " ", p) for p in paragraphs)
    for sub in getattr(command, "commands", {}).values():
        fold_help(sub)


# the database --------------------------------------------------------------------------
def database_url(db: str | None) -> str:
    from memoryd.config import MemorydSettings

    url = db or MemorydSettings().resolved_database_url()
    return require_utf8(url, "database URL")


@cache
def shared_embedder() -> Embedder:
    """One embedder per process, the one ``MEMORYD_EMBEDDER`` names (an unknown name is
    an error here); the model loads on its first use, not here."""
    from memoryd.config import MemorydSettings
    from memoryd.plugins import embedder_factories, pick

    settings = MemorydSettings()
    embedder: Embedder = pick("embedder", settings.embedder, embedder_factories())(settings)
    return embedder


@contextmanager
def open_memoryd(db: str | None) -> Iterator[Memoryd]:
    """A Memoryd on the chosen database, opened (and migrated) now, closed afterwards."""
    from memoryd.app.service import Memoryd
    from memoryd.storage.opening import DatabaseError, first_line, safe_url

    url = database_url(db)
    with Memoryd(url, embedder=shared_embedder()) as md:
        try:
            md.db  # noqa: B018 - opening now turns a bad URL into one clear error
        except (DatabaseError, ValueError, OSError) as exc:
            raise InvalidInput(f"cannot open database {safe_url(url)}: {first_line(exc)}") from exc
        yield md


def find_user(md: Memoryd, name: str) -> User:
    return md.get_user(require_utf8(name, "user name"))


@contextmanager
def open_for(db: str | None, name: str) -> Iterator[tuple[Memoryd, User]]:
    """``open_memoryd`` and the user named ``name`` in it."""
    with open_memoryd(db) as md:
        yield md, find_user(md, name)


def as_operator(md: Memoryd, user: User) -> tuple[Site, Owner]:
    """What ``memoryd.access`` is given for the person at the terminal: this database,
    and ``user``'s memories as the operator (an admin, ``admin`` in the audit log)."""
    return operator_site(md), operator_owner(user)


def memberships(md: Memoryd) -> Memberships:
    from memoryd.storage.membership import Memberships

    return Memberships(md.db, clock=md.clock)


def require_member(
    md: Memoryd, user: User, slug: str, why: str = "these memories would never reach them"
) -> None:
    """Refuse a workspace the user may not use, as the REST API and the proxy do; ``why``
    says what refusing spares them."""
    md.get_workspace(require_utf8(slug, "workspace slug"))
    if not memberships(md).is_member(user, slug):
        raise PermissionDenied(
            f"{user.name} is not a member of workspace {slug!r}, so {why}; add them first: "
            f"memoryd workspaces members add {slug} {user.name}"
        )


def typed(ctx: typer.Context, names: Collection[str]) -> bool:
    """Whether any of these parameters was given on the command line (not a default)."""
    sources = [ctx.get_parameter_source(name) for name in names]
    return any(s is not None and s.name == "COMMANDLINE" for s in sources)


# memory ids ----------------------------------------------------------------------------
def resolve_id(
    given: str, known: Collection[str], owner: str, what: tuple[str, str] = ("memory", "memories")
) -> str:
    """A full id from a full id or a unique prefix of at least 6 characters; ``what``
    names the thing (singular, plural) in the errors."""
    one, many = what
    if given in known:
        return given
    if len(given) < MIN_ID_PREFIX:
        raise InvalidInput(
            f"{one} id {given!r} is too short: give the full id or a unique prefix of at "
            f"least {MIN_ID_PREFIX} characters"
        )
    matches = sorted(i for i in known if i.startswith(given))
    if not matches:
        raise NotFound(f"no {one} {given!r} for user {owner!r}")
    if len(matches) > 1:
        listed = ", ".join(m[: len(given) + 4] for m in matches[:5])
        raise InvalidInput(
            f"{one} id prefix {given!r} is ambiguous: it matches {len(matches)} {many} of "
            f"user {owner!r} ({listed}); give more characters"
        )
    return matches[0]


def resolve_memory(md: Memoryd, user: User, given: str) -> str:
    """The full id of one of this user's current memories (never anyone else's)."""
    return resolve_id(given, {m.id for m in md.list_memories(user.id)}, user.name)


def short_id_length(ids: Collection[str]) -> int:
    """The shortest prefix length (at least 8) that still tells these ids apart."""
    length = SHORT_ID_CHARS
    longest = max((len(i) for i in ids), default=0)
    while length < longest and len({i[:length] for i in ids}) < len(ids):
        length += 1
    return length


# input -------------------------------------------------------------------------------------
def read_text_input(source: str, what: str = "file") -> str:
    """The UTF-8 text of a file, or of stdin when ``source`` is ``-``."""
    if source == "-":
        data = typer.get_binary_stream("stdin").read()
        name = "standard input"
    else:
        path = Path(require_utf8(source, "file name"))
        name = str(path)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise InvalidInput(f"{what} {name!r} does not exist") from None
        except IsADirectoryError:
            raise InvalidInput(f"{what} {name!r} is a directory") from None
        except OSError as exc:
            raise InvalidInput(f"cannot read {what} {name!r}: {exc.strerror}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InvalidInput(
            f"{name} is not valid UTF-8 text (byte 0x{data[exc.start]:02x} on line {line})"
        ) from None


# output ------------------------------------------------------------------------------------
def _json_default(value: object) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, Enum):
        return value.value
    raise TypeError(f"cannot write {type(value).__name__} as JSON")


def emit_json(data: object) -> None:
    typer.echo(json.dumps(data, ensure_ascii=False, indent=2, default=_json_default))


def console() -> Console:
    return Console(highlight=False, soft_wrap=False)


echo = typer.echo  # plain text to stdout, never interpreted as markup


def emit(as_json: bool, data: object, shown: str | Table) -> None:
    """``data`` as JSON with ``--json``, else ``shown``: plain text, or a table."""
    if as_json:
        emit_json(data)
    elif isinstance(shown, str):
        echo(shown)
    else:
        console().print(shown)


def note(message: str) -> None:
    """A remark for the person at the terminal, on stderr so stdout stays data."""
    typer.echo(message, err=True)


def make_table(
    title: str | None, columns: Sequence[str], rows: Iterable[Sequence[object]] = ()
) -> Table:
    table = Table(title=title, title_justify="left", show_lines=False)
    for column in columns:
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(*(cell(value) for value in row))
    return table


def print_table(
    title: str | None, columns: Sequence[str], rows: Iterable[Sequence[object]]
) -> None:
    console().print(make_table(title, columns, rows))


def column_table(
    title: str, columns: Sequence[Column[Any]], items: Iterable[Any], **options: Any
) -> Table:
    """A table without side borders whose columns are ``(header, whether its cells stay
    on one line, the cell's text of an item)``, as narrow terminals need them."""
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, **options)
    for header, no_wrap, _ in columns:
        table.add_column(header, no_wrap=no_wrap, overflow="fold")
    for item in items:
        table.add_row(*(Text(text(item)) for _, _, text in columns))
    return table


def cell(value: object) -> Text:
    """A table cell holding exactly this text (``[bold]`` in a memory stays literal)."""
    if value is None:
        return Text("-")
    if isinstance(value, datetime):
        return Text(value.strftime("%Y-%m-%d %H:%M"))
    return Text(str(value))


# The person at the terminal administers the database; the audit log says so.
CLI_ACTOR = Actor(Source.ADMIN)


# help ------------------------------------------------------------------------------------
# typer's rich help prints a type for every option, so ``--json`` and even ``--help`` read
# ``<bool>`` as if they took a value; an on/off flag takes none, so it shows none.
_display_type_rich = TyperOption.display_type_rich


def _flag_type_rich(self: TyperOption, ctx: Any) -> str | None:
    return None if self.is_flag and not self.count else _display_type_rich(self, ctx)


TyperOption.display_type_rich = _flag_type_rich  # type: ignore[method-assign]


# the root command ------------------------------------------------------------------------
def _print_version(value: bool) -> None:
    if value:
        from memoryd import __version__

        typer.echo(f"memoryd {__version__}")
        raise typer.Exit()


def root_options(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Persistent per-user memory for LLM chat: manage users, workspaces and memories."""
