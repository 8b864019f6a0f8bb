"""Small, real-looking chat exports of ChatGPT, Claude and Open WebUI (written by hand
after each product's format, two conversations each, ChatGPT's with an edited message
that branches), and the turns each product shows for them."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

SAMPLES = Path(__file__).parent / "history_samples"
FILES = {
    "chatgpt": "chatgpt-conversations.json",
    "claude": "claude-conversations.json",
    "openwebui": "openwebui-chats.json",
}
# what each product shows, in order: (prompt, answer, time of the user's message)
EXPECTED = {
    "chatgpt": [
        (
            "I'm flying to Lisbon in May. I don't eat meat.",
            "Lisbon in May is lovely. Try the vegetarian places in Príncipe Real.",
            datetime(2024, 3, 1, 9, 0, 1, 250000, tzinfo=UTC),
        ),
        # the edited question (the branch ending at current_node), not the first one
        (
            "Which quiet hotel near Alfama should I pick?",
            "Memmo Alfama is quiet and has a view.",
            datetime(2024, 3, 1, 9, 2, 40, tzinfo=UTC),
        ),
        (
            "We use structlog at work. How do I add the request id?",
            "Bind it with structlog.contextvars.bind_contextvars(request_id=...).",
            datetime(2024, 3, 2, 9, 0, 1, tzinfo=UTC),
        ),
    ],
    "claude": [
        (
            "I have a small balcony facing north. What herbs grow there?",
            "Mint, parsley and chives cope with shade.",
            datetime(2024, 4, 2, 8, 15, 5, 120000, tzinfo=UTC),
        ),
        (
            "My cat chews plants, is mint safe?",
            "Mint can upset a cat's stomach.\n\nCat grass is a safer choice.",
            datetime(2024, 4, 2, 8, 17, 40, tzinfo=UTC),
        ),
        (
            "I'm a backend engineer with 6 years of Go. Shorten my summary.",
            "Backend engineer, 6 years of Go, building reliable services.",
            datetime(2024, 4, 5, 19, 0, 10, tzinfo=UTC),
        ),
    ],
    "openwebui": [
        (
            "My starter is sluggish; the kitchen is 18 °C.",
            "Feed it at a warmer spot, around 24 °C.",
            datetime(2024, 6, 3, 9, 0, tzinfo=UTC),
        ),
        (
            "How often should I feed it?",
            "Twice a day until it doubles in 6 hours.",
            datetime(2024, 6, 3, 9, 1, 40, tzinfo=UTC),
        ),
        (
            "I cycle 12 km to work. Which rain jacket?",
            "A breathable shell with pit zips.",
            datetime(2024, 6, 4, 9, 0, tzinfo=UTC),
        ),
    ],
}


def sample(name: str) -> str:
    return (SAMPLES / FILES[name]).read_text(encoding="utf-8")
