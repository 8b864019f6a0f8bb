"""bench/genres.py runs end to end on every genre with a scripted LLM, side by side with a
baseline revision, and writes the file the hand audit and the matcher check draw from.

The LLM is the scripted OpenAI-compatible server answering like ``EchoExtractor`` (every
user sentence a project fact), so the run is quick and the same every time; the bundled
model is for the benchmark itself.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from memoryd.testing import FakeOpenAIServer
from memoryd.testing.echo_extraction import EchoExtractor

BENCH = Path(__file__).resolve().parents[2] / "bench"


def bench_module(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


genres = bench_module("genres")
pytestmark = pytest.mark.skipif(
    not genres.genre_sets.DATASETS.is_dir(), reason="no data sets to convert"
)


@pytest.fixture
def scripted_llm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as srv:
        srv.responder = EchoExtractor()
        monkeypatch.delenv("MEMORYD_DATABASE_URL", raising=False)
        for key, value in {
            "MEMORYD_DATA_DIR": str(tmp_path),
            "MEMORYD_LLM_PROVIDER": "openai",
            "MEMORYD_LLM_MODEL": "fake-model",
            "MEMORYD_LLM_BASE_URL": srv.base_url,
            "MEMORYD_LLM_API_KEY": "sk-genres-test-key-0000000000",
            "MEMORYD_LLM_TIMEOUT": "5",
            "MEMORYD_PASTIME_MEMORIES_PER_RUN": "0",
        }.items():
            monkeypatch.setenv(key, value)
        yield srv


def test_every_genre_runs_and_is_tabled_with_a_macro_mean(
    scripted_llm: FakeOpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run.json"
    args = ["--limit", "1", "--max-sessions", "2", "--json", str(out)]
    assert genres.main(args) == 0
    printed = capsys.readouterr().out
    table = printed.split("== dev split")[1]
    for row in ["persona", "realmem", "memorycode", "xpersona-fr", "xpersona-zh",
                "xpersona (mean)", "macro mean"]:  # fmt: skip
        assert f"\n{row} " in table, row
    report = json.loads(out.read_text())
    summaries = report["summaries"]["current"]
    assert summaries["macro mean"]["conversations"] == 3 + 7
    assert summaries["memorycode"]["sessions"] and not summaries["persona"]["sessions"]
    memories = report["memories"]
    assert {m["genre"] for m in memories} >= {"realmem", "memorycode"}
    assert {m["verdict"] for m in memories} <= {"correct", "wrong-subject", "stale",
                                                 "unsupported"}  # fmt: skip
    convs = {(c["genre"], c["conversation"]): c for c in report["conversations"]}
    assert all((m["genre"], m["conversation"]) in convs for m in memories)
    # the echo model stores user sentences only, never the assistant's replies
    said = {g: " ".join(c["user_turns"]) for g, c in convs.items()}
    assert all(m["memory"].split('"')[1][:20] in said[(m["genre"], m["conversation"])]
               for m in memories if m["memory"].startswith("The user said:"))  # fmt: skip

    # the hand audit and the matcher check draw from this file
    audit = bench_module("audit_sample").draw(report, 6, seed=1)
    assert len(audit) == 6 and len({a["genre"] for a in audit}) >= 2
    assert all(a["verdict"] == "" and a["note"] == "" and a["user_text"] for a in audit)
    assert audit == bench_module("audit_sample").draw(report, 6, seed=1)
    pairs = bench_module("matcher_check").draw(report, 4, seed=1)
    assert set(pairs) <= {m["genre"] for m in memories} and pairs
    for genre_pairs in pairs.values():
        assert 1 <= len(genre_pairs) <= 4
        assert all(p["same_fact_by_hand"] is None and p["fact"] for p in genre_pairs)
        assert all(p["matcher_says_same"] == (p["similarity"] >= 0.6) for p in genre_pairs)


def test_a_baseline_revision_runs_beside_the_current_one(
    scripted_llm: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert genres.main(["--genres", "persona", "--limit", "1", "--baseline-rev", "HEAD"]) == 0
    table = capsys.readouterr().out.split("== dev split")[1]
    assert "baseline (HEAD)" in table
    row = next(line for line in table.splitlines() if line.startswith("persona "))
    assert row.count(" / ") == len(genres.COLUMNS)


def test_a_genre_without_memories_has_no_precision_and_stays_out_of_the_means() -> None:
    evaluation = genres._evaluation()

    def rows(memories: int, correct: int) -> list[dict[str, object]]:
        row = evaluation.ConversationResult(id="c", facts=2, memories=["m"] * memories,
                                            correct=correct, facts_found=correct)  # fmt: skip
        return evaluation.result_rows([row])  # type: ignore[no-any-return]

    out = genres.summaries({"xpersona-fr": rows(2, 1), "xpersona-ja": rows(0, 0)})
    assert out["xpersona (mean)"]["precision"] == 0.5  # not (0.5 + 0) / 2
    assert out["xpersona (mean)"]["recall"] == 0.25  # recall has its facts: 0 counts
    line = next(r for r in genres.table(out, None).splitlines() if r.startswith("xpersona-ja"))
    assert line.split()[1:4] == ["1", "0", "-"]
