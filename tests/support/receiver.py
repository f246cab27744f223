"""A webhook receiver that records what it gets, and can be told to fail."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field

from starlette.requests import Request
from starlette.responses import Response


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes


@dataclass
class WebhookReceiver:
    status: int = 200  # what to answer; set to 500 / 503 to play "down"
    received: list[Received] = field(default_factory=list)
    attempts: int = 0
    _event: asyncio.Event | None = None

    async def __call__(self, scope, receive, send) -> None:  # type: ignore[no-untyped-def]
        request = Request(scope, receive)
        body = await request.body()
        self.attempts += 1
        if self.status < 300:
            self.received.append(Received({k.lower(): v for k, v in request.headers.items()}, body))
        response = Response(status_code=self.status)
        await response(scope, receive, send)
        if self._event is not None:
            self._event.set()

    async def wait_for(self, count: int, timeout: float = 30.0) -> list[Received]:
        """Wait until `count` deliveries were accepted."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while len(self.received) < count:
            self._event = asyncio.Event()
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(f"got {len(self.received)} webhooks, wanted {count}")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._event.wait(), remaining)
        return self.received
