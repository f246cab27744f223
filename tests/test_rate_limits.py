"""Per-key limits: requests per minute on every /v1 endpoint and unfinished generations at
once, shared by every process (database counters by default, Redis when configured), with
429 `rate_limit_error`, Retry-After and the RateLimit header fields."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from tests.support.harness import Harness, running, test_settings
from tests.support.process import cli_env, run_cli
from vidrouter.api import errors
from vidrouter.api.limits import RateLimitHeaders, too_many_requests_handler
from vidrouter.store.counters import (
    CountersUnavailable,
    Hit,
    StoreRateCounters,
    UnfinishedGenerations,
)
from vidrouter.store.database import Database
from vidrouter.store.keys import ApiKey, KeyStore
from vidrouter.usecases.rate_limits import Limiter, LimitPolicy, TooManyRequests, enforce

WINDOW_START = 1_800_000_000  # a multiple of 60: a minute starts here
REDIS_URL = os.environ.get("VIDROUTER_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


class FakeClock:
    def __init__(self, at: float) -> None:
        self.now = datetime.fromtimestamp(at, UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


def _key(key_id: str = "key_test", rpm: int | None = None, most: int | None = None) -> ApiKey:
    return ApiKey(
        id=key_id,
        account_id="acct_test",
        name="t",
        prefix="vr_test",
        webhook_secret="whsec_AAAA",
        created_at=datetime.now(UTC),
        requests_per_minute=rpm,
        max_concurrent=most,
    )


def _limiter(db: Database, clock: FakeClock, **policy: int) -> Limiter:
    return Limiter(
        StoreRateCounters(db), UnfinishedGenerations(db), LimitPolicy(**policy), clock=clock
    )


# --- the counters ------------------------------------------------------------------------


async def test_store_counter_counts_a_window_and_starts_over_in_the_next(db: Database) -> None:
    counters = StoreRateCounters(db)
    hits = [await counters.hit("rpm:a", window_start=WINDOW_START, window_seconds=60)]
    hits += [await counters.hit("rpm:a", window_start=WINDOW_START, window_seconds=60)]
    assert hits == [Hit(1, WINDOW_START), Hit(2, WINDOW_START)]
    assert await counters.hit("rpm:b", window_start=WINDOW_START, window_seconds=60) == Hit(
        1, WINDOW_START
    )
    later = WINDOW_START + 60
    assert await counters.hit("rpm:a", window_start=later, window_seconds=60) == Hit(1, later)
    # A process whose clock lags still counts into the newest window: skew never loosens.
    assert await counters.hit("rpm:a", window_start=WINDOW_START, window_seconds=60) == Hit(
        2, later
    )


async def test_two_limiters_on_one_database_share_a_keys_budget(database_url: str) -> None:
    """Two services (separate engines and pools, as in two processes) on one database: the
    key's budget is shared, and every concurrent hit gets its own count."""
    first, second = Database(database_url), Database(database_url)
    await first.migrate()
    clock = FakeClock(WINDOW_START + 5)
    try:
        limiters = [_limiter(first, clock), _limiter(second, clock)]
        key = _key(rpm=10)
        decisions = await asyncio.gather(*(limiters[i % 2].count(key) for i in range(30)))
    finally:
        await first.close()
        await second.close()
    assert sum(d.allowed for d in decisions) == 10
    # Atomic increments: the remaining counts seen are 9..0 once each, then 0 for the rest.
    assert sorted(d.remaining for d in decisions if d.allowed) == list(range(10))
    assert {d.remaining for d in decisions if not d.allowed} == {0}


_HIT_SCRIPT = """
import asyncio, sys
from vidrouter.store.counters import StoreRateCounters
from vidrouter.store.database import Database

async def main() -> None:
    db = Database(sys.argv[1])
    counters = StoreRateCounters(db)
    counts = [
        (await counters.hit("rpm:shared", window_start=int(sys.argv[2]), window_seconds=60)).count
        for _ in range(int(sys.argv[3]))
    ]
    await db.close()
    print(",".join(map(str, counts)))

asyncio.run(main())
"""


