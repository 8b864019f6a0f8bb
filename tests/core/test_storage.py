"""Opening databases: migrations, the default location, the embedder's integrity checks."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memoryd import Memoryd
from memoryd.config import MemorydSettings
from memoryd.models.embedding.minilm import EmbedderUnavailable, MiniLMEmbedder
from memoryd.storage import Database


def test_migrations_reach_head_on_both_backends(empty_db_url: str) -> None:
    db = Database.open(empty_db_url)
    assert db.current_revision() == db.head_revision() is not None
    db.upgrade()  # idempotent
    Database.open(empty_db_url).upgrade()  # a second process finds nothing to do
    db.dispose()


def test_default_location_comes_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, embedder: MiniLMEmbedder
) -> None:
    monkeypatch.setenv("MEMORYD_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("MEMORYD_DATABASE_URL", raising=False)
    md = Memoryd(embedder=embedder)
    assert md.url == f"sqlite:///{tmp_path / 'data' / 'memoryd.db'}"
    md.create_user("alice")
    assert (tmp_path / "data" / "memoryd.db").is_file()
    monkeypatch.setenv("MEMORYD_DATABASE_URL", "sqlite:///elsewhere.db")
    assert MemorydSettings().resolved_database_url() == "sqlite:///elsewhere.db"


def test_sqlite_uses_wal(sqlite_md: Memoryd) -> None:
    with sqlite_md.db.read() as repo:
        assert repo.conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"


def test_embedder_produces_normalised_vectors(embedder: MiniLMEmbedder) -> None:
    vectors = embedder.embed(["Phoenix ships in Q3", "When is the release?", "I like cats"])
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]
    assert embedder.embed([]).shape == (0, 384)


def test_damaged_model_files_are_refused(tmp_path: Path) -> None:
    bad = tmp_path / "model.onnx"
    bad.write_bytes(b"not a model")
    with pytest.raises(EmbedderUnavailable, match="damaged"):
        MiniLMEmbedder(model_path=bad).embed(["x"])
    with pytest.raises(EmbedderUnavailable, match="not found"):
        MiniLMEmbedder(model_path=tmp_path / "missing.onnx").embed(["x"])
