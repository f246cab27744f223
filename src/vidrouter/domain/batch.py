"""A batch: many create bodies (a JSONL file, one per line, each with a `custom_id`) run as
one durable piece of work, and what its results say of each line."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from vidrouter.domain import text
from vidrouter.domain.errors import InvalidRequest
from vidrouter.domain.generation import GenerationError

MAX_CUSTOM_ID = 200


class BatchStatus(StrEnum):
    QUEUED = "queued"  # no line started yet
    IN_PROGRESS = "in_progress"
    CANCELING = "canceling"  # canceled: its unfinished generations are being canceled
    COMPLETED = "completed"  # every line ended (each line's own status says how)
    FAILED = "failed"  # stopped before every line started (e.g. the budget ran out)
    CANCELED = "canceled"

    @property
    def terminal(self) -> bool:
        return self in (BatchStatus.COMPLETED, BatchStatus.FAILED, BatchStatus.CANCELED)


@dataclass(frozen=True)
class Batch:
    id: str
    account_id: str
    api_key_id: str
    status: BatchStatus
    total: int  # lines
    estimated_total: float  # the sum of the lines' estimated costs at submission
    created_at: datetime
    updated_at: datetime
    webhook_url: str | None = None
    metadata: dict[str, str] = field(default_factory=dict)
    error: GenerationError | None = None  # why it stopped early
    completed_at: datetime | None = None
    next_attempt_at: datetime | None = None
    lease_owner: str | None = None
    lease_until: datetime | None = None


@dataclass(frozen=True)
class BatchLine:
    """One line: its number in the file (from 1), its `custom_id` and its create body."""

    line: int
    custom_id: str
    body: dict[str, Any]


def line_error(line: int, exc: InvalidRequest) -> InvalidRequest:
    """An error of one line's create body, naming the line: `param` is `lines[N].field`
    (N counts from 1, as editors number a file's lines)."""
    where = f"lines[{line}]"
    return InvalidRequest(
        f"line {line}: {exc.message}",
        code=exc.code,
        param=f"{where}.{exc.param}" if exc.param else where,
    )


def split_line(number: int, value: object) -> tuple[str, dict[str, Any]]:
    """A line's `custom_id` (required; yours, not necessarily unique: the results give each
    line's number too) and its create body."""
    if not isinstance(value, Mapping):
        raise InvalidRequest(
            f"line {number} must be a JSON object (a create body with a custom_id)",
            code="invalid_body",
            param=f"lines[{number}]",
        )
    body = dict(value)
    custom_id = body.pop("custom_id", None)
    param = f"lines[{number}].custom_id"
    if not isinstance(custom_id, str) or not custom_id or len(custom_id) > MAX_CUSTOM_ID:
        raise InvalidRequest(
            f"line {number}: custom_id must be a string of 1-{MAX_CUSTOM_ID} characters",
            code="custom_id_invalid",
            param=param,
        )
    try:
        text.check_json(custom_id)
    except InvalidRequest as exc:
        raise line_error(number, exc) from None
    return custom_id, body
