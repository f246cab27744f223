"""Failover across routes, circuit breakers and per-route caps, against chaos providers.

Each route is the generic `openai_videos` adapter pointed at its own `ChaosProvider` by an
operator's catalog file; the routes of the one model are told apart by their ids
(`openai_videos:a`, `openai_videos:b`). The public `route` names only the adapter, so the
tests read the route keys from the stored row and ask the fakes which one accepted a job.
"""

from __future__ import annotations

import asyncio
import json
from collections import defaultdict
from collections.abc import Iterator, Mapping
from contextlib import AbstractAsyncContextManager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Unpack

import httpx
import openai
import pytest

from tests.fakes.base import sample_mp4
from tests.fakes.chaos import ChaosProvider
from tests.support.chaos import ADAPTER, KEY, MODEL, RouteExtras, chaos_service, route_key
from tests.support.harness import Harness, SettingsOverrides
from tests.support.receiver import WebhookReceiver
from tests.support.servers import serve_app
from vidrouter.engine.circuits import CircuitState

pytestmark = pytest.mark.usefixtures("chaos_sample")

_DATABASE: ContextVar[str | None] = ContextVar("failover_database", default=None)


@pytest.fixture(autouse=True)
def _on_each_database(database_url: str) -> Iterator[None]:
    """Every test of this file runs on SQLite and on PostgreSQL."""
    token = _DATABASE.set(database_url)
    yield
    _DATABASE.reset(token)


def service_with(
    tmp_path: Path,
    fakes: dict[str, ChaosProvider],
    *,
    timeout: float = 5.0,
    caps: Mapping[str, int] | None = None,
    **overrides: Unpack[SettingsOverrides],
) -> AbstractAsyncContextManager[Harness]:
    """The service with one route per fake, tried in the dict's order; `caps` are the
    routes' `max_concurrent`; `overrides` are settings."""
    routes: dict[str, RouteExtras] = {name: {"timeout": timeout} for name in fakes}
    for name, cap in (caps or {}).items():
        routes[name]["max_concurrent"] = cap
    return chaos_service(tmp_path, _DATABASE.get(), fakes, routes=routes, ordered=True, **overrides)


# --- the chaos fake itself ------------------------------------------------------------------------


async def test_the_chaos_fake_speaks_the_videos_api_and_injects_what_it_is_told() -> None:
    fake = ChaosProvider(api_key=KEY, polls_to_finish=2)
    async with (
        serve_app(fake.app()) as url,
        openai.AsyncOpenAI(api_key=KEY, base_url=url + "/v1", max_retries=0) as client,
    ):
        video = await client.videos.create(model="sora-2", prompt="a fox", seconds="4")
        assert (video.status, video.seconds) == ("queued", "4")
        assert (await client.videos.retrieve(video.id)).status == "in_progress"
        assert (await client.videos.retrieve(video.id)).status == "completed"
        assert (await client.videos.download_content(video.id)).content == sample_mp4()
        assert (await client.videos.delete(video.id)).deleted
        with pytest.raises(openai.NotFoundError):
            await client.videos.retrieve(video.id)

        fake.start_outage()
        with pytest.raises(openai.InternalServerError) as down:
            await client.videos.create(prompt="a fox")
        assert down.value.status_code == 503
        fake.end_outage()

        fake.rate_limit_rate, fake.retry_after = 1.0, 7
        with pytest.raises(openai.RateLimitError) as limited:
            await client.videos.create(prompt="a fox")
        assert limited.value.response.headers["retry-after"] == "7"
        fake.rate_limit_rate = 0.0

        fake.lost_answer_rate = 1.0  # the job is made, its answer never arrives
        with pytest.raises(openai.APIConnectionError):
            await client.videos.create(prompt="a fox", extra_headers={"X-Client-Request-Id": "g1"})
        [lost] = fake.accepted_for("g1")
        assert lost.answer_lost
    assert fake.faults == {"outage": 1, "429": 1, "lost_answer": 1}
    assert len(fake.accepted) == 2  # nothing was made by the refused requests


