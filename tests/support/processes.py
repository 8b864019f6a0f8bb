"""What tests need to start memoryd as a real process: a free loopback port and an
environment without the caller's ``MEMORYD_*`` settings.

The one setting kept is ``MEMORYD_MODELS_DIR`` (tests/conftest.py points it at the models
the session already derived), so a process started with a data directory of its own does
not spend seconds re-quantising the embedder that is not what its test is about.
"""

from __future__ import annotations

import os

from memoryd.testing.live import free_port

__all__ = ["free_port", "memoryd_env"]

KEPT = ("MEMORYD_MODELS_DIR",)


def memoryd_env(**settings: str) -> dict[str, str]:
    """This process's environment minus its ``MEMORYD_*`` settings, plus ``settings``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORYD_") or k in KEPT}
    env.update(settings)
    return env
