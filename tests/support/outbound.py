"""What the outbound-guard tests share: DNS played by the tests, and a bare HTTP/1.1
server that controls every byte and records every request."""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpcore

from vidrouter.domain.addresses import IPAddress, parse_ip_literal

# --- DNS played by the tests -------------------------------------------------------------


@dataclass
class FakeDNS:
    """Answers by name; `answers[name]` is a list of answers, one per lookup (the last one
    repeats), so a name can "rebind" between lookups. Records every lookup."""

    answers: dict[str, list[list[str]]] = field(default_factory=dict)
    lookups: list[str] = field(default_factory=list)

    def add(self, name: str, *answers: list[str]) -> FakeDNS:
        self.answers[name] = list(answers)
        return self

    async def __call__(self, host: str, port: int) -> Sequence[IPAddress]:
        self.lookups.append(host)
        if host not in self.answers:
            raise OSError(f"NXDOMAIN {host}")
        answers = self.answers[host]
        answer = answers[min(self.lookups.count(host), len(answers)) - 1]
        return [a for a in map(parse_ip_literal, answer) if a is not None]


class RecordingBackend(httpcore.AsyncMockBackend):
    """Pretends to connect: records where to, and answers every request with `response`."""

    def __init__(self, response: bytes = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok") -> None:
        super().__init__([response])
        self.connects: list[tuple[str, int]] = []

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        self.connects.append((host, port))
        return await super().connect_tcp(host, port, timeout, local_address, socket_options)


# --- a bare HTTP/1.1 server, to control every byte and see every request -------------------


@dataclass
class Seen:
    method: str
    target: str
    headers: dict[str, str]
    body: bytes


Respond = Callable[["Raw", Seen, asyncio.StreamWriter], Awaitable[None]]


class Raw:
    def __init__(self, respond: Respond) -> None:
        self.respond = respond
        self.seen: list[Seen] = []
        self.sent = 0  # body bytes a streaming responder got out
        self.sni: list[str | None] = []
        self._tasks: set[asyncio.Task[Any]] = set()

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
            line, *lines = head.split("\r\n")
            method, target, _ = line.split(" ", 2)
            headers = {
                k.strip().lower(): v.strip() for k, _, v in (h.partition(":") for h in lines if h)
            }
            body = await reader.readexactly(int(headers.get("content-length", "0")))
            seen = Seen(method, target, headers, body)
            self.seen.append(seen)
            await self.respond(self, seen, writer)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()
            self._tasks.discard(task)

    def stop(self) -> None:
        for task in list(self._tasks):
            task.cancel()


@contextlib.asynccontextmanager
async def raw_server(
    respond: Respond, *, host: str = "127.0.0.1", port: int = 0, tls: ssl.SSLContext | None = None
) -> AsyncIterator[tuple[Raw, int]]:
    raw = Raw(respond)
    if tls is not None:
        tls.sni_callback = lambda _obj, name, _ctx: raw.sni.append(name)
    server = await asyncio.start_server(raw.handle, host, port, ssl=tls)
    try:
        yield raw, int(server.sockets[0].getsockname()[1])
    finally:
        server.close()
        raw.stop()
        await server.wait_closed()


def answer(status: int = 200, body: bytes = b"ok", **headers: str) -> Respond:
    async def respond(raw: Raw, seen: Seen, writer: asyncio.StreamWriter) -> None:
        extra = "".join(f"{k.replace('_', '-')}: {v}\r\n" for k, v in headers.items())
        head = f"HTTP/1.1 {status} X\r\ncontent-length: {len(body)}\r\n{extra}connection: close\r\n\r\n"
        writer.write(head.encode("latin-1") + body)
        await writer.drain()

    return respond


def endless(*, declare: int | None = None, total: int = 256 * 1024 * 1024) -> Respond:
    """A body of `total` bytes in 64 KiB writes, with or without a Content-Length."""

    async def respond(raw: Raw, seen: Seen, writer: asyncio.StreamWriter) -> None:
        length = f"content-length: {declare}\r\n" if declare is not None else ""
        writer.write(f"HTTP/1.1 200 OK\r\n{length}connection: close\r\n\r\n".encode())
        block = b"\0" * 65536
        while raw.sent < total:
            writer.write(block)
            await writer.drain()
            raw.sent += len(block)

    return respond


def drip(every: float) -> Respond:
    """Headers at once, then one byte every `every` seconds: no single read ever times out."""

    async def respond(raw: Raw, seen: Seen, writer: asyncio.StreamWriter) -> None:
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 100000\r\n\r\n")
        while True:
            await writer.drain()
            await asyncio.sleep(every)
            writer.write(b"x")
            raw.sent += 1

    return respond


async def silent(raw: Raw, seen: Seen, writer: asyncio.StreamWriter) -> None:
    await asyncio.sleep(3600)