async def test_limits_hold_across_processes(db: Database, database_url: str) -> None:
    """Another OS process counts against the same key while this one does."""
    counters = StoreRateCounters(db)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", _HIT_SCRIPT, database_url, str(WINDOW_START), "25",
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )  # fmt: skip
    ours = [
        (await counters.hit("rpm:shared", window_start=WINDOW_START, window_seconds=60)).count
        for _ in range(25)
    ]
    out, err = await proc.communicate()
    assert proc.returncode == 0, err.decode()
    theirs = [int(c) for c in out.decode().strip().split(",")]
    assert sorted(ours + theirs) == list(range(1, 51))


# --- the policy and the headers ------------------------------------------------------------


async def test_decisions_count_down_and_refuse_over_the_limit(db: Database) -> None:
    clock = FakeClock(WINDOW_START + 15)
    limiter = _limiter(db, clock, requests_per_minute=3)
    key = _key()
    decisions = [await limiter.count(key) for _ in range(4)]
    assert [d.allowed for d in decisions] == [True, True, True, False]
    assert [d.remaining for d in decisions] == [2, 1, 0, 0]
    refused = decisions[-1]
    assert (refused.limit, refused.reset, refused.retry_after) == (3, 45, 45)
    assert dict(decisions[0].headers()) == {
        "RateLimit-Policy": '"default";q=3;w=60',
        "RateLimit": '"default";r=2;t=45',
        "RateLimit-Limit": "3",
        "RateLimit-Remaining": "2",
        "RateLimit-Reset": "45",
    }
    with pytest.raises(TooManyRequests) as caught:
        enforce(refused)
    assert (caught.value.status_code, caught.value.error_type) == (429, "rate_limit_error")
    assert (caught.value.code, caught.value.retry_after) == ("rate_limit_exceeded", 45)
    clock.advance(45)  # the next minute
    again = await limiter.count(key)
    assert (again.allowed, again.remaining, again.reset) == (True, 2, 60)


async def test_a_keys_own_limit_wins_and_keys_have_separate_budgets(db: Database) -> None:
    limiter = _limiter(db, FakeClock(WINDOW_START), requests_per_minute=1)
    generous = _key("key_generous", rpm=5)
    assert [(await limiter.count(generous)).allowed for _ in range(6)] == [True] * 5 + [False]
    other = _key("key_other")
    assert [(await limiter.count(other)).allowed for _ in range(2)] == [True, False]


async def test_a_request_is_counted_once_whoever_asks(db: Database) -> None:
    """The fast path and the routed endpoint both ask for the same request's decision."""
    limiter = _limiter(db, FakeClock(WINDOW_START), requests_per_minute=5)
    key = _key()
    scope: dict[str, Any] = {"type": "http"}
    first = await limiter.hit(scope, key)
    assert await limiter.hit(scope, key) is first
    assert (await limiter.hit({"type": "http"}, key)).remaining == first.remaining - 1


async def test_unreachable_counters_let_requests_through(db: Database) -> None:
    class Down:
        async def hit(
            self, name: str, *, window_start: int, window_seconds: int, amount: int = 1
        ) -> Hit:
            raise CountersUnavailable("down")

        async def aclose(self) -> None:
            pass

    limiter = Limiter(Down(), UnfinishedGenerations(db), LimitPolicy(requests_per_minute=1))
    decisions = [await limiter.count(_key()) for _ in range(3)]
    assert all(d.allowed and not d.known for d in decisions)
    assert decisions[0].headers() == [("RateLimit-Policy", '"default";q=1;w=60')]


