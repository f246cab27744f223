"""Opt-in smoke test against the REAL providers: one cheap generation per provider whose key
is set in the environment. It spends real money (a few cents per provider) and needs the
internet, so it is never part of CI.

    .venv/bin/python scripts/smoke_providers.py [--only runway,luma] [--timeout 900]

For each provider with credentials it picks the cheapest usable route of that provider
(shortest duration), runs it through the real engine, and prints the outcome, the cost and
where the video was stored.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

from vidrouter.composition import Composition
from vidrouter.domain.catalog import ListedModel, Route
from vidrouter.providers.registry import factories
from vidrouter.settings import load_settings


def _cheapest(service: Composition, provider: str) -> tuple[ListedModel, Route] | None:
    best: tuple[float, ListedModel, Route] | None = None
    for model in service.catalog.listed(
        lambda r: r.provider == provider and service.providers.usable(r)
    ):
        if "text-to-video" not in model.spec.capabilities:
            continue
        route = model.routes[0]
        seconds = min(model.durations) if model.durations else min(4.0, model.max_duration)
        cost = route.price_per_second * seconds
        if best is None or cost < best[0]:
            best = (cost, model, route)
    return (best[1], best[2]) if best else None


async def main(only: set[str] | None, limit_seconds: float) -> int:
    data = Path(tempfile.mkdtemp(prefix="vidrouter-smoke-"))
    settings = load_settings(data_dir=data, allow_private_webhook_urls=False)
    service = Composition(settings)
    await service.open()
    service.start_workers()
    key = await service.keys.create("smoke")
    failures = 0
    try:
        for name in sorted(factories()):
            if name == "local" or (only and name not in only):
                continue
            if not service.providers.configured(name):
                print(f"- {name}: skipped (no credentials)")
                continue
            choice = _cheapest(service, name)
            if choice is None:
                print(f"- {name}: skipped (no text-to-video model routed to it)")
                continue
            model, route = choice
            duration = min(model.durations) if model.durations else min(4.0, model.max_duration)
            body = {
                "model": model.id,
                "prompt": "a paper boat on a calm lake, morning light",
                "duration": duration,
            }
            g = await service.generations.create(key.key, service.generations.check(body))
            started = time.monotonic()
            while True:
                current = await service.generation_store.get(g.id)
                assert current is not None
                if current.status.terminal or time.monotonic() - started > limit_seconds:
                    break
                await asyncio.sleep(5)
            ok = current.status.value == "completed"
            failures += 0 if ok else 1
            detail = (
                f"{current.video_duration:.1f}s {current.video_width}x{current.video_height}, "
                f"${current.cost_amount}"
                if ok
                else f"{current.error}"
            )
            print(
                f"- {name} ({model.id} via {route.key}): {current.status.value} in "
                f"{time.monotonic() - started:.0f}s: {detail}"
            )
    finally:
        await service.close()
    print(f"videos and database in {data}")
    return 1 if failures else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="comma-separated adapter names")
    parser.add_argument("--timeout", type=float, default=900.0)
    args = parser.parse_args()
    wanted = {n.strip() for n in args.only.split(",") if n.strip()} or None
    sys.exit(asyncio.run(main(wanted, args.timeout)))
