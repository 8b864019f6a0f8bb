"""``memoryd eval retrieval``: labelled turns run through ``Memoryd.context`` per reranker,
including a remote ``/rerank`` endpoint on loopback (real HTTP)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from memoryd.cli.app import app
from memoryd.domain.errors import InvalidInput
from memoryd.evaluation.retrieval import load_retrieval_set, measures
from memoryd.testing import FakeOpenAIServer, Reply
from support.rerank_server import rerank_server

MEMORIES = [
    "Sarah Chen is the legal contact for the Berlin office",
    "The quarterly budget is 120k EUR",
    "Deploys happen on Tuesdays after the standup",
    "The staging database runs PostgreSQL 16",
    "Our logo uses the colour teal",
    "The office dog is called Biscuit",
    "Invoices go out on the first of the month",
    "The team lunch is on Thursdays at noon",
]
# recency injects the 5 newest (indexes 7, 6, 5, 4, 3): only the lunch turn is right
TURNS = [
    {"message": "Who is our legal contact, Sarah?", "relevant": [0]},
    {"message": "How much money do we have this quarter?", "relevant": [1]},
    {
        "message": "And what day is it?",
        "history": [
            {"role": "user", "content": "Is there a team lunch this week?"},
            {"role": "assistant", "content": "Yes, the team has lunch together."},
        ],
        "relevant": [7],
    },
]


def pool(**changes: Any) -> dict[str, Any]:
    return {"id": "office", "memories": MEMORIES, "queries": TURNS, **changes}


def run(tmp_path: Path, *args: str, env: dict[str, str | None] | None = None) -> Result:
    return CliRunner().invoke(
        app,
        ["eval", "retrieval", *args],
        env={
            "MEMORYD_DATABASE_URL": None,
            "MEMORYD_DATA_DIR": str(tmp_path),
            "MEMORYD_RERANKER": None,
            "COLUMNS": "200",
            **(env or {}),
        },
    )


def write(tmp_path: Path, data: Any, name: str = "set.json") -> str:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)


def by_name(result: Result) -> dict[str, dict[str, Any]]:
    assert result.exit_code == 0, (result.stdout, result.stderr)
    return {row["reranker"]: row for row in json.loads(result.stdout)["rerankers"]}


def test_the_default_is_measured_against_recency_on_the_same_turns(tmp_path: Path) -> None:
    rows = by_name(run(tmp_path, "--dataset", write(tmp_path, {"pools": [pool()]}), "--json"))
    assert list(rows) == ["hybrid", "recency"]
    hybrid, recency = rows["hybrid"], rows["recency"]
    assert hybrid["turns"] == recency["turns"] == 3
    assert hybrid["recall_at_5"] == hybrid["hit_at_5"] == 1.0 and hybrid["fallbacks"] == 0
    # recency: right only on the lunch turn, where memory 7 is the newest (rank 1)
    assert recency["recall_at_5"] == recency["hit_at_5"] == recency["mrr_at_5"] == 0.3333
    assert hybrid["p50_ms"] > 0 and hybrid["p95_ms"] >= hybrid["p50_ms"]


def test_the_worst_turns_show_what_was_chosen_and_what_was_missed(tmp_path: Path) -> None:
    dataset = write(tmp_path, {"pools": [pool()]})
    result = run(tmp_path, "--dataset", dataset, "-r", "recency", "--misses", "5", "--json")
    (recency,) = by_name(result).values()
    assert [row["turn"] for row in recency["misses"]] == [0, 1]  # the lunch turn was right
    first = recency["misses"][0]
    assert first["message"] == TURNS[0]["message"] and first["recall_at_5"] == 0.0
    assert first["chosen"] == MEMORIES[7:2:-1] and first["missed"] == [MEMORIES[0]]
    text = run(tmp_path, "--dataset", dataset, "-r", "recency", "--misses", "1").stdout
    assert "recency: the 1 worst turns" in text and f"missed: {MEMORIES[0]}" in text
    assert f"missed: {MEMORIES[1]}" not in text


def test_a_remote_rerank_endpoint_is_measured_and_its_failures_counted(tmp_path: Path) -> None:
    # the fake scores a memory by the message's words it contains
    turns = [
        {"message": "legal contact sarah", "relevant": [0]},
        {"message": "quarterly budget", "relevant": [1]},
    ]
    lines = json.dumps(pool(queries=turns)) + "\n" + json.dumps(pool(id="again", queries=turns))
    dataset = write(tmp_path, lines, "set.jsonl")  # JSON lines: one pool per line
    with rerank_server() as server:
        env: dict[str, str | None] = {"MEMORYD_RERANK_URL": server.url}
        rows = by_name(run(tmp_path, "--dataset", dataset, "-r", "api", "--json", env=env))
        assert rows["api"]["turns"] == 4 and rows["api"]["fallbacks"] == 0
        assert rows["api"]["recall_at_5"] == rows["api"]["mrr_at_5"] == 1.0
        assert len(server.requests) == 4 and server.requests[0]["query"] == "legal contact sarah"

        server.status = 500
        result = run(tmp_path, "--dataset", dataset, "-r", "api", "-r", "lexical", env=env)
    assert result.exit_code == 1
    assert "api: 4 of 4 turns fell back to the newest memories" in result.stderr
    assert result.stderr.strip().splitlines()[-1] == (
        "error: every turn fell back with api: its figures are recency's"
    )
    assert "lexical" in result.stdout  # the table is printed before the verdict


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"pools": [pool(memories=MEMORIES[:5])]}, "pool office has 5 memories"),
        ({"pools": [pool(memories=[*MEMORIES, MEMORIES[0]])]}, "a memory appears twice"),
        ({"pools": [pool(memories=[*MEMORIES, "# heading"])]}, "pool office, memory 8: memory"),
        ({"pools": [pool(queries=[{"message": "hi", "relevant": [8]}])]}, "index 8 is not one"),
        ({"pools": [pool(queries=[{"message": "hi", "relevant": []}])]}, "relevant must be"),
        ({"pools": [pool(queries=[{"message": " ", "relevant": [1]}])]}, "message must be"),
        (
            {"pools": [pool(queries=[{"message": "hi", "relevant": [1], "history": ["x"]}])]},
            "history must be",
        ),
        ({"pools": []}, "holds no pools"),
        ({"pools": [pool(), pool()]}, "pool id 'office' appears twice"),
        ("{not json", "not JSON of pools"),
    ],
)
def test_a_bad_labelled_set_is_refused_in_one_line(tmp_path: Path, data: Any, message: str) -> None:
    result = run(tmp_path, "--dataset", write(tmp_path, data))
    assert result.exit_code == 2, (result.stdout, result.stderr)
    (line,) = result.stderr.strip().splitlines()[-1:]
    assert line.startswith("error: ") and message in line, line
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_unknown_and_unconfigured_rerankers_are_refused(tmp_path: Path) -> None:
    dataset = write(tmp_path, {"pools": [pool()]})
    result = run(tmp_path, "--dataset", dataset, "-r", "nope")
    assert result.exit_code == 2 and "unknown reranker 'nope'" in result.stderr
    result = run(tmp_path, "--dataset", dataset, "-r", "api", env={"MEMORYD_RERANK_URL": None})
    assert result.exit_code == 2 and "needs MEMORYD_RERANK_URL" in result.stderr


def test_the_bundled_sample_loads_without_a_dataset() -> None:
    pools = load_retrieval_set(None)
    assert sum(len(p.turns) for p in pools) == 424 and len(pools) == 112
    assert pools[0].id.startswith("hand-written/") and pools[-1].id.startswith("persona-test/")
    with pytest.raises(InvalidInput, match="cannot read"):
        load_retrieval_set(Path("/nonexistent/set.json"))


def test_recall_counts_at_most_five_relevant_and_the_rank_of_the_first() -> None:
    seven = frozenset(range(7))
    assert measures([0, 1, 2, 3, 4], seven) == (1.0, 1.0, 1.0)
    assert measures([9, 8, 2, 7, 6], frozenset({2, 3})) == (0.5, 1.0, 1 / 3)
    assert measures([9, 8, 7, 6, 5], frozenset({0})) == (0.0, 0.0, 0.0)


def test_json_lines_keep_line_separators_inside_a_memory(tmp_path: Path) -> None:
    # U+2028 is a line break to str.splitlines() but plain text inside a JSON string
    memories = ["Deploys\u2028happen on Tuesdays", *MEMORIES[1:]]
    line = json.dumps(pool(memories=memories), ensure_ascii=False)
    (loaded,) = load_retrieval_set(Path(write(tmp_path, line + "\n", "set.jsonl")))
    assert loaded.memories[0] == "Deploys happen on Tuesdays"  # folded as a stored memory is


# a memory nothing in the message names, found only through the question the LLM wrote
HIDDEN = "Project Falcon kicks off in June"
HANDSHAKE = "What is our secret handshake called?"


def llm_answers(request: dict[str, Any]) -> Reply:
    """For the hidden memory the message as a question, for the others a question about
    something else (real HTTP through the OpenAI client)."""
    fact = request["messages"][-1]["content"].removeprefix("Fact: ")
    if fact.startswith("Project Falcon"):
        return Reply.json({"questions": [HANDSHAKE, "When does it start?", "What is next?"]})
    return Reply.json({"questions": ["Where is the office?", "Who is on call?", "Any news?"]})


def llm_env(srv: FakeOpenAIServer, **extra: str) -> dict[str, str]:
    """The settings that point memoryd's LLM at the scripted server."""
    return {
        "MEMORYD_LLM_PROVIDER": "openai",
        "MEMORYD_LLM_BASE_URL": srv.base_url,
        "MEMORYD_LLM_API_KEY": "sk-eval-test-key-000000000000",
        **extra,
    }


