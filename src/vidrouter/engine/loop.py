"""One loop for every kind of leased work (generations, webhook deliveries).

It claims due items up to its capacity, handles each in its own task, renews the leases of
the items in hand, wakes at once when told there is new work, and otherwise sleeps until the
next item falls due (or `idle_poll`, for work added by other processes).

A claim also takes the items falling due within `ahead` seconds, each handled at its own time:
work spread evenly over time (thousands of generations polled every few minutes) is then
claimed in batches rather than one transaction per item. A handled item reports when it is
due next, so that the loop wakes for it only when that is before its planned wake-up.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, timedelta
from typing import Generic, Protocol, TypeVar

from vidrouter.domain.clock import Clock
from vidrouter.engine.throttled_log import ThrottledLog
from vidrouter.store.database import as_background

log = logging.getLogger(__name__)

# After a failed claim the loop waits before the next: 0.1 s, doubling to 5 s while the
# failures go on (a full disk or a refusing database fails every claim the same way).
FAILURE_BACKOFF_BASE = 0.1
FAILURE_BACKOFF_CAP = 5.0


class HasId(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def next_attempt_at(self) -> datetime | None: ...


T = TypeVar("T", bound=HasId)


class WorkLoop(Generic[T]):
    def __init__(
        self,
        name: str,
        *,
        claim: Callable[[int, datetime, datetime, datetime], Awaitable[Sequence[T]]],
        handle: Callable[[T], Awaitable[datetime | None]],
        renew: Callable[[Sequence[str], datetime], Awaitable[int]],
        release: Callable[[Sequence[str]], Awaitable[int]],
        next_due: Callable[[datetime], Awaitable[datetime | None]],
        capacity: int,
        lease: timedelta,
        idle_poll: float,
        clock: Clock,
        ahead: float = 0.0,
    ) -> None:
        self.name = name
        self._claim = claim
        self._handle = handle
        self._renew = renew
        self._release = release
        self._next_due = next_due
        self._capacity = capacity
        self._lease = lease
        self._idle_poll = idle_poll
        self._clock = clock
        self._ahead = timedelta(seconds=ahead)
        self._planned: datetime | None = None  # the wake-up the loop sleeps until, if asleep
        self._wake = asyncio.Event()
        self._active: dict[str, asyncio.Task[None]] = {}
        self._stopping = False
        self._stopped = asyncio.Event()
        self._failures = 0  # consecutive failed claims
        self._log = ThrottledLog(log)
        self.running = False

    @property
    def active(self) -> int:
        return len(self._active)

    def wake(self) -> None:
        self._wake.set()

    async def run(self) -> None:
        as_background()  # this task's and its children's writes let requests' go first
        self.running = True
        heartbeat = asyncio.create_task(self._heartbeat(), name=f"{self.name}-heartbeat")
        try:
            while not self._stopping:
                try:
                    await self._fill()
                except Exception as exc:
                    self._log.failure("claim_failed", exc, {"loop": self.name})
                    self._failures += 1
                    await self._back_off()
                    continue
                if self._failures:
                    self._failures = 0
                    self._log.recovered("claim_failed")
                await self._sleep()
        finally:
            self.running = False
            heartbeat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await heartbeat

    async def _fill(self) -> None:
        """Claim up to the free capacity. Afterwards nothing is left to claim now: either the
        claim took every item due, or the loop is full."""
        free = self._capacity - self.active
        if free <= 0:
            return
        now = self._clock()
        items = await self._claim(free, now, now + self._lease, now + self._ahead)
        for item in items:
            task = asyncio.create_task(self._run_one(item), name=f"{self.name}-{item.id}")
            self._active[item.id] = task

    async def _run_one(self, item: T) -> None:
        due: datetime | None = None
        try:
            if item.next_attempt_at is not None:
                early = (item.next_attempt_at - self._clock()).total_seconds()
                if early > 0:
                    await asyncio.sleep(early)
            due = await self._handle(item)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self._log.failure("work_item_crashed", exc, {"loop": self.name, "item": item.id})
        finally:
            full = self.active >= self._capacity
            self._active.pop(item.id, None)
            if full or due is None or self._planned is None or due < self._planned:
                self._wake.set()

    async def _back_off(self) -> None:
        """Wait after a failed claim, longer the more claims failed in a row. New work does
        not cut it short (it would fail the same way); stopping does."""
        delay = min(FAILURE_BACKOFF_CAP, FAILURE_BACKOFF_BASE * 2 ** min(self._failures - 1, 16))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stopped.wait(), delay)
        self._wake.clear()

    async def _sleep(self) -> None:
        timeout = self._idle_poll
        # Full, the loop claims nothing until a task ends (which wakes it): no read needed.
        due = await self._read_next_due() if self.active < self._capacity else None
        if due is not None and self.active < self._capacity:
            until_due = (due - self._clock()).total_seconds()
            timeout = max(0.005, min(timeout, until_due))
        self._planned = self._clock() + timedelta(seconds=timeout)
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout)
        finally:
            self._planned = None
        self._wake.clear()

    async def _read_next_due(self) -> datetime | None:
        try:
            return await self._next_due(self._clock())
        except Exception as exc:
            self._log.failure("next_due_failed", exc, {"loop": self.name})
            return None

    async def _heartbeat(self) -> None:
        interval = self._lease.total_seconds() / 3
        while True:
            await asyncio.sleep(interval)
            ids = list(self._active)
            if not ids:
                continue
            try:
                await self._renew(ids, self._clock() + self._lease)
            except Exception as exc:
                self._log.failure("lease_renew_failed", exc, {"loop": self.name})

    async def stop(self, grace: float) -> None:
        """Stop claiming; let work in hand finish for `grace` seconds, then cancel it and give
        its leases back so that another process can take it over at once."""
        self._stopping = True
        self._stopped.set()
        self._wake.set()
        held = list(self._active)
        tasks = list(self._active.values())
        if tasks:
            _, pending = await asyncio.wait(tasks, timeout=grace)
            for task in pending:
                task.cancel()
            if pending:
                await asyncio.gather(*pending, return_exceptions=True)
        if held:
            try:
                await self._release(held)
            except Exception:
                log.exception("lease_release_failed", extra={"loop": self.name})
