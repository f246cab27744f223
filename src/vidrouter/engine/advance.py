"""One step of one generation: from the row as it is and what the provider says, the row as
it must become. Effects on the outside world (provider calls, storing the video, circuit
breaker records) happen here; writing the new row is the caller's, under its lease.

Failover: a retryable failure, before the provider accepted the job or reported by the
provider after, sends the next submit to a route that has not failed this generation yet
(at once) or, when all have, back round them with backoff. The user's own errors (content
policy, invalid input) fail at once. A job the provider accepted is polled to its end: it
is submitted again elsewhere only when the provider said it failed, or when it outran its
route's limit (`Router.limit_for`): then it is canceled at the provider where the API can,
and the generation moves to a route it has not tried while its deadline leaves room.

Breakers and route stats judge delivery (engine/circuits.py), not acceptance: a job the
provider failed, or one that hung, is a failure; the user's own errors judge nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from pathlib import Path

from vidrouter.domain.catalog import Catalog, Route
from vidrouter.domain.clock import Clock
from vidrouter.domain.generation import Attempt, Generation, Status, Step
from vidrouter.engine import transitions as t
from vidrouter.engine.backoff import poll_delay, retry_delay
from vidrouter.engine.circuits import Circuits
from vidrouter.engine.inputs import InputImages, stored_result
from vidrouter.engine.provider_request import provider_request
from vidrouter.engine.results import ResultFetcher
from vidrouter.engine.router import Router
from vidrouter.observability import Observer
from vidrouter.providers.base import (
    JobState,
    Provider,
    ProviderError,
    ProviderJob,
    ProviderStatus,
    ProviderTimeout,
)
from vidrouter.providers.registry import Providers
from vidrouter.storage.base import BlobStorage, StorageUnavailable, is_storage_error
from vidrouter.storage.signing import UrlSigner
from vidrouter.store.deliveries import Delivery
from vidrouter.webhooks.outbox import signed_deliveries

log = logging.getLogger(__name__)

# Re-exported: the limits are the transitions', tests and tools read them here.
MAX_TRIES = t.MAX_TRIES
MAX_JOB_FAILURES = t.MAX_JOB_FAILURES


@dataclass(frozen=True)
class Outcome:
    generation: Generation
    deliveries: list[Delivery] = field(default_factory=list)
    cleanup: Path | None = None  # a file to remove once the new row is saved
    # `cleanup` is the provider's own file (a local render), which the process that took
    # the row over may still fetch: an unsaved step leaves it. Else it is this step's
    # download, nobody else's, removed whether the row was saved or not.
    cleanup_shared: bool = False


class Advancer:
    def __init__(
        self,
        catalog: Catalog,
        providers: Providers,
        router: Router,
        circuits: Circuits,
        storage: BlobStorage,
        signer: UrlSigner,
        fetcher: ResultFetcher,
        clock: Clock,
        delay_scale: float = 1.0,
        callback_url: Callable[[str], str | None] = lambda _generation_id: None,
        inputs: InputImages | None = None,
        observer: Observer | None = None,
    ) -> None:
        self._observer = observer if observer is not None else Observer()
        self._catalog = catalog
        self._providers = providers
        self._router = router
        self._circuits = circuits
        self._storage = storage
        self._signer = signer
        self._fetcher = fetcher
        self._clock = clock
        self._scale = delay_scale
        self._pacing = t.Pacing(scale=delay_scale)
        self._callback_url = callback_url
        self._inputs = inputs

    def _scaled(self, delay: timedelta) -> timedelta:
        return delay * self._scale

    async def advance(self, g: Generation) -> Outcome:
        now = self._clock()
        if g.deadline_at is not None and now >= g.deadline_at:
            return await self._time_out(g)
        try:
            if g.step is Step.SUBMIT:
                return await self._submit(g)
            if g.step in (Step.POLL, Step.DOWNLOAD):
                return await self._poll(g)
        except StorageUnavailable as exc:
            return self._storage_wait(g, str(exc))
        except OSError as exc:
            if not is_storage_error(exc):
                raise
            return self._storage_wait(g, str(exc))
        return self.fail(g, "internal_error", f"generation in unexpected step {g.step}")

    async def _input(self, url: str | None, name: str) -> str | None:
        """An input image as providers get it (engine/inputs.py), kept under `name`."""
        if url is None or self._inputs is None:
            return url
        return await self._inputs.for_provider(name, url, self._clock())

    def _storage_wait(self, g: Generation, reason: str) -> Outcome:
        log.warning("generation_storage_wait", extra={"generation_id": g.id, "error": reason[:300]})
        return Outcome(t.storage_wait(g, self._clock()))

    # --- submit -----------------------------------------------------------------------------

    async def _submit(self, g: Generation) -> Outcome:
        images: dict[str, str | None] = {}
        for param, url, name in (
            ("image_url", g.image_url, g.id),
            ("end_image_url", g.controls.end_image_url, f"{g.id}-end"),
        ):
            try:
                images[param] = await self._input(url, name)
            except ProviderError as exc:
                # The user's image, not a route, failed: no circuit counts it.
                if not exc.is_retryable or g.tries + 1 >= t.MAX_TRIES:
                    return self.fail(g, "invalid_input", f"{param}: {exc.message}", exc)
                now = self._clock()
                delay = self._scaled(retry_delay(g.tries, None))
                return Outcome(t.unleased(g, now, now + delay, tries=g.tries + 1))
        choice = await self._router.choose(g)
        if choice.route is None:
            if choice.wait is None:
                return self.fail(
                    g, "model_unavailable", f"model {g.model} has no usable route on this server"
                )
            now = self._clock()
            return Outcome(t.unleased(g, now, now + self._scaled(choice.wait)))
        route = choice.route
        provider = self._providers.get(route.provider)
        request = await provider_request(
            g, route, images, self._inputs, self._callback_url(g.id), self._clock()
        )
        try:
            with self._observer.provider_call(route.key, "submit"):
                job = await provider.submit(request)
        except ProviderError as exc:
            now = self._clock()
            attempt = Attempt(route.key, None, "submit_failed", now, exc.code)
            return await self._after_error(replace(g, attempts=(*g.attempts, attempt)), exc, route)
        now = self._clock()
        # Accepted is not delivered: it ends a run of refused calls, but the route is judged
        # when the job ends (see _download).
        await self._circuits.answered(route.key)
        log.info(
            "generation_submitted",
            extra={"generation_id": g.id, "provider": route.provider, "job_id": job.id},
        )
        return Outcome(
            t.unleased(
                g,
                now,
                now + self._scaled(provider.poll_policy.first_poll),
                status=Status.IN_PROGRESS,
                step=Step.POLL,
                route=route.key,
                provider_job_id=job.id,
                provider_job_data=job.data,
                provider_request_id=job.request_id,
                progress=0,
                tries=0,
                attempts=(*g.attempts, Attempt(route.key, job.id, "submitted", now)),
                started_at=g.started_at or now,
                # The job's own limit is checked at each poll (_poll), from the route's stats.
                deadline_at=g.deadline_at or now + self._scaled(provider.poll_policy.max_wait),
            )
        )

    # --- poll and download ------------------------------------------------------------------

    async def _poll(self, g: Generation) -> Outcome:
        route = self._route_of(g)
        if route is None or g.provider_job_id is None:
            return self.fail(g, "internal_error", "the generation lost its route")
        provider = self._providers.get(route.provider)
        job = ProviderJob(g.provider_job_id, g.provider_job_data, g.provider_request_id)
        try:
            with self._observer.provider_call(route.key, "poll"):
                status = await provider.poll(job)
            if status.state is JobState.SUCCEEDED:
                if status.data is not None:
                    job = replace(job, data=status.data)
                return await self._download(g, provider, job, route, status)
        except ProviderError as exc:
            return await self._after_error(g, exc, route)
        now = self._clock()
        if status.state is JobState.FAILED:
            error = status.error or ProviderError("the provider reported a failure")
            return await self._job_failed(g, error, route)
        if status.state is JobState.CANCELED:
            return self.fail(g, "provider_error", "the provider canceled the job")
        job_started = t.job_started(g, now)
        max_wait = self._scaled(provider.poll_policy.max_wait)
        limit = await self._router.limit_for(g, route, max_wait, now)
        if now - job_started >= limit:
            return await self._hung(g, route, now)
        elapsed = now - job_started
        interval = provider.poll_policy.interval
        delay = poll_delay(interval, provider.poll_policy.max_interval, int(elapsed / interval))
        return Outcome(
            t.unleased(
                g,
                now,
                # Polled again at the limit at the latest, so that a hang moves on time.
                min(now + self._scaled(delay), job_started + limit),
                progress=status.progress if status.progress is not None else g.progress,
                provider_job_data=status.data if status.data is not None else g.provider_job_data,
                tries=0,
            )
        )

    async def _download(
        self,
        g: Generation,
        provider: Provider,
        job: ProviderJob,
        route: Route,
        status: ProviderStatus,
    ) -> Outcome:
        with self._observer.provider_call(route.key, "fetch_result"):
            ref = await provider.fetch_result(job)
        path, ours = await self._fetcher.to_local_file(ref, g.id)
        try:
            info, made = await stored_result(self._inputs, g, route, path)
            key = f"videos/{g.id}.mp4"
            await self._storage.put_file(key, path)
        except BaseException:
            if ours:
                path.unlink(missing_ok=True)
            raise
        now = self._clock()
        await self._circuits.delivered(route.key, (now - t.job_started(g, now)).total_seconds())
        billed = status.billed_seconds if status.billed_seconds is not None else made
        done = t.unleased(
            g,
            now,
            None,
            status=Status.COMPLETED,
            step=Step.DONE,
            progress=100,
            provider_job_data=job.data,
            video_key=key,
            video_duration=info.duration,
            video_width=info.width,
            video_height=info.height,
            billed_seconds=billed,
            cost_amount=round(
                billed * route.price_for(g.controls.resolution, g.controls.generate_audio, g.type),
                6,
            ),
            cost_currency="USD",
            tries=0,
            attempts=(*g.attempts, Attempt(route.key, job.id, "completed", now)),
            completed_at=now,
        )
        cleanup = path if (ours or ref.delete_after) else None
        log.info("generation_completed", extra={"generation_id": g.id, "provider": route.provider})
        return Outcome(done, self._deliveries(done, now), cleanup, cleanup_shared=not ours)

    def _route_of(self, g: Generation) -> Route | None:
        spec = self._catalog.get(g.model)
        if spec is None or g.route is None:
            return None
        return next((r for r in spec.routes if r.key == g.route), None)

    # --- outcomes: the decisions are transitions'; here their effects are applied ---------

    async def _apply(
        self, decision: t.Decision, route: Route, exc: ProviderError, ran: float = 0.0
    ) -> Outcome:
        """`ran`: seconds the job in hand ran, for the route stats of a lost job."""
        if decision.circuit is t.CircuitEffect.FATAL:
            await self._circuits.failure(route.key, fatal=True)
        elif decision.circuit is t.CircuitEffect.FAILURE:
            await self._circuits.failure(route.key)
        elif decision.circuit is t.CircuitEffect.JOB_FAILED:
            await self._circuits.undelivered(route.key, ran)
        elif decision.circuit is t.CircuitEffect.JOB_HUNG:
            await self._circuits.undelivered(route.key, ran, outcome="timed_out")
        g = decision.generation
        if g.status is Status.FAILED:
            return self._failed(g)
        log.info(
            "provider_retryable_error",
            extra={
                "generation_id": g.id,
                "provider": route.provider,
                "attempt": g.tries,
                "error": exc.code,
            },
        )
        return Outcome(g)

    async def _after_error(self, g: Generation, exc: ProviderError, route: Route) -> Outcome:
        decision = t.after_error(
            g, exc, self._clock(), untried=self._router.untried(g), pacing=self._pacing
        )
        return await self._apply(decision, route, exc)

    async def _job_failed(self, g: Generation, error: ProviderError, route: Route) -> Outcome:
        now = self._clock()
        ran = (now - t.job_started(g, now)).total_seconds()
        decision = t.job_failed(
            g, error, route.key, now, untried=self._router.untried, pacing=self._pacing
        )
        return await self._apply(decision, route, error, ran)

    async def _hung(self, g: Generation, route: Route, now: datetime) -> Outcome:
        """The job outran its route's limit: cancel it at the provider where the API can,
        then charge the route and move on (or give up): `transitions.job_hung`."""
        await self.cancel_at_provider(g)
        ran = (now - t.job_started(g, now)).total_seconds()
        remaining = g.deadline_at - now if g.deadline_at is not None else timedelta.max
        room = await self._router.room_to_move(g, remaining, leaving=route.key)
        decision = t.job_hung(g, route.key, now, room=room)
        log.info(
            "provider_job_hung",
            extra={"generation_id": g.id, "provider": route.provider, "job_id": g.provider_job_id},
        )
        return await self._apply(decision, route, ProviderTimeout("the job outran its route"), ran)

    async def cancel_at_provider(self, g: Generation) -> None:
        """Best effort: stop a canceled generation's job where its provider allows it."""
        route = self._route_of(g)
        if route is None or g.provider_job_id is None:
            return
        job = ProviderJob(g.provider_job_id, g.provider_job_data, g.provider_request_id)
        try:
            with self._observer.provider_call(route.key, "cancel"):
                await self._providers.get(route.provider).cancel(job)
        except ProviderError:
            log.info("provider_cancel_failed", extra={"generation_id": g.id})

    async def _time_out(self, g: Generation) -> Outcome:
        decision = t.timed_out(g, self._clock())
        if decision.cancel_at_provider:
            await self.cancel_at_provider(g)
        return self._failed(decision.generation)

    def fail(
        self, g: Generation, code: str, message: str, exc: ProviderError | None = None
    ) -> Outcome:
        return self._failed(t.failed(g, self._clock(), code, message, exc))

    def _failed(self, failed: Generation) -> Outcome:
        assert failed.error is not None
        log.info(
            "generation_failed", extra={"generation_id": failed.id, "error": failed.error.code}
        )
        return Outcome(failed, self._deliveries(failed, failed.updated_at))

    async def ended(self, generation_id: str) -> None:
        """The generation's row is saved ended: the input copies made for it go."""
        if self._inputs is not None:
            await self._inputs.drop_copies(generation_id)

    def release(self, generation_id: str) -> None:
        """The step's outcome is saved: a route slot its submit reserved is free again."""
        self._router.release(generation_id)

    def retry_after_crash(self, g: Generation, delay: timedelta) -> Outcome:
        """A bug interrupted this step: try again later, and give up after MAX_TRIES."""
        row = t.after_crash(g, self._clock(), delay)
        return self._failed(row) if row.status is Status.FAILED else Outcome(row)

    def _deliveries(self, g: Generation, now: datetime) -> list[Delivery]:
        return signed_deliveries(g, lambda key: self._signer.sign(key, now), now)
