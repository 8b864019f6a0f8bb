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
from collections.abc import Callable, Sequence
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
Param = Callable[[int, str], Array]  # a weight by layer and name (``Builder.encoder``)


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


class Builder:
    """A fused-operator BERT graph being built: MiniLM's (``build``) and e5's
    (``memoryd.models.embedding.e5_graph``) differ only in their input and weights."""

    def __init__(self) -> None:
        self.nodes: list[Any] = []
        self.initializers: list[Any] = []

    def const(self, name: str, value: Array) -> str:
        from onnx import numpy_helper

        array = np.ascontiguousarray(value, dtype=np.float32)
        self.initializers.append(numpy_helper.from_array(array, name))
        return name

    def node(self, op: str, inputs: list[str], output: str, domain: str = "", **attrs: Any) -> str:
        from onnx import helper

        outputs = [output, ""] if op == "EmbedLayerNormalization" else [output]  # no mask_index
        self.nodes.append(helper.make_node(op, inputs, outputs, domain=domain, **attrs))
        return output

    def encoder(
        self, hidden: str, layers: int, heads: int, epsilon: float, param: Param, output: str
    ) -> str:
        """``layers`` encoder layers over ``hidden`` (the last one's output is ``output``).
        ``param(layer, key)`` gives a layer's weights, ``.w`` (a matrix: input x output)
        and ``.b`` of ``q``, ``k``, ``v``, ``out``, ``up``, ``down``, ``norm1``, ``norm2``."""

        def add_norm(x: str, residual: str, n: int, bias: str, norm: str, out: str) -> str:
            biased = self.node(
                "Add", [x, self.const(f"{out}.bias", param(n, bias))], f"{out}.biased"
            )
            summed = self.node("Add", [biased, residual], f"{out}.sum")
            gamma = self.const(f"{out}.gamma", param(n, f"{norm}.w"))
            beta = self.const(f"{out}.beta", param(n, f"{norm}.b"))
            return self.node(
                "LayerNormalization", [summed, gamma, beta], out, axis=-1, epsilon=epsilon
            )

        def matmul(x: str, n: int, part: str, out: str) -> str:
            return self.node("MatMul", [x, self.const(f"{out}.weight", param(n, f"{part}.w"))], out)

        for n in range(layers):
            qkv_weight = np.concatenate([param(n, f"{p}.w") for p in "qkv"], axis=1)
            qkv_bias = np.concatenate([param(n, f"{p}.b") for p in "qkv"])
            qkv = [
                self.const(f"l{n}.qkv.weight", qkv_weight),
                self.const(f"l{n}.qkv.bias", qkv_bias),
            ]
            attention = [hidden, *qkv, "attention_mask.int32"]
            attended = self.node(
                "Attention", attention, f"l{n}.attention", domain=_MS, num_heads=heads
            )
            projected = matmul(attended, n, "out", f"l{n}.out")
            hidden_1 = add_norm(projected, hidden, n, "out.b", "norm1", f"l{n}.norm1")
            up = matmul(hidden_1, n, "up", f"l{n}.up")
            up_bias = self.const(f"l{n}.up.bias", param(n, "up.b"))
            activated = self.node("BiasGelu", [up, up_bias], f"l{n}.gelu", domain=_MS)
            down = matmul(activated, n, "down", f"l{n}.down")
            last = output if n == layers - 1 else f"l{n}.norm2"
            hidden = add_norm(down, hidden_1, n, "down.b", "norm2", last)
        return hidden

    def model(self, name: str, inputs: list[Any], outputs: list[Any], ir_version: int) -> Any:
        from onnx import helper

        graph = helper.make_graph(self.nodes, name, inputs, outputs, self.initializers)
        opsets = [helper.make_opsetid("", 17), helper.make_opsetid(_MS, 1)]
        model = helper.make_model(graph, opset_imports=opsets)
        model.ir_version = ir_version
        return model


# the Hugging Face export's name of each part of an encoder layer (``Builder.encoder``)
_HF_PARTS = {
    "q": "attention.self.query", "k": "attention.self.key", "v": "attention.self.value",
    "out": "attention.output.dense", "norm1": "attention.output.LayerNorm",
    "up": "intermediate.dense", "down": "output.dense", "norm2": "output.LayerNorm",
}  # fmt: skip


def build(weights: Weights, source: Any) -> Any:
    """The canonical graph, with ``source``'s inputs and output (names, types, shapes)."""
    from onnx import TensorProto

    def param(n: int, key: str) -> Array:
        part, kind = key.split(".")
        name = f"encoder.layer.{n}.{_HF_PARTS[part]}"
        if kind == "w" and "norm" not in part:  # the weight of the MatMul the bias is added to
            return weights.dense(f"{name}.bias")
        return weights.get(f"{name}.{'weight' if kind == 'w' else 'bias'}")

    b = Builder()
    for name in ("input_ids", "token_type_ids", "attention_mask"):
        b.node("Cast", [name], f"{name}.int32", to=TensorProto.INT32)
    embedding = ("word", "position", "token_type")
    hidden = b.node(
        "EmbedLayerNormalization",
        [
            "input_ids.int32",
            "token_type_ids.int32",
            *(
                b.const(f"embeddings.{e}", weights.get(f"embeddings.{e}_embeddings.weight"))
                for e in embedding
            ),
            b.const("embeddings.gamma", weights.get("embeddings.LayerNorm.weight")),
            b.const("embeddings.beta", weights.get("embeddings.LayerNorm.bias")),
        ],
        "embeddings",
        domain=_MS,
        epsilon=LAYER_NORM_EPSILON,
    )
    output = source.graph.output[0]
    b.encoder(hidden, weights.layers, NUM_HEADS, LAYER_NORM_EPSILON, param, output.name)
    inputs = list(source.graph.input)
    return b.model("all-MiniLM-L6-v2", inputs, [output], source.ir_version)


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
