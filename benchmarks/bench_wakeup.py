"""Cross-node wake-up latency: create on an API node -> `started_at` on a worker node.

Starts, on a fresh PostgreSQL database, one `vidrouter serve --role api` and one
`--role worker` process (with `VIDROUTER_IDLE_POLL_SECONDS=10`, so the idle poll cannot be
what wakes the worker) and a fast fake upstream (tests/fakes/chaos.py). Creates generations
one at a time, each once the worker is idle again, and reports the time from the API's
`created_at` to the worker's `started_at` (set when the upstream accepted the job: the
worker's claim, its submit to the upstream and the save).

    python benchmarks/bench_wakeup.py [--runs 30] [--json out.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
from datetime import datetime
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.chaos import MODEL  # noqa: E402
from tests.support.databases import create_pg_database, drop_pg_database, pg_url  # noqa: E402
from tests.support.process import ServeProcess, cli_env, create_key  # noqa: E402
from tests.support.scaleout import (  # noqa: E402
    UPSTREAM_KEY,
    UPSTREAM_KEY_ENV,
    upstream_catalog,
)
from tests.support.servers import free_port  # noqa: E402


def _ts(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


async def main(runs: int) -> dict[str, object]:
    name = await create_pg_database()
    tmp = Path(tempfile.mkdtemp(prefix="bench-wakeup-"))
    port = free_port()
    upstream = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tests.fakes.chaos",
        "--port",
        str(port),
        "--api-key",
        UPSTREAM_KEY,
        cwd=ROOT,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    catalog = upstream_catalog(tmp / "catalog.toml", f"http://127.0.0.1:{port}")
    procs: list[ServeProcess] = []
    try:

        def env(role: str) -> dict[str, str]:
            (tmp / role).mkdir(exist_ok=True)
            return cli_env(
                tmp / role / "data",
                pg_url(name),
                VIDROUTER_ROLE=role,
                VIDROUTER_CATALOG=str(catalog),
                VIDROUTER_IDLE_POLL_SECONDS="10",
                VIDROUTER_PROVIDER_DELAY_SCALE="0.02",
                VIDROUTER_RATE_LIMIT_RPM="100000",
                **{UPSTREAM_KEY_ENV: UPSTREAM_KEY},
            )

        key = create_key(env("api"))["key"]
        api, worker = ServeProcess(env("api")), ServeProcess(env("worker"))
        procs += [api, worker]
        await asyncio.gather(api.start(), worker.start())
        headers = {"Authorization": f"Bearer {key}"}
        latencies: list[float] = []
        async with httpx.AsyncClient(base_url=api.base_url, headers=headers, timeout=30) as http:
            for n in range(runs + 3):
                r = await http.post("/v1/generations", json={"model": MODEL, "prompt": f"w{n}"})
                assert r.status_code == 202, r.text
                gen_id = r.json()["id"]
                while True:
                    g = (await http.get(f"/v1/generations/{gen_id}")).json()
                    if g["status"] in ("completed", "failed"):
                        break
                    await asyncio.sleep(0.05)
                assert g["status"] == "completed", g
                if n >= 3:  # the first ones warm up connections and caches
                    ms = (_ts(g["started_at"]) - _ts(g["created_at"])).total_seconds() * 1000
                    latencies.append(ms)
                await asyncio.sleep(0.5)  # the worker idle again, in its 10 s sleep
        ordered = sorted(latencies)
        return {
            "runs": runs,
            "idle_poll_seconds": 10,
            "median_ms": round(statistics.median(ordered), 1),
            "p90_ms": round(ordered[int(0.9 * (len(ordered) - 1))], 1),
            "max_ms": round(ordered[-1], 1),
            "min_ms": round(ordered[0], 1),
        }
    finally:
        for p in procs:
            p.stop()
        upstream.terminate()
        await upstream.wait()
        await drop_pg_database(name)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else "")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    result = asyncio.run(main(args.runs))
    print(json.dumps(result, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
