"""Rebuild the MiniLM encoder from its weights with onnxruntime's fused BERT operators.

The shipped torch export spends each layer's attention in some 25 small operators that
onnxruntime's optimisers do not recognise (docs/reranking.md, "Speed"); here the same
weights go into the canonical BERT graph onnxruntime has kernels for (``build``), which
dynamic quantisation then turns into ``QAttention`` and integer MatMuls. ``rebuild``
checks its result against the source graph on a few token sequences (padded batch
included), so a model laid out differently than expected is refused, not mis-wired.

The residual adds and layer norms stay plain ``Add`` + ``LayerNormalization`` on purpose:
onnxruntime's fused ``SkipLayerNormalization`` CPU kernel is about 4x slower than the
two (onnxruntime 1.32: 61-72 us against 16 us for 22 tokens), so sessions disable the
fusion that would create it (``SLOW_FUSIONS``; measured in BENCHMARKS.md, "Speed").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

NUM_HEADS = 12  # all-MiniLM-L6-v2: 384 hidden = 12 heads x 32
LAYER_NORM_EPSILON = 1e-12
SLOW_FUSIONS = ["SkipLayerNormFusion"]  # onnxruntime optimisers that make this model slower
_PREFIX = re.compile(r"^(.*)encoder\.layer\.(\d+)\.attention\.self\.query\.bias$")
_MS = "com.microsoft"

Array = npt.NDArray[Any]


def session(model: str | bytes, threads: int = 1, disabled: Sequence[str] = SLOW_FUSIONS) -> Any:
    """An onnxruntime CPU session on ``threads`` threads, without the ``disabled`` fusions."""
    import onnxruntime

    opts = onnxruntime.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    return onnxruntime.InferenceSession(
        model, sess_options=opts, providers=["CPUExecutionProvider"], disabled_optimizers=disabled
    )


class UnexpectedGraph(Exception):
    """The source model is not laid out as the rebuild expects, or the rebuilt graph
    does not compute what the source does."""


@dataclass(frozen=True)
class Weights:
    """A BERT encoder's parameters, by the names the Hugging Face export gives them."""

    prefix: str  # what comes before "embeddings." / "encoder." in initializer names
    layers: int
    arrays: dict[str, Array]
    matmul_weight: dict[str, Array]  # bias name -> the weight of the MatMul it is added to

    def get(self, name: str) -> Array:
        try:
            return self.arrays[self.prefix + name]
        except KeyError:
            raise UnexpectedGraph(f"the model has no initializer {self.prefix + name}") from None

    def dense(self, bias: str) -> Array:
        try:
            return self.matmul_weight[self.prefix + bias]
        except KeyError:
            raise UnexpectedGraph(f"no MatMul feeds the bias {self.prefix + bias}") from None


def read_weights(model: Any) -> Weights:
    """The encoder's parameters from a graph whose weights are plain fp32 initializers
    (``quantize.fold_weight_expansions`` makes the shipped graph so)."""
    from onnx import numpy_helper

    graph = model.graph
    arrays = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    layers: dict[int, str] = {}
    for name in arrays:
        found = _PREFIX.match(name)
        if found:
            layers[int(found.group(2))] = found.group(1)
    if not layers or sorted(layers) != list(range(len(layers))) or len(set(layers.values())) > 1:
        raise UnexpectedGraph("the model's encoder layers are not numbered as expected")
    producer = {out: node for node in graph.node for out in node.output}
    matmul_weight: dict[str, Array] = {}
    for node in graph.node:
        if node.op_type != "Add" or len(node.input) != 2:
            continue
        first, second = node.input
        for bias, other in ((first, second), (second, first)):
            source = producer.get(other)
            if (
                bias in arrays
                and source is not None
                and source.op_type == "MatMul"
                and source.input[1] in arrays
            ):
                matmul_weight[bias] = arrays[source.input[1]]
    return Weights(layers[0], len(layers), arrays, matmul_weight)


def rebuild(model: Any) -> Any:
    """The fused-operator graph computing what ``model`` computes (checked)."""
    fused = build(read_weights(model), model)
    check_same_function(model, fused)
    return fused


