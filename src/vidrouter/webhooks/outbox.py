"""The outbox: the deliveries a terminal generation owes, written with its terminal state."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime

from vidrouter.domain import ids
from vidrouter.domain.generation import Generation
from vidrouter.domain.media import preview_key
from vidrouter.domain.representation import generation_object
from vidrouter.store.deliveries import Delivery


def deliveries_for(
    g: Generation, video_url: str | None, now: datetime, thumbnail_url: str | None = None
) -> list[Delivery]:
    """One delivery for a terminal generation that has a webhook_url. The body is fixed now,
    so every retry sends (and signs) the same bytes."""
    if not g.webhook_url or not g.status.terminal:
        return []
    body = json.dumps(
        generation_object(g, video_url, thumbnail_url), separators=(",", ":"), ensure_ascii=False
    )
    return [
        Delivery(
            id=ids.delivery_id(),
            generation_id=g.id,
            account_id=g.account_id,
            api_key_id=g.api_key_id,
            url=g.webhook_url,
            event_type=f"generation.{g.status.value}",
            payload=body,
            created_at=now,
            next_attempt_at=now,
        )
    ]


def signed_deliveries(g: Generation, sign: Callable[[str], str], now: datetime) -> list[Delivery]:
    """`deliveries_for`, with the URLs of the generation's video and poster signed by `sign`."""
    key = g.video_key
    if key is None:
        return deliveries_for(g, None, now)
    return deliveries_for(g, sign(key), now, sign(preview_key(key, "thumbnail")))
