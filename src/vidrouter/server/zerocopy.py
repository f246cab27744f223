"""The ASGI `http.response.zerocopysend` extension for uvicorn's httptools protocol: a file
(or a range of it) sent to the socket with `os.sendfile`, never copied through Python.

uvicorn offers no zero-copy send of its own. `LimitedHttpToolsProtocol` gives each plain-TCP
request's cycle a `ZeroCopySend` in place of its `send`; every other message goes to
uvicorn's own `send` unchanged. For a zerocopysend message (`file`, `offset`, `count`,
`more_body`, as in the ASGI spec):

- the head uvicorn buffered is flushed first (write buffer limits set to zero for the
  wait), since `sendfile` writes past the transport's buffer;
- `sendfile` runs in a thread, on the socket in non-blocking mode: it returns as soon as
  the socket's buffer is full, so a thread is never held by a slow client, and a file not
  yet in the page cache is read off the event loop. When the socket is full the loop
  waits for it to be writable again (back-pressure);
- both use duplicates of the socket's and the file's descriptors, owned here: the
  transport may close its own (a client that left), or the app its file (a cancelled
  task), while a `sendfile` runs, and a number must not be reused by another connection
  or file under it. A client that left ends the send quietly, as uvicorn does;
- HEAD, chunked responses and a socket `sendfile` refuses get the bytes read in a thread
  and sent as body messages instead.
"""

from __future__ import annotations

import asyncio
import errno
import os
from collections.abc import Awaitable, Callable
from typing import Any

EXTENSION = "http.response.zerocopysend"
# Per sendfile call: bounds one call's disk reads (a file not in the page cache).
_MAX_CALL = 8 << 20
_FALLBACK_CHUNK = 256 << 10
_UNSUPPORTED = frozenset({errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSOCK})
_GONE = (BrokenPipeError, ConnectionResetError)

Send = Callable[[Any], Awaitable[None]]


class ZeroCopySend:
    def __init__(self, cycle: Any, socket_fd: int) -> None:
        self._cycle = cycle  # uvicorn's RequestResponseCycle of this request
        self._send: Send = cycle.send
        self._socket_fd = socket_fd

    async def __call__(self, message: Any) -> None:
        if message["type"] != EXTENSION:
            await self._send(message)
            return
        cycle = self._cycle
        if cycle.disconnected:
            return
        if not cycle.response_started or cycle.response_complete:
            raise RuntimeError(f"'{EXTENSION}' needs a started, unfinished response")
        fd = message["file"].fileno()
        offset = message.get("offset")
        offset = os.lseek(fd, 0, os.SEEK_CUR) if offset is None else offset
        count = message.get("count")
        count = os.fstat(fd).st_size - offset if count is None else count
        more_body = bool(message.get("more_body", False))
        if cycle.scope["method"] == "HEAD" or cycle.chunked_encoding:
            await self._copied(fd, offset, count, more_body)
            return
        if count > cycle.expected_content_length:
            raise RuntimeError("Response content longer than Content-Length")
        sent = await self._sendfile(fd, offset, count)
        if sent is None:  # this socket cannot: the bytes through uvicorn's send
            await self._copied(fd, offset, count, more_body)
            return
        if cycle.disconnected or sent < count:
            return
        cycle.expected_content_length -= count
        if not more_body:
            await self._send({"type": "http.response.body", "body": b"", "more_body": False})

    async def _sendfile(self, fd: int, offset: int, count: int) -> int | None:
        """Bytes sent (fewer: the client left, or the file is shorter than said and the
        connection is closed); None when this socket takes no sendfile (nothing sent)."""
        await self._flushed()
        loop = asyncio.get_running_loop()
        # Both descriptors are our own duplicates: see the module's docstring.
        out, src = os.dup(self._socket_fd), os.dup(fd)
        running: asyncio.Future[int] | None = None
        sent = 0
        try:
            while sent < count and not self._cycle.disconnected:
                size = min(count - sent, _MAX_CALL)
                running = loop.run_in_executor(None, os.sendfile, out, src, offset + sent, size)
                try:
                    n = await running
                except BlockingIOError:
                    await _writable(loop, out)
                    continue
                except _GONE:
                    self._cycle.disconnected = True  # as uvicorn marks a client that left
                    self._cycle.transport.close()
                    return sent
                except OSError as exc:
                    if sent == 0 and exc.errno in _UNSUPPORTED:
                        return None
                    raise
                if n == 0:  # the file ends before the length promised: the client sees it
                    self._cycle.transport.close()
                    return sent
                sent += n
            return sent
        finally:
            if running is not None and not running.done():
                # Cancelled while a sendfile runs: the descriptors are closed after it.
                running.add_done_callback(lambda _: _close(out, src))
            else:
                _close(out, src)

    async def _flushed(self) -> None:
        """Until the transport's buffer (the head) is out on the socket."""
        cycle = self._cycle
        transport = cycle.transport
        if transport.get_write_buffer_size() == 0:
            return
        low, high = transport.get_write_buffer_limits()
        transport.set_write_buffer_limits(high=0, low=0)  # paused until the buffer is empty
        try:
            while transport.get_write_buffer_size() and not cycle.disconnected:
                if cycle.flow.write_paused:
                    await cycle.flow.drain()
                else:  # a transport that did not pause at the new limit: look again soon
                    await asyncio.sleep(0.001)
        finally:
            if not transport.is_closing():
                transport.set_write_buffer_limits(high=high, low=low)

    async def _copied(self, fd: int, offset: int, count: int, more_body: bool) -> None:
        if self._cycle.scope["method"] == "HEAD":
            count = 0
        end = offset + count
        while True:
            chunk = b""
            if offset < end:
                chunk = await asyncio.to_thread(
                    os.pread, fd, min(_FALLBACK_CHUNK, end - offset), offset
                )
                if not chunk:
                    raise RuntimeError("the file is shorter than the count to send")
                offset += len(chunk)
            last = offset >= end
            await self._send(
                {"type": "http.response.body", "body": chunk, "more_body": more_body or not last}
            )
            if last or self._cycle.disconnected:
                return


def _close(*fds: int) -> None:
    for fd in fds:
        os.close(fd)


async def _writable(loop: asyncio.AbstractEventLoop, fd: int) -> None:
    ready: asyncio.Future[None] = loop.create_future()

    def wake() -> None:
        if not ready.done():
            ready.set_result(None)

    loop.add_writer(fd, wake)
    try:
        await ready
    finally:
        loop.remove_writer(fd)