def _limited_app(limiter: Limiter, key: ApiKey) -> FastAPI:
    """The limiter's pieces wired as the service wires them: the dependency's check, the
    429 handler, the header middleware."""
    app = FastAPI()
    errors.install(app)
    app.add_exception_handler(TooManyRequests, too_many_requests_handler)

    @app.get("/v1/thing")
    async def thing(request: Request) -> JSONResponse:
        enforce(await limiter.hit(request.scope, key))
        return JSONResponse({"ok": True})

    @app.post("/v1/make")
    async def make(request: Request) -> JSONResponse:
        enforce(await limiter.hit(request.scope, key))
        await limiter.check_concurrency(key)
        return JSONResponse({"ok": True})

    app.add_middleware(RateLimitHeaders)
    return app


async def test_429_body_retry_after_and_headers_on_every_response(db: Database) -> None:
    clock = FakeClock(WINDOW_START + 50)
    key = _key(rpm=2)
    app = _limited_app(_limiter(db, clock), key)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        ok = [await client.get("/v1/thing") for _ in range(2)]
        over = await client.get("/v1/thing")
        missing = await client.get("/v1/nothing-here")
    assert [r.status_code for r in ok] == [200, 200]
    assert [r.headers["ratelimit"] for r in ok] == ['"default";r=1;t=10', '"default";r=0;t=10']
    assert ok[0].headers["ratelimit-policy"] == '"default";q=2;w=60'
    assert over.status_code == 429
    assert over.json() == {
        "error": {
            "type": "rate_limit_error",
            "code": "rate_limit_exceeded",
            "message": "too many requests: this API key may make 2 requests per minute; "
            "retry in 10 s",
            "param": None,
        }
    }
    assert over.headers["retry-after"] == "10"
    assert over.headers["ratelimit"] == '"default";r=0;t=10'
    assert (over.headers["ratelimit-limit"], over.headers["ratelimit-remaining"]) == ("2", "0")
    assert over.headers["ratelimit-reset"] == "10"
    assert "ratelimit" not in missing.headers  # no key, nothing counted


# --- concurrency ---------------------------------------------------------------------------


@pytest.fixture
async def app_no_workers(tmp_path: Path, database_url: str) -> AsyncIterator[Harness]:
    """Generations stay queued: nothing runs them."""
    settings = test_settings(tmp_path / "data", database_url)
    async with running(settings, workers=False) as harness:
        yield harness


async def test_concurrency_counts_a_keys_unfinished_generations(
    app_no_workers: Harness,
) -> None:
    app = app_no_workers
    key = await app.new_key("busy")
    sibling = await app.new_key("sibling", account=key.key.account_id)
    limiter = Limiter(
        StoreRateCounters(app.service.db),
        UnfinishedGenerations(app.service.db),
        LimitPolicy(max_concurrent=2),
    )
    made = [await app.create(key, model="local-preview", prompt=f"p{i}") for i in range(2)]
    assert [r.status_code for r in made] == [202, 202]
    with pytest.raises(TooManyRequests) as caught:
        await limiter.check_concurrency(key.key)
    assert (caught.value.code, caught.value.retry_after) == ("concurrency_limit_exceeded", 10)
    assert "2 unfinished generations" in caught.value.message
    await limiter.check_concurrency(sibling.key)  # its own budget
    roomy = replace(key.key, max_concurrent=3)
    await limiter.check_concurrency(roomy)  # the key's own limit wins
    # A finished (here: canceled) generation frees its slot.
    cancel = await app.client.post(
        f"/v1/generations/{made[0].json()['id']}/cancel", headers=app.auth(key)
    )
    assert cancel.status_code == 200
    await limiter.check_concurrency(key.key)


# --- Redis ---------------------------------------------------------------------------------


def _redis_reachable() -> bool:
    import socket
    from urllib.parse import urlsplit

    parts = urlsplit(REDIS_URL)
    try:
        with socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 6379), 1):
            return True
    except OSError:
        return False


needs_redis = pytest.mark.skipif(
    not _redis_reachable() and not os.environ.get("VIDROUTER_TEST_REQUIRE_REDIS"),
    reason=f"Redis is not reachable at {REDIS_URL} (set VIDROUTER_TEST_REDIS_URL to point at "
    "one); the database-backed limiter tests still run",
)


