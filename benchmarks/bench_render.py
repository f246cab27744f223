"""Benchmark the built-in local renderer.

Renders a 5 s 1280x720 video ``--runs`` times and prints the min/median wall time and the
real-time factor (video seconds / wall seconds), plus machine info.  With ``--workers N``
(N > 1) it also renders N videos at once in a process pool, as the service does, and
reports the aggregate throughput.

    python benchmarks/bench_render.py [--runs N] [--workers N] [--duration S]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

try:
    from vidrouter.providers.local.render import RESOLUTIONS, RenderSpec, render_video
except ImportError:  # running from a checkout without the package installed
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    from vidrouter.providers.local.render import RESOLUTIONS, RenderSpec, render_video

import av
import numpy as np
import PIL

PROMPT = (
    "A cinematic drone shot gliding over a misty mountain lake at sunrise, golden light "
    "breaking through the clouds, reflections on the water, 4k, ultra detailed"
)


def _timed_render(spec: RenderSpec, out: Path) -> tuple[float, int]:
    started = time.perf_counter()
    result = render_video(spec, out, out.with_suffix(".progress"))
    return time.perf_counter() - started, result.size_bytes


def _machine_info() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return "\n".join(
        [
            f"platform : {platform.platform()}",
            f"cpu      : {cpu} ({os.cpu_count()} logical CPUs)",
            f"python   : {platform.python_implementation()} {platform.python_version()}",
            f"av       : {av.__version__} (libavcodec {av.library_versions['libavcodec']})",
            f"numpy    : {np.__version__}, pillow {PIL.__version__}",
        ]
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="sequential renders (default 3)")
    parser.add_argument(
        "--workers", type=int, default=1, help="also render this many at once (default 1: off)"
    )
    parser.add_argument("--duration", type=float, default=5.0, help="video seconds (default 5)")
    args = parser.parse_args()
    if args.runs < 1 or args.workers < 1:
        parser.error("--runs and --workers must be >= 1")

    width, height = RESOLUTIONS["16:9"]
    print(_machine_info())
    print(f"video    : {args.duration:g} s {width}x{height} @ 24 fps, {args.runs} run(s)\n")

    with tempfile.TemporaryDirectory(prefix="vidrouter-bench-") as tmp:
        times: list[float] = []
        for run in range(args.runs):
            spec = RenderSpec(PROMPT, args.duration, width, height, seed=run)
            elapsed, size = _timed_render(spec, Path(tmp) / f"run{run}.mp4")
            times.append(elapsed)
            print(
                f"run {run + 1}: {elapsed:6.3f} s  "
                f"{args.duration / elapsed:5.2f}x real time  {size / 1e6:5.2f} MB"
            )
        best, median = min(times), statistics.median(times)
        print(
            f"\nsequential: min {best:.3f} s, median {median:.3f} s; real-time factor "
            f"{args.duration / best:.2f}x (best), {args.duration / median:.2f}x (median)"
        )

        if args.workers > 1:
            specs = [
                RenderSpec(PROMPT, args.duration, width, height, seed=100 + i)
                for i in range(args.workers)
            ]
            outs = [Path(tmp) / f"par{i}.mp4" for i in range(args.workers)]
            with ProcessPoolExecutor(max_workers=args.workers) as pool:
                pool.submit(int).result()  # start the workers before timing
                started = time.perf_counter()
                results = list(pool.map(_timed_render, specs, outs))
                wall = time.perf_counter() - started
            each = [elapsed for elapsed, _ in results]
            print(
                f"parallel x{args.workers}: wall {wall:.3f} s, per render "
                f"{min(each):.3f}-{max(each):.3f} s, aggregate "
                f"{args.workers * args.duration / wall:.2f}x real time, per render "
                f"{args.duration / max(each):.2f}x"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
