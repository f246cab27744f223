"""Issue 15 items 5 and 6: the server's own limits, against a real `vidrouter serve` and raw
sockets on loopback (bounded in count and time)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path

import httpx

from tests.support.process import ServeProcess, cli_env

HOST = "127.0.0.1"


@contextlib.asynccontextmanager
async def serving(tmp_path: Path, **env: str) -> AsyncIterator[ServeProcess]:
    server = ServeProcess(
        cli_env(tmp_path / "data", VIDROUTER_WORKERS="1", VIDROUTER_RENDER_PROCESSES="1", **env)
    )
    try:
        await server.start()
        yield server
    finally:
        server.stop()


async def healthy(server: ServeProcess) -> bool:
    async with httpx.AsyncClient(timeout=10) as client:
        return (await client.get(server.base_url + "/healthz")).status_code == 200


async def closed_by_server(reader: asyncio.StreamReader, within: float) -> bool:
    """True when the server closes the connection (EOF or reset) within `within` seconds."""
    try:
        async with asyncio.timeout(within):
            while await reader.read(65536):
                pass
    except TimeoutError:
        return False
    except ConnectionError:
        pass
    return True


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


async def test_silent_half_open_connections_are_closed_at_the_header_timeout(
    tmp_path: Path,
) -> None:
    async with serving(tmp_path, VIDROUTER_HEADER_TIMEOUT_SECONDS="2") as server:
        held = []
        for i in range(300):
            reader, writer = await asyncio.open_connection(HOST, server.port)
            if i % 2:  # half send a partial request line, half nothing at all
                writer.write(b"GET /v1/models HTTP/1.1\r\nHost: x")
                await writer.drain()
            held.append((reader, writer))
        assert await healthy(server)  # others are answered meanwhile
        closed = await asyncio.gather(*(closed_by_server(r, within=60) for r, _ in held))
        assert all(closed), f"{closed.count(False)} of 300 connections still open"
        assert await healthy(server)
        for _, writer in held:
            writer.close()


async def test_an_endless_header_is_cut_at_the_cap_without_growing_the_server(
    tmp_path: Path,
) -> None:
    async with serving(tmp_path) as server:
        assert server.proc is not None
        assert await healthy(server)
        before = rss_kib(server.proc.pid)
        reader, writer = await asyncio.open_connection(HOST, server.port)
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Filler: ")
        chunk = b"a" * (1 << 20)
        sent = 0
        with contextlib.suppress(ConnectionError):
            async with asyncio.timeout(120):
                while sent < 1 << 30:  # up to 1 GiB, or until the server closes
                    writer.write(chunk)
                    await writer.drain()
                    sent += len(chunk)
        assert sent < 1 << 30, "the server read a whole GiB of header"
        answer = b""
        with contextlib.suppress(ConnectionError, TimeoutError):
            async with asyncio.timeout(10):
                answer = await reader.read()
        grown = rss_kib(server.proc.pid) - before
        assert grown < 8 * 1024, f"the server grew by {grown} KiB"
        assert await healthy(server)
        writer.close()
    if answer:  # the 431 may be lost to the reset of a client still sending
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 431"), head
        assert json.loads(body)["error"]["code"] == "headers_too_large"


async def test_a_large_but_allowed_head_is_served(tmp_path: Path) -> None:
    async with serving(tmp_path, VIDROUTER_MAX_HEADER_BYTES="16384") as server:
        async with httpx.AsyncClient(timeout=10) as client:
            ok = await client.get(server.base_url + "/healthz", headers={"X-A": "a" * 12_000})
            assert ok.status_code == 200
        reader, writer = await asyncio.open_connection(HOST, server.port)
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: " + b"a" * 20_000 + b"\r\n\r\n")
        await writer.drain()
        answer = await asyncio.wait_for(reader.read(), 10)
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 431"), head
        error = json.loads(body)["error"]
        assert error["type"] == "invalid_request_error" and error["code"] == "headers_too_large"
        writer.close()


async def test_connections_over_the_cap_are_refused_and_released(tmp_path: Path) -> None:
    env = {"VIDROUTER_MAX_CONNECTIONS": "20", "VIDROUTER_HEADER_TIMEOUT_SECONDS": "60"}
    async with serving(tmp_path, **env) as server:
        held = [await asyncio.open_connection(HOST, server.port) for _ in range(20)]
        await asyncio.sleep(0.2)  # let the server accept them all
        # Refused at once, before it sends anything (a request sent meanwhile could turn the
        # close into a reset that loses the answer).
        reader, writer = await asyncio.open_connection(HOST, server.port)
        answer = await asyncio.wait_for(reader.read(), 10)
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 503"), head
        assert json.loads(body)["error"]["code"] == "too_many_connections"
        writer.close()
        for _, held_writer in held:
            held_writer.close()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 30
        while True:  # the server sees the closes in its own time
            try:
                if await healthy(server):
                    break
            except httpx.HTTPError:
                pass
            assert loop.time() < deadline, "the server never took connections again"
            await asyncio.sleep(0.2)


async def test_an_idle_kept_alive_connection_is_closed(tmp_path: Path) -> None:
    async with serving(tmp_path, VIDROUTER_KEEP_ALIVE_SECONDS="1") as server:
        reader, writer = await asyncio.open_connection(HOST, server.port)
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        await writer.drain()
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
        assert head.startswith(b"HTTP/1.1 200")
        assert await closed_by_server(reader, within=30)
        writer.close()
