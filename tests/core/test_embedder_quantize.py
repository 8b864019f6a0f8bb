"""The re-quantised embedder: derived once into the data directory, pinned, close to the
shipped model, and never a reason the embedder fails."""

from __future__ import annotations

import json
import logging
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from memoryd.models.embedding import graph, quantize
from memoryd.models.embedding.minilm import MIN_COSINE, MiniLMEmbedder, default_model_path

TEXTS = [
    "Phoenix ships in Q3",
    "When is the release of the billing service planned?",
    "I prefer answers in British English with short code samples",
    "ok",
]


@pytest.fixture(scope="module")
def models_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("models")


@pytest.fixture(scope="module")
def shipped() -> np.ndarray:
    return MiniLMEmbedder(quantize="off").embed(TEXTS)


@pytest.mark.parametrize("variant", ["u8s8", "u8u8"])
def test_quantised_model_is_pinned_and_agrees_with_the_shipped_one(
    variant: str, models_dir: Path, shipped: np.ndarray
) -> None:
    embedder = MiniLMEmbedder(quantize=variant, models_dir=models_dir)
    vectors = embedder.embed(TEXTS)
    assert embedder.variant == variant
    path = quantize.quantized_path(models_dir, variant)
    assert quantize.sha256_of(path) == quantize.VARIANTS[variant]
    cosines = (vectors * shipped).sum(axis=1)
    # Without int8 dot-product instructions (VNNI), u8s8's kernels saturate int16 sums and
    # drift further; "auto" then measures it below MIN_COSINE and does not use it.
    assert cosines.min() > 0.95, cosines
    assert vectors.tobytes() != shipped.tobytes()  # really another graph
    assert not list(models_dir.glob("*.tmp"))


@pytest.mark.parametrize("variant", ["u8s8", "u8u8", "off"])
def test_a_texts_vector_does_not_depend_on_the_texts_beside_it(
    variant: str, models_dir: Path
) -> None:
    """The re-quantised graph scales its activations per call: batched, a text's vector
    moved with its neighbours and their padding (cosine 0.97-0.99 with itself)."""
    embedder = MiniLMEmbedder(quantize=variant, models_dir=models_dir)
    alone = np.stack([embedder.embed([text])[0] for text in TEXTS])
    together = embedder.embed(TEXTS)
    reversed_ = embedder.embed(TEXTS[::-1])[::-1]
    assert together.tobytes() == alone.tobytes() == reversed_.tobytes()
    # and they are still sentence vectors (padding every text to the same length, say,
    # would pass the line above and ruin them)
    pets, cats, weather = embedder.embed(["Do you have pets?", "I have two cats.", "Nice day"])
    assert pets @ cats > 0.45 and pets @ weather < 0.25


def test_a_damaged_quantised_file_is_derived_again(models_dir: Path) -> None:
    MiniLMEmbedder(quantize="u8u8", models_dir=models_dir).embed(["x"])
    path = quantize.quantized_path(models_dir, "u8u8")
    path.write_bytes(b"tampered")
    embedder = MiniLMEmbedder(quantize="u8u8", models_dir=models_dir)
    embedder.embed(["x"])
    assert embedder.variant == "u8u8"
    assert quantize.sha256_of(path) == quantize.VARIANTS["u8u8"]


