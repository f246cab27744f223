"""What clients do to generations, whichever API they speak: create, get, list, cancel,
delete. `/v1/generations` and the OpenAI-compatible `/v1/videos` both call these; they
differ only in how they parse requests and present results. No HTTP here.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import timedelta
from pathlib import Path

from sqlalchemy.ext.asyncio import AsyncConnection

from vidrouter.domain import ids, text
from vidrouter.domain.clock import Clock
from vidrouter.domain.create_request import CreateRequest, RequestLimits, parse_create
from vidrouter.domain.errors import Conflict, InvalidRequest, NotFound
from vidrouter.domain.generation import Generation, Status, Step
from vidrouter.engine.kept_inputs import InputKeeper, remove_inputs
from vidrouter.observability import Observer
from vidrouter.storage.base import BlobStorage
from vidrouter.storage.previews import delete_video
from vidrouter.store.cache import SourceGone
from vidrouter.store.deliveries import Delivery
from vidrouter.store.generations import GenerationStore, InsertGuard, ListPage
from vidrouter.store.keys import ApiKey
from vidrouter.usecases.budgets import Budgets, estimated_cost
from vidrouter.usecases.cache import RequestCache
from vidrouter.usecases.idempotency import request_fingerprint
from vidrouter.usecases.models import ModelCatalog
from vidrouter.usecases.rate_limits import Limiter
from vidrouter.webhooks.outbox import deliveries_for

IDEMPOTENCY_WINDOW = timedelta(hours=24)
MAX_IDEMPOTENCY_KEY = 255


@dataclass(frozen=True)
class CreatePolicy:
    """The settings a create obeys."""

    max_prompt_chars: int
    allow_private_webhook_urls: bool
    deadline: timedelta  # from creation to `failed` with `timeout`
    # Whether providers can fetch from our content host (VIDROUTER_PUBLIC_URL is public).
    public_media: bool = True


def check_idempotency_key(value: str | None) -> str | None:
    if value is None:
        return None
    if not value or len(value) > MAX_IDEMPOTENCY_KEY or not value.isprintable():
        raise InvalidRequest(
            f"Idempotency-Key must be 1-{MAX_IDEMPOTENCY_KEY} printable characters",
            code="idempotency_key_invalid",
            param="Idempotency-Key",
        )
    return value


class Generations:
    def __init__(
        self,
        store: GenerationStore,
        catalog: ModelCatalog,
        limiter: Limiter,
        storage: BlobStorage,
        policy: CreatePolicy,
        *,
        clock: Clock,
        wake: Callable[[], None],
        wake_deliveries: Callable[[], None],
        observer: Observer | None = None,
        budgets: Budgets | None = None,
        inputs: InputKeeper | None = None,
        cache: RequestCache | None = None,
    ) -> None:
        self._observer = observer if observer is not None else Observer()
        self._store = store
        self._catalog = catalog
        self._limiter = limiter
        self._storage = storage
        self._policy = policy
        self._clock = clock
        self._wake = wake  # new work: an idle worker starts on it at once
        self._wake_deliveries = wake_deliveries
        self._budgets = budgets
        self._inputs = inputs  # fetches and keeps references and source videos at accept
        self._cache = cache

    # --- create ------------------------------------------------------------------------------

    def check(self, body: object) -> CreateRequest:
        """The request checked against the models usable now; raises InvalidRequest."""
        text.check_json(body)  # forms reach here without parse_json's check
        limits = RequestLimits(
            max_prompt_chars=self._policy.max_prompt_chars,
            allow_private_webhook_urls=self._policy.allow_private_webhook_urls,
        )
        return parse_create(body, self._catalog.lookup, limits, self._catalog.providers())

    async def create(
        self,
        key: ApiKey,
        req: CreateRequest,
        *,
        idempotency_key: str | None = None,
        batch_id: str | None = None,
        generation_id: str | None = None,
        claim: InsertGuard | None = None,
    ) -> Generation:
        """Accept a checked request: refused (503) when every route of its model has an open
        circuit, (429) when the key has its most unfinished generations. With an
        idempotency key used in the last 24 hours, the generation that key made instead
        (Conflict if the request differed in meaning: see `usecases/idempotency.py`). Its
        references and source video are fetched and kept first (engine/kept_inputs.py): a
        bad one is refused here, naming it. Asking for the cache, an identical completed
        generation answers at once (usecases/cache.py). A batch's line passes `batch_id`
        and `claim`, run in the insert's transaction (it marks the line started)."""
        # The request as asked (before its inputs are kept under this generation's id).
        fingerprint = request_fingerprint(req) if idempotency_key is not None else ""
        generation_id = generation_id or ids.generation_id()
        if self._inputs is not None and (req.references or req.video is not None):
            await self._limiter.check_concurrency(key)
            req = await self._inputs.keep(generation_id, key.account_id, req)
        try:
            req = req.accepted(self._policy.public_media)
            made = await self._create(
                key, req, generation_id, idempotency_key, fingerprint, batch_id, claim
            )
        except BaseException:
            if self._inputs is not None:
                await self._inputs.forget(req, generation_id)
            raise
        if made.id != generation_id and self._inputs is not None:
            await self._inputs.forget(req, generation_id)  # the earlier one has its own
        return made

    async def create_from_upload(
        self,
        key: ApiKey,
        req: CreateRequest,
        upload: Path,
        filename: str | None = None,
        *,
        idempotency_key: str | None = None,
    ) -> Generation:
        """`create` for a request whose source video is a file uploaded with it (at
        `upload`, named `filename` by the client): checked and kept first, under the new
        generation's id (an idempotent replay then forgets that copy)."""
        assert self._inputs is not None
        generation_id = ids.generation_id()
        source = await self._inputs.keep_upload(generation_id, upload, req.model, filename)
        req = replace(req, video=source)
        try:
            return await self.create(
                key, req, idempotency_key=idempotency_key, generation_id=generation_id
            )
        except BaseException:
            await self._inputs.forget(req)  # the upload, when a refusal came before `keep`
            raise

    async def _create(
        self,
        key: ApiKey,
        req: CreateRequest,
        generation_id: str,
        idempotency_key: str | None,
        fingerprint: str,
        batch_id: str | None,
        claim: InsertGuard | None,
    ) -> Generation:
        # Every input counts by its content (usecases/cache_inputs.py).
        wanted = self._cache is not None and self._cache.wanted(key, req)
        cache_key = None
        if self._cache is not None:
            cache_key = await self._cache.key_for(generation_id, req, fetch=wanted)
        if wanted and self._cache is not None:
            asked = self._generation(key, req, generation_id, batch_id, cache_key, 0.0)
            hit = await self._cache.lookup(key, asked)
            if hit is not None:
                with contextlib.suppress(SourceGone):  # deleted meanwhile: a miss
                    made = await self._insert(
                        hit.generation,
                        _both(claim, hit.guard),
                        hit.deliveries,
                        idempotency_key,
                        fingerprint,
                    )
                    if made.id == hit.generation.id:
                        self._observer.generation_created(made)
                        self._observer.generation_finished(made)
                        if hit.deliveries:
                            self._wake_deliveries()
                    return made
        routes = await self._catalog.candidates(req.model, req.route_ask)
        billed_at = await self._catalog.ensure_servable(req.model, routes)
        await self._limiter.check_concurrency(key)
        estimate = estimated_cost(req, billed_at)
        g = self._generation(key, req, generation_id, batch_id, cache_key, estimate)
        budget = self._budgets.guard(key, g.estimated_cost or 0.0) if self._budgets else None
        made = await self._insert(g, _both(claim, budget), (), idempotency_key, fingerprint)
        if made.id == g.id:
            self._observer.generation_created(g)
            self._wake()
        return made

    async def estimate(self, req: CreateRequest) -> float:
        """What a checked request would cost on the route it would be billed at now (its
        first candidate, open circuits or not: a batch's estimate at submission)."""
        routes = await self._catalog.candidates(req.model, req.route_ask)
        return estimated_cost(req, routes[0] if routes else req.model.routes[0])

    def _generation(
        self,
        key: ApiKey,
        req: CreateRequest,
        generation_id: str,
        batch_id: str | None,
        cache_key: str | None,
        estimate: float,
    ) -> Generation:
        """The new generation, queued."""
        now = self._clock()
        return Generation(
            id=generation_id,
            account_id=key.account_id,
            api_key_id=key.id,
            model=req.model.id,
            prompt=req.prompt,
            duration=req.duration,
            aspect_ratio=req.aspect_ratio,
            image_url=req.image_url,
            webhook_url=req.webhook_url,
            metadata=req.metadata,
            status=Status.QUEUED,
            step=Step.SUBMIT,
            created_at=now,
            updated_at=now,
            next_attempt_at=now,
            deadline_at=now + self._policy.deadline,
            estimated_cost=estimate,
            routing=req.routing.to_json() if req.routing is not None else None,
            controls=req.controls,
            asked_type=req.type,
            references=req.references,
            video=req.video,
            local_media=req.local_media,
            batch_id=batch_id,
            cache_key=cache_key,
        )

    async def _insert(
        self,
        g: Generation,
        guard: InsertGuard | None,
        deliveries: list[Delivery] | tuple[()],
        idempotency_key: str | None,
        fingerprint: str,
    ) -> Generation:
        """Insert `g`, or with an idempotency key the generation it made already."""
        if idempotency_key is None:
            # A batch's lines are written many at once, in shared transactions.
            grouped = g.batch_id is not None
            await self._store.insert(g, guard=guard, deliveries=deliveries, grouped=grouped)
            return g
        made, made_with = await self._store.insert_idempotent(
            g,
            key=idempotency_key,
            request_hash=fingerprint,
            since=g.created_at - IDEMPOTENCY_WINDOW,
            guard=guard,
            deliveries=deliveries,
        )
        if made_with != fingerprint:
            raise Conflict(
                "this Idempotency-Key was used with a different request in the last 24 hours",
                code="idempotency_key_reused",
                param="Idempotency-Key",
            )
        return made

    # --- read --------------------------------------------------------------------------------

    async def read(
        self, account_id: str, generation_id: str, *, for_display: bool = False
    ) -> Generation | None:
        """The generation if it belongs to the account, else None: the one read of a
        generation, for the routed endpoints (`get`) and the poll fast path alike.
        `for_display`: it may be a moment old (see GenerationStore.peek); never write from
        it."""
        if not generation_id.startswith("gen_") or len(generation_id) > 64:
            return None
        if for_display:
            return await self._store.peek(generation_id, account_id=account_id)
        return await self._store.get(generation_id, account_id=account_id)

    async def get(
        self, account_id: str, generation_id: str, *, for_display: bool = False
    ) -> Generation:
        """`read`, or NotFound (existence not revealed)."""
        g = await self.read(account_id, generation_id, for_display=for_display)
        if g is None:
            raise NotFound.for_id("generation", generation_id)
        return g

    async def list(
        self,
        account_id: str,
        *,
        limit: int,
        after: str | None = None,
        status: Status | None = None,
        model: str | None = None,
        oldest_first: bool = False,
    ) -> ListPage:
        return await self._store.page(
            account_id,
            limit=limit,
            after=after,
            status=status.value if status else None,
            model=model,
            oldest_first=oldest_first,
        )

    # --- cancel, delete ----------------------------------------------------------------------

    async def cancel(self, account_id: str, generation_id: str) -> Generation:
        """Cancel an unfinished generation (Conflict when it has finished)."""
        return await self._cancel(await self.get(account_id, generation_id))

    async def delete(self, account_id: str, generation_id: str) -> Generation:
        """Delete the generation, its stored video and the inputs kept for it (references,
        a source fetched from a URL, first and last frames); an unfinished one is canceled first.
        The record of its spend stays (see GenerationStore.delete): usage and budgets count it.
        NotFound when it is not the account's or a concurrent request deleted it."""
        g = await self.get(account_id, generation_id)
        if not g.status.terminal:
            with contextlib.suppress(Conflict):  # it finished meanwhile: delete it all the same
                await self._cancel(g)
        removed = await self._store.delete(g.id, account_id=account_id, now=self._clock())
        if removed is None:
            raise NotFound.for_id("generation", generation_id)
        if removed.video_key is not None:
            if self._cache is not None:  # a video cache hits share goes with the last one
                await self._cache.release(removed.video_key)
            else:
                await delete_video(self._storage, removed.video_key)
        frames = (removed.image_url, removed.controls.end_image_url)
        await remove_inputs(self._storage, removed.id, removed.references, removed.video, frames)
        return removed

    async def _cancel(self, g: Generation) -> Generation:
        now = self._clock()
        canceled = replace(
            g,
            status=Status.CANCELED,
            step=Step.DONE,
            completed_at=now,
            updated_at=now,
            # A job at a provider is canceled there by the next worker that picks this up.
            next_attempt_at=now if g.provider_job_id is not None else None,
            lease_owner=None,
            lease_until=None,
        )
        if g.status.terminal or not await self._store.cancel(
            canceled, deliveries=deliveries_for(canceled, None, now)
        ):
            current = await self._store.get(g.id)
            state = current.status.value if current is not None else g.status.value
            raise Conflict(
                f"generation {g.id} has already finished ({state})",
                code="generation_not_cancelable",
            )
        self._observer.generation_finished(canceled)
        self._wake_deliveries()
        self._wake()
        return canceled


def _both(first: InsertGuard | None, second: InsertGuard | None) -> InsertGuard | None:
    """One guard running both, in order."""
    if first is None or second is None:
        return first or second

    async def both(conn: AsyncConnection) -> None:
        await first(conn)
        await second(conn)

    return both
