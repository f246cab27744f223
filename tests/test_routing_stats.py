"""The live route stats and what the router makes of them: the stats window in the database
(both databases), the job limit a route earns from its history, and the orders of the
routing policy's sorts."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.support.chaos import KEY, KEY_ENV, PRICED, chaos_catalog, model_item, route_key
from tests.support.harness import running, test_settings
from vidrouter.domain.catalog import Route
from vidrouter.domain.routing import (
    RouteAsk,
    RouteStats,
    RoutingPolicy,
    route_candidates,
    summarise,
)
from vidrouter.engine.circuits import CircuitState
from vidrouter.store.route_stats import (
    COMPLETED,
    FAILED,
    MAX_SAMPLES,
    TIMED_OUT,
    RouteStatsStore,
)

START = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)
WINDOW = timedelta(minutes=10)


@pytest.fixture
async def service(tmp_path: Path, database_url: str) -> AsyncIterator[Any]:
    """The service, without workers (the router and breakers are used directly)."""
    settings = test_settings(
        tmp_path / "data",
        database_url,
        route_stats_window_seconds=WINDOW.total_seconds(),
        route_hang_min_samples=3,
        route_hang_min_seconds=10,
    )
    async with running(settings, workers=False) as app:
        yield app.service


async def test_stats_cover_the_window_and_old_rows_are_pruned(service: Any) -> None:
    store = RouteStatsStore(service.db)
    now = START
    await store.record("x:old", FAILED, 50.0, now=now, keep=WINDOW)
    now += timedelta(minutes=5)
    for seconds in (10.0, 20.0, 30.0, 40.0):
        await store.record("x:a", COMPLETED, seconds, now=now, keep=WINDOW)
    await store.record("x:a", TIMED_OUT, 99.0, now=now, keep=WINDOW)
    stats = await store.summary(since=now - WINDOW)
    assert stats["x:a"] == RouteStats(completed=4, failed=1, p50_seconds=20.0, p95_seconds=40.0)
    assert stats["x:a"].success_rate == 0.8
    assert stats["x:old"].failed == 1

    # Past the window the old job no longer counts, and writing prunes a route's old rows.
    now += timedelta(minutes=6)
    await store.record("x:old", COMPLETED, 5.0, now=now, keep=WINDOW)
    stats = await store.summary(since=now - WINDOW)
    assert stats["x:old"] == RouteStats(completed=1, failed=0, p50_seconds=5.0, p95_seconds=5.0)
    assert stats["x:a"].jobs == 5
    assert (await store.summary(since=START))["x:old"].jobs == 1  # the old row is gone


async def test_a_route_earns_its_job_limit_from_its_history(service: Any) -> None:
    svc = service
    route = Route("openai_videos", "m", 0.1, name="r")
    max_wait = timedelta(minutes=45)
    assert await svc.router.job_limit(route, max_wait) == max_wait  # no history yet
    for seconds in (20.0, 30.0):
        await svc.circuits.delivered(route.key, seconds)
    assert await svc.router.job_limit(route, max_wait) == max_wait  # too few jobs to trust
    await svc.circuits.delivered(route.key, 40.0)
    assert await svc.router.job_limit(route, max_wait) == timedelta(seconds=120)  # 3 x p95
    for _ in range(100):
        await svc.circuits.delivered(route.key, 1.0)
    assert await svc.router.job_limit(route, max_wait) == timedelta(seconds=10)  # the floor
    for _ in range(200):
        await svc.circuits.delivered(route.key, 3000.0)
    assert await svc.router.job_limit(route, max_wait) == max_wait  # never past the documented


def test_percentiles_are_times_really_observed() -> None:
    stats = summarise([(True, float(s)) for s in range(1, 21)] + [(False, 500.0)])
    assert (stats.completed, stats.failed) == (20, 1)
    assert (stats.p50_seconds, stats.p95_seconds) == (10.0, 19.0)
    assert summarise([]) == RouteStats()
    assert RouteStats().success_rate is None


def test_each_sort_orders_the_routes_it_allows() -> None:
    cheap = Route("fal", "m", 0.20)
    middle = Route("replicate", "m", 0.24)
    dear = Route("kling", "m", 0.28)
    routes = [cheap, middle, dear]  # the operator's order: by price
    stats = {
        cheap.key: summarise([(True, 90.0), (False, None)]),
        middle.key: summarise([(True, 40.0)]),
        # dear: no history
    }
    assert route_candidates(routes, RouteAsk(RoutingPolicy()), stats) == routes
    assert route_candidates(routes, RouteAsk(RoutingPolicy(sort="speed")), stats) == [
        middle,
        cheap,
        dear,
    ]
    assert route_candidates(routes, RouteAsk(RoutingPolicy(sort="reliability")), stats) == [
        middle,
        cheap,
        dear,
    ]
    tie = {cheap.key: summarise([(True, 40.0)]), middle.key: summarise([(True, 40.0)])}
    assert route_candidates(routes, RouteAsk(RoutingPolicy(sort="speed")), tie) == [
        cheap,
        middle,
        dear,
    ]
    assert route_candidates(routes, RouteAsk(RoutingPolicy(only=("kling", "fal"))), stats) == [
        cheap,
        dear,
    ]
    assert route_candidates(routes, RouteAsk(RoutingPolicy(ignore=("fal",))), stats) == [
        middle,
        dear,
    ]
    capped = RoutingPolicy(sort="speed", max_price_per_second=0.24)
    assert route_candidates(routes, RouteAsk(capped), stats) == [middle, cheap]


def test_a_policy_survives_the_row() -> None:
    policy = RoutingPolicy("speed", ("fal",), ("kling",), 0.3, False)
    assert RoutingPolicy.from_json(policy.to_json()) == policy
    assert RoutingPolicy.from_json(None) == RoutingPolicy()


async def test_an_accepted_call_ends_a_run_of_refusals_but_not_of_lost_jobs(
    service: Any,
) -> None:
    circuits = service.circuits
    threshold = circuits.policy.threshold
    for _ in range(3):  # refused calls, each run ended by an accepted one: never opens
        for _ in range(threshold - 1):
            await circuits.failure("x:refusing")
        await circuits.answered("x:refusing")
    assert await circuits.state_of("x:refusing") is CircuitState.CLOSED

    for _ in range(threshold - 1):  # jobs accepted, then lost: acceptance resets nothing
        await circuits.answered("x:losing")
        await circuits.undelivered("x:losing", 5.0)
    await circuits.answered("x:losing")
    assert await circuits.state_of("x:losing") is CircuitState.CLOSED
    await circuits.undelivered("x:losing", 5.0)
    assert await circuits.state_of("x:losing") is CircuitState.OPEN
    await circuits.answered("x:losing")  # a probe's accepted submit proves nothing
    assert await circuits.state_of("x:losing") is CircuitState.OPEN
    await circuits.delivered("x:losing", 5.0)  # a completed job does
    assert await circuits.state_of("x:losing") is CircuitState.CLOSED


async def test_a_busy_route_is_judged_on_its_latest_jobs(service: Any) -> None:
    store = RouteStatsStore(service.db)
    now = START
    for _ in range(MAX_SAMPLES):
        await store.record("x:busy", COMPLETED, 1.0, now=now, keep=WINDOW)
    now += timedelta(seconds=1)
    for _ in range(10):
        await store.record("x:busy", FAILED, 9.0, now=now, keep=WINDOW)
    stats = (await store.summary(since=START))["x:busy"]
    assert (stats.completed, stats.failed) == (MAX_SAMPLES - 10, 10)


async def test_every_process_sees_the_stats_and_the_price_they_make(
    tmp_path: Path, database_url: str
) -> None:
    # Two processes' services on one database: what one learns, the other lists.
    catalog = chaos_catalog(
        tmp_path / "operator.toml",
        [{"id": n, "url": "http://127.0.0.1:9", **PRICED[n]} for n in ("a", "b")],
    )

    def settings(name: str) -> Any:
        return test_settings(tmp_path / name, database_url, environ={KEY_ENV: KEY}, catalog=catalog)

    async with (
        running(settings("one"), workers=False) as one,
        running(settings("two"), workers=False) as two,
    ):
        for _ in range(one.service.circuits.policy.threshold):
            await one.service.circuits.undelivered(route_key("a"), 30.0)
        await one.service.circuits.delivered(route_key("b"), 12.0)
        key = await two.new_key()
        item = await model_item(two, key)
        assert item["pricing"]["per_second"] == 0.08  # a's breaker is open, for both
        assert [
            (r["price_per_second"], r["state"], r["completed"], r["failed"], r["p50_seconds"])
            for r in item["routes"]
        ] == [(0.05, "unavailable", 0, 5, None), (0.08, "available", 1, 0, 12.0)]
