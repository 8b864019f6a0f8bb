"""The bundled local model, for real: a short conversation in, its stated facts out.

Slow (one model load and a few calls of a 1.5B model on the CPU), so marked
``slow``. Without the ``local`` extra it skips, except in CI (``CI`` set, as ``.ci/run``
does): ``scripts/test`` installs that extra, so there its absence is a failure. The
assembled GGUF is kept in pytest's cache directory so it is joined and checked once.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

from memoryd import Memoryd
from memoryd.extraction import questions
from memoryd.models.llm.base import LLMError
from memoryd.models.llm.local import QWEN_CODER_1_5B, LocalProvider, model_path

pytestmark = pytest.mark.slow


def missing_local_extra() -> str | None:
    needed = ["xllamacpp", *QWEN_CODER_1_5B.packages]
    missing = [name for name in needed if importlib.util.find_spec(name) is None]
    return f"the local extra is not installed (missing {', '.join(missing)})" if missing else None


@pytest.fixture(scope="module")
def local_llm(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> LocalProvider:
    missing = missing_local_extra()
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"{missing}; scripts/test installs it", pytrace=False)
        pytest.skip(missing)
    cache = getattr(request.config, "cache", None)
    models = cache.mkdir("memoryd-models") if cache else tmp_path_factory.mktemp("models")
    return LocalProvider(models_dir=Path(models))


def test_the_model_is_assembled_from_its_parts_and_checked(local_llm: LocalProvider) -> None:
    path = model_path(local_llm.bundled, local_llm.models_dir)
    assert path.stat().st_size == QWEN_CODER_1_5B.size
    assert path.with_suffix(".verified").read_text().startswith(QWEN_CODER_1_5B.sha256)


def test_stated_facts_arrive_as_memories(md: Memoryd, local_llm: LocalProvider) -> None:
    carla = md.create_user("carla")
    md.create_workspace("orion")
    for prompt, response in [
        ("Hi! My name is Carla Diaz and I'm a data engineer.", "Nice to meet you, Carla!"),
        ("The Orion project stores everything in PostgreSQL 16.", "Good choice."),
        ("Please always answer me in Spanish from now on.", "¡Claro!"),
        ("What's 17 times 3?", "51."),
    ]:
        md.record_chat(carla.id, "orion", prompt, response)

    result = md.extract(carla.id, "orion", force=True, provider=local_llm)

    assert result.error is None, result.error
    assert 1 <= result.usage.calls <= 2
    stored = " | ".join(m.content for m in md.list_memories(carla.id)).casefold()
    found = [k for k in ("carla", "postgresql", "spanish") if k in stored]
    assert len(found) >= 2, stored
    assert "51" not in stored and "17 times" not in stored  # a question is no fact
    assert all(c.memory_processed for c in md.list_chats(carla.id, "orion"))


def test_the_readme_example_learns_about_the_user_only(
    md: Memoryd, local_llm: LocalProvider
) -> None:
    alice = md.create_user("alice")
    md.create_workspace("phoenix")
    md.record_chat(
        alice.id,
        "phoenix",
        "Hey Sam! I'm the tech lead on Phoenix and I volunteer at the animal shelter on "
        "weekends. How do I squash my last 3 commits?",
        "Hi Alice! Run `git rebase -i HEAD~3` and mark two as squash.",
    )
    md.record_chat(alice.id, "phoenix", "...", "...")

    result = md.extract(alice.id, "phoenix", force=True, provider=local_llm)

    assert result.error is None, result.error
    stored = [m.content for m in md.list_memories(alice.id)]
    assert stored, result.rejected
    assert all(m.startswith("The user") for m in stored), stored
    text = " | ".join(stored).casefold()
    assert "sam" not in text and "phoenix" not in text.replace("tech lead on phoenix", "")
    assert "squash" not in text and "rebase" not in text


def test_a_call_past_the_timeout_fails_and_the_model_moves_on(local_llm: LocalProvider) -> None:
    hasty = LocalProvider(models_dir=local_llm.models_dir, timeout=0.5)  # the same loaded model
    long_answer = [{"role": "user", "content": "Count from 1 to 400, comma separated."}]
    with pytest.raises(LLMError, match=r"timed out after 0\.5 s"):
        hasty.complete(long_answer, max_tokens=2000)
    # the abandoned answer stops at its next token: the next call gets the model
    answer = local_llm.complete([{"role": "user", "content": "Say OK."}], max_tokens=5)
    assert answer.text and 0 < answer.completion_tokens <= 5


def test_the_models_own_http_listener_is_shut_to_other_processes(
    local_llm: LocalProvider,
) -> None:
    """xllamacpp serves the loaded model on a loopback port as well; another local
    process must not be able to run prompts on it or read its slots."""
    import httpx

    from memoryd.models.llm.local import _engine  # the loaded model, cached per file

    local_llm.complete([{"role": "user", "content": "Say hi."}], max_tokens=2)
    engine = _engine(model_path(local_llm.bundled, local_llm.models_dir), local_llm.threads)
    address = engine.server.listening_address
    for method, path in [("GET", "/slots"), ("GET", "/props"), ("POST", "/v1/chat/completions")]:
        body = {"messages": [{"role": "user", "content": "hi"}], "max_tokens": 1}
        response = httpx.request(method, f"{address}{path}", json=body, timeout=30)
        assert response.status_code == 401, (path, response.text[:200])


def test_the_bundled_model_writes_both_prompts_questions(
    md: Memoryd, local_llm: LocalProvider
) -> None:
    """Two calls a memory (the chat prompt, then the work prompt), their questions joined:
    between 3 and 6 distinct questions, each one a question, stored with one vector each
    that a turn reads."""
    ana = md.create_user("ana")
    md.create_workspace("clinic")
    texts = ["I play the guitar in a band.", "Invoices go out on the 3rd; Marta signs them."]
    for text in texts:
        md.add_memory(ana.id, text, scope="workspace", workspace="clinic")

    run = md.extract(provider=local_llm, ask_questions=5)

    assert (run.memories_questioned, run.llm_calls, run.llm_calls_failed) == (2, 4, 0)
    asked = {m.content: m.questions for m in md.list_memories(ana.id)}
    for text in texts:
        found = asked[text]
        assert found is not None and 3 <= len(found) <= questions.MAX_QUESTIONS, (text, found)
        assert len(set(found)) == len(found) and all(q.endswith("?") for q in found), found
    turn = md.context(ana.id, "clinic", "What do you play?", record=False)
    [guitar] = [m for m in turn.memories if m.content == texts[0]]
    assert guitar.question_vectors is not None and len(guitar.question_vectors) == len(
        asked[texts[0]] or ()
    )


def test_a_chinese_conversation_gives_a_chinese_memory_about_the_user(
    md: Memoryd, local_llm: LocalProvider
) -> None:
    """The bundled model rewrites a Chinese sentence chosen by the Observer as a Chinese
    memory naming the user ("用户..."); the question and the greeting give none."""
    li = md.create_user("li")
    md.create_workspace("chat")
    for prompt, response in [
        ("你好！我住在杭州，我是一名小学数学老师。", "你好！杭州很美。"),
        ("我对花生过敏，所以从来不吃花生酱。", "明白了，我会记住的。"),
        ("今天天气怎么样？", "我不知道今天的天气。"),
    ]:
        md.record_chat(li.id, "chat", prompt, response)

    result = md.extract(li.id, "chat", force=True, provider=local_llm)

    assert result.error is None, result.error
    stored = [m.content for m in md.list_memories(li.id)]
    about_user = [
        m for m in stored if m.startswith("用户") and any(k in m for k in ("杭州", "老师", "花生"))
    ]
    assert about_user, (stored, result.rejected)
    assert not any("天气" in m for m in stored)
