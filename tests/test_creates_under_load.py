"""What keeps creates answering while the engine drains a backlog (docs/performance.md,
"Creates under load"): the engine's own connection pool on PostgreSQL, `vidrouter serve`'s
garbage-collector settings, and the event loop's lag as a metric. Latency itself is measured by benchmarks, not here."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.harness import Harness, running, test_settings
from vidrouter.cli.serve import GC_THRESHOLDS, SWITCH_INTERVAL, settle_heap
from vidrouter.observability import Observer
from vidrouter.observability.loop_lag import watch_loop_lag


async def test_engine_has_its_own_pool_only_where_writers_run_in_parallel(
    app_any_db: Harness,
) -> None:
    service = app_any_db.service
    if service.db.dialect == "sqlite":
        # One write lock orders every writer of the process, requests' first: one Database.
        assert service.engine_db is service.db
        assert service.engine_generations is service.generations
    else:
        assert service.engine_db is not service.db
        assert service.engine_db.engine is not service.db.engine
        assert service.deliveries._db is service.engine_db  # the engine's queues too


async def test_a_create_is_carried_to_the_end_by_the_engine_on_its_own_pool(
    app_any_db: Harness,
) -> None:
    app = app_any_db
    key = await app.new_key()
    created = await app.create(key, model="local-preview", prompt="a red fox", duration=1)
    assert created.status_code == 202, created.text
    done = await app.wait_for(key, created.json()["id"])
    assert done["status"] == "completed", done
    listed = await app.client.get("/v1/generations", headers=app.auth(key))
    assert [g["status"] for g in listed.json()["data"]] == ["completed"]


@pytest.mark.parametrize("role", ["api", "worker"])
async def test_one_pool_when_the_process_has_one_role(
    tmp_path: Path, database_url: str, role: str
) -> None:
    settings = test_settings(tmp_path / "data", database_url, role=role)
    async with running(settings, workers=role == "worker") as app:
        assert app.service.engine_db is app.service.db


@pytest.fixture
def restored_gc() -> Iterator[None]:
    thresholds, interval = gc.get_threshold(), sys.getswitchinterval()
    try:
        yield
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)
        sys.setswitchinterval(interval)


@pytest.mark.usefixtures("restored_gc")
def test_start_up_objects_are_out_of_the_collectors_sight() -> None:
    lived = [[n] for n in range(1000)]  # what start-up built and keeps
    settle_heap()
    assert gc.get_freeze_count() >= len(lived)
    seen = {id(o) for o in gc.get_objects()}  # every generation a collection walks
    assert not any(id(x) in seen for x in lived)
    assert gc.get_threshold() == GC_THRESHOLDS
    assert sys.getswitchinterval() == pytest.approx(SWITCH_INTERVAL)


async def test_a_stalled_event_loop_shows_in_the_lag_metric() -> None:
    observer = Observer()
    probe = asyncio.create_task(watch_loop_lag(observer, every=0.01))
    await asyncio.sleep(0)  # the probe is asleep now, due in 10 ms
    time.sleep(0.06)  # a stall: a synchronous stretch, or a full garbage collection
    for _ in range(1000):
        if _lag_samples(observer) >= 2:
            break
        await asyncio.sleep(0.01)
    probe.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await probe
    text = (await observer.render()).decode()
    # The stalled sample (at least 50 ms late) is above the 25 ms bucket's bound.
    assert _bucket(text, "0.025") < _bucket(text, "+Inf")
    assert "vidrouter_event_loop_lag_seconds_count" in text


def _lag_samples(observer: Observer) -> float:
    value = observer.metrics.registry.get_sample_value("vidrouter_event_loop_lag_seconds_count")
    return value or 0.0


def _bucket(text: str, le: str) -> float:
    line = f'vidrouter_event_loop_lag_seconds_bucket{{le="{le}"}} '
    [found] = [row for row in text.splitlines() if row.startswith(line)]
    return float(found.removeprefix(line))
