"""The engine of `vidrouter serve --role all` on a thread and an event loop of its own.

On one loop, a create or a poll waited its turn behind the engine's callbacks (64 tasks
submitting, polling, downloading, storing): the API's latency was the engine's load
(docs/performance.md). Here the engine has a `Composition` of its own, built and used only
on its loop (its own database connections, HTTP clients and caches), and the API's loop
waits for it no longer than the interpreter's switch interval. One process still: on
SQLite one writer, the write lock shared by both sides (store/write_lock.py); a kill -9
takes both halves, and their leases run out together, as before.

What crosses between the two: wake-ups (`call_soon_threadsafe`), the metrics (one
`Observer`, thread-safe), and the state of the work loops for /readyz.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable

from vidrouter.composition import Composition
from vidrouter.observability import Observer
from vidrouter.settings import Settings

log = logging.getLogger(__name__)

LoopFactory = Callable[[], asyncio.AbstractEventLoop] | None


class EngineThread:
    def __init__(self, settings: Settings, observer: Observer, loop_factory: LoopFactory) -> None:
        self._settings = settings
        self._observer = observer
        self._loop_factory = loop_factory
        self._thread = threading.Thread(target=self._run, name="vidrouter-engine", daemon=True)
        self._ready = threading.Event()
        self._failure: BaseException | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._service: Composition | None = None
        self._stop: asyncio.Event | None = None
        self._grace = 0.0

    async def start(self) -> None:
        """Once its workers run; what failed on the way (say, the database) is raised here."""
        self._thread.start()
        await asyncio.to_thread(self._ready.wait)
        if self._failure is not None:
            await asyncio.to_thread(self._thread.join)
            raise self._failure

    async def stop(self, grace: float) -> None:
        """The workers finish or hand back what they hold (within `grace`), then it ends."""
        self._grace = grace
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None:
            with contextlib.suppress(RuntimeError):  # its loop ended already
                loop.call_soon_threadsafe(stop.set)
        await asyncio.to_thread(self._thread.join)

    @property
    def running(self) -> bool:
        service = self._service
        return self._thread.is_alive() and service is not None and service.workers_running

    def wake(self) -> None:
        self._call(Composition.wake)

    def wake_deliveries(self) -> None:
        self._call(Composition.wake_deliveries)

    def _call(self, method: Callable[[Composition], None]) -> None:
        loop, service = self._loop, self._service
        if loop is None or service is None:
            return  # not started yet: it claims what is due once it is
        # Stopping: what was written stays due for the next start.
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(method, service)

    def _run(self) -> None:
        try:
            with asyncio.Runner(loop_factory=self._loop_factory) as runner:
                runner.run(self._main())
        except BaseException as exc:  # reported to `start`, or logged
            if not self._ready.is_set():
                self._failure = exc
            else:
                log.exception("engine_thread_failed")
        finally:
            self._ready.set()

    async def _main(self) -> None:
        service = Composition(self._settings, observer=self._observer)
        self._stop = asyncio.Event()
        try:
            await service.open()
            service.start_workers()
            self._service = service
            self._loop = asyncio.get_running_loop()
            self._ready.set()
            await self._stop.wait()
        finally:
            await service.close(grace=self._grace)
