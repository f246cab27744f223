"""Group commit: small writes of concurrent tasks, queued and committed in one transaction.

The engine's tasks each end a step with a small write (a generation's fenced save, a
delivery's record, a route outcome). One transaction each costs a turn at SQLite's single
writer and the round trips of BEGIN and COMMIT (on SQLite each a hop to the driver's
thread, and the writer's lock handed over through the event loop); under load those, not
the statements, bounded the lifecycle (docs/performance.md). Here the writes queued while
a batch is being written go together in the next one: each is still its own statements
with its own result (a fenced UPDATE's rowcount is its own), and each caller is answered
only after the batch committed, so a write reported done is durable, and a batch the
process dies in writes none of its items.

A failing item (an exception, not a `False`) would roll back the others' writes with it:
the batch is then written again item by item, each in its own transaction, so that only
the failing one fails.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy.ext.asyncio import AsyncConnection

if TYPE_CHECKING:
    from vidrouter.store.database import Database

log = logging.getLogger(__name__)

R = TypeVar("R")
Work = Callable[[AsyncConnection], Awaitable[R]]

MAX_BATCH = 64  # items per transaction: bounds how long one batch holds SQLite's writer


class GroupCommit:
    def __init__(
        self,
        db: Database,
        loop: asyncio.AbstractEventLoop,
        *,
        parallel: int = 1,
        max_batch: int = MAX_BATCH,
    ) -> None:
        self._db = db
        self.loop = loop  # its futures and task belong to this loop
        self._parallel = parallel  # batches written at once (1 for SQLite's single writer)
        self._max_batch = max_batch
        self._queue: deque[tuple[Work[Any], asyncio.Future[Any]]] = deque()
        self._flushers: set[asyncio.Task[None]] = set()
        # Flushers waiting for their transaction: what is queued meanwhile is theirs to take,
        # so another is started only when none is waiting.
        self._gathering = 0

    async def run(self, work: Work[R]) -> R:
        """Run `work` in a write transaction, shared with the writes queued beside it; its
        result once that transaction committed. Not from inside a write (`Database.grouped`
        sees to it): the batch would wait for the lock that write holds."""
        done: asyncio.Future[R] = self.loop.create_future()
        self._queue.append((work, done))
        # A finished flusher leaves the set only in a callback that may not have run yet.
        self._flushers = {f for f in self._flushers if not f.done()}
        if self._gathering == 0 and len(self._flushers) < self._parallel:
            self._gathering += 1  # from now: it takes what queues until its transaction
            self._flushers.add(asyncio.create_task(self._flush(), name="group-commit"))
        return await done

    async def _flush(self) -> None:
        """Batches until the queue is empty; counted in `_gathering` until each batch is
        taken (from its creation for the first)."""
        try:
            while True:
                await self._round()
                if not self._queue:
                    return
                self._gathering += 1
        except BaseException:
            # Canceled (the loop is closing): nobody is told a write happened.
            for _, done in self._queue:
                done.cancel()
            raise

    async def _round(self) -> None:
        """One batch: taken once the transaction is ours (what queued while waiting for it
        joins), written, committed, then its callers answered."""
        batch: list[tuple[Work[Any], asyncio.Future[Any]]] = []
        gathering = True
        try:
            async with self._db.write() as conn:
                batch, gathering = self._take(), False
                self._gathering -= 1
                results = [await work(conn) for work, _ in batch]
        except Exception as exc:
            if len(batch) > 1:
                log.info("group_commit_split", extra={"items": len(batch)}, exc_info=True)
                await self._one_by_one(batch)
                return
            # The item's own failure, or no transaction at all: theirs to know.
            for _, done in batch or self._take():
                if not done.done():
                    done.set_exception(exc)
            return
        except BaseException:
            for _, done in batch:
                done.cancel()
            raise
        finally:
            if gathering:
                self._gathering -= 1
        for (_, done), result in zip(batch, results, strict=True):
            if not done.done():
                done.set_result(result)

    def _take(self) -> list[tuple[Work[Any], asyncio.Future[Any]]]:
        batch: list[tuple[Work[Any], asyncio.Future[Any]]] = []
        while self._queue and len(batch) < self._max_batch:
            item = self._queue.popleft()
            if not item[1].done():  # its caller gave up before it was written
                batch.append(item)
        return batch

    async def _one_by_one(self, batch: list[tuple[Work[Any], asyncio.Future[Any]]]) -> None:
        for work, done in batch:
            try:
                async with self._db.write() as conn:
                    result = await work(conn)
            except Exception as exc:
                if not done.done():
                    done.set_exception(exc)
                continue
            if not done.done():
                done.set_result(result)
