"""What clients do to batches: submit, get, list, results, cancel. No HTTP here.

Every line is checked by the create's own rules (`Generations.check`, what
`POST /v1/generations` runs) before anything is written: one bad line refuses the batch
with a 400 naming the line and the field, and nothing is created. The batch and its lines
are then one transaction; the runner (usecases/batch_runner.py) turns lines into
generations.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from datetime import datetime
from typing import Any

from vidrouter.domain import ids
from vidrouter.domain.batch import Batch, BatchLine, BatchStatus, line_error, split_line
from vidrouter.domain.clock import Clock
from vidrouter.domain.create_request import RequestLimits, parse_metadata, parse_webhook_url
from vidrouter.domain.errors import Conflict, InvalidRequest, NotFound
from vidrouter.domain.generation import GenerationError
from vidrouter.store.batches import BatchPage, BatchStore, Progress
from vidrouter.store.keys import ApiKey
from vidrouter.usecases.batch_view import result_line, signer_for
from vidrouter.usecases.generations import Generations

CANCELED = GenerationError("canceled", "the batch was canceled before this line started")


class Batches:
    def __init__(
        self,
        store: BatchStore,
        generations: Generations,
        *,
        max_lines: int,
        limits: RequestLimits,
        clock: Clock,
        wake: Callable[[], None],
        sign: Callable[[], Callable[[str, datetime], str] | None],
    ) -> None:
        self.store = store
        self.generations = generations
        self._max_lines = max_lines
        self._limits = limits
        self.clock = clock
        self._wake = wake  # the batch runner starts on new or canceled batches at once
        self._sign = sign

    async def submit(
        self,
        key: ApiKey,
        lines: list[tuple[int, object]],
        *,
        webhook_url: object = None,
        metadata: object = None,
    ) -> Batch:
        if not lines:
            raise InvalidRequest("the batch has no lines", code="batch_empty", param="lines")
        if len(lines) > self._max_lines:
            raise InvalidRequest(
                f"a batch holds at most {self._max_lines} lines, this one has {len(lines)}",
                code="batch_too_large",
                param="lines",
            )
        hook = parse_webhook_url(webhook_url, self._limits)
        meta = parse_metadata(metadata)
        checked: list[BatchLine] = []
        estimate = 0.0
        for number, value in lines:
            custom_id, body = split_line(number, value)
            try:
                req = self.generations.check(body)
            except InvalidRequest as exc:
                raise line_error(number, exc) from None
            estimate += await self.generations.estimate(req)
            checked.append(BatchLine(number, custom_id, body))
        now = self.clock()
        batch = Batch(
            id=ids.batch_id(),
            account_id=key.account_id,
            api_key_id=key.id,
            status=BatchStatus.QUEUED,
            total=len(checked),
            estimated_total=round(estimate, 6),
            created_at=now,
            updated_at=now,
            webhook_url=hook,
            metadata=meta,
            next_attempt_at=now,
        )
        await self.store.insert(batch, checked)
        self._wake()
        return batch

    async def get(self, account_id: str, batch_id: str) -> tuple[Batch, Progress]:
        batch = None
        if ids.is_batch_id(batch_id):
            batch = await self.store.get(batch_id, account_id=account_id)
        if batch is None:
            raise NotFound.for_id("batch", batch_id)
        return batch, await self.store.progress(batch.id)

    async def list(self, account_id: str, *, limit: int, after: str | None) -> BatchPage:
        if after is not None and not ids.is_batch_id(after):
            return BatchPage([], False)
        return await self.store.page(account_id, limit=limit, after=after)

    async def results(self, account_id: str, batch_id: str) -> AsyncIterator[dict[str, Any]]:
        """The result lines, in file order (NotFound before the first, as `get`)."""
        batch, _ = await self.get(account_id, batch_id)
        return self._lines(batch.id)

    async def _lines(self, batch_id: str) -> AsyncIterator[dict[str, Any]]:
        sign = signer_for(self._sign(), self.clock())
        async for r in self.store.results(batch_id):
            yield result_line(r, sign)

    async def cancel(self, account_id: str, batch_id: str) -> tuple[Batch, Progress]:
        """Cancel a running batch: lines not started end `canceled`, its unfinished
        generations are canceled, and it ends `canceled` (with its webhook) once they have.
        Conflict when it had ended."""
        batch, _ = await self.get(account_id, batch_id)
        stopped = await self.store.stop(
            batch.id, CANCELED, status=BatchStatus.CANCELING, now=self.clock()
        )
        if not stopped:
            raise Conflict(
                f"batch {batch.id} has already ended or is stopping ({batch.status.value})",
                code="batch_not_cancelable",
            )
        await cancel_generations(self.generations, self.store, batch)
        self._wake()
        return await self.get(account_id, batch_id)


async def cancel_generations(generations: Generations, store: BatchStore, batch: Batch) -> None:
    """Cancel the batch's unfinished generations (one that finished meanwhile stays)."""
    for generation_id in await store.unfinished_generations(batch.id):
        with contextlib.suppress(Conflict, NotFound):
            await generations.cancel(batch.account_id, generation_id)
