"""GET /metrics: Prometheus text that prometheus-client's own parser reads, counters that move
as generations run, labels that never carry a raw path, and gauges about the shared database
that every process reports alike."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.support.harness import Harness, running, test_settings
from tests.support.receiver import WebhookReceiver
from tests.support.servers import serve_app

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def local_route(app: Harness) -> str:
    """The key of local-preview's one route (the metrics' `route` label)."""
    spec = app.service.catalog.get("local-preview")
    assert spec is not None
    [route] = spec.routes
    return route.key


async def scrape(app: Harness) -> Samples:
    response = await app.client.get("/metrics")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain; version=0.0.4")
    samples: Samples = {}
    for family in text_string_to_metric_families(response.text):
        for s in family.samples:
            samples[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return samples


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def total(samples: Samples, name: str, **labels: str) -> float:
    """The sum over every series of `name` whose labels include these."""
    return sum(
        v
        for (n, ls), v in samples.items()
        if n == name and all(dict(ls).get(k) == want for k, want in labels.items())
    )


async def wait_until_metric(
    app: Harness, name: str, at_least: float, labels: Mapping[str, str]
) -> Samples:
    for _ in range(300):
        samples = await scrape(app)
        if total(samples, name, **labels) >= at_least:
            return samples
        await asyncio.sleep(0.1)
    raise AssertionError(f"{name}{dict(labels)} never reached {at_least}")


async def test_metrics_move_as_a_generation_runs(app: Harness) -> None:
    key = await app.new_key()
    route = local_route(app)
    before = await scrape(app)
    receiver = WebhookReceiver()
    async with serve_app(receiver) as hook_url:
        created = await app.create(
            key, model="local-preview", prompt="a fox counts itself", webhook_url=hook_url
        )
        assert created.status_code == 202, created.text
        done = await app.wait_for(key, created.json()["id"])
        assert done["status"] == "completed"
        assert done["route"] == "local"
        await receiver.wait_for(1)
        after = await wait_until_metric(
            app, "vidrouter_webhook_deliveries_total", 1, {"outcome": "delivered"}
        )

    def moved(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert moved("vidrouter_generations_created_total", model="local-preview") == 1
    assert (
        moved(
            "vidrouter_generations_finished_total",
            model="local-preview",
            route=route,
            status="completed",
        )
        == 1
    )
    for operation in ("submit", "poll", "fetch_result"):
        count = "vidrouter_provider_call_duration_seconds_count"
        assert moved(count, route=route, operation=operation) >= 1, operation
    assert moved("vidrouter_webhook_deliveries_total", outcome="delivered") == 1
    assert (
        moved("vidrouter_http_requests_total", method="POST", route="/v1/generations", status="202")
        == 1
    )
    # The polls, answered by the fast path, are counted under the route's template.
    polls = moved(
        "vidrouter_http_requests_total",
        method="GET",
        route="/v1/generations/{generation_id}",
        status="200",
    )
    assert polls >= 1
    assert (
        moved(
            "vidrouter_http_request_duration_seconds_count",
            method="GET",
            route="/v1/generations/{generation_id}",
        )
        == polls
    )
    # Gauges read from the database at scrape time.
    assert value(after, "vidrouter_shared_state_up") == 1
    assert value(after, "vidrouter_circuit_state", route=route, state="closed") == 1
    assert value(after, "vidrouter_circuit_state", route=route, state="open") == 0
    for state in ("due", "running", "waiting"):
        assert ("vidrouter_queue_depth", (("queue", "generations"), ("state", state))) in after


async def test_http_labels_are_route_templates_never_raw_paths(app: Harness) -> None:
    key = await app.new_key()
    for path in ("/v1/generations/gen_nope", "/no/such/path/123", "/v1/videos/gen_x/content"):
        await app.client.get(path, headers=app.auth(key))
    await app.client.request("BREW", "/v1/models", headers=app.auth(key))
    samples = await scrape(app)
    routes = {
        dict(labels)["route"] for name, labels in samples if name == "vidrouter_http_requests_total"
    }
    assert "unmatched" in routes
    assert "/v1/videos/{video_id}/content" in routes
    assert all("gen_" not in r and "123" not in r for r in routes), routes
    methods = {
        dict(labels)["method"]
        for name, labels in samples
        if name == "vidrouter_http_requests_total"
    }
    assert "BREW" not in methods and "OTHER" in methods


async def test_two_processes_report_the_same_shared_gauges(tmp_path: Path) -> None:
    """Two services on one database (scale-out), no workers so the work stays queued: each
    counts its own requests, and both report the database's queue and circuits."""
    database_url = f"sqlite+aiosqlite:///{tmp_path / 'shared.sqlite3'}"
    settings_a = test_settings(tmp_path / "a", database_url)
    settings_b = test_settings(tmp_path / "b", database_url)
    async with (
        running(settings_a, workers=False) as a,
        running(settings_b, workers=False) as b,
    ):
        key = await a.new_key()
        route = local_route(a)
        for n in range(3):
            response = await a.create(key, model="local-preview", prompt=f"queued {n}")
            assert response.status_code == 202, response.text
        await a.service.circuits.failure(route, fatal=True)

        sa, sb = await scrape(a), await scrape(b)
        assert value(sa, "vidrouter_generations_created_total", model="local-preview") == 3
        assert value(sb, "vidrouter_generations_created_total", model="local-preview") == 0
        for samples in (sa, sb):
            assert value(samples, "vidrouter_queue_depth", queue="generations", state="due") == 3
            assert value(samples, "vidrouter_circuit_state", route=route, state="open") == 1
            assert value(samples, "vidrouter_circuit_state", route=route, state="closed") == 0


async def test_metrics_can_be_turned_off(tmp_path: Path) -> None:
    async with running(test_settings(tmp_path / "data", metrics=False), workers=False) as app:
        response = await app.client.get("/metrics")
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "route_not_found"


@pytest.mark.parametrize("method", ["POST", "DELETE"])
async def test_metrics_is_read_only(app: Harness, method: str) -> None:
    response = await app.client.request(method, "/metrics")
    assert response.status_code == 405
    assert response.headers["allow"] == "GET"
