"""Real HTTP servers for tests: any ASGI app on a free loopback port.

`serve_app` runs it in the test's own event loop (for async clients); `serve_app_in_thread`
runs it in a thread with its own loop (for the providers' synchronous SDKs)."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
from collections.abc import AsyncIterator, Iterator

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _server(app: ASGIApp, port: int) -> uvicorn.Server:
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", lifespan="off", access_log=False
    )
    server = uvicorn.Server(config)
    server.install_signal_handlers = lambda: None  # type: ignore[attr-defined,method-assign,unused-ignore]
    return server


@contextlib.asynccontextmanager
async def serve_app(app: ASGIApp, port: int | None = None) -> AsyncIterator[str]:
    port = port or free_port()
    server = _server(app, port)
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task


@contextlib.contextmanager
def serve_app_in_thread(app: ASGIApp, port: int | None = None) -> Iterator[str]:
    port = port or free_port()
    server = _server(app, port)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        if not thread.is_alive():
            raise RuntimeError("test server did not start")
        threading.Event().wait(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


@contextlib.asynccontextmanager
async def serve_clip(data: bytes) -> AsyncIterator[str]:
    """`data` served as an MP4 on a port (`serve_app`): its URL."""

    async def mp4(_: Request) -> Response:
        return Response(data, media_type="video/mp4")

    async with serve_app(Starlette(routes=[Route("/clip.mp4", mp4)])) as url:
        yield f"{url}/clip.mp4"
