"""What keeps creates answering while the engine drains a backlog (docs/performance.md,
"Creates under load"): `vidrouter serve`'s garbage-collector settings, and the event
loop's lag as a metric. Latency itself is measured by benchmarks, not here."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time
from collections.abc import Iterator

import pytest

from vidrouter.cli.serve import GC_THRESHOLDS, settle_heap
from vidrouter.observability import Observer
from vidrouter.observability.loop_lag import watch_loop_lag


@pytest.fixture
def restored_gc() -> Iterator[None]:
    thresholds = gc.get_threshold()
    try:
        yield
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)


@pytest.mark.usefixtures("restored_gc")
def test_start_up_objects_are_out_of_the_collectors_sight() -> None:
    lived = [[n] for n in range(1000)]  # what start-up built and keeps
    settle_heap()
    assert gc.get_freeze_count() >= len(lived)
    seen = {id(o) for o in gc.get_objects()}  # every generation a collection walks
    assert not any(id(x) in seen for x in lived)
    assert gc.get_threshold() == GC_THRESHOLDS


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