def test_unwritable_models_dir_falls_back_to_the_shipped_model(
    tmp_path: Path, shipped: np.ndarray, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the models directory should be")
    embedder = MiniLMEmbedder(quantize="auto", models_dir=blocker / "models")
    with caplog.at_level(logging.WARNING, logger="memoryd"):
        vectors = embedder.embed(TEXTS)
    assert embedder.variant == "shipped"
    assert np.array_equal(vectors, shipped)
    assert "slower shipped embedding model" in caplog.text


def test_a_result_not_matching_its_pin_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(quantize.VARIANTS, "u8u8", "0" * 64)
    with pytest.raises(quantize.QuantizationFailed, match="sha256"):
        quantize.ensure_quantized(default_model_path(), tmp_path, "u8u8")
    assert not list(tmp_path.iterdir())


def test_auto_uses_the_variant_measured_here_and_it_agrees(
    models_dir: Path, shipped: np.ndarray
) -> None:
    embedder = MiniLMEmbedder(quantize="auto", models_dir=models_dir)
    vectors = embedder.embed(TEXTS)
    record = json.loads((models_dir / "kernels.json").read_text())
    (entry,) = record.values()
    assert embedder.variant == entry["variant"] in quantize.VARIANTS
    assert (vectors * shipped).sum(axis=1).min() >= MIN_COSINE


def test_the_faster_agreeing_variant_is_chosen_once_per_machine(tmp_path: Path) -> None:
    timed: list[str] = []

    def trial(variant: str) -> float | None:
        timed.append(variant)
        return {"u8s8": 0.010, "u8u8": 0.012}[variant]

    assert quantize.measured_variant(tmp_path, "m", 1, trial) == "u8s8"
    assert quantize.measured_variant(tmp_path, "m", 1, trial) == "u8s8"
    assert sorted(timed) == ["u8s8", "u8u8"]  # measured once, then read back
    assert quantize.measured_variant(tmp_path, "m", 2, trial) == "u8s8"
    assert len(timed) == 4  # another thread count is another measurement
    assert not list(tmp_path.glob("*.tmp"))


def test_a_faster_variant_that_disagrees_or_fails_is_not_chosen(tmp_path: Path) -> None:
    def disagrees(variant: str) -> float | None:
        return None if variant == "u8s8" else 0.012

    assert quantize.measured_variant(tmp_path, "a", 1, disagrees) == "u8u8"

    def fails(variant: str) -> float | None:
        raise quantize.QuantizationFailed("no onnx")

    assert quantize.measured_variant(tmp_path, "b", 1, fails) is None


def test_a_damaged_choice_file_is_measured_again(tmp_path: Path) -> None:
    (tmp_path / "kernels.json").write_text("{not json")
    assert quantize.measured_variant(tmp_path, "m", 1, lambda v: 0.01) in quantize.VARIANTS
    assert json.loads((tmp_path / "kernels.json").read_text())


def test_unknown_choice_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="quantize must be one of"):
        MiniLMEmbedder(quantize="fp16")


def test_the_rebuilt_graph_computes_what_the_shipped_one_does(
    tmp_path: Path, shipped: np.ndarray
) -> None:
    import onnx

    source = quantize.fold_weight_expansions(onnx.load(str(default_model_path())))
    rebuilt = graph.rebuild(source)
    ops = Counter(node.op_type for node in rebuilt.graph.node)
    assert ops["Attention"] == 6 and ops["EmbedLayerNormalization"] == 1
    assert len(rebuilt.graph.node) < len(source.graph.node) / 3
    path = tmp_path / "rebuilt-fp32.onnx"
    onnx.save(rebuilt, str(path))
    vectors = MiniLMEmbedder(model_path=path, verify=False).embed(TEXTS)
    cosines = (vectors * shipped).sum(axis=1)
    assert cosines.min() > 0.9999, cosines


def test_a_rebuild_that_computes_something_else_is_refused(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    shipped: np.ndarray,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setattr(graph, "NUM_HEADS", 6)  # a plausible mistake: wrong head count
    embedder = MiniLMEmbedder(quantize="u8s8", models_dir=tmp_path)
    with caplog.at_level(logging.WARNING, logger="memoryd"):
        vectors = embedder.embed(TEXTS)
    assert "rebuilt graph differs from the source" in caplog.text
    assert embedder.variant == "shipped"
    assert np.array_equal(vectors, shipped)
    assert not list(tmp_path.iterdir())


def test_a_model_laid_out_differently_is_refused() -> None:
    import onnx

    model = quantize.fold_weight_expansions(onnx.load(str(default_model_path())))
    for init in model.graph.initializer:
        init.name = init.name.replace("intermediate.dense.bias", "ffn.bias")
    with pytest.raises(graph.UnexpectedGraph, match=r"intermediate\.dense\.bias"):
        graph.rebuild(model)
