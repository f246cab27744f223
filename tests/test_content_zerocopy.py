"""Large local videos go out with `sendfile` (`server/zerocopy.py`): end to end through a real
`vidrouter serve` (whole, ranges, a slow reader, clients that leave), and the ASGI
`http.response.zerocopysend` extension itself on our uvicorn protocol."""

from __future__ import annotations

import asyncio
import hashlib
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from tests.support.process import ServeProcess, cli_env, create_key
from tests.support.servers import free_port
from vidrouter.server.limits import limited_protocol
from vidrouter.server.zerocopy import EXTENSION

SIZE = 24 * 1024 * 1024 + 123  # well past the socket's buffers, not a round number


@pytest.fixture
async def large_video(tmp_path: Path) -> AsyncIterator[tuple[ServeProcess, str, bytes]]:
    """`vidrouter serve`, and the signed URL of a finished video made large on its disk."""
    env = cli_env(tmp_path / "data", VIDROUTER_WORKERS="1", VIDROUTER_RENDER_PROCESSES="1")
    auth = {"Authorization": f"Bearer {create_key(env)['key']}"}
    server = ServeProcess(env)
    await server.start()
    try:
        async with httpx.AsyncClient(base_url=server.base_url, headers=auth, timeout=30) as c:
            made = await c.post(
                "/v1/generations", json={"model": "local-preview", "prompt": "big", "duration": 0.5}
            )
            assert made.status_code == 202, made.text
            for _ in range(600):
                done = (await c.get(f"/v1/generations/{made.json()['id']}")).json()
                if done["status"] in ("completed", "failed"):
                    break
                await asyncio.sleep(0.1)
        assert done["status"] == "completed", done
        stored = tmp_path / "data" / "blobs" / "videos" / f"{done['id']}.mp4"
        data = os.urandom(SIZE)
        stored.write_bytes(data)  # the same key: the signed URL now serves these bytes
        yield server, str(done["video_url"]), data
    finally:
        server.stop()


def open_fds(server: ServeProcess) -> int:
    assert server.proc is not None
    return len(os.listdir(f"/proc/{server.proc.pid}/fd"))


