"""The process's Prometheus metrics: one registry per `Observer` (so two services in one test
process never share counts), the metric objects, and their names in one place.

Labels are bounded: models and routes come from the catalog, HTTP routes are the templates
of the routed endpoints (never the raw path), error classes are the provider error classes.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.gc_collector import GCCollector
from prometheus_client.platform_collector import PlatformCollector
from prometheus_client.process_collector import ProcessCollector

# Poll answers take about a millisecond, creates tens; provider calls up to a minute.
HTTP_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0)
# How late the event loop runs a callback that is due: anything above a few ms is a stall
# every request in flight pays (docs/performance.md, "Creates under load").
LAG_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)
PROVIDER_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0)


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        ProcessCollector(registry=r)
        PlatformCollector(registry=r)
        GCCollector(registry=r)
        self.generations_created = Counter(
            "vidrouter_generations_created",
            "Generations accepted by this process (idempotent replays not counted).",
            ["model"],
            registry=r,
        )
        self.generations_finished = Counter(
            "vidrouter_generations_finished",
            "Generations that reached a terminal status in this process "
            "(route 'none': failed or canceled before any route took it).",
            ["model", "route", "status"],
            registry=r,
        )
        self.provider_call_seconds = Histogram(
            "vidrouter_provider_call_duration_seconds",
            "Calls to providers (submit, poll, fetch_result, cancel), failed ones included.",
            ["route", "operation"],
            buckets=PROVIDER_BUCKETS,
            registry=r,
        )
        self.provider_errors = Counter(
            "vidrouter_provider_call_errors",
            "Provider calls that raised, by the class of the error.",
            ["route", "operation", "error_class"],
            registry=r,
        )
        self.webhook_deliveries = Counter(
            "vidrouter_webhook_deliveries",
            "Webhook delivery tries: delivered, retry (failed, tried again later) or "
            "failed (failed for the last time).",
            ["outcome"],
            registry=r,
        )
        self.http_requests = Counter(
            "vidrouter_http_requests",
            "HTTP requests answered, by route template ('unmatched' for unknown paths).",
            ["method", "route", "status"],
            registry=r,
        )
        self.http_seconds = Histogram(
            "vidrouter_http_request_duration_seconds",
            "Time from the request's arrival to the end of its response.",
            ["method", "route"],
            buckets=HTTP_BUCKETS,
            registry=r,
        )
        self.event_loop_lag = Histogram(
            "vidrouter_event_loop_lag_seconds",
            "How late the event loop woke a task sleeping a fixed interval (sampled "
            "a few times a second): the wait every request and engine step adds on top.",
            buckets=LAG_BUCKETS,
            registry=r,
        )
