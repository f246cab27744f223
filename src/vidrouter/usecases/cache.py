"""The cache of identical requests (opt-in): a create asking for it whose request equals a
completed generation's (domain/cache_key.py) within the TTL is answered at once by a new
completed generation that shares that video, costs nothing and names it in `cached_from`.

Only the same account's generations answer, unless the operator shares the cache
(`VIDROUTER_CACHE_SHARED`). A shared video is deleted with the last generation showing it
(`Generations.delete`), and a deleted generation never answers again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import timedelta

from vidrouter.domain.cache_key import cache_key
from vidrouter.domain.clock import Clock
from vidrouter.domain.create_request import CreateRequest
from vidrouter.domain.generation import Generation, Status, Step
from vidrouter.storage.base import BlobStorage
from vidrouter.storage.previews import delete_video
from vidrouter.storage.signing import UrlSigner
from vidrouter.store import cache as rows
from vidrouter.store.database import Database
from vidrouter.store.deliveries import Delivery
from vidrouter.store.generations import InsertGuard
from vidrouter.store.keys import ApiKey
from vidrouter.usecases.cache_inputs import InputHasher
from vidrouter.webhooks.outbox import deliveries_for


@dataclass(frozen=True)
class CachePolicy:
    ttl: timedelta
    shared: bool  # one account's generations may answer another's
    allow_private: bool  # input image URLs may point at private addresses


@dataclass(frozen=True)
class Hit:
    generation: Generation
    guard: InsertGuard  # the source still stands when the hit is written
    deliveries: list[Delivery]


class RequestCache:
    def __init__(
        self,
        db: Database,
        storage: BlobStorage,
        policy: CachePolicy,
        *,
        signer: Callable[[], UrlSigner | None],
        clock: Clock,
    ) -> None:
        self._db = db
        self._storage = storage
        self._policy = policy
        self._signer = signer
        self._clock = clock
        self._inputs = InputHasher(storage, allow_private=policy.allow_private)

    @staticmethod
    def wanted(key: ApiKey, req: CreateRequest) -> bool:
        """The request's `cache`, else its key's setting, else off."""
        return req.cache if req.cache is not None else bool(key.cache)

    async def key_for(self, generation_id: str, req: CreateRequest, *, fetch: bool) -> str | None:
        """The request's cache key (its references and source kept already): every input
        counts by its content (usecases/cache_inputs.py). Input images are fetched now and
        kept for the engine only with `fetch`; without, a request with images has no key
        (it cannot be a cache source), nor has one whose input cannot be read now."""
        hashes = await self._inputs.hashes(generation_id, req, fetch=fetch)
        return None if hashes is None else cache_key(req, hashes)

    async def lookup(self, key: ApiKey, new: Generation) -> Hit | None:
        """A completed generation answering `new` (queued, with its cache key), as the new
        completed generation to insert; None: a miss."""
        if new.cache_key is None:
            return None
        now = self._clock()
        source = await rows.find_source(
            self._db,
            new.cache_key,
            account_id=None if self._policy.shared else key.account_id,
            since=now - self._policy.ttl,
        )
        if source is None:
            return None
        hit = replace(
            new,
            status=Status.COMPLETED,
            step=Step.DONE,
            progress=100,
            route=source.route,
            video_key=source.video_key,
            video_duration=source.video_duration,
            video_width=source.video_width,
            video_height=source.video_height,
            billed_seconds=0.0,
            cost_amount=0.0,
            cost_currency=source.cost_currency,
            estimated_cost=0.0,
            started_at=now,
            completed_at=now,
            next_attempt_at=None,
            deadline_at=None,
            cached_from=source.id,
        )
        signer = self._signer()
        url = signer.sign(source.video_key, now) if signer and source.video_key else None
        return Hit(
            hit,
            rows.source_still_there(source, self._db.dialect),
            deliveries_for(hit, url, now),
        )

    async def release(self, video_key: str) -> None:
        """Delete a stored video (and its previews) unless a generation still shows it."""
        if not await rows.video_shared(self._db, video_key):
            await delete_video(self._storage, video_key)
