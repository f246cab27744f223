"""The generation worker: what the work loop does with each claimed generation."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import datetime

from vidrouter.domain.generation import Generation, Status
from vidrouter.engine.advance import Advancer, Outcome
from vidrouter.engine.throttled_log import ThrottledLog
from vidrouter.engine.transitions import crash_delay
from vidrouter.observability import Observer
from vidrouter.observability.logs import log_context
from vidrouter.storage.base import BlobStorage
from vidrouter.storage.previews import delete_video
from vidrouter.store.generations import GenerationStore

log = logging.getLogger(__name__)


class GenerationWorker:
    def __init__(
        self,
        store: GenerationStore,
        advancer: Advancer,
        *,
        storage: BlobStorage,
        owner: str,
        on_deliveries: Callable[[], None],
        observer: Observer | None = None,
    ) -> None:
        self._observer = observer
        self._storage = storage
        self._store = store
        self._advancer = advancer
        self._owner = owner
        self._on_deliveries = on_deliveries
        self._log = ThrottledLog(log)  # a full disk crashes every step the same way

    async def handle(self, g: Generation) -> datetime | None:
        """Take one step; returns when the generation is due next, if known."""
        with log_context(generation_id=g.id, route=g.route):
            return await self._handle(g)

    async def _handle(self, g: Generation) -> datetime | None:
        if g.status is Status.CANCELED:
            await self._advancer.cancel_at_provider(g)
            await self._store.settle_canceled(g.id, owner=self._owner)
            await self._advancer.ended(g.id)
            return None
        try:
            try:
                outcome = await self._advancer.advance(g)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self._log.failure("generation_step_crashed", exc, {"generation_id": g.id})
                delay = crash_delay(g)
                outcome = self._advancer.retry_after_crash(g, delay)
            saved = await self._save(outcome)
        finally:
            self._advancer.release(g.id)  # the saved row now shows any job it submitted
        return outcome.generation.next_attempt_at if saved else None

    async def _save(self, outcome: Outcome) -> bool:
        saved = await self._store.save(
            outcome.generation, owner=self._owner, deliveries=outcome.deliveries
        )
        if not saved:
            log.info("generation_save_skipped", extra={"generation_id": outcome.generation.id})
            stored = outcome.generation.video_key
            if stored is not None and outcome.generation.status.terminal:
                await self._drop_unserved(outcome.generation.id, stored)
        if saved and outcome.generation.status.terminal:
            await self._advancer.ended(outcome.generation.id)
            if self._observer is not None:
                self._observer.generation_finished(outcome.generation)
        if saved and outcome.deliveries:
            self._on_deliveries()
        if outcome.cleanup is not None and (saved or not outcome.cleanup_shared):
            await asyncio.to_thread(outcome.cleanup.unlink, True)
        return saved

    async def _drop_unserved(self, generation_id: str, video_key: str) -> None:
        """The video this step stored but could not save, removed when nobody will serve it.

        The key is the generation's own, so a step that lost its lease (a stall past it)
        stored over the video of the process that took the row over: that one completed it,
        or will, and serves the same key. Only a video no row serves goes (a canceled,
        failed or deleted generation's)."""
        current = await self._store.get(generation_id)
        if current is not None and (not current.status.terminal or current.video_key == video_key):
            return
        await delete_video(self._storage, video_key)