# --- failover -------------------------------------------------------------------------------------


async def test_a_route_answering_503_fails_over_to_the_next(tmp_path: Path) -> None:
    a = ChaosProvider(api_key=KEY, error_rate=1.0, error_statuses=(503,))
    b = ChaosProvider(api_key=KEY)
    receiver = WebhookReceiver()
    async with (
        serve_app(receiver) as hook_url,
        service_with(tmp_path, {"a": a, "b": b}) as app,
    ):
        key = await app.new_key()
        created = await app.create(key, model=MODEL, prompt="a fox", webhook_url=hook_url)
        assert created.status_code == 202, created.text
        gen_id = created.json()["id"]
        done = await app.wait_for(key, gen_id, timeout=30)
        assert done["status"] == "completed", done
        assert done["route"] == ADAPTER
        attempts = [(x["route"], x["outcome"], x["error_code"]) for x in done["attempts"]]
        assert attempts == [
            (ADAPTER, "submit_failed", "provider_unavailable"),
            (ADAPTER, "submitted", None),
            (ADAPTER, "completed", None),
        ]
        row = await app.service.generation_store.get(gen_id)
        assert row is not None and row.route == route_key("b")
        assert [x.route for x in row.attempts] == [route_key("a"), route_key("b"), route_key("b")]

        await receiver.wait_for(1)
        await asyncio.sleep(1.0)  # room for a second webhook, were one coming
        assert [json.loads(hook.body)["id"] for hook in receiver.received] == [gen_id]
    assert a.accepted == [] and a.faults["5xx"] == 1
    assert [job.client_request_id for job in b.accepted] == [gen_id]


async def test_200_generations_complete_through_30_percent_provider_faults(
    tmp_path: Path,
) -> None:
    # 30% of calls fail: 5xx 10%, 429 8%, dropped connections 8%, timeouts 4% (each costs
    # a worker the route's 2 s timeout). A job fails now and then, at most once per fake
    # per generation (two fakes: two failed jobs, under MAX_JOB_FAILURES). Each fake fails
    # at most 3 calls of one generation: with 2 fakes and a failed job that is at most 7
    # failures in a row, so no generation meets MAX_TRIES (8) by a rare run of bad luck.
    knobs: dict[str, Any] = {
        "api_key": KEY,
        "error_rate": 0.10,
        "rate_limit_rate": 0.08,
        "retry_after": 1,
        "drop_rate": 0.08,
        "timeout_rate": 0.04,
        "hang_seconds": 3.0,
        "job_failure_rate": 0.03,
        "max_job_failures_per_request": 1,
        "max_faults_per_request": 3,
    }
    fakes = {"a": ChaosProvider(seed=1, **knobs), "b": ChaosProvider(seed=2, **knobs)}
    count = 200
    # The per-key limits (requests per minute, unfinished generations) are not under test.
    async with service_with(
        tmp_path,
        fakes,
        timeout=2.0,
        workers=16,
        rate_limit_rpm=100_000,
        max_concurrent_generations=count,
    ) as app:
        statuses: list[int] = []

        async def record(response: httpx.Response) -> None:
            statuses.append(response.status_code)

        app.client.event_hooks["response"].append(record)
        key = await app.new_key()
        gate = asyncio.Semaphore(8)

        async def create(n: int) -> str:
            async with gate:
                for _ in range(60):
                    r = await app.create(key, model=MODEL, prompt=f"fox {n}")
                    if r.status_code != 503:
                        break
                    # Both breakers open at once (on a loaded machine slow answers past the
                    # 2 s timeout count as failures too): the create is refused, and a
                    # client tries again when told.
                    assert r.json()["error"]["code"] == "model_unavailable", r.text
                    await asyncio.sleep(float(r.headers.get("Retry-After", "1")))
            assert r.status_code == 202, r.text
            return str(r.json()["id"])

        ids = await asyncio.gather(*(create(n) for n in range(count)))
        pending = set(ids)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 90
        while pending and loop.time() < deadline:
            await asyncio.sleep(0.5)
            for gen_id in list(pending):
                row = await app.service.generation_store.get(gen_id)
                if row is not None and row.status.terminal:
                    pending.discard(gen_id)
        assert not pending, f"{len(pending)} generations unfinished"

        bodies = []
        for gen_id in ids:
            r = await app.get(key, gen_id)
            assert r.status_code == 200, r.text
            bodies.append(r.json())
        failed = [b for b in bodies if b["status"] != "completed"]
        assert not failed, [
            (b["status"], b["error"], [(x["outcome"], x["error_code"]) for x in b["attempts"]])
            for b in failed
        ]
        rows = {gen_id: await app.service.generation_store.get(gen_id) for gen_id in ids}
    assert statuses and all(s < 500 or s == 503 for s in statuses), sorted(set(statuses))

    # The chaos was real: every kind of fault was met, and routes were failed over.
    faults = fakes["a"].faults + fakes["b"].faults
    assert {"5xx", "429", "drop", "timeout"} <= set(faults), faults
    requests = fakes["a"].requests + fakes["b"].requests
    assert sum(faults.values()) > 0.25 * requests, (faults, requests)  # ~30% of the calls
    assert any(len({x.route for x in row.attempts}) == 2 for row in rows.values() if row)

    # No generation was accepted twice, unless the provider failed the earlier job.
    accepted: dict[str, list[tuple[float, str, str]]] = defaultdict(list)
    for name, fake in fakes.items():
        for job in fake.accepted:
            assert job.client_request_id is not None
            accepted[job.client_request_id].append((job.at, name, job.job_id))
    assert set(accepted) == set(ids)
    failed_jobs = fakes["a"].failed_jobs | fakes["b"].failed_jobs
    for gen_id, jobs in accepted.items():
        *earlier, (_, last_fake, last_job) = sorted(jobs)
        assert all(job_id in failed_jobs for _, _, job_id in earlier), (gen_id, jobs)
        row = rows[gen_id]
        assert row is not None and row.provider_job_id == last_job
        assert row.route == route_key(last_fake)
    assert failed_jobs, "no job failure was injected"


