"""A generation as a row of `generations` and back: the one place that maps its fields."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import Row, Update, bindparam, update

from vidrouter.domain.controls import Controls
from vidrouter.domain.generation import (
    TERMINAL,
    Attempt,
    Generation,
    GenerationError,
    Status,
    Step,
)
from vidrouter.domain.inputs import Reference, SourceVideo
from vidrouter.store.tables import generations as t

ACTIVE = [s.value for s in Status if s not in TERMINAL]


def columns(g: Generation) -> dict[str, Any]:
    return {
        "account_id": g.account_id,
        "api_key_id": g.api_key_id,
        "model": g.model,
        "prompt": g.prompt,
        "duration": g.duration,
        "aspect_ratio": g.aspect_ratio,
        "image_url": g.image_url,
        "webhook_url": g.webhook_url,
        "metadata": g.metadata,
        "status": g.status.value,
        "step": g.step.value,
        "progress": g.progress,
        "route": g.route,
        "provider_job_id": g.provider_job_id,
        "provider_job_data": g.provider_job_data,
        "video_key": g.video_key,
        "video_duration": g.video_duration,
        "video_width": g.video_width,
        "video_height": g.video_height,
        "error_code": g.error.code if g.error else None,
        "error_message": g.error.message if g.error else None,
        "provider_error_code": g.provider_error_code,
        "provider_request_id": g.provider_request_id,
        "billed_seconds": g.billed_seconds,
        "cost_amount": g.cost_amount,
        "cost_currency": g.cost_currency,
        "estimated_cost": g.estimated_cost,
        "tries": g.tries,
        "attempts": [attempt_json(a) for a in g.attempts],
        "created_at": g.created_at,
        "updated_at": g.updated_at,
        "started_at": g.started_at,
        "completed_at": g.completed_at,
        "next_attempt_at": g.next_attempt_at,
        "deadline_at": g.deadline_at,
        "lease_owner": g.lease_owner,
        "lease_until": g.lease_until,
        "routing": g.routing,
        # The inputs ride in the controls' JSON (no column of their own): type, references,
        # source video (domain/inputs.py); `Controls.from_json` reads only the controls.
        "controls": {**g.controls.to_json(), **inputs_json(g)},
        "resolution": g.controls.resolution,
        "batch_id": g.batch_id,
        "cache_key": g.cache_key,
        "cached_from": g.cached_from,
    }


def _replacing(*, fenced: bool) -> Update:
    """Replace every column of a row that is still unfinished (and, `fenced`, whose lease
    `owner` holds). Built once: building and hashing a 40-column UPDATE per save cost more
    CPU than the database's work on it (docs/performance.md)."""
    where = [t.c.id == bindparam("w_id"), t.c.status.in_(ACTIVE)]
    if fenced:
        where.append(t.c.lease_owner == bindparam("w_owner"))
    names = [c.name for c in t.c if c.name not in ("id", "deleted_at")]
    return (
        update(t)
        .where(*where)
        .values({name: bindparam(f"v_{name}", type_=t.c[name].type) for name in names})
    )


REPLACE_FENCED = _replacing(fenced=True)
REPLACE_UNFINISHED = _replacing(fenced=False)


def replacing_params(g: Generation, owner: str | None = None) -> dict[str, Any]:
    """The parameters of `REPLACE_FENCED` (with `owner`) or `REPLACE_UNFINISHED`."""
    params = {f"v_{name}": value for name, value in columns(g).items()}
    params["w_id"] = g.id
    if owner is not None:
        params["w_owner"] = owner
    return params


def attempt_json(a: Attempt) -> dict[str, Any]:
    return {
        "route": a.route,
        "provider_job_id": a.provider_job_id,
        "outcome": a.outcome,
        "at": a.at.isoformat(),
        "error_code": a.error_code,
    }


def generation_from_row(row: Row[Any]) -> Generation:
    m = row._mapping
    error = GenerationError(m["error_code"], m["error_message"] or "") if m["error_code"] else None
    return Generation(
        id=m["id"],
        account_id=m["account_id"],
        api_key_id=m["api_key_id"],
        model=m["model"],
        prompt=m["prompt"],
        duration=m["duration"],
        aspect_ratio=m["aspect_ratio"],
        image_url=m["image_url"],
        webhook_url=m["webhook_url"],
        metadata=m["metadata"] or {},
        status=Status(m["status"]),
        step=Step(m["step"]),
        progress=m["progress"],
        route=m["route"],
        provider_job_id=m["provider_job_id"],
        provider_job_data=m["provider_job_data"] or {},
        video_key=m["video_key"],
        video_duration=m["video_duration"],
        video_width=m["video_width"],
        video_height=m["video_height"],
        error=error,
        provider_error_code=m["provider_error_code"],
        provider_request_id=m["provider_request_id"],
        billed_seconds=m["billed_seconds"],
        cost_amount=m["cost_amount"],
        cost_currency=m["cost_currency"],
        estimated_cost=m["estimated_cost"],
        tries=m["tries"],
        attempts=tuple(
            Attempt(
                route=a["route"],
                provider_job_id=a.get("provider_job_id"),
                outcome=a["outcome"],
                at=datetime.fromisoformat(a["at"]),
                error_code=a.get("error_code"),
            )
            for a in (m["attempts"] or [])
        ),
        created_at=m["created_at"],
        updated_at=m["updated_at"],
        started_at=m["started_at"],
        completed_at=m["completed_at"],
        next_attempt_at=m["next_attempt_at"],
        deadline_at=m["deadline_at"],
        lease_owner=m["lease_owner"],
        lease_until=m["lease_until"],
        routing=m["routing"],
        controls=Controls.from_json(m["controls"]),
        **inputs_of(m["controls"]),
        batch_id=m["batch_id"],
        cache_key=m["cache_key"],
        cached_from=m["cached_from"],
    )


def inputs_json(g: Generation) -> dict[str, Any]:
    """A generation's inputs as kept beside its controls (none for a plain one)."""
    out: dict[str, Any] = {}
    if g.asked_type is not None:
        out["type"] = g.asked_type
    if g.references:
        out["references"] = [r.to_json() for r in g.references]
    if g.video is not None:
        out["video"] = g.video.to_json()
    if g.local_media:
        out["local_media"] = True
    return out


def inputs_of(data: Mapping[str, Any] | None) -> dict[str, Any]:
    """The `Generation` fields `inputs_json` kept."""
    data = data or {}
    video = data.get("video")
    return {
        "asked_type": data.get("type"),
        "references": tuple(Reference.from_json(r) for r in data.get("references") or ()),
        "video": SourceVideo.from_json(video) if video else None,
        "local_media": bool(data.get("local_media")),
    }
