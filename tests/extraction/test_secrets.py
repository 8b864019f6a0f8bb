"""Secret detection (R13): credentials are recognised, ordinary facts are not."""

from __future__ import annotations

import pytest

from memoryd.extraction.secrets import secret_reason, secret_values


@pytest.mark.parametrize(
    "text",
    [
        "The OpenAI key is sk-proj-7fQ2mZx9LkP4vR8tW1yB3nC6dH0jS5aE.",
        "Anthropic key sk-ant-api03-abcdefghijklmnopqrstuvwx",
        "AWS access key AKIAIOSFODNN7EXAMPLE is used in CI.",
        "GitHub token ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        "Slack bot token xoxb-123456789012-abcdefghijkl",
        "The admin password is Rye&Honey!2024",
        "Wi-Fi passcode: hunter22",
        "Her card is 4539 1488 0343 6467, exp 09/27.",
        "Card 4539-1488-0343-6467 is on file.",
        "The CVV is 318 for that card",
        "DB url postgres://app:s3cr3tpw@db.internal/app",
        "Token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
        "-----BEGIN RSA PRIVATE KEY----- MIIEpAIBAAKCAQEA",
        "The deploy secret is 9f8e7d6c5b4a39281706f5e4d3c2b1a0ffee",
    ],
)
def test_credentials_are_recognised(text: str) -> None:
    assert secret_reason(text) is not None


@pytest.mark.parametrize(
    "text",
    [
        "Priya stores money as integer cents, never floats.",
        "The password reset flow must ship by March 14.",
        "Passwords are stored in 1Password by the team.",
        "The API key is loaded from an environment variable.",
        "Jamal flies to Lisbon on November 11 to 14.",
        "The service handles 200000 log lines per second.",
        "Call the office at +44 20 7946 0958 on weekdays.",
        "The ticket number is 1234567812345678 in Jira.",  # fails the Luhn check
        "CI uses actions-runner-controller in the EKS cluster.",
        "The token limit of the model is 128000.",
    ],
)
def test_ordinary_facts_are_not_secrets(text: str) -> None:
    assert secret_reason(text) is None


def test_a_secret_from_the_chats_is_caught_when_repeated_in_other_words() -> None:
    chats = [
        "The admin login is elena.admin and the password is Rye&Honey!2024 if you need it.",
        "My card is 4539 1488 0343 6467, exp 09/27, CVV 318.",
    ]
    known = secret_values(chats)
    assert {"Rye&Honey!2024", "4539 1488 0343 6467"} <= known
    assert secret_reason("Elena's WordPress login uses Rye&Honey!2024", known)
    assert secret_reason("Jamal pays with 4539148803436467", known)
    assert secret_reason("Elena owns a bakery called Crumb & Co.", known) is None
