"""SQLite's single writer across event loops (store/write_lock.py): `vidrouter serve` runs the
engine on a thread and loop of its own, beside the API's, each with its own `Database` on
the same file. Their writers queue in one lock: in order, requests' before the engine's,
handed over between loops, and a waiter canceled as it was handed the lock passes it on."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import text

from vidrouter.store import Database
from vidrouter.store.database import as_background
from vidrouter.store.write_lock import WriteLock


class _OtherLoop:
    """An event loop on a thread of its own, as the engine's in `serve`."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()

    def run(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Future[Any]:
        return asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self.loop))

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(5)
        self.loop.close()


@contextmanager
def _other_loop() -> Iterator[_OtherLoop]:
    other = _OtherLoop()
    try:
        yield other
    finally:
        other.close()


async def _until(done: Callable[[], bool]) -> None:
    for _ in range(500):
        if done():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("timed out")


async def test_two_databases_on_two_loops_write_one_at_a_time_requests_first(
    tmp_path: Path,
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'one.sqlite3'}"
    api, engine = Database(url), Database(url)
    await api.migrate()
    order: list[str] = []
    release = asyncio.Event()  # of the other loop: made and set there

    async def hold() -> None:
        as_background()
        async with engine.write() as conn:
            await conn.execute(text("CREATE TABLE t (n INTEGER)"))
            order.append("held")
            await release.wait()

    async def engine_write() -> None:
        as_background()
        async with engine.write() as conn:
            order.append("engine")
            await conn.execute(text("INSERT INTO t VALUES (1)"))

    async def api_write() -> None:
        async with api.write() as conn:
            order.append("api")
            await conn.execute(text("INSERT INTO t VALUES (2)"))

    with _other_loop() as other:
        holding = other.run(hold())  # the engine's writer holds it, on its loop
        await _until(lambda: order == ["held"])
        background = other.run(engine_write())  # queued first, on the same loop
        await asyncio.sleep(0.2)
        request = asyncio.create_task(api_write())  # then the API's, on this one
        await asyncio.sleep(0.2)
        assert order == ["held"]  # nobody writes while one holds it
        other.loop.call_soon_threadsafe(release.set)
        await asyncio.gather(holding, request, background)
        await other.run(engine.close())
    async with api.read() as conn:
        assert (await conn.execute(text("SELECT count(*) FROM t"))).scalar_one() == 2
    await api.close()
    # The request's writer went first although the engine's waited longer (with a lock per
    # `Database`, the engine's would have been handed it, the API's left in SQLite's busy
    # handler).
    assert order == ["held", "api", "engine"]


async def test_a_waiter_canceled_as_the_lock_is_handed_to_it_passes_it_on() -> None:
    lock = WriteLock()
    await lock.acquire(background=False)
    got: list[str] = []

    async def take(name: str) -> None:
        await lock.acquire(background=True)
        got.append(name)
        lock.release()

    with _other_loop() as other:
        first = other.run(take("first"))
        await asyncio.sleep(0.1)
        second = asyncio.create_task(take("second"))
        await asyncio.sleep(0.1)
        # Handed to `first` on the other loop, then canceled before it ran there.
        lock.release()
        first.cancel()
        await asyncio.gather(first, return_exceptions=True)
        await asyncio.wait_for(second, 5)
    assert got in (["second"], ["first", "second"])
    # Free again: taken at once.
    await asyncio.wait_for(lock.acquire(background=False), 1)
    lock.release()
