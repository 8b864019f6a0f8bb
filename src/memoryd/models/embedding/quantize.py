"""Derive a fast int8 MiniLM from the shipped model, once, into the data directory.

Why and what it gains: docs/reranking.md ("Speed"). The shipped graph's int8-to-fp32
expansions are folded into plain fp32 weights, the encoder is rebuilt with fused BERT
operators (``memoryd.models.embedding.graph``) and re-quantised dynamically.

Two variants: ``u8s8`` (int8 weights, fastest where the CPU has VNNI) and ``u8u8`` (uint8
weights). ``auto`` does not guess from CPU flags: ``measured_variant`` derives both once,
keeps those that agree with the reference model, times them and remembers the faster in
``<models dir>/kernels.json`` (per model, CPU model, onnxruntime version and threads).
The result is pinned by sha256; a mismatch (another onnx/onnxruntime producing a
different file) is rejected and the caller falls back to the shipped model.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from memoryd.models.embedding import graph

VARIANTS: dict[str, str] = {
    "u8s8": "4971688d38b9cabb2b363b0f6dfaaf976306e4dc8e4356184e0a41f4f46eb76e",
    "u8u8": "97b25acbbdaf2e9e74958bed5be6fd14b7949c1962cf1e2705e19e6fa473ec94",
}
# Short and long, several languages: what a turn embeds. A variant is timed on all of them.
TIMING_TEXTS = (
    "ok thanks",
    "When is the release of the billing service planned?",
    "I prefer answers in British English with short code samples, and no emojis please.",
    "Est-ce que tu te souviens de mon déménagement à Lyon l'année dernière ?",
    "我养了一只叫豆豆的柯基犬，它很喜欢在公园里跑。",
    "Can you summarise what we decided about the database migration on Monday, and who "
    "owns the follow-up tasks for the staging environment before the Q3 launch?",
)
log = logging.getLogger("memoryd")
CHOICES = ("auto", "u8s8", "u8u8", "off")  # an embedder's ``quantize`` (MEMORYD_EMBEDDER_QUANTIZE)


class QuantizationFailed(Exception):
    """The quantised model could not be made or did not match its pinned sha256."""


def check_choice(quantize: str) -> str:
    if quantize not in CHOICES:
        raise ValueError(f"quantize must be one of {', '.join(CHOICES)}")
    return quantize


def models_dir_or_default(models_dir: Path | None) -> Path:
    """``models_dir``, else ``<the default data dir>/models``."""
    if models_dir is not None:
        return models_dir
    from memoryd.config import default_data_dir

    return default_data_dir() / "models"


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def cpu_model(cpuinfo: Path = Path("/proc/cpuinfo")) -> str:
    """The CPU's model name (``platform.processor()`` where /proc/cpuinfo is missing)."""
    try:
        with cpuinfo.open() as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.partition(":")[2].strip()
    except OSError:
        pass
    import platform

    return platform.processor() or platform.machine()


def seconds_per_round(encode: Callable[[Sequence[str]], Any], rounds: int = 5) -> float:
    """The fastest of ``rounds`` passes over TIMING_TEXTS, one text per call as a turn
    embeds (the fastest, not the mean: other work on the machine only adds time)."""
    encode([TIMING_TEXTS[0]])  # first call allocates
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for text in TIMING_TEXTS:
            encode([text])
        best = min(best, time.perf_counter() - start)
    return best


def measured_variant(
    models_dir: Path, model: str, threads: int, trial: Callable[[str], float | None]
) -> str | None:
    """The variant that runs ``model`` fastest on this machine, or None if none is usable.

    ``trial(variant)`` derives the variant's file, checks its vectors against the
    reference and returns its ``seconds_per_round`` (None: it does not agree;
    QuantizationFailed: it cannot be made). The choice is kept in
    ``<models_dir>/kernels.json`` under the model, CPU model, onnxruntime version and
    thread count, so it is measured once per machine and library version.
    """
    import onnxruntime

    key = f"{model} | {cpu_model()} | onnxruntime {onnxruntime.__version__} | {threads} threads"
    record = models_dir / "kernels.json"
    try:
        choices = json.loads(record.read_text())
    except (OSError, ValueError):
        choices = {}
    if not isinstance(choices, dict):
        choices = {}
    entry = choices.get(key)
    if isinstance(entry, dict) and entry.get("variant") in VARIANTS:
        return str(entry["variant"])
    seconds: dict[str, float] = {}
    for variant in VARIANTS:
        try:
            took = trial(variant)
        except QuantizationFailed as exc:
            log.warning("embedding kernel %s of %s not usable: %s", variant, model, exc)
            continue
        if took is None:
            log.warning("embedding kernel %s of %s disagrees with the reference", variant, model)
        else:
            seconds[variant] = took
    if not seconds:
        return None
    best = min(seconds, key=lambda v: seconds[v])
    choices[key] = {
        "variant": best,
        "ms_per_round": {v: round(s * 1e3, 2) for v, s in seconds.items()},
    }
    with written_into_place(models_dir, record) as tmp:
        tmp.write_text(json.dumps(choices, indent=1, sort_keys=True) + "\n")
    return best


