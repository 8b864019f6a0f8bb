"""Export and import of memories, the user's own choices and recorded chats as JSON lines
(R12), one's own or, for admins, anyone's; docs/server.md (*Importing over HTTP*) says
what an import may hold.

What a caller may export and import is ``memoryd.access.transfer``'s; an import is all or
nothing (``memoryd.app.transfer``). The body is never held whole: it streams into a
temporary file and is read back a line at a time, split at LF only (a JSON string may hold
U+2028 or U+0085), each line checked for what the edge guard looks for in other bodies.
"""

# No "from __future__ import annotations": FastAPI must resolve the local OwnerDep alias.
from collections.abc import Callable, Iterator
from tempfile import SpooledTemporaryFile
from typing import IO, Annotated, BinaryIO, cast

from fastapi import APIRouter, Depends, Query, Request, Response, UploadFile
from starlette.concurrency import run_in_threadpool

from memoryd.access.callers import Owner
from memoryd.access.transfer import export_lines, import_file
from memoryd.app.transfer import parse_file
from memoryd.domain.errors import InvalidInput
from memoryd.server.deps import State
from memoryd.server.errors import ApiError
from memoryd.server.guard import body_problem, import_body
from memoryd.server.schemas import ImportOut

SPOOL_IN_MEMORY = 1_048_576  # a larger body goes to a temporary file on disk
# Enough for a full export (5 global + 20 per workspace, 50 workspaces by default);
# chat lines are not counted (they are not embedded), only their bytes.
MAX_IMPORT_LINES = 2_000
NDJSON = "application/x-ndjson"


def build_router(owner_dependency: Callable[..., Owner], *, prefix: str, tag: str) -> APIRouter:
    router = APIRouter(prefix=prefix, tags=[tag])
    OwnerDep = Annotated[Owner, Depends(owner_dependency)]

    @router.get(
        "/export",
        response_class=Response,
        summary="Memories, the user's own choices and recorded chats as JSON lines",
        responses={200: {"content": {NDJSON: {}}}},
    )
    def export(
        state: State,
        owner: OwnerDep,
        chats: Annotated[
            bool,
            Query(
                description="Include the user's recorded chats (default), or false to leave"
                " them out."
            ),
        ] = True,
    ) -> Response:
        """The first line is the user's preferences (``{"preferences": {"language":
        "default", "learn_from_chats": true, "memory_review": "default"}}``), then one line
        per memory, then one line per recorded chat (``{"chat": {"created_at", "id",
        "memory_ids", "memory_processed", "prompt", "response", "workspace"}}``, oldest
        first) unless ``chats=false``."""
        body = "".join(f"{line}\n" for line in export_lines(state, owner, chats=chats))
        name = f"memoryd-{owner.user.name}.jsonl"
        return Response(
            body,
            media_type=NDJSON,
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )

    @router.post(
        "/import",
        response_model=ImportOut,
        summary="Load JSON lines made by export (all or nothing)",
        openapi_extra={
            "requestBody": {
                "required": True,
                "content": {NDJSON: {"schema": {"type": "string"}}},
            }
        },
    )
    async def import_(
        request: Request,
        state: State,
        owner: OwnerDep,
        preferences: Annotated[
            bool,
            Query(
                description="Set the user's own choices from the file's preferences line"
                " (default), or false to leave the ones they have. A malformed preferences"
                " line is refused either way."
            ),
        ] = True,
        chats: Annotated[
            bool,
            Query(
                description="Add the file's chat lines to the user's recorded chats (default),"
                " or false to skip them. Malformed chat lines are refused either way."
            ),
        ] = True,
    ) -> ImportOut:
        """The body is a file from export (or written by hand): JSON lines, UTF-8, split at
        LF only. It may hold up to ``MEMORYD_MAX_IMPORT_BYTES`` (100 MB by default; 413
        past it, however the body is sent) and 2,000 memory lines (413 too); a bad line is
        a 422 naming it, and nothing is imported."""
        with SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY) as file:
            spool = UploadFile(cast(BinaryIO, file))  # writes to disk off the event loop
            async for chunk in import_body(request, state.settings.max_import_bytes):
                await spool.write(chunk)
            await spool.seek(0)
            return await run_in_threadpool(_import, state, owner, spool.file, preferences, chats)

    return router


def _lines(body: IO[bytes]) -> Iterator[str]:
    """The body's lines (blank ones too, so errors name the file's line numbers), split
    at LF only; each must be UTF-8 without a NUL or half a surrogate pair."""
    for number, raw in enumerate(body, start=1):
        problem = body_problem(raw, form=False)
        if problem is not None:
            raise ApiError(400, f"line {number}: {problem[0]}", code=problem[1])
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidInput(f"line {number}: the import file is not UTF-8 text") from None
        yield text.removesuffix("\n")


def _import(
    state: State, owner: Owner, body: IO[bytes], preferences: bool, chats: bool
) -> ImportOut:
    parsed = parse_file(_lines(body))  # before anything is embedded or looked up
    count = len(parsed.records)
    if count > MAX_IMPORT_LINES:
        raise ApiError(
            413,
            f"an import holds at most {MAX_IMPORT_LINES} memory lines, this one has {count}; "
            "split the file",
        )
    result = import_file(state, owner, parsed, preferences=preferences, chats=chats)
    return ImportOut.model_validate(result, from_attributes=True)
