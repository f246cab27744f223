"""What clients do to generations, whichever API they speak: create, get, list, cancel,
delete. `/v1/generations` and the OpenAI-compatible `/v1/videos` both call these; they
differ only in how they parse requests and present results. No HTTP here.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import timedelta

from vidrouter.domain import ids, text
from vidrouter.domain.clock import Clock
from vidrouter.domain.create_request import CreateRequest, RequestLimits, parse_create
from vidrouter.domain.errors import Conflict, InvalidRequest, NotFound
from vidrouter.domain.generation import Generation, Status, Step
from vidrouter.observability import Observer
from vidrouter.storage.base import BlobStorage
from vidrouter.store.generations import GenerationStore, ListPage
from vidrouter.store.keys import ApiKey
from vidrouter.usecases.budgets import Budgets, estimated_cost
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


def request_fingerprint(body: object) -> str:
    """The same request, whatever its key order and spacing."""
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


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
    ) -> None:
        self._observer = observer if observer is not None else Observer()
        self.store = store
        self._catalog = catalog
        self._limiter = limiter
        self._storage = storage
        self._policy = policy
        self._clock = clock
        self._wake = wake  # new work: an idle worker starts on it at once
        self._wake_deliveries = wake_deliveries
        self._budgets = budgets

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
        fingerprint: str = "",
    ) -> Generation:
        """Accept a checked request: refused (503) when every route of its model has an open
        circuit, (429) when the key has its most unfinished generations. With an
        idempotency key used in the last 24 hours, the generation that key made instead
        (Conflict if the request differed)."""
        await self._catalog.ensure_servable(req.model, req.routing, req.controls)
        await self._limiter.check_concurrency(key)
        now = self._clock()
        g = Generation(
            id=ids.generation_id(),
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
            estimated_cost=estimated_cost(req),
            routing=req.routing.to_json() if req.routing is not None else None,
            controls=req.controls,
        )
        guard = self._budgets.guard(key, g.estimated_cost or 0.0) if self._budgets else None
        if idempotency_key is None:
            await self.store.insert(g, guard=guard)
        else:
            made, made_with = await self.store.insert_idempotent(
                g,
                key=idempotency_key,
                request_hash=fingerprint,
                since=now - IDEMPOTENCY_WINDOW,
                guard=guard,
            )
            if made_with != fingerprint:
                raise Conflict(
                    "this Idempotency-Key was used with a different request in the last 24 hours",
                    code="idempotency_key_reused",
                    param="Idempotency-Key",
                )
            if made.id != g.id:
                return made
        self._observer.generation_created(g)
        self._wake()
        return g

    # --- read --------------------------------------------------------------------------------

    async def get(
        self, account_id: str, generation_id: str, *, for_display: bool = False
    ) -> Generation:
        """The generation if it belongs to the account, else NotFound (existence not
        revealed). `for_display`: it may be a moment old (see GenerationStore.peek); never
        write from it."""
        g = None
        if generation_id.startswith("gen_") and len(generation_id) <= 64:
            if for_display:
                g = await self.store.peek(generation_id, account_id=account_id)
            else:
                g = await self.store.get(generation_id, account_id=account_id)
        if g is None:
            raise NotFound(
                f"no generation with id {generation_id[:64]!r}",
                code="generation_not_found",
                param="generation_id",
            )
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
        return await self.store.page(
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
        """Delete the generation and its stored video; an unfinished one is canceled first.
        The record of its spend stays (see GenerationStore.delete): usage and budgets count it.
        NotFound when it is not the account's or a concurrent request deleted it."""
        g = await self.get(account_id, generation_id)
        if not g.status.terminal:
            with contextlib.suppress(Conflict):  # it finished meanwhile: delete it all the same
                await self._cancel(g)
        removed = await self.store.delete(g.id, account_id=account_id, now=self._clock())
        if removed is None:
            raise NotFound(
                f"no generation with id {generation_id[:64]!r}",
                code="generation_not_found",
                param="generation_id",
            )
        if removed.video_key is not None:
            await self._storage.delete(removed.video_key)
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
        if g.status.terminal or not await self.store.cancel(
            canceled, deliveries=deliveries_for(canceled, None, now)
        ):
            current = await self.store.get(g.id)
            state = current.status.value if current is not None else g.status.value
            raise Conflict(
                f"generation {g.id} has already finished ({state})",
                code="generation_not_cancelable",
            )
        self._observer.generation_finished(canceled)
        self._wake_deliveries()
        self._wake()
        return canceled
