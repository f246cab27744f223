"""Time, injectable: code takes a `Clock` so that tests can move time."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], datetime]


def utcnow() -> datetime:
    return datetime.now(UTC)


def isoformat(value: datetime | None) -> str | None:
    """ISO 8601 UTC with a `Z` suffix, as every timestamp in the API is written."""
    if value is None:
        return None
    text = value.astimezone(UTC).isoformat(timespec="milliseconds")
    return text.replace("+00:00", "Z")