@needs_redis
async def test_redis_counters_share_a_window_and_expire() -> None:
    from vidrouter.store.redis_counters import RedisRateCounters

    prefix = f"vidrouter-test:{secrets.token_hex(6)}:"
    first = RedisRateCounters.from_url(REDIS_URL, prefix=prefix)
    second = RedisRateCounters.from_url(REDIS_URL, prefix=prefix)
    try:
        counts = await asyncio.gather(
            *(
                (first if i % 2 else second).hit(
                    "rpm:k", window_start=WINDOW_START, window_seconds=60
                )
                for i in range(20)
            )
        )
        assert sorted(h.count for h in counts) == list(range(1, 21))
        later = await first.hit("rpm:k", window_start=WINDOW_START + 60, window_seconds=60)
        assert later == Hit(1, WINDOW_START + 60)
        ttl = await first._redis.ttl(f"{prefix}rpm:k:{WINDOW_START}")
        assert 60 < ttl <= 120  # the keys of past windows go away by themselves
    finally:
        keys = await first._redis.keys(f"{prefix}*")
        if keys:
            await first._redis.delete(*keys)
        await first.aclose()
        await second.aclose()


@needs_redis
async def test_limiter_on_redis_refuses_over_the_limit(db: Database) -> None:
    from vidrouter.store.redis_counters import RedisRateCounters

    limiter = Limiter.create(
        db, LimitPolicy(requests_per_minute=2), redis_url=REDIS_URL, clock=FakeClock(WINDOW_START)
    )
    assert isinstance(limiter._counters, RedisRateCounters)
    key = _key(f"key_{secrets.token_hex(6)}")
    try:
        assert [(await limiter.count(key)).allowed for _ in range(3)] == [True, True, False]
    finally:
        await limiter._counters._redis.delete(f"vidrouter:rate:rpm:{key.id}:{WINDOW_START}")
        await limiter.aclose()


async def test_unreachable_redis_fails_open(db: Database) -> None:
    limiter = Limiter.create(
        db, LimitPolicy(requests_per_minute=1), redis_url="redis://127.0.0.1:1/0"
    )
    try:
        decision = await limiter.count(_key())
        assert decision.allowed and not decision.known
    finally:
        await limiter.aclose()


def test_database_is_the_default_backend(tmp_path: Path) -> None:
    db = Database(f"sqlite+aiosqlite:///{tmp_path / 'x.sqlite3'}")
    assert isinstance(Limiter.create(db, LimitPolicy())._counters, StoreRateCounters)


# --- the command line ----------------------------------------------------------------------


async def test_cli_sets_a_keys_limits(tmp_path: Path) -> None:
    env = cli_env(tmp_path / "data")
    made = run_cli(
        env, "keys", "create", "--name", "n", "--rpm", "5", "--max-concurrent", "2", "--json"
    )
    assert made.returncode == 0, made.stderr
    key = json.loads(made.stdout)
    assert (key["requests_per_minute"], key["max_concurrent"]) == (5, 2)

    changed = run_cli(env, "keys", "set-limits", key["id"], "--rpm", "7", "--json")
    assert changed.returncode == 0, changed.stderr
    limits = json.loads(changed.stdout)
    assert (limits["requests_per_minute"], limits["max_concurrent"]) == (7, 2)  # one kept
    assert run_cli(env, "keys", "set-limits", "key_nope", "--rpm", "3").returncode == 1

    db = Database(f"sqlite+aiosqlite:///{tmp_path / 'data' / 'vidrouter.sqlite3'}")
    try:
        keys = KeyStore(db)
        stored = await keys.get(key["id"])
        assert stored is not None and stored.requests_per_minute == 7
        cleared = await keys.set_limits(key["id"], requests_per_minute=None, max_concurrent=None)
        assert cleared is not None and cleared.max_concurrent is None
        with pytest.raises(ValueError):
            await keys.set_limits(key["id"], requests_per_minute=0, max_concurrent=None)
    finally:
        await db.close()