async def test_large_files_whole_and_in_ranges_over_one_connection(
    large_video: tuple[ServeProcess, str, bytes],
) -> None:
    _, url, data = large_video
    async with httpx.AsyncClient(timeout=60) as client:  # one kept-alive connection
        whole = await client.get(url)
        assert whole.status_code == 200
        assert int(whole.headers["content-length"]) == SIZE
        assert hashlib.sha256(whole.content).digest() == hashlib.sha256(data).digest()
        etag = whole.headers["etag"]
        for header, start, end in [
            ("bytes=0-", 0, SIZE),  # what a <video> element asks first
            ("bytes=1000-5000999", 1000, 5001000),
            (f"bytes=-{SIZE // 3}", SIZE - SIZE // 3, SIZE),
            ("bytes=7-7", 7, 8),
        ]:
            part = await client.get(url, headers={"Range": header})
            assert part.status_code == 206, header
            assert part.headers["content-range"] == f"bytes {start}-{end - 1}/{SIZE}"
            assert int(part.headers["content-length"]) == end - start
            assert part.headers["etag"] == etag
            assert part.content == data[start:end], header
        head = await client.head(url)
        assert head.status_code == 200 and head.content == b""
        assert int(head.headers["content-length"]) == SIZE
        assert (await client.get(url, headers={"If-None-Match": etag})).status_code == 304


async def test_a_slow_reader_gets_every_byte_and_clients_that_leave_cost_nothing(
    large_video: tuple[ServeProcess, str, bytes],
) -> None:
    server, url, data = large_video
    target = url.removeprefix(server.base_url)
    request = f"GET {target} HTTP/1.1\r\nHost: x\r\n\r\n".encode()
    port = server.port

    reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=1 << 20)
    writer.write(request)
    head = await reader.readuntil(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200") and f"content-length: {SIZE}".encode() in head
    got = bytearray()
    while len(got) < SIZE:  # a reader far slower than the server: back-pressure all along
        got += await reader.read(256 * 1024)
        if len(got) < 4 * 1024 * 1024:
            await asyncio.sleep(0.05)
    assert bytes(got) == data
    # The same connection serves the next request (the response was completed properly).
    writer.write(f"GET {target} HTTP/1.1\r\nHost: x\r\nRange: bytes=0-9\r\n\r\n".encode())
    again = await reader.readuntil(b"\r\n\r\n")
    assert again.startswith(b"HTTP/1.1 206") and await reader.readexactly(10) == data[:10]
    writer.close()

    before = open_fds(server)
    for _ in range(5):  # leave mid-transfer, unread bytes in flight
        r, w = await asyncio.open_connection("127.0.0.1", port)
        w.write(request)
        await r.readexactly(64 * 1024)
        w.transport.abort()
    async with httpx.AsyncClient(timeout=30) as client:
        for _ in range(100):
            await asyncio.sleep(0.1)
            if open_fds(server) <= before:
                break
        assert open_fds(server) <= before  # no descriptor kept for a client that left
        assert (await client.get(server.base_url + "/healthz")).status_code == 200
        assert (await client.get(url, headers={"Range": "bytes=0-99"})).content == data[:100]


async def test_the_protocol_offers_zerocopysend_with_offsets_and_more_body(
    tmp_path: Path,
) -> None:
    data = os.urandom(3 * 1024 * 1024)
    path = tmp_path / "file.bin"
    path.write_bytes(data)
    seen: list[dict[str, Any]] = []
    big_mid = os.urandom(32 * 1024 * 1024)

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        seen.append(scope.get("extensions", {}))
        assert EXTENSION in scope.get("extensions", {})
        # /buffered: a middle part far larger than the socket takes at once, so uvicorn
        # still holds most of it when the next sendfile must wait for it to be flushed.
        mid = big_mid if scope["path"] == "/buffered" else b"-mid-"
        length = 1_000_000 + len(mid) + 1_500_000
        # /chunked: no length given, so the bytes go in chunks (read, not sendfile).
        sized = [] if scope["path"] == "/chunked" else [(b"content-length", str(length).encode())]
        await send({"type": "http.response.start", "status": 200, "headers": sized})
        with path.open("rb") as file:
            await send(
                {
                    "type": EXTENSION,
                    "file": file,
                    "offset": 10,
                    "count": 1_000_000,
                    "more_body": True,
                }
            )
            await send({"type": "http.response.body", "body": mid, "more_body": True})
            await send({"type": EXTENSION, "file": file, "offset": 1_500_000, "count": 1_500_000})

    port = free_port()
    protocol = limited_protocol(header_timeout=10, max_header_bytes=65536, max_connections=100)
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, http=protocol, lifespan="off", log_level="warning"
    )
    server = uvicorn.Server(config)
    serving = asyncio.create_task(server.serve())
    try:
        while not server.started:
            await asyncio.sleep(0.05)
        async with httpx.AsyncClient(timeout=30) as client:
            expected = data[10:1_000_010] + b"-mid-" + data[1_500_000:3_000_000]
            for route in ("/", "/", "/chunked", "/buffered", "/"):  # one connection throughout
                response = await client.get(f"http://127.0.0.1:{port}{route}")
                assert response.status_code == 200
                if route == "/buffered":
                    assert response.content == expected.replace(b"-mid-", big_mid)
                    continue
                assert response.content == expected, route
                chunked = response.headers.get("transfer-encoding") == "chunked"
                assert chunked == (route == "/chunked")
            head = await client.head(f"http://127.0.0.1:{port}/")
            assert head.status_code == 200 and head.content == b""
            assert head.headers["content-length"] == str(len(expected))
    finally:
        server.should_exit = True
        await serving
    assert len(seen) == 6
