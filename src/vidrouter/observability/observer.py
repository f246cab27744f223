"""The one object the rest of the service reports to: `service.observer`.

Each call is a counter increment or a histogram observation in this process's registry
(nanoseconds, no I/O). Gauges about the shared database are not reported here: they are read
from the database when scraped (see `shared.SharedState`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager

from prometheus_client import generate_latest

from vidrouter.domain.generation import Generation
from vidrouter.observability.http import HttpMetrics, RequestIdOf
from vidrouter.observability.metrics import Metrics
from vidrouter.observability.shared import SharedState

NO_ROUTE = "none"

log = logging.getLogger(__name__)


class Observer:
    def __init__(self, shared: SharedState | None = None) -> None:
        self.metrics = Metrics()
        self.shared = shared
        if shared is not None:
            self.metrics.registry.register(shared)

    # --- generations ------------------------------------------------------------------------

    def generation_created(self, g: Generation) -> None:
        self.metrics.generations_created.labels(g.model).inc()
        log.info("generation_created", extra={"generation_id": g.id, "model": g.model})

    def generation_finished(self, g: Generation) -> None:
        """Call once, by whoever wrote the terminal state (the worker, a cancel)."""
        self.metrics.generations_finished.labels(g.model, g.route or NO_ROUTE, g.status.value).inc()

    # --- provider calls ---------------------------------------------------------------------

    @contextmanager
    def provider_call(self, route: str, operation: str) -> Iterator[None]:
        """Times the call; an exception it raises is counted by its class and passed on.
        A cancellation (shutdown) is neither timed nor counted."""
        started = time.perf_counter()
        try:
            yield
        except Exception as exc:
            self.metrics.provider_errors.labels(route, operation, type(exc).__name__).inc()
            self._timed(route, operation, started)
            raise
        self._timed(route, operation, started)

    def _timed(self, route: str, operation: str, started: float) -> None:
        self.metrics.provider_call_seconds.labels(route, operation).observe(
            time.perf_counter() - started
        )

    # --- webhooks ---------------------------------------------------------------------------

    def webhook_delivery(self, outcome: str) -> None:
        """`delivered`, `retry` (failed, will be tried again) or `failed` (given up)."""
        self.metrics.webhook_deliveries.labels(outcome).inc()

    # --- the process --------------------------------------------------------------------------

    def event_loop_lag(self, seconds: float) -> None:
        self.metrics.event_loop_lag.observe(seconds)

    # --- HTTP and the scrape ----------------------------------------------------------------

    def http(self, request_id: RequestIdOf) -> HttpMetrics:
        return HttpMetrics(self.metrics, request_id)

    async def render(self) -> bytes:
        """The Prometheus text exposition of this process, shared gauges read fresh."""
        if self.shared is not None:
            await self.shared.refresh()
        return generate_latest(self.metrics.registry)