def build(weights: Weights, source: Any) -> Any:
    """The canonical graph, with ``source``'s inputs and output (names, types, shapes)."""
    from onnx import TensorProto, helper, numpy_helper

    nodes: list[Any] = []
    initializers: list[Any] = []

    def const(name: str, value: Array) -> str:
        array = np.ascontiguousarray(value, dtype=np.float32)
        initializers.append(numpy_helper.from_array(array, name))
        return name

    def node(op: str, inputs: list[str], output: str, domain: str = "", **attrs: Any) -> str:
        outputs = [output, ""] if op == "EmbedLayerNormalization" else [output]  # no mask_index
        nodes.append(helper.make_node(op, inputs, outputs, domain=domain, **attrs))
        return output

    def add_norm(x: str, residual: str, bias: str, norm: str, out: str) -> str:
        biased = node("Add", [x, const(f"{out}.bias", weights.get(bias))], f"{out}.biased")
        summed = node("Add", [biased, residual], f"{out}.sum")
        gamma = const(f"{out}.gamma", weights.get(f"{norm}.weight"))
        beta = const(f"{out}.beta", weights.get(f"{norm}.bias"))
        return node(
            "LayerNormalization", [summed, gamma, beta], out, axis=-1, epsilon=LAYER_NORM_EPSILON
        )

    def matmul(x: str, bias: str, out: str) -> str:
        """``x`` times the weight of the MatMul that ``bias`` is added to in the source."""
        return node("MatMul", [x, const(f"{out}.weight", weights.dense(bias))], out)

    for name in ("input_ids", "token_type_ids", "attention_mask"):
        node("Cast", [name], f"{name}.int32", to=TensorProto.INT32)
    hidden = node(
        "EmbedLayerNormalization",
        [
            "input_ids.int32",
            "token_type_ids.int32",
            const("embeddings.word", weights.get("embeddings.word_embeddings.weight")),
            const("embeddings.position", weights.get("embeddings.position_embeddings.weight")),
            const("embeddings.token_type", weights.get("embeddings.token_type_embeddings.weight")),
            const("embeddings.gamma", weights.get("embeddings.LayerNorm.weight")),
            const("embeddings.beta", weights.get("embeddings.LayerNorm.bias")),
        ],
        "embeddings",
        domain=_MS,
        epsilon=LAYER_NORM_EPSILON,
    )

    output_name = source.graph.output[0].name
    for n in range(weights.layers):
        layer = f"encoder.layer.{n}."
        parts = [f"{layer}attention.self.{p}.bias" for p in ("query", "key", "value")]
        qkv_weight = np.concatenate([weights.dense(p) for p in parts], axis=1)
        qkv_bias = np.concatenate([weights.get(p) for p in parts])
        qkv = [const(f"l{n}.qkv.weight", qkv_weight), const(f"l{n}.qkv.bias", qkv_bias)]
        attention = [hidden, *qkv, "attention_mask.int32"]
        attended = node("Attention", attention, f"l{n}.attention", domain=_MS, num_heads=NUM_HEADS)
        out, inner = f"{layer}attention.output.", f"{layer}intermediate.dense.bias"
        projected = matmul(attended, f"{out}dense.bias", f"l{n}.out")
        hidden_1 = add_norm(projected, hidden, f"{out}dense.bias", f"{out}LayerNorm", f"l{n}.norm1")
        up = matmul(hidden_1, inner, f"l{n}.up")
        up_bias = const(f"l{n}.up.bias", weights.get(inner))
        activated = node("BiasGelu", [up, up_bias], f"l{n}.gelu", domain=_MS)
        down = matmul(activated, f"{layer}output.dense.bias", f"l{n}.down")
        last = output_name if n == weights.layers - 1 else f"l{n}.norm2"
        hidden = add_norm(
            down, hidden_1, f"{layer}output.dense.bias", f"{layer}output.LayerNorm", last
        )
    graph = helper.make_graph(
        nodes, "all-MiniLM-L6-v2", list(source.graph.input), [source.graph.output[0]], initializers
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(_MS, 1)]
    )
    model.ir_version = source.ir_version
    return model


# token ids of three short texts; the batch of the last two is padded, as embed() pads
_CHECK_BATCHES = (
    [[101, 7592, 2088, 102]],
    [[101, 1996, 13541, 2003, 2006, 2240, 2382, 102], [101, 2748, 102, 0, 0, 0, 0, 0]],
)


def check_same_function(source: Any, fused: Any, tolerance: float = 1e-3) -> None:
    """Both graphs, run in fp32, give the same hidden states for every real token."""
    sessions = [session(m.SerializeToString(), disabled=()) for m in (source, fused)]
    for batch in _CHECK_BATCHES:
        ids = np.array(batch, dtype=np.int64)
        mask = (ids != 0).astype(np.int64)
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        expected, got = (s.run(None, feed)[0] for s in sessions)
        if got.shape != expected.shape:
            raise UnexpectedGraph(f"rebuilt graph gives shape {got.shape}, not {expected.shape}")
        error = float(np.abs((got - expected)[mask.astype(bool)]).max())
        if not error <= tolerance:
            raise UnexpectedGraph(f"rebuilt graph differs from the source by {error:.2g}")