def quantized_path(models_dir: Path, variant: str) -> Path:
    return models_dir / f"all-MiniLM-L6-v2.fused-{variant}.onnx"


def ensure_quantized(source: Path, models_dir: Path, variant: str) -> Path:
    """The quantised model file, derived from ``source`` if it is not there yet.

    Safe to call from several processes at once: each writes a private temporary file
    and renames it into place.
    """
    if variant not in VARIANTS:
        raise QuantizationFailed(f"unknown quantisation variant {variant!r}")
    target = quantized_path(models_dir, variant)
    if target.is_file() and sha256_of(target) == VARIANTS[variant]:
        return target
    with written_into_place(models_dir, target) as tmp:
        _quantize(source, tmp, variant)
        got = sha256_of(tmp)
        if got != VARIANTS[variant]:
            raise QuantizationFailed(
                f"the quantised model's sha256 is {got}, expected {VARIANTS[variant]} "
                "(different onnx/onnxruntime versions?)"
            )
    return target


@contextmanager
def written_into_place(models_dir: Path, target: Path) -> Iterator[Path]:
    """An empty temporary file of this process beside ``target``, renamed into place when
    the block has written it without error (so processes deriving the same file at once
    never clash), else deleted."""
    try:
        models_dir.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=target.name, suffix=".tmp", dir=models_dir)
        os.close(fd)
    except OSError as exc:
        raise QuantizationFailed(f"cannot write to {models_dir}: {exc}") from exc
    tmp = Path(tmp_name)
    try:
        yield tmp
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def _quantize(source: Path, dest: Path, variant: str) -> None:
    try:
        import onnx
        from onnxruntime.quantization import quantize_dynamic  # noqa: F401
    except ImportError as exc:
        raise QuantizationFailed(f"onnx is needed to quantise the model: {exc}") from exc
    try:
        model = graph.rebuild(fold_weight_expansions(onnx.load(str(source))))
    except graph.UnexpectedGraph as exc:
        raise QuantizationFailed(f"cannot rebuild the model with fused operators: {exc}") from exc
    quantize_graph(model, dest, variant)


def quantize_graph(model: Any, dest: Path, variant: str) -> None:
    """onnxruntime's dynamic quantisation of a fused-operator graph into ``dest``, with
    per-channel int8 (``u8s8``) or uint8 (``u8u8``) weights."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # quantize_dynamic's root-logger advice, not for our users
    try:
        quantize_dynamic(
            model,
            dest,
            per_channel=True,
            weight_type=QuantType.QInt8 if variant == "u8s8" else QuantType.QUInt8,
            # the embedding tables stay fp32 (EmbedLayerNormalization has no int8 kernel)
            op_types_to_quantize=["MatMul", "Attention"],
            # contrib operators' outputs have no inferred type: they are all float
            extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
        )
    finally:
        root.setLevel(level)


def fold_weight_expansions(model: Any) -> Any:
    """Replace each ``Cast(int8 initializer) * scale`` by the fp32 weight it computes."""
    import numpy as np
    from onnx import TensorProto, numpy_helper

    graph = model.graph
    inits = {i.name: i for i in graph.initializer}
    consumers: dict[str, list[Any]] = {}
    for node in graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    dropped: set[int] = set()
    folded = []
    for node in graph.node:
        source = inits.get(node.input[0]) if node.op_type == "Cast" else None
        if source is None or source.data_type != TensorProto.INT8:
            continue
        users = consumers.get(node.output[0], [])
        if len(users) != 1 or users[0].op_type != "Mul":
            continue
        mul = users[0]
        scale_name = next(n for n in mul.input if n != node.output[0])
        if scale_name not in inits:
            continue
        weight = numpy_helper.to_array(source).astype(np.float32) * numpy_helper.to_array(
            inits[scale_name]
        )
        folded.append(numpy_helper.from_array(weight.astype(np.float32), mul.output[0]))
        dropped.update((id(node), id(mul)))
    kept_nodes = [n for n in graph.node if id(n) not in dropped]
    del graph.node[:]
    graph.node.extend(kept_nodes)
    graph.initializer.extend(folded)
    used = {name for n in graph.node for name in n.input} | {o.name for o in graph.output}
    kept_inits = [i for i in graph.initializer if i.name in used]
    del graph.initializer[:]
    graph.initializer.extend(kept_inits)
    return model
