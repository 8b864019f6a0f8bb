"""Parsing ``MEMORY_EXTRACTION_INTERVAL`` values such as ``30min``, ``1hr``, ``6hr``, ``90s``.

A rule of the domain (plain parsing, no I/O), so the settings class can validate the
variable at start-up and the schedulers (``memoryd.extraction.scheduler``,
``memoryd.scale.worker``) read it, none of them importing another's layer.
"""

from __future__ import annotations

import re
from datetime import timedelta

_UNITS = {
    "s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1,
    "m": 60, "min": 60, "mins": 60, "minute": 60, "minutes": 60,
    "h": 3600, "hr": 3600, "hrs": 3600, "hour": 3600, "hours": 3600,
    "d": 86400, "day": 86400, "days": 86400,
}  # fmt: skip
_FORM = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([a-z]+)\s*")
VARIABLE = "MEMORY_EXTRACTION_INTERVAL"


def parse_interval(value: object, *, variable: str = VARIABLE) -> timedelta:
    """A positive duration from text like ``30min``; ValueError naming ``variable`` if not."""
    match = _FORM.fullmatch(value.lower()) if isinstance(value, str) else None
    seconds = 0.0
    if match and match.group(2) in _UNITS:
        seconds = float(match.group(1)) * _UNITS[match.group(2)]
    if seconds < 1:
        raise ValueError(
            f"{variable}={value!r} is not a valid interval: use a number and a unit, "
            "e.g. 90s, 30min, 1hr, 6hr, 1d (at least 1 second)"
        )
    return timedelta(seconds=seconds)
