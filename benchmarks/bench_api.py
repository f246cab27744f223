"""API latency and throughput, measured from a separate load process.

Starts `vidrouter serve` (the embedded default: SQLite, local disk, local renderer) as a
subprocess, then measures `GET /v1/generations/{id}`:
  1. idle;
  2. while 4 local renders run (new generations are kept coming so that 4 render throughout);
  3. and a bare Starlette endpoint returning the same JSON from memory, in the same run,
     for the throughput ratio.

    python benchmarks/bench_api.py [--seconds 10] [--connections 8] [--json out.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from loadgen import run_load

ROOT = Path(__file__).resolve().parents[1]


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def _wait_ready(url: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    async with httpx.AsyncClient() as client:
        while time.monotonic() < deadline:
            try:
                if (await client.get(url)).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.1)
    raise TimeoutError(url)


async def _keep_rendering(
    client: httpx.AsyncClient,
    base: str,
    headers: dict[str, str],
    stop: asyncio.Event,
    live: list[str],
) -> int:
    """Keep 4 generations of 20 s video in progress until told to stop."""
    made = 0
    while not stop.is_set():
        for gid in list(live):
            status = (await client.get(f"{base}/v1/generations/{gid}", headers=headers)).json()
            if status["status"] != "in_progress" and status["status"] != "queued":
                live.remove(gid)
        while len(live) < 4:
            r = await client.post(
                f"{base}/v1/generations",
                headers=headers,
                json={"model": "local-preview", "prompt": f"load {made}", "duration": 20},
            )
            live.append(r.json()["id"])
            made += 1
        await asyncio.sleep(0.5)
    return made


async def main(args: argparse.Namespace) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="vr-bench-"))
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIDROUTER_")}
    env.update(
        VIDROUTER_DATA_DIR=str(tmp / "data"),
        VIDROUTER_PORT=str(port),
        VIDROUTER_LOG_LEVEL="WARNING",
        VIDROUTER_WORKERS="4",
        VIDROUTER_RENDER_PROCESSES="4",
    )
    cli = [sys.executable, "-m", "vidrouter.cli"]
    made = subprocess.run(
        [*cli, "keys", "create", "--name", "bench", "--rpm", "1000000000", "--json"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    key = json.loads(made.stdout)["key"]
    headers = {"Authorization": f"Bearer {key}"}
    server = subprocess.Popen([*cli, "serve"], env=env, stdout=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    results: dict[str, Any] = {}
    try:
        await _wait_ready(base + "/readyz")
        async with httpx.AsyncClient(timeout=30) as client:
            r = await client.post(
                f"{base}/v1/generations",
                headers=headers,
                json={"model": "local-preview", "prompt": "benchmark", "duration": 1},
            )
            gid = r.json()["id"]
            while (await client.get(f"{base}/v1/generations/{gid}", headers=headers)).json()[
                "status"
            ] != "completed":
                await asyncio.sleep(0.1)
            body = (await client.get(f"{base}/v1/generations/{gid}", headers=headers)).content
            url = f"{base}/v1/generations/{gid}"

            await run_load(url, seconds=2, connections=args.connections, headers=headers)
            idle = await run_load(
                url, seconds=args.seconds, connections=args.connections, headers=headers
            )
            results["idle"] = idle.summary()

            stop = asyncio.Event()
            live: list[str] = []
            feeder = asyncio.create_task(_keep_rendering(client, base, headers, stop, live))
            await asyncio.sleep(3)  # let 4 renders get going
            busy = await run_load(
                url, seconds=args.seconds, connections=args.connections, headers=headers
            )
            results["while_4_renders"] = busy.summary()
            # An unfinished generation is read from the database on every poll (no cache).
            unfinished = await run_load(
                f"{base}/v1/generations/{live[0]}",
                seconds=args.seconds,
                connections=args.connections,
                headers=headers,
            )
            results["in_progress_while_4_renders"] = unfinished.summary()
            stop.set()
            results["while_4_renders"]["generations_started"] = await feeder
            for status in ("in_progress", "queued"):
                listing = await client.get(
                    f"{base}/v1/generations?status={status}&limit=100", headers=headers
                )
                for item in listing.json()["data"]:
                    await client.post(f"{base}/v1/generations/{item['id']}/cancel", headers=headers)
    finally:
        server.terminate()
        server.wait(30)

    body_file = tmp / "body.json"
    body_file.write_bytes(body)
    bare_port = _free_port()
    bare = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "bare_starlette.py"),
            str(bare_port),
            str(body_file),
        ]
    )
    try:
        bare_url = f"http://127.0.0.1:{bare_port}/v1/generations/{gid}"
        await _wait_ready(bare_url)
        await run_load(bare_url, seconds=2, connections=args.connections)
        baseline = await run_load(bare_url, seconds=args.seconds, connections=args.connections)
        results["bare_starlette"] = baseline.summary()
    finally:
        bare.terminate()
        bare.wait(30)

    results["throughput_ratio_idle"] = round(idle.rps / baseline.rps, 3)
    results["machine"] = {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
    }
    results["command"] = "python benchmarks/bench_api.py " + " ".join(sys.argv[1:])
    return results


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    out = asyncio.run(main(args))
    text = json.dumps(out, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text)
