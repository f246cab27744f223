"""Generation rows the store tests write directly."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from vidrouter.domain import ids
from vidrouter.domain.generation import Generation, Status, Step


def generation(account_id: str, at: datetime, **changes: object) -> Generation:
    """A queued one-second `local-preview` generation made at `at`, with `changes`."""
    row = Generation(
        id=ids.generation_id(),
        account_id=account_id,
        model="local-preview",
        prompt="p",
        duration=1.0,
        aspect_ratio="16:9",
        status=Status.QUEUED,
        step=Step.SUBMIT,
        created_at=at,
        updated_at=at,
    )
    return replace(row, **changes)  # type: ignore[arg-type]
