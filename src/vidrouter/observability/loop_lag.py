"""The event loop's lag, measured from inside: a task sleeps a fixed interval and records
how much later than asked it woke. A create waits that long at each of its awaits when the
loop is busy with the engine's callbacks, or stopped by a garbage collection."""

from __future__ import annotations

import asyncio

from vidrouter.observability.observer import Observer

LAG_SAMPLE_SECONDS = 0.25


async def watch_loop_lag(observer: Observer, every: float = LAG_SAMPLE_SECONDS) -> None:
    """Until cancelled: one sample per `every` seconds into the lag histogram."""
    loop = asyncio.get_running_loop()
    while True:
        asked = loop.time() + every
        await asyncio.sleep(every)
        observer.event_loop_lag(max(0.0, loop.time() - asked))
