"""What the API does to generations, shared by our routes and the OpenAI-compatible ones:
check a create request, accept it, cancel."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from datetime import timedelta

from vidrouter.domain import ids
from vidrouter.domain.catalog import ListedModel, ModelSpec
from vidrouter.domain.errors import Conflict, InvalidRequest, NotFound, Unavailable
from vidrouter.domain.generation import Generation, Status, Step
from vidrouter.domain.requests import CreateRequest, RequestLimits, parse_create
from vidrouter.engine.circuits import CircuitState
from vidrouter.service import Service
from vidrouter.store.keys import ApiKey
from vidrouter.webhooks.outbox import deliveries_for


def check_create(service: Service, body: object) -> CreateRequest:
    """The request checked against the models usable now; raises InvalidRequest."""

    def lookup(model_id: str) -> ListedModel | ModelSpec | None:
        listed = service.catalog.find_listed(model_id, service.providers.usable)
        return listed if listed is not None else service.catalog.get(model_id)

    limits = RequestLimits(
        max_prompt_chars=service.settings.max_prompt_chars,
        allow_private_webhook_urls=service.settings.allow_private_webhook_urls,
    )
    return parse_create(body, lookup, limits)


async def ensure_servable(service: Service, model: ListedModel) -> None:
    """Refuse work that cannot run: when every route of the model has an open circuit,
    a 503 with Retry-After beats queueing a generation that would only wait."""
    routes = [r.key for r in model.routes]
    for route in routes:
        if await service.circuits.state_of(route) is not CircuitState.OPEN:
            return
    wait = await service.circuits.seconds_until_probe(routes)
    raise Unavailable(
        f"every provider of model {model.id} is failing right now; try again in {wait} s",
        code="model_unavailable",
        param="model",
        retry_after=wait,
    )


IDEMPOTENCY_WINDOW = timedelta(hours=24)
MAX_IDEMPOTENCY_KEY = 255


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


async def accept(
    service: Service,
    key: ApiKey,
    req: CreateRequest,
    *,
    idempotency_key: str | None = None,
    fingerprint: str = "",
) -> Generation:
    """Store the new generation and wake a worker for it. With an idempotency key used in
    the last 24 hours, the generation that key made instead (Conflict if the request
    differed)."""
    now = service.clock()
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
        deadline_at=now + timedelta(seconds=service.settings.generation_deadline_seconds),
    )
    if idempotency_key is None:
        await service.generations.insert(g)
    else:
        made, made_with = await service.generations.insert_idempotent(
            g, key=idempotency_key, request_hash=fingerprint, since=now - IDEMPOTENCY_WINDOW
        )
        if made_with != fingerprint:
            raise Conflict(
                "this Idempotency-Key was used with a different request in the last 24 hours",
                code="idempotency_key_reused",
                param="Idempotency-Key",
            )
        if made.id != g.id:
            return made
    service.observer.generation_created(g)
    service.wake()
    return g


async def owned(
    service: Service, account_id: str, generation_id: str, *, for_display: bool = False
) -> Generation:
    """The generation if it belongs to the account, else NotFound (existence not revealed).
    `for_display`: it may be a moment old (see GenerationStore.peek); never write from it."""
    g = None
    if generation_id.startswith("gen_") and len(generation_id) <= 64:
        store = service.generations
        if for_display:
            g = await store.peek(generation_id, account_id=account_id)
        else:
            g = await store.get(generation_id, account_id=account_id)
    if g is None:
        raise NotFound(
            f"no generation with id {generation_id[:64]!r}",
            code="generation_not_found",
            param="generation_id",
        )
    return g


async def cancel(service: Service, g: Generation) -> Generation:
    """Cancel an unfinished generation (Conflict when it has finished)."""
    now = service.clock()
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
    if g.status.terminal or not await service.generations.cancel(
        canceled, deliveries=deliveries_for(canceled, None, now)
    ):
        current = await service.generations.get(g.id)
        state = current.status.value if current is not None else g.status.value
        raise Conflict(
            f"generation {g.id} has already finished ({state})",
            code="generation_not_cancelable",
        )
    service.observer.generation_finished(canceled)
    if service.webhook_loop is not None:
        service.webhook_loop.wake()
    service.wake()
    return canceled