def test_with_passes_the_llm_questions_are_read(tmp_path: Path) -> None:
    memories = [*MEMORIES, *(f"Room {n} is booked for the {n}th floor review" for n in range(11)),
                HIDDEN]  # fmt: skip
    turn = {"message": HANDSHAKE, "relevant": [len(memories) - 1]}
    dataset = write(tmp_path, {"pools": [pool(memories=memories, queries=[turn])]})
    args = ("--dataset", dataset, "-r", "hybrid", "--json")
    plain = by_name(run(tmp_path, *args))["hybrid"]
    assert plain["recall_at_5"] == 0.0  # the text shares nothing with the message
    with FakeOpenAIServer() as srv:
        srv.responder = llm_answers
        result = run(tmp_path, *args, "--passes", env=llm_env(srv))
        asked = [r for r in srv.requests if "questions" in json.dumps(r.get("response_format"))]
    assert by_name(result)["hybrid"]["mrr_at_5"] == 1.0  # its question is the message
    passes = {"memories": 20, "asked": 20, "error": None}
    assert json.loads(result.stdout)["passes"] == passes
    assert len(asked) == len(srv.requests) == 40  # both questions prompts, every memory


def test_passes_that_cannot_reach_the_llm_stop_with_exit_1(tmp_path: Path) -> None:
    with FakeOpenAIServer() as srv:
        srv.responder = lambda request: Reply.error(401, "invalid api key")
        dataset = write(tmp_path, {"pools": [pool()]})
        result = run(tmp_path, "--dataset", dataset, "--passes", env=llm_env(srv))
    assert result.exit_code == 1, (result.stdout, result.stderr)
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("error: the questions pass could not run:"), last