# --- through the service (once the limiter is wired into it) -------------------------------


def _wired(app: Harness) -> None:
    if not hasattr(app.service, "limiter"):
        pytest.skip("the limiter is not wired into Service / deps / app yet")


@pytest.fixture
async def limited(tmp_path: Path, database_url: str) -> AsyncIterator[Harness]:
    settings = test_settings(
        tmp_path / "data", database_url, rate_limit_rpm=4, max_concurrent_generations=1
    )
    async with running(settings, workers=False) as harness:
        yield harness


async def test_service_limits_every_v1_endpoint_and_the_fast_path(limited: Harness) -> None:
    app = limited
    _wired(app)
    key = await app.new_key()
    created = await app.create(key, model="local-preview", prompt="one")
    assert created.status_code == 202
    assert created.headers["ratelimit"].startswith('"default";r=3;')
    gid = created.json()["id"]
    fast = await app.get(key, gid)  # served by the fast path
    assert fast.status_code == 200 and fast.headers["ratelimit-remaining"] == "2"
    # Falls through the fast path to the routed 404, and is counted once.
    missing = await app.get(key, "gen_" + "Z" * 24)
    assert missing.status_code == 404 and missing.headers["ratelimit-remaining"] == "1"
    listed = await app.client.get("/v1/models", headers=app.auth(key))
    assert listed.headers["ratelimit-remaining"] == "0"
    for over in [await app.get(key, gid), await app.client.get("/v1/usage", headers=app.auth(key))]:
        assert over.status_code == 429, over.text
        assert over.json()["error"]["code"] == "rate_limit_exceeded"
        assert 1 <= int(over.headers["retry-after"]) <= 60
        assert over.headers["ratelimit-policy"] == '"default";q=4;w=60'
    other = await app.new_key("other")  # another key has its own budget
    assert (await app.client.get("/v1/models", headers=app.auth(other))).status_code == 200


async def test_service_refuses_a_create_over_the_concurrency_limit(limited: Harness) -> None:
    app = limited
    _wired(app)
    key = await app.new_key()
    assert (await app.create(key, model="local-preview", prompt="one")).status_code == 202
    for response in [
        await app.create(key, model="local-preview", prompt="two"),
        await app.client.post(
            "/v1/videos", json={"model": "local-preview", "prompt": "three"}, headers=app.auth(key)
        ),
    ]:
        assert response.status_code == 429, response.text
        assert response.json()["error"]["type"] == "rate_limit_error"
        assert response.json()["error"]["code"] == "concurrency_limit_exceeded"
        assert response.headers["retry-after"] == "10"
        assert "ratelimit" in response.headers


async def test_batched_counters_are_exact_in_one_process_and_write_rarely(
    database_url: str,
) -> None:
    from vidrouter.store import Database
    from vidrouter.store.counters import BatchedRateCounters, StoreRateCounters

    db = Database(database_url)
    await db.migrate()
    writes = 0
    inner = StoreRateCounters(db)

    class Counting:
        async def hit(self, name: str, **kw: int) -> object:
            nonlocal writes
            writes += 1
            return await inner.hit(name, **kw)

        async def aclose(self) -> None:
            pass

    try:
        batched = BatchedRateCounters(Counting(), sync_seconds=60)  # type: ignore[arg-type]
        counts = [
            (await batched.hit("rpm:k", window_start=0, window_seconds=60)).count for _ in range(50)
        ]
        assert counts == list(range(1, 51))  # every request counted, in order
        assert writes == 1  # one shared write for fifty requests
        # Another process's batch: the next sync reads the shared total.
        other = BatchedRateCounters(StoreRateCounters(db), sync_seconds=0)
        assert (await other.hit("rpm:k", window_start=0, window_seconds=60)).count == 2
    finally:
        await db.close()
