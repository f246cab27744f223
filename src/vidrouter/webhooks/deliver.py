"""Sending webhook deliveries: signed POSTs, retried on a schedule that survives restarts.

Any 2xx within the timeout is success. Anything else (another status, a timeout, a refused
connection, a redirect: redirects are never followed, an address the outbound guard refuses)
is a failed try; the next try waits for the next delay of the schedule, and after the last one
the delivery is marked failed. Requests go through the outbound guard (`net.fetch.post_with`
on one guarded client, `net.guard.guarded_client`): a URL's host is resolved once when a
connection to it is opened, checked, and the connection pinned to the checked address; the
client keeps such connections alive for the next deliveries to the same origin (one TCP
connect per delivery was a large part of a webhook's cost).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import timedelta

from vidrouter.domain.clock import Clock
from vidrouter.net.fetch import OutboundTimeout, post_with
from vidrouter.net.guard import ForbiddenAddress, OutboundError, Resolver, guarded_client
from vidrouter.observability import Observer
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
        *,
        owner: str,
        schedule: Sequence[float],
        allow_private: bool,
        timeout: float,
        clock: Clock,
        observer: Observer | None = None,
        resolver: Resolver | None = None,
    ) -> None:
        self._observer = observer
        self._deliveries = deliveries
        self._keys = keys
        self._owner = owner
        self._schedule = tuple(schedule)
        self._timeout = timeout
        self._clock = clock
        # Closed by its owner (the composition closes its HTTP clients on shutdown).
        self.http = guarded_client(allow_private=allow_private, timeout=timeout, resolver=resolver)

    async def handle(self, delivery: Delivery) -> None:
        tries = delivery.tries + 1
        status_code, error = await self._send(delivery)
        now = self._clock()
        if error is None:
            status, next_at = DELIVERED, None
        elif tries <= len(self._schedule):
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
            error=None if error is None else error[:1000],
            delivered_at=now if error is None else None,
        )
        if error is None:
            log.info("webhook_delivered", extra={"delivery_id": delivery.id, "tries": tries})
            self._observe("delivered")
            return
        log.info(
            "webhook_failed",
            extra={
                "delivery_id": delivery.id,
                "tries": tries,
                "status_code": status_code,
                "final": status == FAILED,
            },
        )
        self._observe("failed" if status == FAILED else "retry")

    def _observe(self, outcome: str) -> None:
        if self._observer is not None:
            self._observer.webhook_delivery(outcome)

    async def _send(self, delivery: Delivery) -> tuple[int | None, str | None]:
        """The response status and, on failure, why."""
        secrets = await self._secrets(delivery)
        if not secrets:
            return None, "the API key of this generation no longer exists"
        headers = {
            "content-type": "application/json",
            "user-agent": USER_AGENT,
            **signature_headers(secrets, delivery.id, self._clock(), delivery.payload),
        }
        try:
            status_code = await post_with(
                self.http,
                delivery.url,
                content=delivery.payload.encode("utf-8"),
                headers=headers,
                timeout=self._timeout,
            )
        except ForbiddenAddress as exc:
            return None, f"refused: {exc}"
        except OutboundTimeout:
            return None, "timed out"
        except OutboundError as exc:
            return None, str(exc)
        if 200 <= status_code < 300:
            return status_code, None
        return status_code, f"answered {status_code}"

    async def _secrets(self, delivery: Delivery) -> tuple[str, ...]:
        """The key's current webhook secret, and its previous one during a rotation."""
        if delivery.api_key_id is None:
            return ()
        key = await self._keys.get(delivery.api_key_id)
        return key.webhook_secrets(self._clock()) if key is not None else ()
