"""Joining a large source and its extension (engine/join.py) streams: the peak memory of
the process doing the join, above what it had before the join, stays flat however large the
source.

python benchmarks/bench_join.py [--mb 500] [--dir /tmp]

The source is made fast: a few seconds of lossless noise with sound (H.264 + AAC) encoded
once, then its packets written again and again, shifted in time, until the file has the
size asked. The join runs in a subprocess that reads its peak RSS (`getrusage`) before and
after the join; printed as JSON with the source's size and the time the join took.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import av

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.support.clips import noise_mp4
from tests.support.peak_memory import PEAK_MEMORY

_MEASURE = (
    PEAK_MEMORY
    + """
import resource, sys, time
from pathlib import Path
import av
from vidrouter.engine.join import join_videos
first, second, out = (Path(p) for p in sys.argv[1:4])
for p in (first, second):
    with av.open(str(p)) as c:
        c.streams.video[0].codec_context.width
before = start_peak()
started = time.perf_counter()
copied = join_videos(first, second, out)
took = time.perf_counter() - started
after = status("VmHWM")
print(before, after, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, took, copied)
"""
)


def repeated(clip: Path, out: Path, size: int) -> None:
    """`clip`'s packets again and again, shifted to follow each other, up to `size` bytes."""
    with av.open(str(clip)) as source:
        vs, aus = source.streams.video[0], source.streams.audio[0]
        packets = [(p.stream.index, p.pts, p.dts, p.duration, bytes(p), p.is_keyframe)
                   for p in source.demux(vs, aus) if p.dts is not None]  # fmt: skip
        spans = {  # each stream's length in its time base: where its next turn starts
            s.index: max(p[1] + (p[3] or 0) for p in packets if p[0] == s.index)
            - min(p[2] for p in packets if p[0] == s.index)
            for s in (vs, aus)
        }
        with av.open(str(out), "w", format="mp4") as target:
            streams = {
                vs.index: target.add_stream_from_template(vs),
                aus.index: target.add_stream_from_template(aus),
            }
            written, turn = 0, 0
            while written < size:
                for index, pts, dts, duration, data, key in packets:
                    packet = av.Packet(data)
                    shift = turn * spans[index]
                    packet.pts, packet.dts, packet.duration = pts + shift, dts + shift, duration
                    packet.is_keyframe = key
                    packet.stream = streams[index]
                    packet.time_base = streams[index].time_base
                    target.mux(packet)
                    written += len(data)
                    if written >= size and index == vs.index and key:
                        return  # at a keyframe: the last GOP is that one frame
                turn += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=int, default=500)
    parser.add_argument("--dir", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        work = Path(tmp)
        clip, source = work / "clip.mp4", work / "source.mp4"
        extension, out = work / "more.mp4", work / "whole.mp4"
        started = time.perf_counter()
        noise_mp4(clip, 48, width=1280, height=720, keyint=24, tone=True)
        repeated(clip, source, args.mb * 1024 * 1024)
        noise_mp4(extension, 24, width=1280, height=720, keyint=24, tone=True)
        made = time.perf_counter() - started
        done = subprocess.run(
            [sys.executable, "-c", _MEASURE, str(source), str(extension), str(out)],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        before, after, maxrss, took, copied = done.stdout.split()
        with av.open(str(out)) as joined:
            seconds = float(joined.duration or 0) / av.time_base
        print(json.dumps({
            "source_bytes": source.stat().st_size,
            "joined_seconds": round(seconds, 2),
            "copied": copied == "True",
            "rss_before_join_mb": round(int(before) / 2**20, 1),
            "peak_rss_during_join_mb": round(int(after) / 2**20, 1),
            "join_extra_mb": round((int(after) - int(before)) / 2**20, 1),
            "getrusage_maxrss_mb": round(int(maxrss) / 2**20, 1),
            "join_seconds": round(float(took), 2),
            "making_the_source_seconds": round(made, 2),
        }))  # fmt: skip


if __name__ == "__main__":
    main()
