"""A batch and its result lines as clients see them (the API, the webhook, the CLI)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from vidrouter.domain.batch import Batch
from vidrouter.domain.catalog import CURRENCY
from vidrouter.domain.clock import isoformat
from vidrouter.domain.generation import Status
from vidrouter.store.batches import LineResult, Progress

Sign = Callable[[str], str | None]  # a stored video's signed URL


def _usd(amount: float) -> dict[str, Any]:
    return {"amount": round(amount, 6), "currency": CURRENCY}


def batch_object(b: Batch, p: Progress) -> dict[str, Any]:
    counts = {"pending": p.pending, **{s.value: 0 for s in Status}}
    for status, n in p.by_status.items():
        counts[status] = counts.get(status, 0) + n
    for code, n in p.not_started.items():
        name = "canceled" if code == "canceled" else "failed"
        counts[name] += n
    return {
        "id": b.id,
        "object": "batch",
        "status": b.status.value,
        "total": b.total,
        "counts": counts,
        "cost": _usd(p.cost),
        "estimated_total": _usd(b.estimated_total),
        "error": {"code": b.error.code, "message": b.error.message} if b.error else None,
        "webhook_url": b.webhook_url,
        "metadata": dict(b.metadata),
        "created_at": isoformat(b.created_at),
        "completed_at": isoformat(b.completed_at),
    }


def result_line(r: LineResult, sign: Sign) -> dict[str, Any]:
    """One line of the results JSONL. A line that never made a generation says why: a
    canceled batch's says `canceled`."""
    if r.generation_id is None:
        status = "pending" if r.error_code is None else r.error_code
        if status not in ("pending", "canceled"):
            status = "failed"
    else:
        status = "deleted" if r.deleted else (r.status or "pending")
    error = (
        {"code": r.error_code, "message": r.error_message or ""}
        if r.error_code is not None and status in ("failed", "canceled")
        else None
    )
    video_url = sign(r.video_key) if r.video_key and not r.deleted else None
    return {
        "line": r.line,
        "custom_id": r.custom_id,
        "generation_id": r.generation_id,
        "status": status,
        "video_url": video_url,
        "cost": _usd(r.cost) if r.cost is not None else None,
        "error": error,
    }


def signer_for(sign: Callable[[str, datetime], str] | None, now: datetime) -> Sign:
    def signed(key: str) -> str | None:
        return sign(key, now) if sign is not None else None

    return signed
