"""One step of one generation: from the row as it is and what the provider says, the row as
it must become. Effects on the outside world (provider calls, storing the video) happen here;
writing the new row is the caller's, under its lease."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from pathlib import Path

from vidrouter.domain.catalog import Catalog, Route
from vidrouter.domain.clock import Clock
from vidrouter.domain.generation import (
    Attempt,
    Generation,
    GenerationError,
    Status,
    Step,
)
from vidrouter.engine.backoff import poll_delay, retry_delay
from vidrouter.engine.results import ResultFetcher, inspect_and_normalise
from vidrouter.providers.base import (
    JobState,
    Provider,
    ProviderError,
    ProviderJob,
    ProviderRequest,
    ProviderStatus,
    RateLimited,
)
from vidrouter.providers.registry import Providers
from vidrouter.storage.base import BlobStorage
from vidrouter.storage.signing import UrlSigner
from vidrouter.store.deliveries import Delivery
from vidrouter.webhooks.outbox import deliveries_for

log = logging.getLogger(__name__)

MAX_TRIES = 8  # consecutive retryable failures of one step before the generation fails


@dataclass(frozen=True)
class Outcome:
    generation: Generation
    deliveries: list[Delivery] = field(default_factory=list)
    cleanup: Path | None = None  # a file to remove once the new row is saved


class Advancer:
    def __init__(
        self,
        catalog: Catalog,
        providers: Providers,
        storage: BlobStorage,
        signer: UrlSigner,
        fetcher: ResultFetcher,
        clock: Clock,
        delay_scale: float = 1.0,
    ) -> None:
        self._catalog = catalog
        self._providers = providers
        self._storage = storage
        self._signer = signer
        self._fetcher = fetcher
        self._clock = clock
        self._scale = delay_scale

    def _scaled(self, delay: timedelta) -> timedelta:
        return delay * self._scale

    async def advance(self, g: Generation) -> Outcome:
        if g.step is Step.SUBMIT:
            return await self._submit(g)
        if g.step in (Step.POLL, Step.DOWNLOAD):
            return await self._poll(g)
        return self.fail(g, "internal_error", f"generation in unexpected step {g.step}")

    # --- submit -----------------------------------------------------------------------------

    async def _submit(self, g: Generation) -> Outcome:
        now = self._clock()
        route = self._choose_route(g)
        if route is None:
            return self.fail(
                g, "model_unavailable", f"model {g.model} has no usable route on this server"
            )
        provider = self._providers.get(route.provider)
        request = ProviderRequest(
            generation_id=g.id,
            model=route.provider_model,
            prompt=g.prompt,
            duration=g.duration,
            aspect_ratio=g.aspect_ratio,
            image_url=g.image_url,
            options=route.options,
        )
        try:
            job = await provider.submit(request)
        except ProviderError as exc:
            attempt = Attempt(route.key, None, "submit_failed", now, exc.code)
            g = replace(g, attempts=(*g.attempts, attempt))
            return self._after_error(g, exc, route)
        attempt = Attempt(route.key, job.id, "submitted", now)
        log.info(
            "generation_submitted",
            extra={"generation_id": g.id, "provider": route.provider, "job_id": job.id},
        )
        return Outcome(
            replace(
                g,
                status=Status.IN_PROGRESS,
                step=Step.POLL,
                route=route.key,
                provider_job_id=job.id,
                provider_job_data=job.data,
                provider_request_id=job.request_id,
                progress=0,
                tries=0,
                attempts=(*g.attempts, attempt),
                started_at=g.started_at or now,
                deadline_at=now + self._scaled(provider.poll_policy.max_wait),
                updated_at=now,
                next_attempt_at=now + self._scaled(provider.poll_policy.first_poll),
                lease_owner=None,
                lease_until=None,
            )
        )

    def _choose_route(self, g: Generation) -> Route | None:
        listed = self._catalog.find_listed(g.model, self._providers.usable)
        if listed is None:
            return None
        failed = {a.route for a in g.attempts if a.outcome in ("submit_failed", "failed")}
        fresh = [r for r in listed.routes if r.key not in failed]
        # Every route failed once already: go round again, in order.
        return (fresh or list(listed.routes))[0]

    # --- poll and download ------------------------------------------------------------------

    async def _poll(self, g: Generation) -> Outcome:
        now = self._clock()
        route = self._route_of(g)
        if route is None or g.provider_job_id is None:
            return self.fail(g, "internal_error", "the generation lost its route")
        provider = self._providers.get(route.provider)
        job = ProviderJob(g.provider_job_id, g.provider_job_data, g.provider_request_id)
        if g.deadline_at is not None and now >= g.deadline_at:
            await _cancel_quietly(provider, job)
            return self.fail(g, "timeout", "the provider did not finish in time")
        try:
            status = await provider.poll(job)
            if status.state is JobState.SUCCEEDED:
                if status.data is not None:
                    job = replace(job, data=status.data)
                return await self._download(g, provider, job, route, status)
        except ProviderError as exc:
            return self._after_error(g, exc, route)
        if status.state is JobState.FAILED:
            error = status.error or ProviderError("the provider reported a failure")
            return self.fail(g, error.code, error.message, error)
        if status.state is JobState.CANCELED:
            return self.fail(g, "provider_error", "the provider canceled the job")
        elapsed = now - (g.started_at or now)
        delay = poll_delay(
            provider.poll_policy.interval,
            provider.poll_policy.max_interval,
            int(elapsed / provider.poll_policy.interval) if elapsed else 0,
        )
        return Outcome(
            replace(
                g,
                progress=status.progress if status.progress is not None else g.progress,
                provider_job_data=status.data if status.data is not None else g.provider_job_data,
                tries=0,
                updated_at=now,
                next_attempt_at=now + self._scaled(delay),
                lease_owner=None,
                lease_until=None,
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
        ref = await provider.fetch_result(job)
        path, ours = await self._fetcher.to_local_file(ref)
        try:
            info = await inspect_and_normalise(path)
            key = f"videos/{g.id}.mp4"
            await self._storage.put_file(key, path)
        except BaseException:
            if ours:
                path.unlink(missing_ok=True)
            raise
        now = self._clock()
        billed = status.billed_seconds if status.billed_seconds is not None else info.duration
        done = replace(
            g,
            status=Status.COMPLETED,
            step=Step.DONE,
            progress=100,
            provider_job_data=job.data,
            video_key=key,
            video_duration=info.duration,
            video_width=info.width,
            video_height=info.height,
            billed_seconds=billed,
            cost_amount=round(billed * route.price_per_second, 6),
            cost_currency="USD",
            tries=0,
            attempts=(*g.attempts, Attempt(route.key, job.id, "completed", now)),
            updated_at=now,
            completed_at=now,
            next_attempt_at=None,
            lease_owner=None,
            lease_until=None,
        )
        cleanup = path if (ours or ref.delete_after) else None
        log.info("generation_completed", extra={"generation_id": g.id, "provider": route.provider})
        return Outcome(done, self._deliveries(done, now), cleanup)

    def _route_of(self, g: Generation) -> Route | None:
        spec = self._catalog.get(g.model)
        if spec is None or g.route is None:
            return None
        return next((r for r in spec.routes if r.key == g.route), None)

    # --- outcomes ---------------------------------------------------------------------------

    def _after_error(self, g: Generation, exc: ProviderError, route: Route) -> Outcome:
        now = self._clock()
        if not exc.is_retryable or g.tries + 1 >= MAX_TRIES:
            return self.fail(g, exc.code, exc.message, exc)
        retry_after = exc.retry_after if isinstance(exc, RateLimited) else None
        delay = self._scaled(retry_delay(g.tries, retry_after))
        log.info(
            "provider_retryable_error",
            extra={
                "generation_id": g.id,
                "provider": route.provider,
                "attempt": g.tries + 1,
                "error": exc.code,
            },
        )
        return Outcome(
            replace(
                g,
                tries=g.tries + 1,
                provider_error_code=exc.provider_code or g.provider_error_code,
                updated_at=now,
                next_attempt_at=now + delay,
                lease_owner=None,
                lease_until=None,
            )
        )

    def fail(
        self, g: Generation, code: str, message: str, exc: ProviderError | None = None
    ) -> Outcome:
        now = self._clock()
        failed = replace(
            g,
            status=Status.FAILED,
            step=Step.DONE,
            error=GenerationError(code, message[:2000]),
            provider_error_code=(exc.provider_code if exc else None) or g.provider_error_code,
            provider_request_id=(exc.request_id if exc else None) or g.provider_request_id,
            updated_at=now,
            completed_at=now,
            next_attempt_at=None,
            lease_owner=None,
            lease_until=None,
        )
        log.info("generation_failed", extra={"generation_id": g.id, "error": code})
        return Outcome(failed, self._deliveries(failed, now))

    def retry_after_crash(self, g: Generation, delay: timedelta) -> Outcome:
        """A bug interrupted this step: try again later, and give up after MAX_TRIES."""
        if g.tries + 1 >= MAX_TRIES:
            return self.fail(g, "internal_error", "the generation could not be processed")
        now = self._clock()
        return Outcome(
            replace(
                g,
                tries=g.tries + 1,
                updated_at=now,
                next_attempt_at=now + delay,
                lease_owner=None,
                lease_until=None,
            )
        )

    def _deliveries(self, g: Generation, now: datetime) -> list[Delivery]:
        url = self._signer.sign(g.video_key, now) if g.video_key else None
        return deliveries_for(g, url, now)


async def _cancel_quietly(provider: Provider, job: ProviderJob) -> None:
    try:
        await provider.cancel(job)
    except ProviderError:
        log.info("provider_cancel_failed", extra={"job_id": job.id})
