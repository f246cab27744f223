"""The whole lifecycle at the limit, the `/v1/videos` poll, and the content host.

Three processes on loopback: the lean fake upstream (`fake_upstream.py`, every job done at
once), `vidrouter serve` (SQLite by default, or a fresh PostgreSQL database) with one model
routed to the fake, and this load process (raw asyncio, `loadgen.py`). Phases, one run:

1. lifecycle: `--count` creates at `--connections` connections, each with a webhook to the
   fake; generations/s = count / (first create sent -> last webhook received), and the
   creates' latency while the work drains (p99). Server CPU and RSS sampled from /proc.
2. `GET /v1/generations/{id}` and `GET /v1/videos/{id}` of a finished generation.
3. the signed `video_url` (our content host) against the fake's own static file.
4. the fake alone: its create, status and static rates.
5. with `--litellm`, LiteLLM's proxy on the same fake (bench_litellm.py): create, status
   and content of `/v1/videos`, against ours on the same shape.

    python benchmarks/bench_lifecycle.py [--count 3000] [--database sqlite|postgres]
        [--worker-processes N]
        [--seconds 5] [--profile profile.txt] [--litellm] [--json out.json]

`--profile` runs py-spy (the running environment's, or benchmarks/.venv-litellm's, see
bench_litellm.py) on the server during the lifecycle phase and writes its stacks (raw,
collapsed). `--lifecycle-only` stops after phase 1.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))
from bench_api import _free_port as free_port  # noqa: E402
from bench_api import _wait_ready as wait_ready  # noqa: E402
from loadgen import run_load  # noqa: E402
from tests.support.chaos import MODEL  # noqa: E402
from tests.support.scaleout import UPSTREAM_KEY_ENV, upstream_catalog  # noqa: E402

# py-spy from the running environment, else from LiteLLM's (bench_litellm.py installs it).
PY_SPY = next(
    (
        p
        for p in (Path(sys.executable).parent / "py-spy", HERE / ".venv-litellm" / "bin" / "py-spy")
        if p.exists()
    ),
    HERE / ".venv-litellm" / "bin" / "py-spy",
)


def start_fake(port: int, *flags: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, str(HERE / "fake_upstream.py"), "--port", str(port), *flags],
        stdout=subprocess.DEVNULL,
        start_new_session=True,
    )


def create_key(env: dict[str, str]) -> dict[str, str]:
    """A new key through the CLI: its Authorization header."""
    made = subprocess.run(
        [sys.executable, "-m", "vidrouter.cli", "keys", "create", "--name", "bench", "--json"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return {"Authorization": f"Bearer {json.loads(made.stdout)['key']}"}


def serve(env: dict[str, str], port: int, log: Path, role: str = "all") -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "vidrouter.cli", "serve"],
        env={**env, "VIDROUTER_PORT": str(port), "VIDROUTER_ROLE": role},
        stdout=log.open("ab"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


def report(result: dict[str, Any], path: str | None) -> None:
    print(json.dumps(result, indent=1))
    if path:
        Path(path).write_text(json.dumps(result, indent=1))


class Sampler:
    """CPU seconds and RSS of the server's processes (added up), from /proc."""

    def __init__(self, *pids: int) -> None:
        self.pids = pids
        self.rss_mb: list[float] = []

    def cpu_seconds(self) -> float:
        total = 0
        for pid in self.pids:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        return total / os.sysconf("SC_CLK_TCK")

    def rss(self) -> float:
        total = 0.0
        for pid in self.pids:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) / 1024
        return total

    async def sample(self, stop: asyncio.Event, every: float = 1.0) -> None:
        while not stop.is_set():
            self.rss_mb.append(round(self.rss(), 1))
            await asyncio.sleep(every)


async def hook_count(client: httpx.AsyncClient, fake: str) -> int:
    return int((await client.get(f"{fake}/hook/count")).json()["count"])


