"""What uvicorn's parser refuses gets our error object, not uvicorn's `text/plain`
"Invalid HTTP request received.": raw bytes on loopback against the server with
`vidrouter serve`'s protocol (`server/limits.py`)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import uvicorn
from starlette.responses import PlainTextResponse
from starlette.types import Receive, Scope, Send

from tests.support.harness import test_settings
from tests.support.servers import free_port
from vidrouter.server.limits import server_options


async def ok(scope: Scope, receive: Receive, send: Send) -> None:
    await PlainTextResponse("ok")(scope, receive, send)


@contextlib.asynccontextmanager
async def limited_server(tmp_path: Path) -> AsyncIterator[int]:
    port = free_port()
    options = server_options(test_settings(tmp_path / "data"))
    config = uvicorn.Config(
        ok, host="127.0.0.1", port=port, log_level="error", lifespan="off", **options
    )
    server = uvicorn.Server(config)
    server.install_signal_handlers = lambda: None  # type: ignore[attr-defined,method-assign,unused-ignore]
    task = asyncio.create_task(server.serve())
    while not server.started:
        await asyncio.sleep(0.01)
    try:
        yield port
    finally:
        server.should_exit = True
        await task


async def exchange(port: int, raw: bytes) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(raw)
        await writer.drain()
        async with asyncio.timeout(5):
            return await reader.read()  # the server closes the connection after answering
    finally:
        writer.close()


MALFORMED = [
    pytest.param(b"FO\x01O / HTTP/1.1\r\nHost: x\r\n\r\n", id="method-token"),
    pytest.param(b"GET / HTTP/1.1\r\nHost: x\r\nX-A: a\x7fb\r\n\r\n", id="del-in-header"),
    pytest.param(b"GET / HTTP/1.1\r\nHo st: x\r\n\r\n", id="space-in-name"),
    pytest.param(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", id="tls-hello"),
    pytest.param(b"GET / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", id="2cl"),
]


@pytest.mark.parametrize("raw", MALFORMED)
async def test_a_request_the_parser_refuses_gets_our_error_object(
    tmp_path: Path, raw: bytes
) -> None:
    async with limited_server(tmp_path) as port:
        answer = await exchange(port, raw)
        # The server still serves well-formed requests afterwards.
        good = await exchange(port, b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    assert lines[0] == "HTTP/1.1 400 Bad Request", answer
    headers = {k.lower(): v.strip() for k, _, v in (h.partition(":") for h in lines[1:])}
    assert headers["content-type"] == "application/json"
    assert headers["connection"] == "close" and headers["x-request-id"]
    error = json.loads(body)["error"]
    assert set(error) == {"type", "code", "message", "param"}
    assert (error["type"], error["code"]) == ("invalid_request_error", "invalid_http_request")
    assert good.startswith(b"HTTP/1.1 200") and good.endswith(b"ok")
