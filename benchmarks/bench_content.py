"""The content host alone: a small video at its signed URL against the fake's own static
file, interleaved in one run (the fake's rate moves with the machine's load), and a large
video's throughput against reading the same file from disk.

    python benchmarks/bench_content.py [--seconds 5] [--rounds 3] [--large-mb 200]
        [--profile profile.txt] [--json out.json]

Processes on loopback: the fake upstream (`fake_upstream.py`), `vidrouter serve` on the
embedded default (SQLite, local disk), and this load process (`loadgen.py`, raw asyncio, 16
keep-alive connections). One generation is made through the API (the fake's 3.4 KB MP4);
for the large phase a second one's stored file is replaced by `--large-mb` of bytes (the
same key, so its signed URL serves it) and fetched whole, and by a `Range: bytes=0-` as a
browser's `<video>` asks, by `--large-clients` curl processes at once.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_lifecycle import (
    Sampler,
    create_key,
    finished_generation,
    rate,
    report,
    serve,
    server_env,
    start_fake,
    stop,
)
from bench_lifecycle import free_port as free_port
from bench_lifecycle import wait_ready as wait_ready


async def small(fake: str, url: str, seconds: float, connections: int, rounds: int) -> Any:
    rows = []
    for _ in range(rounds):
        theirs = await rate(f"{fake}/static/video.mp4", seconds, connections)
        ours = await rate(url, seconds, connections)
        rows.append(
            {
                "fake_static_rps": round(theirs["rps"]),
                "signed_url_rps": round(ours["rps"]),
                "ratio": round(ours["rps"] / theirs["rps"], 3),
                "signed_url_p50_ms": ours.get("p50_ms"),
                "load_average": os.getloadavg()[0],
            }
        )
    return rows


def read_rate(path: Path) -> tuple[int, float]:
    """The file's size and how long reading it (from the page cache) takes here."""
    started = time.perf_counter()
    with path.open("rb") as handle:
        while handle.read(1 << 20):
            pass
    return path.stat().st_size, time.perf_counter() - started


async def large(url: str, path: Path, clients: int, pid: int) -> dict[str, Any]:
    """MB/s of `clients` curl processes at once (a client in C: not the bottleneck), whole
    and with `Range: bytes=0-`, plus the server's CPU seconds per GB sent."""
    size, disk_s = await asyncio.to_thread(read_rate, path)

    async def fetch(*headers: str) -> int:
        curl = await asyncio.create_subprocess_exec(
            "curl",
            "-sf",
            "-o",
            "/dev/null",
            "-w",
            "%{size_download}",
            *headers,
            url,
            stdout=asyncio.subprocess.PIPE,
        )
        out, _ = await curl.communicate()
        assert int(out) == size, (out, size)
        return size

    result: dict[str, Any] = {"bytes": size, "page_cache_read_mb_s": round(size / disk_s / 1e6)}
    for name, headers in (("whole", ()), ("range_0", ("-H", "Range: bytes=0-"))):
        started, cpu = time.perf_counter(), Sampler(pid).cpu_seconds()
        got = sum(await asyncio.gather(*(fetch(*headers) for _ in range(clients))))
        result[f"{name}_mb_s"] = round(got / (time.perf_counter() - started) / 1e6)
        result[f"{name}_server_cpu_s_per_gb"] = round(
            (Sampler(pid).cpu_seconds() - cpu) / (got / 1e9), 2
        )
        result[f"{name}_load_average"] = os.getloadavg()[0]
    return result


async def main(args: argparse.Namespace) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="vr-content-"))
    fake_port, port = free_port(), free_port()
    fake, base = f"http://127.0.0.1:{fake_port}", f"http://127.0.0.1:{port}"
    fake_proc = start_fake(fake_port)
    env = server_env(tmp, None, fake, 4)
    headers = create_key(env)
    server = serve(env, port, tmp / "serve.log")
    results: dict[str, Any] = {"load_average_start": os.getloadavg()}
    try:
        await asyncio.gather(wait_ready(f"{fake}/hook/count"), wait_ready(f"{base}/readyz"))
        g = await finished_generation(base, headers)
        assert g["status"] == "completed", g
        spy = None
        if args.profile:
            py_spy = Path(sys.executable).parent / "py-spy"
            spy = subprocess.Popen(
                [str(py_spy), "record", "-p", str(server.pid), "-o", args.profile, "-f", "raw"],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        results["small"] = await small(
            fake, g["video_url"], args.seconds, args.connections, args.rounds
        )
        if spy is not None:
            spy.send_signal(2)
            spy.wait(60)
        if args.large_mb:
            big = await finished_generation(base, headers)
            path = tmp / "data" / "blobs" / "videos" / f"{big['id']}.mp4"
            assert path.is_file(), path
            part = path.with_suffix(".part")
            with part.open("wb") as handle:
                for _ in range(args.large_mb):
                    handle.write(os.urandom(1 << 20))
            os.replace(part, path)
            results["large"] = await large(big["video_url"], path, args.large_clients, server.pid)
    finally:
        stop(server)
        stop(fake_proc)
    results["load_average_end"] = os.getloadavg()
    return results


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else "")
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--large-mb", type=int, default=200)
    parser.add_argument("--large-clients", type=int, default=2)
    parser.add_argument("--profile", default=None, help="py-spy (raw) of the server, small phase")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    report(asyncio.run(main(args)), args.json)
