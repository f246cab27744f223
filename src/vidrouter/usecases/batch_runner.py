"""The batch runner: what the batches' work loop does with a claimed batch.

Each turn starts as many of its lines as it may, then reports when it is due next. A
batch runs under its key's limits and budget, at a lower priority than interactive
creates: it keeps at most `batch_concurrency` generations unfinished, never fills the last
quarter of its key's `max_concurrent` (interactive creates keep it), and starts lines only
while its key has a quarter of its requests per minute left. Routes' `max_concurrent` caps
hold as for any generation (the router). A line's generation is inserted with the guard
that marks the line started (`BatchStore.start_line`): exactly once across crashes.

It ends when every line has ended: `completed`, `failed` when something stopped it early
(the budget ran out), or `canceled`; its webhook is written with that end.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from vidrouter.domain import ids
from vidrouter.domain.batch import Batch, BatchLine, BatchStatus
from vidrouter.domain.clock import Clock
from vidrouter.domain.errors import InvalidRequest, Unavailable
from vidrouter.domain.generation import GenerationError
from vidrouter.store.batches import BatchStore, LineTaken
from vidrouter.store.deliveries import Delivery
from vidrouter.store.keys import ApiKey, KeyStore
from vidrouter.usecases.batch_view import batch_object
from vidrouter.usecases.batches import cancel_generations
from vidrouter.usecases.budgets import BudgetExceeded
from vidrouter.usecases.generations import Generations
from vidrouter.usecases.rate_limits import Limiter, TooManyRequests

log = logging.getLogger(__name__)

STARTS_AT_ONCE = 16  # lines one turn starts concurrently (their inserts share transactions)
_PAUSE = timedelta(0)  # stop starting lines this turn; the next turn comes at the poll


@dataclass(frozen=True)
class RunPolicy:
    concurrency: int  # the most unfinished generations of one batch
    poll: timedelta  # how often a running batch looks at its generations
    unavailable_wait: timedelta = timedelta(seconds=5)  # every route of a line's model down


class BatchRunner:
    def __init__(
        self,
        store: BatchStore,
        generations: Generations,
        keys: KeyStore,
        limiter: Limiter,
        policy: RunPolicy,
        *,
        owner: str,
        clock: Clock,
        wake_deliveries: Callable[[], None],
    ) -> None:
        self._store = store
        self._generations = generations
        self._keys = keys
        self._limiter = limiter
        self._policy = policy
        self._owner = owner
        self._clock = clock
        self._wake_deliveries = wake_deliveries

    async def handle(self, batch: Batch) -> datetime | None:
        """One turn of a batch; when it is due next."""
        key = await self._keys.get(batch.api_key_id)
        if key is None or not key.usable(self._clock()):
            await self._store.stop(
                batch.id,
                GenerationError("key_revoked", "the batch's API key was revoked"),
                status=BatchStatus.IN_PROGRESS,
                now=self._clock(),
            )
        elif batch.status is BatchStatus.CANCELING:
            await cancel_generations(self._generations, self._store, batch)
        elif batch.error is None:
            wait = await self._start_lines(batch, key)
            if wait is not None:
                return await self._again(batch, wait)
        current = await self._store.get(batch.id)
        if current is None:
            return None
        progress = await self._store.progress(batch.id)
        if progress.pending or progress.unfinished:
            return await self._again(current, self._policy.poll)
        await self._finish(current)
        return None

    async def _start_lines(self, batch: Batch, key: ApiKey) -> timedelta | None:
        """Start what the batch may start now; a wait when something holds it back."""
        limit = self._limiter.concurrency_limit(key)
        room_for_key = limit - max(1, limit // 4) - await self._limiter.unfinished(key)
        progress = await self._store.progress(batch.id)
        room = min(room_for_key, self._policy.concurrency - progress.unfinished)
        if room <= 0:
            return None
        lines = await self._store.unstarted(batch.id, room)
        waits: list[timedelta] = []
        stop = asyncio.Event()  # one line's refusal holds back the lines not begun

        async def start(line: BatchLine) -> None:
            async with gate:
                if not stop.is_set():
                    wait = await self._start_line(batch, key, line)
                    if wait is not None:
                        waits.append(wait)
                        stop.set()

        gate = asyncio.Semaphore(STARTS_AT_ONCE)
        await asyncio.gather(*(start(line) for line in lines))
        return max((w for w in waits if w > _PAUSE), default=None)

    async def _start_line(self, batch: Batch, key: ApiKey, line: BatchLine) -> timedelta | None:
        """Start one line; a wait (zero: just stop this turn) when the batch must pause."""
        decision = await self._limiter.count(key)
        if not decision.allowed or decision.remaining < decision.limit // 4:
            return timedelta(seconds=decision.reset)
        try:
            request = self._generations.check(line.body)
            generation_id = ids.generation_id()
            await self._generations.create(
                key,
                request,
                batch_id=batch.id,
                generation_id=generation_id,
                claim=self._store.start_line(batch.id, line.line, generation_id),
            )
        except LineTaken:
            return _PAUSE  # stopped (canceled, out of budget) meanwhile
        except BudgetExceeded as exc:
            await self._store.stop(
                batch.id,
                GenerationError(exc.code, exc.message),
                status=BatchStatus.IN_PROGRESS,
                now=self._clock(),
            )
            return _PAUSE
        except TooManyRequests:
            return _PAUSE  # interactive creates took the room: the next turn goes on
        except Unavailable:
            return self._policy.unavailable_wait
        except InvalidRequest as exc:  # the catalog changed since the batch was accepted
            error = GenerationError(exc.code or "invalid_request", exc.message)
            await self._store.end_line(batch.id, line.line, error)
        return None

    async def _again(self, batch: Batch, wait: timedelta) -> datetime | None:
        now = self._clock()
        due = now + wait
        saved = await self._store.reschedule(batch.id, owner=self._owner, due=due, now=now)
        return due if saved else None

    async def _finish(self, batch: Batch) -> None:
        now = self._clock()
        if batch.status is BatchStatus.CANCELING:
            status = BatchStatus.CANCELED
        elif batch.error is not None:
            status = BatchStatus.FAILED
        else:
            status = BatchStatus.COMPLETED
        ended = replace(batch, status=status, updated_at=now, completed_at=now)
        deliveries = []
        if ended.webhook_url:
            body = batch_object(ended, await self._store.progress(batch.id))
            deliveries.append(
                Delivery(
                    id=ids.delivery_id(),
                    generation_id=None,
                    batch_id=batch.id,
                    account_id=batch.account_id,
                    api_key_id=batch.api_key_id,
                    url=ended.webhook_url,
                    event_type=f"batch.{status.value}",
                    payload=json.dumps(body, separators=(",", ":"), ensure_ascii=False),
                    created_at=now,
                    next_attempt_at=now,
                )
            )
        log.info("batch_ended", extra={"batch_id": batch.id, "status": status.value})
        finished = await self._store.finish(
            ended, was=batch.status, owner=self._owner, deliveries=deliveries
        )
        if finished and deliveries:
            self._wake_deliveries()
