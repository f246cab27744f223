"""A loopback HTTP/1.1 proxy that loses the answers to chosen requests after the real server
behind it has handled them: the case a client's retry must survive without a second video.

`faults` are consumed in order by the requests `matches` accepts: "drop" closes the client's
connection without an answer; "502" answers `502 Bad Gateway` instead of the server's answer;
"429" answers `429` with `Retry-After: 1` and the API's error object, as an overloaded server
in front would.
Every request that passes is recorded (method, path, Idempotency-Key)."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import httpx

from tests.support.servers import free_port


@dataclass
class Seen:
    method: str
    path: str
    idempotency_key: str | None
    status: int
    fault: str | None


@dataclass
class LossyProxy:
    upstream: str
    faults: list[str]
    matches: Callable[[str, str], bool]
    seen: list[Seen] = field(default_factory=list)
    writers: set[asyncio.StreamWriter] = field(default_factory=set)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.writers.add(writer)
        async with httpx.AsyncClient(base_url=self.upstream) as upstream:
            try:
                while await self._one(reader, writer, upstream):
                    pass
            except (asyncio.IncompleteReadError, ConnectionError):
                pass
            finally:
                self.writers.discard(writer)
                writer.close()

    async def _one(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        upstream: httpx.AsyncClient,
    ) -> bool:
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
        request_line, *lines = head.split("\r\n")
        method, target, _ = request_line.split(" ", 2)
        headers = dict(line.split(": ", 1) for line in lines if line)
        lowered = {k.lower(): v for k, v in headers.items()}
        body = await reader.readexactly(int(lowered.get("content-length", "0")))
        forward = {k: v for k, v in headers.items() if k.lower() not in {"host", "connection"}}
        response = await upstream.request(method, target, headers=forward, content=body)
        path = target.split("?", 1)[0]
        fault = self.faults.pop(0) if self.faults and self.matches(method, path) else None
        self.seen.append(
            Seen(method, path, lowered.get("idempotency-key"), response.status_code, fault)
        )
        if fault == "drop":
            return False
        if fault == "502":
            writer.write(b"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n")
            await writer.drain()
            return True
        if fault == "429":
            body = (
                b'{"error": {"type": "rate_limit_error", "code": "rate_limit_exceeded", '
                b'"message": "slow down", "param": null}}'
            )
            head = (
                f"HTTP/1.1 429 Too Many Requests\r\nretry-after: 1\r\ncontent-length: {len(body)}"
            )
            writer.write(head.encode() + b"\r\n\r\n" + body)
            await writer.drain()
            return True
        out = [f"HTTP/1.1 {response.status_code} {response.reason_phrase}"]
        for name, value in response.headers.multi_items():
            if name.lower() not in {
                "content-length",
                "transfer-encoding",
                "connection",
                "content-encoding",
            }:
                out.append(f"{name}: {value}")
        out.append(f"content-length: {len(response.content)}")
        writer.write(("\r\n".join(out) + "\r\n\r\n").encode("latin-1") + response.content)
        await writer.drain()
        return True


@contextlib.contextmanager
def lossy_proxy(proxy: LossyProxy) -> Iterator[str]:
    """Run the proxy in a thread with its own event loop (so blocking clients can use it)."""
    port = free_port()
    loop = asyncio.new_event_loop()
    started = threading.Event()
    stop = asyncio.Event()

    async def serve() -> None:
        server = await asyncio.start_server(proxy._handle, "127.0.0.1", port)
        started.set()
        await stop.wait()
        server.close()
        for writer in list(proxy.writers):  # kept-alive connections end with the proxy
            writer.close()

    thread = threading.Thread(target=loop.run_until_complete, args=(serve(),), daemon=True)
    thread.start()
    started.wait(30)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        loop.call_soon_threadsafe(stop.set)
        thread.join(10)
