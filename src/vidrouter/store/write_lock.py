"""SQLite's single writer, taken in this process before SQLite is asked.

Writers queue here, in order, instead of in SQLite's busy handler, which sleeps up to
100 ms between tries: under load that sleeping, not the work, was what bounded the engine
(docs/performance.md). Requests' writers go before background ones (the engine's): an
asyncio.Lock is first come, first served.

One lock per database file for the whole process, shared by every `Database` on it, on any
event loop: `vidrouter serve` runs the engine on a thread and a loop of its own, beside the
API's, each with its own connections to the same file. The queues are guarded by a
thread lock; a waiter on another loop is handed the lock through that loop's
`call_soon_threadsafe`.
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque

_Waiter = tuple[asyncio.AbstractEventLoop, "asyncio.Future[None]"]


class WriteLock:
    def __init__(self) -> None:
        self._mutex = threading.Lock()
        self._held = False
        self._waiting: tuple[deque[_Waiter], deque[_Waiter]] = (deque(), deque())

    async def acquire(self, background: bool) -> None:
        loop = asyncio.get_running_loop()
        with self._mutex:
            if not self._held and not any(self._waiting):
                self._held = True
                return
            waiter: _Waiter = (loop, loop.create_future())
            queue = self._waiting[background]
            queue.append(waiter)
        try:
            await waiter[1]
        except asyncio.CancelledError:
            with self._mutex:
                if waiter in queue:  # not handed over: just leave the queue
                    queue.remove(waiter)
                    raise
            self.release()  # handed over as it was canceled: pass it on
            raise

    def release(self) -> None:
        with self._mutex:
            waiter = next((queue.popleft() for queue in self._waiting if queue), None)
            if waiter is None:
                self._held = False
                return
        # Still held: now by that waiter, who is told on its own loop.
        loop, future = waiter
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if loop is running:
            _hand(future)
            return
        try:
            loop.call_soon_threadsafe(_hand, future)
        except RuntimeError:  # its loop is closed: nobody is left to take it
            self.release()


def _hand(future: asyncio.Future[None]) -> None:
    # A future canceled meanwhile: its waiter's `acquire` passes the lock on.
    if not future.done():
        future.set_result(None)


_locks: dict[str, WriteLock] = {}
_locks_mutex = threading.Lock()


def write_lock_for(url: str) -> WriteLock:
    """The process's one lock for the database at `url`."""
    with _locks_mutex:
        lock = _locks.get(url)
        if lock is None:
            lock = _locks[url] = WriteLock()
        return lock