async def test_a_lost_submit_answer_is_submitted_again(tmp_path: Path) -> None:
    # The first create is accepted and its answer lost: with no idempotency key on this
    # wire format, the retry makes a second job (at-least-once); the first is abandoned.
    fake = ChaosProvider(api_key=KEY, lost_answer_rate=1.0, max_faults_per_request=1)
    async with service_with(tmp_path, {"a": fake}) as app:
        key = await app.new_key()
        created = await app.create(key, model=MODEL, prompt="a fox")
        gen_id = created.json()["id"]
        done = await app.wait_for(key, gen_id, timeout=30)
        assert done["status"] == "completed", done
        row = await app.service.generation_store.get(gen_id)
    lost, kept = fake.accepted_for(gen_id)
    assert lost.answer_lost and not kept.answer_lost
    assert row is not None and row.provider_job_id == kept.job_id
    assert [x["outcome"] for x in done["attempts"]] == ["submit_failed", "submitted", "completed"]


async def test_a_generation_no_route_will_take_fails_at_its_deadline(tmp_path: Path) -> None:
    a, b = ChaosProvider(api_key=KEY), ChaosProvider(api_key=KEY)
    a.start_outage()
    b.start_outage()
    # One failure opens a breaker, and the cooldown outlasts the 2 s deadline: the
    # generation waits in our queue (no tries spent) until its deadline ends it.
    async with service_with(
        tmp_path,
        {"a": a, "b": b},
        generation_deadline_seconds=2,
        circuit_failure_threshold=1,
        circuit_cooldown_seconds=3000,
    ) as app:
        key = await app.new_key()
        created = await app.create(key, model=MODEL, prompt="a fox")
        gen_id = created.json()["id"]
        done = await app.wait_for(key, gen_id, timeout=15)
        row = await app.service.generation_store.get(gen_id)
    assert done["status"] == "failed", done
    assert done["error"]["code"] == "provider_unavailable"  # the providers' error, not ours
    # Clients read our wording; the engine's account stays on the row for operators.
    assert "not available" in done["error"]["message"]
    assert row is not None and row.error is not None and "gave up" in row.error.message
    assert a.faults["outage"] + b.faults["outage"] == 2  # one call each, then the breakers


