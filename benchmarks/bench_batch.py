"""Interactive creates while a large batch runs: do they keep their latency?

Three processes on loopback, as in `bench_lifecycle.py`: the lean fake upstream (every job
done at once), one `vidrouter serve` on the embedded default (SQLite) with one model routed
to the fake, and this load process. One run, two phases of the same interactive load:

1. alone: `--rate` creates per second (paced, open loop: a slow answer does not slow the
   next create) for `--seconds`;
2. the same, while a batch of `--lines` lines of the same key runs (submitted first; the
   phase starts once its lines are being made, and the batch must still be running when the
   phase ends, else the figure says so);
3. alone again once the batch has ended (on a shared machine the load of others drifts:
   the ratio is to the better of the two phases alone, and both are shown).

For each phase: the create's answer time (`POST /v1/generations`, p50/p99, from this
process) and the time to completion (the generation's own `completed_at - created_at`, from
the server: queueing in the engine, the upstream calls, storing the video). Then the batch
is followed to its end: every line accounted for, its lines per second. The ratios (with
batch / alone) are what `docs/performance.md` records. The machine's load average is noted
before each phase (other work on a shared machine shows there).

    python benchmarks/bench_batch.py [--lines 1000] [--rate 10] [--seconds 30]
        [--rounds N] [--batch-concurrency N] [--profile out.txt] [--json out.json]

`--profile` runs py-spy on the server during the second phase (see bench_lifecycle.py).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
from bench_api import _free_port as free_port  # noqa: E402
from bench_api import _wait_ready as wait_ready  # noqa: E402
from bench_lifecycle import (  # noqa: E402
    PY_SPY,
    Sampler,
    create_key,
    serve,
    server_env,
    start_fake,
    stop,
)
from loadgen import LoadResult  # noqa: E402
from tests.support.chaos import MODEL  # noqa: E402


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


async def interactive(
    client: httpx.AsyncClient, rate: float, seconds: float, tag: str
) -> tuple[LoadResult, list[str]]:
    """`rate` creates per second for `seconds`, each sent at its time whatever the earlier
    ones do: their answer times and ids."""
    latencies: list[float] = []
    ids: list[str] = []
    errors: list[int] = []

    async def one(n: int) -> None:
        body = {"model": MODEL, "prompt": f"{tag} {n}"}
        started = time.perf_counter()
        r = await client.post("/v1/generations", json=body)
        latencies.append((time.perf_counter() - started) * 1000)
        if r.status_code == 202:
            ids.append(r.json()["id"])
        else:
            errors.append(r.status_code)

    loop = asyncio.get_running_loop()
    began = loop.time()
    tasks = []
    for n in range(round(rate * seconds)):
        await asyncio.sleep(max(0.0, began + n / rate - loop.time()))
        tasks.append(asyncio.create_task(one(n)))
    await asyncio.gather(*tasks)
    return LoadResult(len(latencies), len(errors), loop.time() - began, latencies), ids


async def completion_ms(client: httpx.AsyncClient, ids: list[str]) -> LoadResult:
    """Each generation's time from creation to completion, as the server recorded it
    (waiting for the last ones to end)."""
    times: list[float] = []
    failed = 0
    for gid in ids:
        for _ in range(1200):
            g = (await client.get(f"/v1/generations/{gid}")).json()
            if g["status"] in ("completed", "failed", "canceled"):
                break
            await asyncio.sleep(0.05)
        if g["status"] != "completed":
            failed += 1
            continue
        created = datetime.fromisoformat(g["created_at"].replace("Z", "+00:00"))
        done = datetime.fromisoformat(g["completed_at"].replace("Z", "+00:00"))
        times.append((done - created).total_seconds() * 1000)
    return LoadResult(len(times), failed, 0.0, times)


def figures(creates: LoadResult, completions: LoadResult) -> dict[str, Any]:
    return {
        "creates": creates.summary(),
        "completion": {
            k: v for k, v in completions.summary().items() if k not in ("rps", "requests")
        },
    }


async def batch_state(client: httpx.AsyncClient, batch_id: str) -> dict[str, Any]:
    r = await client.get(f"/v1/batches/{batch_id}")
    return dict(r.json())


async def phase(
    client: httpx.AsyncClient, args: argparse.Namespace, tag: str, server: Sampler
) -> dict[str, Any]:
    """One phase of interactive load; the server's CPU use meanwhile (of one core: 1.0 is a
    whole core, what one event loop can use at most)."""
    load = load_average()
    cpu0, t0 = server.cpu_seconds(), time.perf_counter()
    creates, ids = await interactive(client, args.rate, args.seconds, tag)
    cpu = (server.cpu_seconds() - cpu0) / (time.perf_counter() - t0)
    result = figures(creates, await completion_ms(client, ids))
    result["load_average_before"] = load
    result["server_cpu_cores"] = round(cpu, 2)
    return result


async def run(base: str, headers: dict[str, str], args: argparse.Namespace, pid: int) -> Any:
    results: dict[str, Any] = {}
    server = Sampler(pid)
    async with httpx.AsyncClient(base_url=base, headers=headers, timeout=60) as client:
        await interactive(client, args.rate, 3, "warm")  # connections, caches, the first jobs
        results["alone"] = await phase(client, args, "alone", server)
        lines = [
            {"custom_id": f"line-{n}", "model": MODEL, "prompt": f"batch {n}"}
            for n in range(args.lines)
        ]
        submitted = time.perf_counter()
        r = await client.post("/v1/batches", json={"lines": lines})
        assert r.status_code == 202, r.text
        batch_id = r.json()["id"]
        while (await batch_state(client, batch_id))["counts"]["pending"] == args.lines:
            await asyncio.sleep(0.05)
        spy = None
        if args.profile and PY_SPY.exists():
            spy = subprocess.Popen(
                [
                    str(PY_SPY),
                    "record",
                    "--nonblocking",
                    "-p",
                    str(pid),
                    "-o",
                    args.profile,
                    "-f",
                    "raw",
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        results["with_batch"] = await phase(client, args, "interactive", server)
        if spy is not None:
            spy.send_signal(2)
            spy.wait(60)
        during = await batch_state(client, batch_id)
        results["with_batch"]["batch_still_running"] = during["status"] == "in_progress"
        results["with_batch"]["batch_counts_at_end_of_phase"] = during["counts"]
        while (state := await batch_state(client, batch_id))["status"] in (
            "queued",
            "in_progress",
        ):
            await asyncio.sleep(0.5)
        took = time.perf_counter() - submitted
        results["alone_after"] = await phase(client, args, "after", server)
        body = (await client.get(f"/v1/batches/{batch_id}/results")).text
        rows = [json.loads(line) for line in body.splitlines() if line]
        results["batch"] = {
            "lines": args.lines,
            "status": state["status"],
            "counts": state["counts"],
            "result_lines": len(rows),
            "distinct_generations": len({row["generation_id"] for row in rows}),
            "seconds": round(took, 1),
            "lines_per_s": round(args.lines / took, 1),
        }
    busy = results["with_batch"]
    results["ratio"] = {
        f"{part}_{p}": round(
            busy[part][f"{p}_ms"]
            / min(results[a][part][f"{p}_ms"] for a in ("alone", "alone_after")),
            2,
        )
        for part in ("creates", "completion")
        for p in ("p50", "p99")
    }
    return results


async def main(args: argparse.Namespace) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="vr-batch-"))
    fake_port, port = free_port(), free_port()
    fake, base = f"http://127.0.0.1:{fake_port}", f"http://127.0.0.1:{port}"
    fake_proc = start_fake(fake_port)
    env = server_env(tmp, None, fake, args.workers)
    # Interactive and batch share the key: the harder case (the batch's reserve applies).
    env["VIDROUTER_BATCH_CONCURRENCY"] = str(args.batch_concurrency)
    env["VIDROUTER_BATCH_MAX_LINES"] = str(max(50000, args.lines))
    headers = create_key(env)
    server = serve(env, port, tmp / "serve.log")
    results: dict[str, Any] = {
        "cpus": os.cpu_count(),
        "lines": args.lines,
        "rate": args.rate,
        "seconds": args.seconds,
        "batch_concurrency": args.batch_concurrency,
    }
    try:
        await asyncio.gather(wait_ready(f"{fake}/hook/count"), wait_ready(f"{base}/readyz"))
        rounds = [await run(base, headers, args, server.pid) for _ in range(args.rounds)]
        results["rounds"] = rounds
        # The median of the rounds' ratios: the load of others drifts between rounds.
        results["ratio"] = {
            name: statistics.median(r["ratio"][name] for r in rounds) for name in rounds[0]["ratio"]
        }
    finally:
        stop(server)
        stop(fake_proc)
    return results


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else "")
    parser.add_argument("--lines", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=10, help="interactive creates per second")
    parser.add_argument("--seconds", type=float, default=30, help="each phase's length")
    parser.add_argument("--workers", type=int, default=64, help="engine tasks")
    parser.add_argument("--batch-concurrency", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=1, help="alone, with a batch, alone again")
    parser.add_argument("--profile", default=None)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    out = asyncio.run(main(args))
    print(json.dumps(out, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
