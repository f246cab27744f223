"""What every fake shares: fault injection, the request log, auth checks, fetching input
images the way a provider does, and a real small MP4 to serve."""

from __future__ import annotations

import asyncio
import functools
import json
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import httpx
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from vidrouter.providers.local.render import RenderSpec, render_video

FaultKind = Literal["status", "drop", "slow", "malformed"]


@dataclass
class Fault:
    """What to do instead of (or before) answering a matching request.

    - status: answer `status` with `body` (JSON) and a Retry-After header if given;
    - drop: start the response, send half a body, then cut the connection;
    - slow: wait `delay` seconds, then answer normally (pair with the client's timeout);
    - malformed: answer 200 with a body that is not JSON.
    """

    kind: FaultKind = "status"
    status: int = 500
    body: object | None = None
    retry_after: float | None = None
    delay: float = 0.0
    path: str = ""  # substring of the request path; "" matches every request
    method: str | None = None
    times: int = 1  # how many matching requests it applies to (-1: forever)


@dataclass
class FaultPlan:
    faults: list[Fault] = field(default_factory=list)
    requests: list[tuple[str, str]] = field(default_factory=list)  # (method, path) log
    arrivals: list[float] = field(default_factory=list)  # time.monotonic() of each request

    def add(self, fault: Fault | None = None, **kw: object) -> Fault:
        fault = fault or Fault(**kw)  # type: ignore[arg-type]
        self.faults.append(fault)
        return fault

    def clear(self) -> None:
        self.faults.clear()

    def take(self, method: str, path: str) -> Fault | None:
        for fault in self.faults:
            if fault.path in path and (fault.method is None or fault.method == method):
                if fault.times > 0:
                    fault.times -= 1
                    if fault.times == 0:
                        self.faults.remove(fault)
                return fault
        return None

    def count(self, method: str, path_part: str) -> int:
        return len(self.times(method, path_part))

    def times(self, method: str, path_part: str) -> list[float]:
        """When each matching request arrived (faults included), in order."""
        return [
            at
            for (m, p), at in zip(self.requests, self.arrivals, strict=True)
            if m == method and path_part in p
        ]


class FaultInjector:
    """ASGI middleware: applies the plan's faults before the fake answers."""

    def __init__(self, app: ASGIApp, plan: FaultPlan) -> None:
        self.app = app
        self.plan = plan

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        method, path = scope["method"], scope["path"]
        self.plan.requests.append((method, path))
        self.plan.arrivals.append(time.monotonic())
        fault = self.plan.take(method, path)
        if fault is None:
            await self.app(scope, receive, send)
            return
        if fault.kind == "slow":
            await asyncio.sleep(fault.delay)
            await self.app(scope, receive, send)
            return
        if fault.kind == "malformed":
            await _respond(send, 200, b"<html>upstream proxy error", "text/html")
            return
        if fault.kind == "drop":
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"content-length", b"400"),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": b'{"id": "tru', "more_body": True})
            raise ConnectionAbortedError("fault: connection dropped")
        headers = []
        if fault.retry_after is not None:
            headers.append((b"retry-after", str(fault.retry_after).encode()))
        body = json.dumps(fault.body if fault.body is not None else {"error": "injected fault"})
        await _respond(send, fault.status, body.encode(), "application/json", headers)


async def _respond(
    send: Send,
    status: int,
    body: bytes,
    content_type: str,
    headers: list[tuple[bytes, bytes]] | None = None,
) -> None:
    start: Message = {
        "type": "http.response.start",
        "status": status,
        "headers": [
            (b"content-type", content_type.encode()),
            (b"content-length", str(len(body)).encode()),
            *(headers or []),
        ],
    }
    await send(start)
    await send({"type": "http.response.body", "body": body})


class Refused(Exception):
    """A fake's refusal of a request: the HTTP status, the provider's own code (its `code`,
    `reason`, ...) and its words; each fake turns it into its provider's error body."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
JPEG_SIGNATURE = b"\xff\xd8\xff"


def has_credential(request: Request, credential: str, scheme: str = "Bearer") -> bool:
    """Whether the request carries `Authorization: <scheme> <credential>`."""
    return request.headers.get("authorization") == f"{scheme} {credential}"


def is_png_or_jpeg(data: bytes) -> bool:
    return data.startswith((PNG_SIGNATURE, JPEG_SIGNATURE))


async def serves_an_image(url: str) -> bool:
    """Whether an http(s) URL serves a PNG or JPEG, as a provider's fetcher sees it."""
    if not url.startswith(("http://", "https://")):
        return False
    try:
        async with httpx.AsyncClient(timeout=5.0, trust_env=False) as client:
            response = await client.get(url)
    except httpx.HTTPError:
        return False
    return response.status_code == 200 and is_png_or_jpeg(response.content)


def sample_mp4(duration: float = 1.0, width: int = 320, height: int = 180) -> bytes:
    """A real, small H.264 MP4 (rendered once per test session and size)."""
    # One cache key per clip: `sample_mp4()` and `sample_mp4(1.0)` must be the same bytes,
    # and a second render is not byte-identical (the encoder's threads).
    return _rendered_mp4(float(duration), width, height)


@functools.cache
def _rendered_mp4(duration: float, width: int, height: int) -> bytes:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "sample.mp4"
        render_video(RenderSpec("fake provider video", duration, width, height), out)
        return out.read_bytes()