def server_env(tmp: Path, database_url: str | None, upstream: str, workers: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIDROUTER_")}
    env.update(
        VIDROUTER_DATA_DIR=str(tmp / "data"),
        VIDROUTER_LOG_LEVEL="WARNING",
        VIDROUTER_CATALOG=str(upstream_catalog(tmp / "catalog.toml", upstream)),
        VIDROUTER_ALLOW_PRIVATE_WEBHOOK_URLS="true",
        # The fake finishes at once: its timings (15 s first poll, 10 s interval) scaled down
        # so the polls are not what is measured. Production keeps the provider's own.
        VIDROUTER_PROVIDER_DELAY_SCALE="0.0001",
        VIDROUTER_WORKERS=str(workers),
        VIDROUTER_MAX_CONCURRENT_GENERATIONS="1000000",
        VIDROUTER_RATE_LIMIT_RPM="100000000",
        **{UPSTREAM_KEY_ENV: "sk-bench"},
    )
    if database_url:
        env["VIDROUTER_DATABASE_URL"] = database_url
    return env


async def lifecycle(
    base: str, fake: str, headers: dict[str, str], count: int, connections: int, *pids: int
) -> dict[str, Any]:
    numbers = itertools.count()
    hook = f"{fake}/hook"

    def body() -> bytes:
        n = next(numbers)
        return json.dumps({"model": MODEL, "prompt": f"p{n}", "webhook_url": hook}).encode()

    sampler = Sampler(*pids)
    stop = asyncio.Event()
    sampling = asyncio.create_task(sampler.sample(stop))
    async with httpx.AsyncClient(timeout=30) as client:
        before = await hook_count(client, fake)
        cpu0 = sampler.cpu_seconds()
        started = time.perf_counter()
        creates = await run_load(
            f"{base}/v1/generations",
            seconds=3600,
            connections=connections,
            headers=headers,
            body=body,
            count=count,
        )
        created_in = time.perf_counter() - started
        # Long runs (the memory check) get the time their count needs at a slow 20/s.
        deadline = time.monotonic() + max(600.0, count / 20)
        while (got := await hook_count(client, fake) - before) < count - creates.errors:
            if time.monotonic() > deadline:
                break
            await asyncio.sleep(0.05)
        elapsed = time.perf_counter() - started
        cpu = sampler.cpu_seconds() - cpu0
    stop.set()
    await sampling
    return {
        "generations": count,
        "webhooks_received": got,
        "seconds": round(elapsed, 2),
        "generations_per_s": round(got / elapsed, 1),
        "creates": creates.summary(),
        "creates_seconds": round(created_in, 2),
        "server_cpu_ms_per_generation": round(cpu * 1000 / max(got, 1), 1),
        "server_rss_mb": sampler.rss_mb,
    }


async def finished_generation(base: str, headers: dict[str, str]) -> dict[str, Any]:
    async with httpx.AsyncClient(timeout=30, headers=headers) as client:
        r = await client.post(f"{base}/v1/generations", json={"model": MODEL, "prompt": "one"})
        gid = r.json()["id"]
        for _ in range(600):
            g: dict[str, Any] = (await client.get(f"{base}/v1/generations/{gid}")).json()
            if g["status"] in ("completed", "failed"):
                return g
            await asyncio.sleep(0.05)
    raise TimeoutError(gid)


async def rate(url: str, seconds: float, connections: int, **kw: Any) -> dict[str, float]:
    return (await run_load(url, seconds=seconds, connections=connections, **kw)).summary()


async def main(args: argparse.Namespace) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="vr-lifecycle-"))
    fake_port, port = free_port(), free_port()
    fake, base = f"http://127.0.0.1:{fake_port}", f"http://127.0.0.1:{port}"
    fake_proc = start_fake(fake_port)
    pg_name = None
    database_url = None
    if args.database == "postgres":
        from tests.support.databases import create_pg_database, pg_url

        pg_name = await create_pg_database()
        database_url = pg_url(pg_name)
    env = server_env(tmp, database_url, fake, args.workers)
    headers = create_key(env)
    # --worker-processes N: the split deployment of docs/deployment.md on one machine, an
    # `--role api` process taking the requests and N `--role worker` processes the engine.
    role = "api" if args.worker_processes else "all"
    server = serve(env, port, tmp / "serve.log", role)
    worker_ports = [free_port() for _ in range(args.worker_processes)]
    workers = [serve(env, p, tmp / f"worker-{p}.log", "worker") for p in worker_ports]
    results: dict[str, Any] = {
        "database": args.database,
        "workers": args.workers,
        "worker_processes": args.worker_processes,
    }
    spy = None
    try:
        await asyncio.gather(
            wait_ready(f"{fake}/hook/count"),
            wait_ready(f"{base}/readyz"),
            *(wait_ready(f"http://127.0.0.1:{p}/readyz") for p in worker_ports),
        )
        g = await finished_generation(base, headers)
        assert g["status"] == "completed", g
        if args.profile and PY_SPY.exists():
            spy = subprocess.Popen(
                [str(PY_SPY), "record", "-p", str(server.pid), "-o", args.profile, "-f", "raw"],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        results["lifecycle"] = await lifecycle(
            base, fake, headers, args.count, args.connections, server.pid, *(w.pid for w in workers)
        )
        if spy is not None:
            spy.send_signal(2)
            spy.wait(60)
        if args.lifecycle_only:
            return results
        s, c = args.seconds, args.connections
        results["get_generation"] = await rate(
            f"{base}/v1/generations/{g['id']}", s, c, headers=headers
        )
        results["get_video"] = await rate(f"{base}/v1/videos/{g['id']}", s, c, headers=headers)
        results["content_signed_url"] = await rate(g["video_url"], s, c)
        results["get_video_content"] = await rate(
            f"{base}/v1/videos/{g['id']}/content", s, c, headers=headers
        )
        video = json.dumps({"model": MODEL, "prompt": "p"}).encode()
        # Creates on the OpenAI shape, for the ratio to LiteLLM's (the work drains meanwhile).
        results["create_video"] = await rate(
            f"{base}/v1/videos", s, c, headers=headers, body=lambda: video
        )
        results["fake_create"] = await rate(
            f"{fake}/v1/videos", s, c, body=lambda: b'{"model":"sora-2","prompt":"p"}'
        )
        results["fake_status"] = await rate(f"{fake}/v1/videos/video_000000000001", s, c)
        results["fake_static"] = await rate(f"{fake}/static/video.mp4", s, c)
        async with httpx.AsyncClient() as client:
            results["video_bytes"] = len((await client.get(g["video_url"])).content)
        if args.litellm:
            from bench_litellm import measure

            results["litellm"] = await measure(fake, s, c)
    finally:
        for proc in (server, *workers):
            stop(proc)
        stop(fake_proc)
        if pg_name is not None:
            from tests.support.databases import drop_pg_database

            await drop_pg_database(pg_name)
    return results


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else "")
    parser.add_argument("--count", type=int, default=3000)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--workers", type=int, default=64, help="engine tasks per process")
    parser.add_argument(
        "--worker-processes",
        type=int,
        default=0,
        help="0: one `serve --role all`; N: one `--role api` and N `--role worker` processes",
    )
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--database", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--profile", default=None)
    parser.add_argument("--litellm", action="store_true", help="also LiteLLM's proxy")
    parser.add_argument("--lifecycle-only", action="store_true", help="only phase 1")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    report(asyncio.run(main(args)), args.json)
