"""Sending webhook deliveries: signed POSTs, retried on a schedule that survives restarts.

Any 2xx within the timeout is success. Anything else (another status, a timeout, a refused
connection, a redirect: redirects are never followed) is a failed try; the next try waits
for the next delay of the schedule, and after the last one the delivery is marked failed.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import timedelta

import httpx

from vidrouter.domain.clock import Clock
from vidrouter.net.guard import ForbiddenAddress, check_url
from vidrouter.store.deliveries import DELIVERED, FAILED, PENDING, Delivery, DeliveryStore
from vidrouter.store.keys import KeyStore
from vidrouter.webhooks.sign import signature_headers

log = logging.getLogger(__name__)

USER_AGENT = "vidrouter-webhooks/1"


class WebhookSender:
    def __init__(
        self,
        deliveries: DeliveryStore,
        keys: KeyStore,
        client: httpx.AsyncClient,
        *,
        owner: str,
        schedule: Sequence[float],
        allow_private: bool,
        clock: Clock,
    ) -> None:
        self._deliveries = deliveries
        self._keys = keys
        self._client = client
        self._owner = owner
        self._schedule = tuple(schedule)
        self._allow_private = allow_private
        self._clock = clock

    async def handle(self, delivery: Delivery) -> None:
        tries = delivery.tries + 1
        status_code, error = await self._send(delivery)
        now = self._clock()
        if error is None:
            await self._deliveries.record(
                delivery.id,
                owner=self._owner,
                status=DELIVERED,
                tries=tries,
                next_attempt_at=None,
                status_code=status_code,
                error=None,
                delivered_at=now,
            )
            log.info("webhook_delivered", extra={"delivery_id": delivery.id, "tries": tries})
            return
        if tries <= len(self._schedule):
            status, next_at = PENDING, now + timedelta(seconds=self._schedule[tries - 1])
        else:
            status, next_at = FAILED, None
        await self._deliveries.record(
            delivery.id,
            owner=self._owner,
            status=status,
            tries=tries,
            next_attempt_at=next_at,
            status_code=status_code,
            error=error[:1000],
        )
        log.info(
            "webhook_failed",
            extra={
                "delivery_id": delivery.id,
                "tries": tries,
                "status_code": status_code,
                "final": status == FAILED,
            },
        )

    async def _send(self, delivery: Delivery) -> tuple[int | None, str | None]:
        """The response status and, on failure, why."""
        secrets = await self._secrets(delivery)
        if not secrets:
            return None, "the API key of this generation no longer exists"
        try:
            await check_url(delivery.url, allow_private=self._allow_private)
        except ForbiddenAddress as exc:
            return None, f"refused: {exc}"
        headers = {
            "content-type": "application/json",
            "user-agent": USER_AGENT,
            **signature_headers(secrets, delivery.id, self._clock(), delivery.payload),
        }
        try:
            response = await self._client.post(
                delivery.url, content=delivery.payload.encode("utf-8"), headers=headers
            )
        except httpx.TimeoutException:
            return None, "timed out"
        except httpx.HTTPError as exc:
            return None, f"{type(exc).__name__}: {exc}"
        if 200 <= response.status_code < 300:
            return response.status_code, None
        return response.status_code, f"answered {response.status_code}"

    async def _secrets(self, delivery: Delivery) -> tuple[str, ...]:
        """The key's current webhook secret, and its previous one during a rotation."""
        if delivery.api_key_id is None:
            return ()
        key = await self._keys.get(delivery.api_key_id)
        return key.webhook_secrets(self._clock()) if key is not None else ()


def webhook_client(timeout: float) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        timeout=httpx.Timeout(timeout),
        follow_redirects=False,
        limits=httpx.Limits(max_connections=64, max_keepalive_connections=16),
        trust_env=False,
    )
