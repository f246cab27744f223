"""Routes judged by what they deliver (docs/routing.md), against chaos providers: a route
whose accepted jobs all fail opens its breaker and recovers through a probe, and the listed
price follows; a route whose jobs hang is left for the next route, the hung job canceled at
the provider, with exactly one paid success; the live stats behind both.

Each route is the generic `openai_videos` adapter pointed at its own `ChaosProvider`, with
its own price; routes are told apart by their ids (`openai_videos:a`, ...). Every test runs
on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from starlette.responses import JSONResponse, Response

from tests.fakes.chaos import ChaosProvider
from tests.support.chaos import (
    ADAPTER,
    DURATION,
    KEY,
    MODEL,
    PRICED,
    chaos_service,
    generate,
    model_item,
    route_key,
)
from tests.support.harness import Harness, assert_failed
from vidrouter.engine.circuits import CircuitState
from vidrouter.store.keys import NewKey

pytestmark = pytest.mark.usefixtures("chaos_sample")


async def eventually(check: Callable[[], Awaitable[bool]], timeout: float = 30.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not await check():
        assert loop.time() < deadline, "the condition never came true"
        await asyncio.sleep(0.05)


async def served_by(app: Harness, generation_id: str) -> list[tuple[str, str]]:
    row = await app.service.generation_store.get(generation_id)
    assert row is not None
    return [(a.route, a.outcome) for a in row.attempts]


@asynccontextmanager
async def with_history(
    tmp_path: Path, database_url: str, settings: dict[str, Any], *fakes: ChaosProvider
) -> AsyncIterator[tuple[Harness, NewKey]]:
    """The service over routes a (and b) priced as PRICED, after two completed generations."""
    named = dict(zip("ab", fakes, strict=False))
    async with chaos_service(tmp_path, database_url, named, routes=PRICED, **settings) as app:
        key = await app.new_key()
        for _ in range(2):
            assert (await generate(app, key))["status"] == "completed"
        yield app, key


# --- failures after submit count ----------------------------------------------------------------


async def test_a_route_whose_accepted_jobs_fail_opens_and_recovers_through_a_probe(
    tmp_path: Path, database_url: str
) -> None:
    # Route a is cheapest and accepts every job, then fails it (a retryable failure of its
    # own). Acceptance used to count as a success, so its breaker never opened.
    a = ChaosProvider(api_key=KEY, job_failure_rate=1.0)
    b = ChaosProvider(api_key=KEY)
    settings: dict[str, Any] = {
        "circuit_failure_threshold": 3,
        "circuit_cooldown_seconds": 400,  # x 0.02 = 8 s
    }
    async with chaos_service(
        tmp_path, database_url, {"a": a, "b": b}, routes=PRICED, **settings
    ) as app:
        key = await app.new_key()
        item = await model_item(app, key)
        assert item["pricing"]["per_second"] == 0.05

        for _ in range(3):
            done = await generate(app, key)
            assert done["status"] == "completed", done
            assert done["cost"] == {"amount": round(DURATION * 0.08, 6), "currency": "USD"}
            assert await served_by(app, done["id"]) == [
                (route_key("a"), "submitted"),
                (route_key("a"), "failed"),
                (route_key("b"), "submitted"),
                (route_key("b"), "completed"),
            ]
        assert len(a.accepted) == 3 and len(a.failed_jobs) == 3

        # Three failed jobs opened a's breaker: the listed price is the route now chosen.
        assert await app.service.circuits.state_of(route_key("a")) is CircuitState.OPEN
        item = await model_item(app, key)
        assert item["status"] == "degraded"
        assert item["pricing"]["per_second"] == 0.08
        routes = {r["price_per_second"]: r for r in item["routes"]}
        assert routes[0.05]["state"] == "unavailable"
        assert (routes[0.05]["completed"], routes[0.05]["failed"]) == (0, 3)
        assert routes[0.05]["success_rate"] == 0.0
        assert (routes[0.08]["state"], routes[0.08]["completed"]) == ("available", 3)
        assert routes[0.08]["success_rate"] == 1.0 and routes[0.08]["p50_seconds"] is not None

        # While it is open, a is skipped: nothing more is paid for there.
        skipped = await generate(app, key)
        assert skipped["status"] == "completed", skipped
        assert await served_by(app, skipped["id"]) == [
            (route_key("b"), "submitted"),
            (route_key("b"), "completed"),
        ]
        assert len(a.accepted) == 3

        # a heals; after the cooldown the next generation is its probe, and a completed job
        # (not an accepted one) closes the breaker.
        a.job_failure_rate = 0.0

        async def half_open() -> bool:
            return await app.service.circuits.state_of(route_key("a")) is CircuitState.HALF_OPEN

        await eventually(half_open)
        assert (await model_item(app, key))["pricing"]["per_second"] == 0.05
        probe = await generate(app, key)
        assert probe["status"] == "completed", probe
        assert probe["cost"] == {"amount": round(DURATION * 0.05, 6), "currency": "USD"}
        assert await served_by(app, probe["id"]) == [
            (route_key("a"), "submitted"),
            (route_key("a"), "completed"),
        ]
        assert await app.service.circuits.state_of(route_key("a")) is CircuitState.CLOSED
        item = await model_item(app, key)
        assert item["pricing"]["per_second"] == 0.05
        assert {r["price_per_second"]: r["state"] for r in item["routes"]}[0.05] == "available"
    # Each generation was delivered once: b made 4 videos, a the probe's.
    assert len(b.accepted) == 4 and b.failed_jobs == set()


# --- hangs move -------------------------------------------------------------------------------


HANG_SETTINGS: dict[str, Any] = {
    # Once a route has 2 completed jobs its limit is 3 x its p95, at least 30 s x 0.02.
    "route_hang_min_samples": 2,
    "route_hang_min_seconds": 30,
}


async def test_a_hung_job_is_canceled_and_the_generation_moves_to_the_next_route(
    tmp_path: Path, database_url: str
) -> None:
    a, b = ChaosProvider(api_key=KEY), ChaosProvider(api_key=KEY)
    async with with_history(tmp_path, database_url, HANG_SETTINGS, a, b) as (app, key):
        # From its history, a's jobs take well under a second.
        limit = await app.service.router.job_limit(
            app.service.catalog.get(MODEL).routes[0],  # type: ignore[union-attr]
            app.service.providers.get(ADAPTER).poll_policy.max_wait * 0.02,
        )
        assert limit.total_seconds() < 5  # learned: far under the 54 s documented run

        a.job_seconds = 3600.0  # from now on a's jobs never finish
        done = await generate(app, key)
        assert done["status"] == "completed", done
        attempts = await served_by(app, done["id"])
        assert attempts == [
            (route_key("a"), "submitted"),
            (route_key("a"), "timed_out"),
            (route_key("b"), "submitted"),
            (route_key("b"), "completed"),
        ]
        # Exactly one paid success, at the price of the route that delivered.
        assert done["cost"] == {"amount": round(DURATION * 0.08, 6), "currency": "USD"}
        assert [x["error_code"] for x in done["attempts"]][1] == "timeout"
        row = await app.service.generation_store.get(done["id"])
        assert row is not None and row.provider_job_id == b.accepted[-1].job_id

        # The hung job was canceled at the provider, and charged to its route.
        [hung] = a.accepted_for(done["id"])
        assert a.deleted == [hung.job_id]
        routes = (await model_item(app, key))["routes"]
        stats = {r["price_per_second"]: (r["completed"], r["failed"]) for r in routes}
        assert stats == {0.05: (2, 1), 0.08: (1, 0)}
    assert len(b.accepted) == 1


# With nowhere left to move, a job may run the provider's documented time (45 min for this
# adapter): x 0.005 = 13.5 s here.
LAST_ROUTE_SETTINGS: dict[str, Any] = {**HANG_SETTINGS, "provider_delay_scale": 0.005}


async def test_a_generation_whose_every_route_hangs_fails_as_timeout(
    tmp_path: Path, database_url: str
) -> None:
    a, b = ChaosProvider(api_key=KEY), ChaosProvider(api_key=KEY)
    async with with_history(tmp_path, database_url, LAST_ROUTE_SETTINGS, a, b) as (app, key):
        # History on b too: while a is down, generations fail over to it.
        a.start_outage()
        for _ in range(2):
            assert (await generate(app, key))["status"] == "completed"
        a.end_outage()
        a.job_seconds = b.job_seconds = 3600.0

        done = await generate(app, key)
        assert_failed(done, "timeout")
        assert done["cost"] is None
        assert [o for _, o in await served_by(app, done["id"])] == [
            "submitted",
            "timed_out",
            "submitted",
            "timed_out",
        ]
        [hung_a] = a.accepted_for(done["id"])
        [hung_b] = b.accepted_for(done["id"])
        assert hung_a.job_id in a.deleted and hung_b.job_id in b.deleted


async def test_allow_fallbacks_false_keeps_a_hung_generation_on_its_route(
    tmp_path: Path, database_url: str
) -> None:
    a, b = ChaosProvider(api_key=KEY), ChaosProvider(api_key=KEY)
    async with with_history(tmp_path, database_url, LAST_ROUTE_SETTINGS, a, b) as (app, key):
        a.job_seconds = 3600.0
        done = await generate(app, key, routing={"allow_fallbacks": False})
        assert_failed(done, "timeout")
        assert done["routing"]["allow_fallbacks"] is False
        assert [o for _, o in await served_by(app, done["id"])] == ["submitted", "timed_out"]
    assert b.accepted == []


async def test_a_slow_job_with_nowhere_to_move_is_not_cut_short(
    tmp_path: Path, database_url: str
) -> None:
    # One route: its learned limit (3 x a p95 of a fraction of a second) would abandon a
    # slower job, but with nowhere to move it may run the documented 13.5 s.
    a = ChaosProvider(api_key=KEY)
    async with with_history(tmp_path, database_url, LAST_ROUTE_SETTINGS, a) as (app, key):
        route = app.service.catalog.get(MODEL).routes[0]  # type: ignore[union-attr]
        documented = app.service.providers.get(ADAPTER).poll_policy.max_wait * 0.005
        learned = await app.service.router.job_limit(route, documented)
        assert learned < documented
        # Longer than the learned limit (whatever this machine's load made the history),
        # within the documented one.
        a.job_seconds = learned.total_seconds() + 1.0
        assert a.job_seconds < documented.total_seconds()
        done = await generate(app, key)
        assert done["status"] == "completed", done
        assert [o for _, o in await served_by(app, done["id"])] == ["submitted", "completed"]
    assert a.deleted == []


class UncancelableChaos(ChaosProvider):
    """A chaos provider whose API cannot cancel: DELETE is refused and the job runs on."""

    def _delete(self, video_id: str) -> Response:
        self.deleted.append(f"refused:{video_id}")
        body = {"error": {"message": "Videos cannot be deleted while they run.", "type": "x"}}
        return JSONResponse(body, status_code=409)


async def test_a_late_completion_of_an_abandoned_job_is_ignored_and_not_billed(
    tmp_path: Path, database_url: str
) -> None:
    a = UncancelableChaos(api_key=KEY)
    b = ChaosProvider(api_key=KEY)
    async with with_history(tmp_path, database_url, HANG_SETTINGS, a, b) as (app, key):
        a.job_seconds = 3600.0
        done = await generate(app, key)
        assert done["status"] == "completed", done
        [abandoned] = a.accepted_for(done["id"])
        assert a.deleted == [f"refused:{abandoned.job_id}"]  # tried, and the API said no

        # The abandoned job may now finish at a: nothing asks it, nothing bills it.
        a.job_seconds = 0.0
        calls = a.requests
        await asyncio.sleep(1.0)  # room for a poll of the abandoned job, were one coming
        assert a.requests == calls
        again = (await app.get(key, done["id"])).json()
        assert (
            again["cost"]
            == done["cost"]
            == {
                "amount": round(DURATION * 0.08, 6),
                "currency": "USD",
            }
        )
        assert [x["outcome"] for x in again["attempts"]] == [
            "submitted",
            "timed_out",
            "submitted",
            "completed",
        ]
        usage = (await app.client.get("/v1/usage", headers=app.auth(key))).json()
        assert usage["total"]["completed"] == 3
        assert usage["total"]["cost"]["amount"] == round(DURATION * (0.05 * 2 + 0.08), 6)
