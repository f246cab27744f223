"""A small, fast HTTP/1.1 load generator: N keep-alive connections, each sending GETs back to
back for a fixed time, recording every latency. Raw asyncio streams, so the generator costs
far less CPU per request than the server it measures (httpx would be the bottleneck)."""

from __future__ import annotations

import asyncio
import itertools
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit


@dataclass(frozen=True)
class LoadResult:
    requests: int
    errors: int
    seconds: float
    latencies_ms: list[float]

    @property
    def rps(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    def percentile(self, p: float) -> float:
        if not self.latencies_ms:
            return float("nan")
        ordered = sorted(self.latencies_ms)
        index = min(len(ordered) - 1, max(0, round(p / 100 * len(ordered)) - 1))
        return ordered[index]

    def summary(self) -> dict[str, float]:
        return {
            "requests": self.requests,
            "errors": self.errors,
            "rps": round(self.rps, 1),
            "p50_ms": round(self.percentile(50), 2),
            "p90_ms": round(self.percentile(90), 2),
            "p99_ms": round(self.percentile(99), 2),
            "max_ms": round(max(self.latencies_ms, default=float("nan")), 2),
            "mean_ms": round(statistics.fmean(self.latencies_ms), 2) if self.latencies_ms else 0,
        }


async def _connection(
    host: str,
    port: int,
    request: Callable[[], bytes],
    until: float,
    latencies: list[float],
    errors: list[int],
    limit: Callable[[], bool],
    bodies: list[bytes] | None,
) -> int:
    reader, writer = await asyncio.open_connection(host, port)
    done = 0
    try:
        while time.perf_counter() < until and limit():
            started = time.perf_counter()
            writer.write(request())
            head = await reader.readuntil(b"\r\n\r\n")
            status = int(head[9:12])
            length = 0
            for line in head.split(b"\r\n"):
                if line[:15].lower() == b"content-length:":
                    length = int(line[15:].strip())
            body = await reader.readexactly(length) if length else b""
            if bodies is not None:
                bodies.append(body)
            latencies.append((time.perf_counter() - started) * 1000)
            if status >= 300:
                errors.append(status)
            done += 1
    finally:
        writer.close()
    return done


async def run_load(
    url: str,
    *,
    seconds: float,
    connections: int,
    headers: dict[str, str] | None = None,
    body: Callable[[], bytes] | None = None,
    count: int | None = None,
    bodies: list[bytes] | None = None,
) -> LoadResult:
    """GETs, or POSTs of `body()` (JSON; a new body per request), for `seconds` or until
    `count` requests were sent; `bodies` collects the answers' bodies when given."""
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    lines = [f"{'POST' if body else 'GET'} {path} HTTP/1.1", f"Host: {host}:{port}"]
    lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
    head = "\r\n".join(lines)
    fixed = (head + "\r\n\r\n").encode()

    def request() -> bytes:
        if body is None:
            return fixed
        payload = body()
        return (
            f"{head}\r\nContent-Type: application/json\r\nContent-Length: {len(payload)}\r\n\r\n"
        ).encode() + payload

    sent = itertools.count(1)

    def limit() -> bool:
        return count is None or next(sent) <= count

    latencies: list[float] = []
    errors: list[int] = []
    started = time.perf_counter()
    until = started + seconds
    counts = await asyncio.gather(
        *(
            _connection(host, port, request, until, latencies, errors, limit, bodies)
            for _ in range(connections)
        )
    )
    elapsed = time.perf_counter() - started
    return LoadResult(sum(counts), len(errors), elapsed, latencies)
