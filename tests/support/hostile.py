"""A hostile HTTP server on loopback, for the client's tests: each test scripts what it
answers (raw bytes, so it can send HTML, other shapes, drip its answer or never answer).

`script(exchange, sock)` is called once per request in the connection's own thread; the
server closes the connection after it returns. `stopping` is set when the test ends, so a
script that drips or stalls must wait on it rather than sleep."""

from __future__ import annotations

import contextlib
import json
import socket
import socketserver
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Exchange:
    method: str
    target: str  # the request target as sent, e.g. /v1/generations/gen_x
    headers: dict[str, str]
    body: bytes


Script = Callable[[Exchange, socket.socket, threading.Event], None]
GENERATION_ID = "gen_" + "a" * 24


def generation_body(**fields: Any) -> dict[str, Any]:
    """A Generation object as the API sends it (the fields the client requires), changed
    or added to by `fields`."""
    return {
        "id": GENERATION_ID,
        "object": "generation",
        "model": "local-preview",
        "prompt": "a fox",
        "status": "completed",
        "duration": 1,
        "aspect_ratio": "16:9",
        "created_at": "2026-11-27T00:00:00Z",
        **fields,
    }


@dataclass
class HostileServer:
    base_url: str
    seen: list[Exchange] = field(default_factory=list)


def answer(
    sock: socket.socket,
    status: int,
    body: bytes | str | object,
    content_type: str = "application/json",
    headers: dict[str, str] | None = None,
) -> None:
    """A whole answer at once; a body that is not bytes or str is sent as JSON."""
    if isinstance(body, str):
        data = body.encode()
    elif isinstance(body, bytes):
        data = body
    else:
        data = json.dumps(body).encode()
    head = [f"HTTP/1.1 {status} Whatever", f"Content-Type: {content_type}"]
    head += [f"Content-Length: {len(data)}", "Connection: close"]
    head += [f"{k}: {v}" for k, v in (headers or {}).items()]
    sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode() + data)


def drip(sock: socket.socket, data: bytes, every: float, stopping: threading.Event) -> None:
    """`data` one byte at a time, `every` seconds apart, until sent or the test ends."""
    for i in range(len(data)):
        if stopping.wait(every):
            return
        try:
            sock.sendall(data[i : i + 1])
        except OSError:
            return


class _Handler(socketserver.StreamRequestHandler):
    server: _Server

    def handle(self) -> None:
        line = self.rfile.readline(65536).decode("latin-1").rstrip("\r\n")
        if not line:
            return
        method, target, _ = line.split(" ", 2)
        headers: dict[str, str] = {}
        while (header := self.rfile.readline(65536).decode("latin-1").rstrip("\r\n")) != "":
            name, _, value = header.partition(":")
            headers[name.strip().lower()] = value.strip()
        body = self.rfile.read(int(headers.get("content-length", "0")))
        exchange = Exchange(method, target, headers, body)
        self.server.hostile.seen.append(exchange)
        with contextlib.suppress(OSError):  # the client gave up: a hostile server shrugs
            self.server.script(exchange, self.request, self.server.stopping)


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, script: Script) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.script = script
        self.stopping = threading.Event()
        self.hostile = HostileServer(f"http://127.0.0.1:{self.server_address[1]}")


@contextlib.contextmanager
def hostile_server(script: Script) -> Iterator[HostileServer]:
    server = _Server(script)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield server.hostile
    finally:
        server.stopping.set()
        server.shutdown()
        server.server_close()
        thread.join(5)