# --- circuit breakers -----------------------------------------------------------------------------


async def test_all_routes_down_opens_the_breakers_and_a_probe_closes_them(
    tmp_path: Path,
) -> None:
    a, b = ChaosProvider(api_key=KEY), ChaosProvider(api_key=KEY)
    a.start_outage()
    b.start_outage()
    # Breakers open after 2 failures and probe again after 60 s * 0.05 = 3 s.
    overrides: dict[str, Any] = {"circuit_failure_threshold": 2, "circuit_cooldown_seconds": 60}
    overrides["provider_delay_scale"] = 0.05
    async with service_with(tmp_path, {"a": a, "b": b}, **overrides) as app:
        key = await app.new_key()
        early = await app.create(key, model=MODEL, prompt="a fox during the outage")
        assert early.status_code == 202, early.text

        async def model_status() -> str:
            r = await app.client.get("/v1/models", headers=app.auth(key))
            assert r.status_code == 200, r.text
            [model] = [m for m in r.json()["data"] if m["id"] == MODEL]
            return str(model["status"])

        for _ in range(200):
            if await model_status() == "unavailable":
                break
            await asyncio.sleep(0.05)
        assert await model_status() == "unavailable"
        refused = await app.create(key, model=MODEL, prompt="a fox")
        assert refused.status_code == 503, refused.text
        error = refused.json()["error"]
        assert (error["type"], error["code"]) == ("service_unavailable_error", "model_unavailable")
        assert int(refused.headers["retry-after"]) >= 1
        # The open breakers keep calls off the providers: 2 failures each opened them.
        assert a.faults["outage"] + b.faults["outage"] <= 5, (a.faults, b.faults)

        a.end_outage()
        b.end_outage()
        for _ in range(200):  # the cooldown: refused until a route may be probed
            if await model_status() != "unavailable":
                break
            await asyncio.sleep(0.05)
        later = [await app.create(key, model=MODEL, prompt=f"fox {n}") for n in range(3)]
        assert [r.status_code for r in later] == [202, 202, 202], [r.text for r in later]
        for r in [early, *later]:
            done = await app.wait_for(key, r.json()["id"], timeout=30)
            assert done["status"] == "completed", done
        # Route a was probed and closed. Route b, behind it, is probed only by the next
        # generation routed to it: until then it is half-open and the model "degraded".
        assert await app.service.circuits.state_of(route_key("a")) is CircuitState.CLOSED
        assert await app.service.circuits.state_of(route_key("b")) is not CircuitState.OPEN
        assert await model_status() in ("available", "degraded")
    # Each generation was accepted once: the one made during the outage waited in our
    # queue (not failing), and the calls refused while the breakers were open never left.
    accepted = [job.client_request_id for job in a.accepted + b.accepted]
    assert sorted(accepted) == sorted(r.json()["id"] for r in [early, *later])  # type: ignore[type-var]


async def test_a_route_cap_bounds_the_jobs_running_at_the_provider(tmp_path: Path) -> None:
    fake = ChaosProvider(api_key=KEY, job_seconds=0.6)
    async with service_with(tmp_path, {"a": fake}, caps={"a": 2}, workers=6) as app:
        key = await app.new_key()
        created = await asyncio.gather(
            *(app.create(key, model=MODEL, prompt=f"fox {n}") for n in range(6))
        )
        assert [r.status_code for r in created] == [202] * 6
        for r in created:
            done = await app.wait_for(key, r.json()["id"], timeout=40)
            assert done["status"] == "completed", done
    assert len(fake.accepted) == 6
    assert fake.peak_running == 2  # the cap was reached and never passed
