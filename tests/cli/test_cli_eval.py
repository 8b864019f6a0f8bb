"""``memoryd eval extraction`` against a scripted OpenAI-compatible server (real HTTP)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner, Result

from memoryd.cli.app import app
from memoryd.testing import FakeOpenAIServer, Reply
from memoryd.testing.echo_extraction import EchoExtractor

CONVERSATION = {
    "id": "dogs",
    "workspace": "chat",
    "exchanges": [
        {"prompt": "I run a dog obedience school.", "response": "I have a turtle."},
        {"prompt": "My bike is a 2019 Trek.", "response": "Nice."},
    ],
    "facts": ["I run a dog obedience school.", "I have a big sweet tooth."],
    "other_facts": ["I have a turtle named Timothy."],
}


def run(srv: FakeOpenAIServer, tmp_path: Path, *args: str) -> Result:
    env = {
        "MEMORYD_DATABASE_URL": None,
        "MEMORYD_DATA_DIR": str(tmp_path),
        "MEMORYD_LLM_PROVIDER": "openai",
        "MEMORYD_LLM_BASE_URL": srv.base_url,
        "MEMORYD_LLM_API_KEY": "sk-eval-test-key-000000000000",
        "MEMORYD_LLM_TIMEOUT": "2",
        "COLUMNS": "200",
    }
    return CliRunner().invoke(app, ["eval", "extraction", *args], env=env)


def test_eval_scores_the_real_pipeline_on_a_dataset(tmp_path: Path) -> None:
    dataset = tmp_path / "set.jsonl"
    dataset.write_text(json.dumps(CONVERSATION) + "\n" + json.dumps({**CONVERSATION, "id": "b"}))
    with FakeOpenAIServer() as srv:
        srv.responder = EchoExtractor()  # selects every user sentence
        result = run(srv, tmp_path, "--dataset", str(dataset), "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)["summary"]
    # per conversation: 2 memories, the dog school one is true, the bike one is not
    # labelled; 1 of 2 facts found
    assert summary["conversations"] == 2 and summary["memories"] == 4
    assert summary["precision"] == 0.5 and summary["recall"] == 0.5
    assert summary["wrong_subject_share"] == 0.0 and summary["llm_calls_per_batch"] == 1.0


def test_a_jsonl_dataset_keeps_line_separators_inside_its_text(tmp_path: Path) -> None:
    from memoryd.evaluation.extraction import load_dataset

    said = "I run a dog\u2028obedience school.\x85Really."
    exchanges = [{"prompt": said, "response": "Nice."}]
    dataset = tmp_path / "set.jsonl"
    dataset.write_text(
        json.dumps({**CONVERSATION, "exchanges": exchanges}, ensure_ascii=False)
        + "\r\n"
        + json.dumps({**CONVERSATION, "id": "b"}, ensure_ascii=False)
        + "\n",
        "utf-8",
    )
    conversations = load_dataset(dataset)
    assert [c["id"] for c in conversations] == ["dogs", "b"]
    assert conversations[0]["exchanges"][0]["prompt"] == said


def test_eval_refuses_a_file_that_is_not_a_labelled_set(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('[{"exchanges": []}]')
    with FakeOpenAIServer() as srv:
        result = run(srv, tmp_path, "--dataset", str(bad))
    assert result.exit_code == 2
    assert "has no 'facts' list" in result.output
    assert srv.requests == []


def test_the_bundled_sample_loads_with_attribution() -> None:
    from importlib import resources

    from memoryd.evaluation.extraction import load_dataset

    conversations = load_dataset(None)
    assert len(conversations) >= 40
    raw = json.loads(
        resources.files("memoryd.data").joinpath("extraction-sample.json").read_text("utf-8")
    )
    assert "CC-BY 4.0" in raw["attribution"]


def test_eval_with_a_refused_api_key_stops_at_once_with_one_line(tmp_path: Path) -> None:
    with FakeOpenAIServer() as srv:
        srv.default = Reply.error(401, "Incorrect API key provided")
        result = run(srv, tmp_path, "--limit", "5")
        calls = len(srv.requests)
    assert result.exit_code == 1, result.output
    assert result.stderr.splitlines()[-1].startswith(
        "error: the LLM server refused the API key (HTTP 401: Incorrect API key provided)"
    )
    assert calls == 1 and "Traceback" not in result.output


def test_eval_whose_every_llm_call_fails_says_why(tmp_path: Path) -> None:
    with FakeOpenAIServer() as srv:
        srv.default = Reply.error(500, "upstream exploded")
        result = run(srv, tmp_path, "--limit", "3")
    assert result.exit_code == 1, result.output
    assert result.stderr.splitlines()[-1] == (
        "error: every conversation that asked the LLM failed; the first: "
        "LLM server answered HTTP 500: upstream exploded"
    )
