"""100,000 generations waiting on a slow provider: CPU, memory and poll punctuality.

The fake upstream (`fake_upstream.py --never-finish`) answers "in_progress" forever and
notes when each job was first polled. One generation is created through the API and
submitted by the worker as usual; its row is then cloned `--rows` times straight into the
database (new ids and job ids), each first poll due at a time spread evenly over
`--spread` seconds (an hour by default), as a busy deployment's waiting jobs would be. With
the provider's timings scaled to a slow one's (a poll every 20-60 min), `vidrouter serve` then runs for
`--seconds`: its CPU share and RSS are sampled, and each clone due in the window is checked
for its first poll's lateness (poll time at the fake - due time).

    python benchmarks/bench_waiting.py [--rows 100000] [--seconds 60] [--json out.json]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import insert

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_lifecycle import (  # noqa: E402
    MODEL,
    Sampler,
    create_key,
    free_port,
    report,
    serve,
    server_env,
    start_fake,
    stop,
    wait_ready,
)

from vidrouter.domain import ids  # noqa: E402
from vidrouter.domain.generation import Generation  # noqa: E402
from vidrouter.store.database import Database  # noqa: E402
from vidrouter.store.generation_rows import columns  # noqa: E402
from vidrouter.store.generations import GenerationStore  # noqa: E402
from vidrouter.store.tables import generations as table  # noqa: E402


async def seed_row(base: str, fake: str, headers: dict[str, str]) -> str:
    async with httpx.AsyncClient(timeout=30, headers=headers) as client:
        r = await client.post(f"{base}/v1/generations", json={"model": MODEL, "prompt": "wait"})
        gid: str = r.json()["id"]
        for _ in range(600):
            if (await client.get(f"{base}/v1/generations/{gid}")).json()["status"] == "in_progress":
                return gid
            await asyncio.sleep(0.05)
    raise TimeoutError(gid)


async def clone(
    url: str, seed_id: str, rows: int, start: datetime, spread: float
) -> dict[str, float]:
    """Insert the clones; their job ids with the unix time each is due."""
    db = Database(url)
    due: dict[str, float] = {}
    try:
        seed = await GenerationStore(db, cache_size=0).get(seed_id)
        assert seed is not None and seed.provider_job_id is not None
        batch: list[dict[str, Any]] = []
        for n in range(rows):
            at = start + timedelta(seconds=spread * n / rows)
            job = f"video_wait_{n:07d}"
            g: Generation = replace(
                seed,
                id=ids.generation_id(),
                provider_job_id=job,
                next_attempt_at=at,
                lease_owner=None,
                lease_until=None,
                deadline_at=at + timedelta(hours=2),
                started_at=at,
                attempts=tuple(replace(a, at=at) for a in seed.attempts),
            )
            due[job] = at.timestamp()
            batch.append({**columns(g), "id": g.id})
            if len(batch) == 5000 or n == rows - 1:
                async with db.write() as conn:
                    await conn.execute(insert(table), batch)
                batch = []
    finally:
        await db.close()
    return due


async def main(args: argparse.Namespace) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="vr-waiting-"))
    fake_port, port = free_port(), free_port()
    fake = f"http://127.0.0.1:{fake_port}"
    fake_proc = start_fake(fake_port, "--never-finish")
    env = server_env(tmp, None, fake, workers=64)
    # Slow providers: the adapter's first poll (15 s), interval (10 s) and longest interval
    # (30 s) scaled to 30, 20 and 60 minutes, so that a polled job is not due again within
    # the window and the polls due are those of the spread (rows / spread per second).
    env["VIDROUTER_PROVIDER_DELAY_SCALE"] = "120"
    headers = create_key(env)
    # First the seed row, with the provider's first poll 15 s away; then the clones, with
    # the server stopped; then the measured run.
    server = serve({**env}, port, tmp / "serve.log")
    try:
        await asyncio.gather(
            wait_ready(f"{fake}/hook/count"), wait_ready(f"http://127.0.0.1:{port}/readyz")
        )
        seed_id = await seed_row(f"http://127.0.0.1:{port}", fake, headers)
    finally:
        stop(server)
    url = f"sqlite+aiosqlite:///{(tmp / 'data' / 'vidrouter.sqlite3').resolve()}"
    # Past the insert and the restart, so that no row is overdue when the window opens.
    start = datetime.now(UTC) + timedelta(seconds=30 + args.rows / 2500)
    inserted = time.perf_counter()
    due = await clone(url, seed_id, args.rows, start, args.spread)
    insert_seconds = time.perf_counter() - inserted
    server = serve(env, port, tmp / "serve.log")
    try:
        await wait_ready(f"http://127.0.0.1:{port}/readyz")
        sampler = Sampler(server.pid)
        stop_sampling = asyncio.Event()
        sampling = asyncio.create_task(sampler.sample(stop_sampling))
        await asyncio.sleep(max(0.0, start.timestamp() - time.time()))
        cpu0, t0 = sampler.cpu_seconds(), time.time()
        await asyncio.sleep(args.seconds)
        cpu, t1 = sampler.cpu_seconds() - cpu0, time.time()
        stop_sampling.set()
        await sampling
        async with httpx.AsyncClient(timeout=60) as client:
            polls: dict[str, float] = (await client.get(f"{fake}/polls")).json()
    finally:
        stop(server)
        stop(fake_proc)
    # Jobs due in the window but for its last 2 s (a poll then may land after it ends).
    expected = [job for job, at in due.items() if t0 <= at <= t1 - 2]
    lateness = sorted(polls[job] - due[job] if job in polls else float("inf") for job in expected)

    def pct(p: float) -> float:
        return round(lateness[min(len(lateness) - 1, int(p / 100 * len(lateness)))] * 1000, 1)

    return {
        "rows": args.rows,
        "spread_seconds": args.spread,
        "insert_seconds": round(insert_seconds, 1),
        "window_seconds": round(t1 - t0, 1),
        "polls_due_in_window": len(expected),
        "missed": sum(1 for x in lateness if x == float("inf")),
        "lateness_ms": {"p50": pct(50), "p99": pct(99), "max": pct(100)},
        "cpu_percent_of_one_core": round(100 * cpu / (t1 - t0), 1),
        "rss_mb": {
            "first": sampler.rss_mb[0],
            "last": sampler.rss_mb[-1],
            "max": max(sampler.rss_mb),
        },
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else "")
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--spread", type=float, default=3600)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    report(asyncio.run(main(args)), args.json)
