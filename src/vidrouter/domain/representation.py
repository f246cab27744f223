"""The public JSON objects: a Generation and a Model, exactly as clients see them.

The same Generation object is returned by every endpoint and sent as the webhook body.
"""

from __future__ import annotations

from typing import Any

from vidrouter.domain.catalog import CURRENCY, ListedModel, Route
from vidrouter.domain.client_errors import client_message
from vidrouter.domain.clock import isoformat
from vidrouter.domain.create_fields import CONTROLS, Kind
from vidrouter.domain.generation import Generation
from vidrouter.domain.routing import DEFAULT_POLICY, RouteStats


def generation_object(
    g: Generation, video_url: str | None, thumbnail_url: str | None = None
) -> dict[str, Any]:
    cost = (
        {"amount": round(g.cost_amount, 6), "currency": g.cost_currency or CURRENCY}
        if g.cost_amount is not None
        else None
    )
    return {
        "id": g.id,
        "object": "generation",
        "model": g.model,
        "prompt": g.prompt,
        "status": g.status.value,
        "duration": _number(g.duration),
        "aspect_ratio": g.aspect_ratio,
        "type": g.type,
        "image_url": shown_image_url(g.image_url),
        "references": [
            {k: shown_image_url(v) if k == "url" else v for k, v in r.shown().items()}
            for r in g.references
        ],
        "video": g.video.shown() if g.video is not None else None,
        **controls_object(g),
        "webhook_url": g.webhook_url,
        "progress": g.progress,
        "video_url": video_url,
        "thumbnail_url": thumbnail_url,
        "error": shown_error(g),
        "cost": cost,
        "estimated_cost": (
            {"amount": round(g.estimated_cost, 6), "currency": CURRENCY}
            if g.estimated_cost is not None
            else None
        ),
        "metadata": dict(g.metadata),
        "route": _host(g.route),
        # The policy it was routed under (the default one when the request gave none).
        "routing": g.routing if g.routing is not None else DEFAULT_POLICY.to_json(),
        "cached_from": g.cached_from,
        "batch_id": g.batch_id,
        "attempts": [
            {
                "route": _host(a.route),
                "outcome": a.outcome,
                "error_code": a.error_code,
                "at": isoformat(a.at),
            }
            for a in g.attempts
        ],
        "created_at": isoformat(g.created_at),
        "started_at": isoformat(g.started_at),
        "completed_at": isoformat(g.completed_at),
    }


def controls_object(g: Generation) -> dict[str, Any]:
    """The controls as shown (domain/create_fields.py): what it asked, its model's defaults
    filled in (`resolution` and `generate_audio`), null where it asked nothing."""
    shown = {}
    for f in CONTROLS:
        value = getattr(g.controls, f.name)
        shown[f.name] = shown_image_url(value) if f.kind is Kind.IMAGE else value
    return shown


# A data: image_url can be megabytes; every Generation object (create, GET, list, webhook)
# would carry it whole. Its media type and first characters identify it well enough.
DATA_URI_SHOWN_CHARS = 24


def shown_image_url(url: str | None) -> str | None:
    """`image_url` as shown: an http(s) URL as given, a data: URI cut short
    (`data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA...`)."""
    if url is None or not url.startswith("data:"):
        return url
    comma = url.find(",", 0, 200)  # find, not partition: no copy of a megabyte per poll
    end = (comma + 1 if comma >= 0 else 64) + DATA_URI_SHOWN_CHARS
    return url if len(url) <= end else url[:end] + "..."


def shown_error(g: Generation) -> dict[str, str] | None:
    """The error as clients see it: our words (domain/client_errors.py); the provider's
    stay on the generation for operators."""
    if g.error is None:
        return None
    return {"code": g.error.code, "message": client_message(g.error.code, g.error.message)}


def model_object(m: ListedModel, *, with_object: bool, status: str = "available") -> dict[str, Any]:
    spec = m.spec
    out: dict[str, Any] = {
        "id": spec.id,
        "name": spec.name,
        "description": spec.description,
        "provider": spec.provider,
        "type": spec.type,
        "max_duration": _number(m.max_duration),
        "aspect_ratios": list(m.aspect_ratios),
        "pricing": {
            "per_second": m.price_per_second,
            "currency": CURRENCY,
            "variants": [v.to_json() for v in m.variants],
        },
        "capabilities": list(m.capabilities),
        "default_duration": _number(m.default_duration),
        "status": status,
        "resolutions": list(m.resolutions),
        "audio": m.audio,
        "supports": list(m.supports),
    }
    if m.durations is not None:
        out["durations"] = [_number(d) for d in m.durations]
    if m.durations_by_resolution:
        out["durations_by_resolution"] = {
            r: [_number(d) for d in allowed] for r, allowed in m.durations_by_resolution.items()
        }
    out.update(m.limits.to_json())
    # What it takes beyond the prompt (domain/route.py `InputCaps`): always an object.
    out["limits"] = {"references": {}, **m.inputs.to_json()}
    if with_object:
        out["object"] = "model"
    return out


def route_object(route: Route, state: str, stats: RouteStats) -> dict[str, Any]:
    """One usable route of a model, as `GET /v1/models/{id}` shows it (docs/routing.md):
    `state` is `available`, `degraded` or `unavailable`; the rest are the live stats."""
    rate = stats.success_rate
    return {
        "provider": route.provider,
        "price_per_second": route.price_per_second,
        "variants": [v.to_json() for v in route.variants],
        "state": state,
        "success_rate": round(rate, 4) if rate is not None else None,
        "p50_seconds": _rounded(stats.p50_seconds),
        "p95_seconds": _rounded(stats.p95_seconds),
        "completed": stats.completed,
        "failed": stats.failed,
    }


def _rounded(seconds: float | None) -> float | None:
    return round(seconds, 3) if seconds is not None else None


def _host(route_key: str | None) -> str | None:
    """The provider host of a route ("fal", "runway", ...); its model names stay private."""
    return route_key.split(":", 1)[0] if route_key else None


def _number(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value
