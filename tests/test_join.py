"""Joining a source and its extension (engine/join.py): the packets copied when the streams
allow (no re-encoding), re-encoded when they do not, and streamed either way: joining a
source of tens of megabytes does not hold it in memory."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import av

from tests.support.clips import noise_mp4
from tests.support.peak_memory import PEAK_MEMORY
from vidrouter.engine import join
from vidrouter.engine.join import join_videos
from vidrouter.engine.results import probe

_MEASURE = (
    PEAK_MEMORY
    + """
import importlib.util, sys
from pathlib import Path
import av
first, second, out = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
def load(name, path):  # the modules alone (they need only PyAV): the package's cost seconds
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
load("vidrouter.engine.join_audio", str(Path(sys.argv[4]).with_name("join_audio.py")))
join = load("join", sys.argv[4])
before = start_peak()
print(join.join_videos(first, second, out))
print(status("VmHWM") - before)
"""
)


def frames_of(path: Path) -> int:
    with av.open(str(path)) as container:
        return sum(1 for _ in container.demux(container.streams.video[0]) if _.size)


def join_memory(*args: str) -> tuple[list[str], int]:
    """What the join printed, and how far its process's RSS rose above where it was."""
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, *args], capture_output=True, text=True, check=True
    )
    lines = done.stdout.split()
    return lines[:-1], int(lines[-1])


def test_a_large_source_is_joined_by_copying_packets_in_flat_memory(tmp_path: Path) -> None:
    source, extension, out = tmp_path / "source.mp4", tmp_path / "more.mp4", tmp_path / "j.mp4"
    noise_mp4(source, 120)
    noise_mp4(extension, 24)
    size = source.stat().st_size
    assert size > 30 * 1024**2, size
    printed, extra = join_memory(str(source), str(extension), str(out), join.__file__)
    assert printed == ["True"]  # copied, not re-encoded
    # The join's extra memory (about 8 MB) is well under the source's size: it streams
    # (benchmarks/bench_join.py: 12 MB for a 541 MB source).
    assert extra < size // 2, (extra, size)
    assert frames_of(out) == 144
    info = probe(out)
    assert (info.width, info.height, info.codec) == (640, 360, "h264")
    assert 5.9 < info.duration < 6.3


def test_unlike_streams_are_re_encoded_at_the_sources_size(tmp_path: Path) -> None:
    source, extension, out = tmp_path / "source.mp4", tmp_path / "more.mp4", tmp_path / "j.mp4"
    noise_mp4(source, 12, width=320, height=180)
    noise_mp4(extension, 6, width=160, height=90)
    assert join_videos(source, extension, out) is False
    with av.open(str(out)) as container:
        frames = [f.width for f in container.decode(container.streams.video[0])]
    assert frames == [320] * 18
