"""The generations' (with the cache), the characters' and the batches' use-cases built from the settings,
and the batches' work loop (for the composition root, which keeps only the wiring)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from vidrouter.domain.batch import Batch
from vidrouter.domain.clock import Clock
from vidrouter.domain.create_request import RequestLimits
from vidrouter.engine.kept_inputs import InputKeeper
from vidrouter.engine.leased import leased_loop
from vidrouter.engine.loop import WorkLoop
from vidrouter.observability import Observer
from vidrouter.settings import Settings
from vidrouter.storage.base import BlobStorage
from vidrouter.storage.signing import UrlSigner
from vidrouter.store.batches import BatchStore
from vidrouter.store.characters import CharacterStore
from vidrouter.store.database import Database
from vidrouter.store.generations import GenerationStore
from vidrouter.store.keys import KeyStore
from vidrouter.usecases.batch_runner import BatchRunner, RunPolicy
from vidrouter.usecases.batches import Batches
from vidrouter.usecases.budgets import Budgets
from vidrouter.usecases.cache import CachePolicy, RequestCache
from vidrouter.usecases.characters import Characters
from vidrouter.usecases.generations import CreatePolicy, Generations
from vidrouter.usecases.models import ModelCatalog
from vidrouter.usecases.rate_limits import Limiter

BATCHES_AT_ONCE = 4  # batches one process takes turns of at once


def generations(
    settings: Settings,
    store: GenerationStore,
    models: ModelCatalog,
    limiter: Limiter,
    storage: BlobStorage,
    db: Database,
    signer: Callable[[], UrlSigner | None],
    *,
    clock: Clock,
    wakes: tuple[Callable[[], None], Callable[[], None]],  # new work; new deliveries
    observer: Observer,
    budgets: Budgets,
    public_media: bool,  # providers can fetch from our content host
) -> Generations:
    """The generations' use-cases, with the cache of identical requests and the keeper of
    references and source videos."""
    policy = CreatePolicy(
        max_prompt_chars=settings.max_prompt_chars,
        allow_private_webhook_urls=settings.allow_private_webhook_urls,
        deadline=timedelta(seconds=settings.generation_deadline_seconds),
        public_media=public_media,
    )
    return Generations(
        store,
        models,
        limiter,
        storage,
        policy,
        clock=clock,
        wake=wakes[0],
        wake_deliveries=wakes[1],
        observer=observer,
        budgets=budgets,
        cache=request_cache(settings, db, storage, signer, clock),
        inputs=InputKeeper(
            storage,
            store,
            allow_private=settings.allow_private_webhook_urls,
            characters=CharacterStore(db),
        ),
    )


def characters(db: Database, storage: BlobStorage, clock: Clock) -> Characters:
    return Characters(CharacterStore(db), storage, clock=clock)


def request_cache(
    settings: Settings,
    db: Database,
    storage: BlobStorage,
    signer: Callable[[], UrlSigner | None],
    clock: Clock,
) -> RequestCache:
    policy = CachePolicy(
        ttl=timedelta(seconds=settings.cache_ttl_seconds),
        shared=settings.cache_shared,
        allow_private=settings.allow_private_webhook_urls,
    )
    return RequestCache(db, storage, policy, signer=signer, clock=clock)


def batches(
    settings: Settings,
    db: Database,
    generations: Generations,
    signer: Callable[[], UrlSigner | None],
    *,
    clock: Clock,
    wake: Callable[[], None],
) -> Batches:
    def sign() -> Callable[..., str] | None:
        current = signer()
        return current.sign if current is not None else None

    return Batches(
        BatchStore(db),
        generations,
        max_lines=settings.batch_max_lines,
        limits=RequestLimits(
            max_prompt_chars=settings.max_prompt_chars,
            allow_private_webhook_urls=settings.allow_private_webhook_urls,
        ),
        clock=clock,
        wake=wake,
        sign=sign,
    )


def batch_loop(
    settings: Settings,
    batches: Batches,
    keys: KeyStore,
    limiter: Limiter,
    *,
    owner: str,
    wake_deliveries: Callable[[], None],
) -> WorkLoop[Batch]:
    """The work loop over due batches, each turn taken by a `BatchRunner` (on the batches'
    clock)."""
    clock = batches.clock
    policy = RunPolicy(
        concurrency=settings.batch_concurrency,
        poll=timedelta(seconds=settings.batch_poll_seconds),
    )
    store = batches.store
    runner = BatchRunner(
        store,
        batches.generations,
        keys,
        limiter,
        policy,
        owner=owner,
        clock=clock,
        wake_deliveries=wake_deliveries,
    )
    return leased_loop(
        "batches",
        store,
        runner.handle,
        owner=owner,
        capacity=BATCHES_AT_ONCE,
        lease=timedelta(seconds=settings.lease_seconds),
        idle_poll=settings.idle_poll_seconds,
        clock=clock,
        renew=lambda ids, until: store.renew(owner, ids, until=until),
        release=lambda ids: store.release(owner, ids),
    )
