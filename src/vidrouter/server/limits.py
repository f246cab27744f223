"""Limits of the HTTP server itself, for `vidrouter serve` facing clients directly.

uvicorn alone holds a connection that sent half a request line for ever, accepts any number
of connections, and (with the httptools parser) buffers an unterminated header without
limit. Here its httptools protocol is extended, per connection, with:

- a header-read timeout: from the connection's first byte (or from the first byte of the
  next request on a kept-alive one) the request line and headers must be complete within
  `VIDROUTER_HEADER_TIMEOUT_SECONDS`, else the connection is closed;
- a cap on the head's size: over `VIDROUTER_MAX_HEADER_BYTES` the client gets `431` and the
  connection is closed, so the parser never holds more than the cap plus one read;
- a cap on open connections: one over `VIDROUTER_MAX_CONNECTIONS` gets `503` and is closed
  at once, releasing its descriptor;
- `VIDROUTER_KEEP_ALIVE_SECONDS`: an idle kept-alive connection is closed after this;
- the ASGI `http.response.zerocopysend` extension on plain TCP (see `server/zerocopy.py`): the
  content host sends local files with `sendfile`;
- a request httptools cannot parse (an unknown method token, a control character in a
  header, not HTTP at all) gets our error object, `400 invalid_http_request` in JSON, where
  uvicorn would answer `text/plain` "Invalid HTTP request received."; the connection is
  closed as uvicorn closes it.

Why httptools and not h11: h11 has a size cap of its own (`h11_max_incomplete_event_size`)
but no header timeout either, and it parses at about half the speed, which the poll path
(`GET /v1/generations/{id}`, most of all requests) would pay on every request. Counting
bytes at the socket costs an addition per read.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from vidrouter.server.zerocopy import EXTENSION, ZeroCopySend
from vidrouter.settings import Settings


def server_options(settings: Settings) -> dict[str, Any]:
    """Keyword arguments for `uvicorn.Config` that put the limits in place."""
    return {
        "http": limited_protocol(
            header_timeout=settings.header_timeout_seconds,
            max_header_bytes=settings.max_header_bytes,
            max_connections=settings.max_connections,
        ),
        "timeout_keep_alive": settings.keep_alive_seconds,
    }


def limited_protocol(
    *, header_timeout: float, max_header_bytes: int, max_connections: int
) -> type[HttpToolsProtocol]:
    class Limited(LimitedHttpToolsProtocol):
        pass

    Limited.header_timeout = header_timeout
    Limited.max_header_bytes = max_header_bytes
    Limited.max_connections = max_connections
    return Limited


class LimitedHttpToolsProtocol(HttpToolsProtocol):
    header_timeout: float = 10.0
    max_header_bytes: int = 64 * 1024
    max_connections: int = 1000

    _in_head = False
    _head_bytes = 0  # bytes read while the head was incomplete (a head spanning reads)
    _parsed_bytes = 0  # the request line and headers as parsed (a head within one read)
    _head_timer: asyncio.TimerHandle | None = None
    _sendfile_fd: int | None = None  # the socket's, on plain TCP: zerocopysend is offered

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        # Plain TCP only: TLS must encrypt the bytes in user space.
        socket = transport.get_extra_info("socket")
        if socket is not None and transport.get_extra_info("sslcontext") is None:
            self._sendfile_fd = socket.fileno()
        if len(self.connections) > self.max_connections:
            self._refuse(503, "too_many_connections", "the server has too many open connections")
            return
        self._start_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_timer()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        head_before = self._in_head  # a head that began within this read is counted as parsed
        super().data_received(data)
        if head_before and self._in_head and not self.transport.is_closing():
            # The whole read counts: a head over the cap is refused within one read of it,
            # so httptools (which buffers an unfinished header without limit) holds no more.
            self._head_bytes += len(data)
            if self._head_bytes > self.max_header_bytes:
                self._refuse_head()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if not self._in_head:
            self._start_head()

    def on_url(self, url: bytes) -> None:
        self._parsed_bytes += len(url)
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._parsed_bytes += len(name) + len(value) + 4
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        over = self._parsed_bytes > self.max_header_bytes
        self._in_head = False
        self._head_bytes = self._parsed_bytes = 0
        self._stop_timer()
        if over:
            self._refuse_head()
            raise _HeadTooLarge  # stops the parser: the request is never dispatched
        before = self.cycle
        super().on_headers_complete()
        if self.cycle is not before and self.cycle is not None:
            self._offer_zerocopy(self.cycle)

    def _offer_zerocopy(self, cycle: Any) -> None:
        # The app calls the cycle's `send` once its task runs, after this: in time.
        if self._sendfile_fd is None:
            return
        cycle.send = ZeroCopySend(cycle, self._sendfile_fd)
        cycle.scope.setdefault("extensions", {})[EXTENSION] = {}

    def send_400_response(self, msg: str) -> None:
        # uvicorn calls this when httptools refuses the bytes; its answer is plain text.
        if not self.transport.is_closing():  # not after our own 431
            self.transport.write(
                _error_response(
                    400,
                    "invalid_http_request",
                    "the request is not valid HTTP/1.1 (a malformed request line, method or "
                    "header); nothing was done",
                )
            )
            self.transport.close()

    def _refuse_head(self) -> None:
        self._refuse(
            431,
            "headers_too_large",
            f"the request line and headers exceed {self.max_header_bytes} bytes",
        )

    def _start_head(self) -> None:
        self._in_head = True
        self._head_bytes = self._parsed_bytes = 0
        if self._head_timer is None:
            self._head_timer = self.loop.call_later(self.header_timeout, self._head_timed_out)

    def _stop_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_timed_out(self) -> None:
        self._head_timer = None
        if self._in_head and not self.transport.is_closing():
            self.transport.close()

    def _refuse(self, status: int, code: str, message: str) -> None:
        self._in_head = False
        self._stop_timer()
        if self.cycle is None or self.cycle.response_complete:
            self.transport.write(_error_response(status, code, message))
        self.transport.close()


class _HeadTooLarge(Exception):
    pass


_REASONS = {
    400: b"Bad Request",
    431: b"Request Header Fields Too Large",
    503: b"Service Unavailable",
}
_TYPES = {
    400: "invalid_request_error",
    431: "invalid_request_error",
    503: "service_unavailable_error",
}


def _error_response(status: int, code: str, message: str) -> bytes:
    body = json.dumps(
        {"error": {"type": _TYPES[status], "code": code, "message": message, "param": None}}
    ).encode()
    head = [
        b"HTTP/1.1 %d %s" % (status, _REASONS[status]),
        b"content-type: application/json",
        b"content-length: %d" % len(body),
        b"connection: close",
        # Every response carries one; the app's middleware never saw this request.
        b"x-request-id: %s" % uuid.uuid4().hex.encode(),
    ]
    if status == 503:
        head.append(b"retry-after: 1")
    return b"\r\n".join(head) + b"\r\n\r\n" + body
