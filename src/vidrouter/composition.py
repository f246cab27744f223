"""The composition root: everything one process needs, built once from the settings,
started and stopped together. `vidrouter serve` runs the API on one and the engine on a
second, on its own thread and loop (cli/engine_thread.py); the CLI and the tests build one.

Only this module (and `cli/`) knows every layer: the API gets the narrow parts its routes
use (`api.deps.ApiParts`), the use-cases get their collaborators, the engine its own.
Nothing below takes the whole `Composition`.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import socket
import uuid
from collections.abc import AsyncIterator
from concurrent.futures import Executor
from contextlib import asynccontextmanager
from datetime import timedelta
from pathlib import Path

import httpx
from fastapi import FastAPI

from vidrouter.api import app as http
from vidrouter.api.deps import ApiParts, ContentHost
from vidrouter.api.presenter import Presenter
from vidrouter.console.route import console_router
from vidrouter.domain.batch import Batch
from vidrouter.domain.catalog import Catalog, load_catalog
from vidrouter.domain.clock import Clock, utcnow
from vidrouter.domain.generation import Generation
from vidrouter.engine.advance import Advancer
from vidrouter.engine.callbacks import CallbackTokens, callbacks_enabled
from vidrouter.engine.circuit_states import circuit_reader
from vidrouter.engine.circuits import BreakerPolicy, Circuits
from vidrouter.engine.elsewhere import EngineElsewhere
from vidrouter.engine.inputs import InputImages
from vidrouter.engine.leased import leased_loop
from vidrouter.engine.loop import WorkLoop
from vidrouter.engine.results import ResultFetcher
from vidrouter.engine.router import HangPolicy, Router
from vidrouter.engine.scratch import DOWNLOADS, sweep_work_dir
from vidrouter.engine.worker import GenerationWorker
from vidrouter.observability import Observer
from vidrouter.observability.shared import SharedState
from vidrouter.providers.base import ProviderContext
from vidrouter.providers.local.pool import make_render_pool, stop_render_pool
from vidrouter.providers.registry import Providers
from vidrouter.settings import Settings
from vidrouter.storage.open import open_storage
from vidrouter.storage.previews import Previews
from vidrouter.storage.signing import UrlSigner
from vidrouter.store.budgets import BudgetStore
from vidrouter.store.database import Database
from vidrouter.store.deliveries import Delivery, DeliveryStore
from vidrouter.store.generations import GenerationStore
from vidrouter.store.keys import KeyStore
from vidrouter.store.queue_depth import queue_depths
from vidrouter.store.route_health import RouteStore
from vidrouter.store.route_slots import RouteSlots
from vidrouter.store.route_stats import RouteStatsStore
from vidrouter.store.usage import UsageStore
from vidrouter.store.values import get_or_create_secret
from vidrouter.store.wakeups import WakeupListener
from vidrouter.usecases import assembly
from vidrouter.usecases.budgets import Budgets
from vidrouter.usecases.callbacks import ProviderCallbacks
from vidrouter.usecases.models import ModelCatalog
from vidrouter.usecases.rate_limits import Limiter, LimitPolicy
from vidrouter.usecases.readiness import ReadinessCheck
from vidrouter.webhooks.deliver import WebhookSender

log = logging.getLogger(__name__)

WEBHOOK_CONCURRENCY = 16


class Composition:
    def __init__(
        self, settings: Settings, *, clock: Clock = utcnow, observer: Observer | None = None
    ) -> None:
        self.settings = settings
        self.clock = clock
        self.owner = f"{socket.gethostname()[:24]}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.data_dir: Path = settings.data_dir.resolve()
        self.db = Database(settings.resolved_database_url)
        self.catalog: Catalog = load_catalog(settings.catalog)
        self.keys = KeyStore(self.db, clock, cache_seconds=settings.key_cache_seconds)
        self.generation_store = GenerationStore(
            self.db, display_seconds=settings.poll_cache_seconds
        )
        self.limiter = Limiter.create(
            self.db,
            LimitPolicy(
                requests_per_minute=settings.rate_limit_rpm,
                max_concurrent=settings.max_concurrent_generations,
            ),
            redis_url=settings.redis_url,
            clock=clock,
            sync_seconds=settings.rate_limit_sync_seconds,
        )
        self.deliveries = DeliveryStore(self.db)
        self.storage = open_storage(
            settings.storage_url,
            self.data_dir,
            settings.env,
            cache_bytes=settings.content_cache_bytes,
        )
        work = self.data_dir / "work"
        self.previews = Previews(self.storage, work / DOWNLOADS)
        self._pool: Executor | None = None
        self.providers = Providers(ProviderContext(settings, work, self._render_pool))
        self.route_health = RouteStore(self.db)
        self.circuits = Circuits(
            self.route_health,
            clock,
            BreakerPolicy(
                threshold=settings.circuit_failure_threshold,
                window=timedelta(seconds=settings.circuit_window_seconds),
                cooldown=timedelta(
                    seconds=settings.circuit_cooldown_seconds * settings.provider_delay_scale
                ),
                stats_window=timedelta(seconds=settings.route_stats_window_seconds),
            ),
            stats=RouteStatsStore(self.db),
        )
        self.router = Router(
            self.catalog,
            self.providers,
            self.circuits,
            self.route_health,
            slots=RouteSlots(
                self.db, self.owner, clock, timedelta(seconds=2 * settings.lease_seconds)
            ),
            hang=HangPolicy(
                p95_multiple=settings.route_hang_p95_multiple,
                floor=timedelta(
                    seconds=settings.route_hang_min_seconds * settings.provider_delay_scale
                ),
                min_samples=settings.route_hang_min_samples,
            ),
        )
        self.observer = observer or Observer(
            SharedState(
                lambda: queue_depths(self.db, clock()),
                circuit_reader(self.circuits, self.catalog, self.providers.usable, clock),
            )
        )
        self.engine: EngineElsewhere | None = None  # set when the engine runs on its own loop
        self.signer: UrlSigner | None = None
        self.callback_tokens = CallbackTokens("", "", enabled=False)
        self.generation_loop: WorkLoop[Generation] | None = None
        self.webhook_loop: WorkLoop[Delivery] | None = None
        self.wakeups: WakeupListener | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._http: list[httpx.AsyncClient] = []
        self.budgets = Budgets(BudgetStore(self.db), clock=clock)
        # /readyz: database (read + write), storage, and the work loops where they run.
        self.readiness = ReadinessCheck(
            self.db,
            self.storage,
            workers_running=None if settings.role == "api" else lambda: self.workers_running,
        )
        self.models = ModelCatalog(self.catalog, self.providers.usable, self.circuits)
        self.generations = assembly.generations(
            settings,
            self.generation_store,
            self.models,
            self.limiter,
            self.storage,
            self.db,
            lambda: self.signer,
            clock=clock,
            wakes=(self.wake, self.wake_deliveries),
            observer=self.observer,
            budgets=self.budgets,
            public_media=callbacks_enabled("auto", settings.resolved_public_url),
        )
        self.batches = assembly.batches(
            settings, self.db, self.generations, lambda: self.signer, clock=clock, wake=self.wake
        )
        self.batch_loop: WorkLoop[Batch] | None = None

    def api_parts(self) -> ApiParts:
        """What the HTTP routes may use (see api.deps)."""
        return ApiParts(
            generations=self.generations,
            catalog=self.models,
            keys=self.keys,
            limiter=self.limiter,
            presenter=Presenter(lambda: self.signer, self.clock),
            storage=self.storage,
            content=ContentHost(
                self.storage,
                lambda: self.signer,
                self.clock,
                self.previews,
                redirect=self.settings.content_delivery == "redirect",
            ),
            callbacks=ProviderCallbacks(
                lambda: self.callback_tokens,
                self.generation_store,
                self.clock,
                self.wake,
                adapter=lambda p: self.providers.get(p) if self.providers.configured(p) else None,
            ),
            usage=UsageStore(self.db),
            budgets=self.budgets,
            clock=self.clock,
            readiness=self.readiness,
            observer=self.observer,
            batches=self.batches,
            characters=assembly.characters(self.db, self.storage, self.clock),
        )

    def _render_pool(self) -> Executor:
        self._pool = self._pool or make_render_pool(self.settings.render_processes)
        return self._pool

    async def open(self) -> None:
        """Prepare the data dir and the database; enough for the API and the CLI."""
        await asyncio.to_thread(self.data_dir.mkdir, parents=True, exist_ok=True)
        await self.db.migrate()
        secret = self.settings.signing_secret or await get_or_create_secret(self.db, "url_signing")
        self.signer = UrlSigner(
            secret, self.settings.resolved_public_url, self.settings.content_url_ttl_seconds
        )
        public = self.settings.resolved_public_url
        self.callback_tokens = CallbackTokens(
            await get_or_create_secret(self.db, "callback_tokens"),
            public,
            callbacks_enabled(self.settings.provider_callbacks, public),
        )

    def start_workers(self) -> None:
        assert self.signer is not None, "open() first"
        settings = self.settings
        lease = timedelta(seconds=settings.lease_seconds)
        download_client = httpx.AsyncClient(
            timeout=httpx.Timeout(60.0, connect=10.0), follow_redirects=True, trust_env=False
        )
        self._http.append(download_client)
        work = self.data_dir / "work"
        sweep = sweep_work_dir(work, self.generation_store, self.clock(), settings.lease_seconds)
        self._tasks.append(asyncio.create_task(sweep, name="scratch-sweep"))  # crash leftovers
        advancer = Advancer(
            self.catalog,
            self.providers,
            self.router,
            self.circuits,
            self.storage,
            self.signer,
            ResultFetcher(work / DOWNLOADS, download_client),
            self.clock,
            observer=self.observer,
            delay_scale=settings.provider_delay_scale,
            callback_url=self.callback_tokens.url_for,
            inputs=InputImages(
                self.storage,
                self.signer,
                allow_private=settings.allow_private_webhook_urls,
                publicly_reachable=callbacks_enabled("auto", settings.resolved_public_url),
                copies=work / "inputs",
            ),
        )
        loop = functools.partial(
            leased_loop,
            owner=self.owner,
            idle_poll=settings.idle_poll_seconds,
            clock=self.clock,
            ahead=settings.claim_ahead_seconds,
        )
        sender = WebhookSender(
            self.deliveries,
            self.keys,
            owner=self.owner,
            schedule=settings.webhook_retry_schedule,
            allow_private=settings.allow_private_webhook_urls,
            timeout=settings.webhook_timeout_seconds,
            clock=self.clock,
            observer=self.observer,
        )
        self._http.append(sender.http)
        # Short renewed leases, like generations': a killed process's delivery goes again soon.
        self.webhook_loop = loop(
            "webhooks",
            self.deliveries,
            sender.handle,
            capacity=WEBHOOK_CONCURRENCY,
            lease=lease,
            renew=lambda ids, until: self.deliveries.renew(self.owner, ids, until=until),
            release=lambda ids: self.deliveries.release(self.owner, ids),
        )
        self.generation_worker = GenerationWorker(
            self.generation_store,
            advancer,
            storage=self.storage,
            owner=self.owner,
            on_deliveries=self.webhook_loop.wake,
            observer=self.observer,
        )
        self.generation_loop = loop(
            "generations",
            self.generation_store,
            self.generation_worker.handle,
            capacity=settings.workers,
            lease=lease,
            renew=lambda ids, until: self.generation_store.renew(self.owner, ids, until=until),
            release=lambda ids: self.generation_store.release(self.owner, ids),
        )
        self.batch_loop = assembly.batch_loop(
            settings,
            self.batches,
            self.keys,
            self.limiter,
            owner=self.owner,
            wake_deliveries=self.wake_deliveries,
        )
        if settings.workers > 0:
            self._tasks.append(asyncio.create_task(self.generation_loop.run(), name="generations"))
            self._tasks.append(asyncio.create_task(self.batch_loop.run(), name="batches"))
        self._tasks.append(asyncio.create_task(self.webhook_loop.run(), name="webhooks"))
        # Work written by other processes (an API node's create) wakes us at once.
        self.wakeups = WakeupListener(
            settings.resolved_database_url,
            {
                "generations": self.generation_loop.wake,
                "webhook_deliveries": self.webhook_loop.wake,
                "batches": self.batch_loop.wake,
            },
        )
        self.wakeups.start()

    def wake(self) -> None:
        """New work was written: an idle worker starts on it at once."""
        for loop in (self.generation_loop, self.batch_loop, self.engine):
            if loop is not None:
                loop.wake()

    def wake_deliveries(self) -> None:  # new webhook deliveries were written: send them now
        if self.webhook_loop is not None:
            self.webhook_loop.wake()
        if self.engine is not None:
            self.engine.wake_deliveries()

    @property
    def workers_running(self) -> bool:
        loops = [loop for loop in (self.generation_loop, self.webhook_loop) if loop is not None]
        ours = all(loop.running for loop in loops) and bool(self._tasks)
        return self.engine.running if self.engine is not None else ours

    async def close(self, grace: float = 10.0) -> None:
        if self.wakeups is not None:
            await self.wakeups.stop()
        for loop in (self.batch_loop, self.generation_loop, self.webhook_loop):
            if loop is not None:
                await loop.stop(grace)
        if self._tasks:
            # The loops leave once stopped; one cancelled mid-query would keep its connection.
            _, pending = await asyncio.wait(self._tasks, timeout=5)
            for task in pending:
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks.clear()
        await self.providers.aclose()
        for client in self._http:
            await client.aclose()
        if self._pool is not None:
            stop_render_pool(self._pool)
        await self.limiter.aclose()
        await self.storage.aclose()
        await self.db.close()


def create_app(
    settings: Settings, *, composition: Composition | None = None, run_workers: bool = True
) -> FastAPI:
    """The ASGI app. It opens a `Composition` (database, migrations, workers) when it starts,
    unless one is handed in already open (then its owner closes it)."""
    own = composition is None
    process = composition if composition is not None else Composition(settings)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        if own:
            await process.open()
            if run_workers:
                process.start_workers()
        try:
            yield
        finally:
            if own:
                await process.close()

    app = http.create_app(settings, process.api_parts(), lifespan=lifespan)
    app.include_router(console_router(settings.resolved_public_url))  # the browser console
    return app
