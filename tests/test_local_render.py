"""Tests for the built-in local renderer: real videos are rendered and decoded with PyAV."""

from __future__ import annotations

import contextlib
import multiprocessing
import pickle
import struct
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import av
import numpy as np
import numpy.typing as npt
import pytest

from vidrouter.providers.local.render import (
    RESOLUTIONS,
    RenderResult,
    RenderSpec,
    render_video,
)

PROMPT = "A cinematic drone shot of a misty mountain lake at sunrise, golden light"


def _top_level_boxes(path: Path) -> list[str]:
    """Types of the top-level ISO-BMFF boxes, in file order."""
    boxes: list[str] = []
    data = path.read_bytes()
    offset = 0
    while offset + 8 <= len(data):
        size, kind = struct.unpack(">I4s", data[offset : offset + 8])
        if size == 1:
            (size,) = struct.unpack(">Q", data[offset + 8 : offset + 16])
        elif size == 0:
            size = len(data) - offset
        assert size >= 8, f"corrupt box at {offset}"
        boxes.append(kind.decode("latin-1"))
        offset += size
    assert offset == len(data)
    return boxes


@dataclass
class _Info:
    codec: str
    pix_fmt: str | None
    width: int
    height: int
    rate: Fraction | None
    stream_duration: float
    container_duration: float
    declared_frames: int
    frames: list[npt.NDArray[np.uint8]]


def _probe(path: Path) -> _Info:
    """Stream facts as PyAV reads them back, and every decoded frame as a luma array."""
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        assert stream.duration is not None and stream.time_base is not None
        assert container.duration is not None
        return _Info(
            codec=stream.codec_context.name,
            pix_fmt=stream.codec_context.pix_fmt,
            width=stream.codec_context.width,
            height=stream.codec_context.height,
            rate=stream.average_rate,
            stream_duration=float(stream.duration * stream.time_base),
            container_duration=container.duration / av.time_base,
            declared_frames=stream.frames,
            frames=[
                np.asarray(frame.to_ndarray(format="gray"), dtype=np.uint8)
                for frame in container.decode(video=0)
            ],
        )


@pytest.mark.parametrize(
    ("duration", "fps"), [(0.5, 24), (1.0, 24), (2.3, 24), (1.0, 30), (0.01, 24)]
)
def test_duration_and_frame_count(tmp_path: Path, duration: float, fps: int) -> None:
    out = tmp_path / "video.mp4"
    result = render_video(RenderSpec(PROMPT, duration, 160, 96, fps=fps), out)
    expected_frames = max(1, round(duration * fps))

    assert result == RenderResult(
        path=out,
        duration=expected_frames / fps,
        width=160,
        height=96,
        frames=expected_frames,
        size_bytes=out.stat().st_size,
    )
    info = _probe(out)
    assert info.codec == "h264"
    assert info.pix_fmt == "yuv420p"
    assert info.rate == Fraction(fps)
    assert len(info.frames) == info.declared_frames == expected_frames
    assert info.stream_duration == pytest.approx(result.duration, abs=1e-3)
    assert info.container_duration == pytest.approx(result.duration, abs=1e-3)
    if duration >= 0.5:
        assert abs(result.duration - duration) <= 0.1


@pytest.mark.parametrize("aspect", sorted(RESOLUTIONS))
def test_resolutions(tmp_path: Path, aspect: str) -> None:
    # Scaled-down versions of the production sizes keep the test fast; the full 1280x720
    # render is covered by test_full_hd_render.
    width, height = (side // 4 for side in RESOLUTIONS[aspect])
    out = tmp_path / f"{aspect.replace(':', 'x')}.mp4"
    result = render_video(RenderSpec(PROMPT, 0.25, width, height, seed=3), out)
    info = _probe(out)
    assert (info.width, info.height) == (width, height) == (result.width, result.height)


def test_resolution_table() -> None:
    assert RESOLUTIONS == {"16:9": (1280, 720), "9:16": (720, 1280), "1:1": (720, 720)}


def test_full_hd_render(tmp_path: Path) -> None:
    width, height = RESOLUTIONS["16:9"]
    out = tmp_path / "hd.mp4"
    progress = tmp_path / "hd.progress"
    started = time.perf_counter()
    result = render_video(RenderSpec(PROMPT, 1.0, width, height, seed=7), out, progress)
    elapsed = time.perf_counter() - started
    info = _probe(out)
    assert (info.width, info.height) == (1280, 720)
    assert info.codec == "h264" and info.pix_fmt == "yuv420p"
    assert len(info.frames) == result.frames == 24
    assert info.container_duration == pytest.approx(1.0, abs=1e-3)
    assert progress.read_text() == "100"
    # Generous bound (the target is >= 2x real time, see benchmarks/bench_render.py); this
    # only catches gross regressions without being flaky on a loaded machine.
    assert elapsed < 10 * result.duration


def test_faststart_moov_before_mdat(tmp_path: Path) -> None:
    out = tmp_path / "video.mp4"
    render_video(RenderSpec(PROMPT, 0.5, 128, 72), out)
    boxes = _top_level_boxes(out)
    assert boxes[0] == "ftyp"
    assert "moov" in boxes and "mdat" in boxes
    assert boxes.index("moov") < boxes.index("mdat")


def test_frames_change_over_time(tmp_path: Path) -> None:
    out = tmp_path / "video.mp4"
    render_video(RenderSpec(PROMPT, 1.5, 192, 108, seed=1), out)
    frames = _probe(out).frames
    first, last = frames[0].astype(np.int16), frames[-1].astype(np.int16)
    assert first.shape == (108, 192)
    assert np.abs(first - last).mean() > 3.0
    # Consecutive frames differ too (moving gradient, progress bar, timecode).
    middle = len(frames) // 2
    assert np.abs(frames[middle].astype(np.int16) - frames[middle + 1]).max() > 10
    # Not a flat picture: the title and gradient give real contrast.
    assert last.std() > 5.0


def test_seed_changes_the_look(tmp_path: Path) -> None:
    means = []
    for seed in (1, 2):
        out = tmp_path / f"seed{seed}.mp4"
        render_video(RenderSpec(PROMPT, 0.2, 96, 64, seed=seed), out)
        with av.open(str(out)) as container:
            frame = next(container.decode(video=0)).to_ndarray(format="rgb24")
        means.append(frame.reshape(-1, 3).mean(axis=0))
    assert np.abs(means[0] - means[1]).max() > 5.0


def test_same_spec_is_deterministic(tmp_path: Path) -> None:
    spec = RenderSpec(PROMPT, 0.3, 96, 64, seed=5)
    first = render_video(spec, tmp_path / "a.mp4")
    second = render_video(spec, tmp_path / "b.mp4")
    a = _probe(first.path).frames
    b = _probe(second.path).frames
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


def test_progress_file_ends_at_100(tmp_path: Path) -> None:
    out = tmp_path / "nested" / "dir" / "video.mp4"
    progress = tmp_path / "progress" / "job.txt"
    seen: set[str] = set()
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            with contextlib.suppress(FileNotFoundError):
                seen.add(progress.read_text())
            time.sleep(0.005)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        render_video(RenderSpec(PROMPT, 2.0, 320, 180), out, progress)
    finally:
        stop.set()
        watcher.join()
    assert out.is_file()
    assert progress.read_text() == "100"
    seen.add(progress.read_text())
    # Every value a reader saw was a whole percentage: writes are atomic.
    assert seen and all(value.isdigit() and 0 <= int(value) <= 100 for value in seen)
    # No temporary files are left behind.
    assert sorted(p.name for p in out.parent.iterdir()) == ["video.mp4"]
    assert sorted(p.name for p in progress.parent.iterdir()) == ["job.txt"]


def test_overwrites_atomically_and_leaves_no_part_file(tmp_path: Path) -> None:
    out = tmp_path / "video.mp4"
    out.write_bytes(b"old")
    result = render_video(RenderSpec("again", 0.2, 64, 64), out)
    assert result.size_bytes == out.stat().st_size > 3
    assert [p.name for p in tmp_path.iterdir()] == ["video.mp4"]


def test_huge_unicode_prompt(tmp_path: Path) -> None:
    chunk = "Un chat 🐈‍⬛ qui danse 💃🏽 sous la pluie — 雨の中で踊る猫 고양이 قطة  \t\n\x00\ud800 "
    prompt = (chunk * 100)[:4000]
    assert len(prompt) == 4000
    no_spaces = "漢字かなカナ😀" * 600
    for index, text in enumerate((prompt, no_spaces[:4000], "x" * 4000)):
        out = tmp_path / f"long{index}.mp4"
        started = time.perf_counter()
        result = render_video(RenderSpec(text, 0.3, 320, 180), out)
        assert time.perf_counter() - started < 5
        assert _probe(out).codec == "h264"
        assert result.frames == 7


@pytest.mark.parametrize("prompt", ["", "   \n\t ", "\x00\x01", "a", "🙂"])
def test_degenerate_prompts(tmp_path: Path, prompt: str) -> None:
    result = render_video(RenderSpec(prompt, 0.2, 64, 48), tmp_path / "v.mp4")
    assert result.frames == 5


def test_smallest_and_odd_sizes(tmp_path: Path) -> None:
    for width, height in ((16, 16), (16, 64), (64, 16)):
        out = tmp_path / f"{width}x{height}.mp4"
        render_video(RenderSpec(PROMPT, 0.1, width, height, fps=10), out)
        info = _probe(out)
        assert (info.width, info.height) == (width, height)


@pytest.mark.parametrize(
    "spec",
    [
        RenderSpec(PROMPT, 0, 64, 64),
        RenderSpec(PROMPT, -1, 64, 64),
        RenderSpec(PROMPT, 600.5, 64, 64),
        RenderSpec(PROMPT, float("nan"), 64, 64),
        RenderSpec(PROMPT, float("inf"), 64, 64),
        RenderSpec(PROMPT, 1, 63, 64),
        RenderSpec(PROMPT, 1, 64, 65),
        RenderSpec(PROMPT, 1, 14, 64),
        RenderSpec(PROMPT, 1, 64, 4098),
        RenderSpec(PROMPT, 1, 64, 64, fps=0),
        RenderSpec(PROMPT, 1, 64, 64, fps=61),
    ],
)
def test_invalid_specs_raise(tmp_path: Path, spec: RenderSpec) -> None:
    out = tmp_path / "video.mp4"
    progress = tmp_path / "progress"
    with pytest.raises(ValueError):
        render_video(spec, out, progress)
    assert not out.exists()
    assert not progress.exists()


def test_specs_and_results_pickle(tmp_path: Path) -> None:
    spec = RenderSpec(PROMPT, 0.2, 64, 64, fps=10, seed=9)
    assert pickle.loads(pickle.dumps(spec)) == spec
    result = render_video(spec, tmp_path / "v.mp4")
    assert pickle.loads(pickle.dumps(result)) == result


def test_failure_leaves_no_partial_file(tmp_path: Path) -> None:
    out = tmp_path / "taken.mp4"
    out.mkdir()  # os.replace onto a directory fails after the encode
    with pytest.raises(OSError):
        render_video(RenderSpec(PROMPT, 0.2, 64, 64), out)
    assert [p.name for p in tmp_path.iterdir()] == ["taken.mp4"]
    assert out.is_dir() and not any(out.iterdir())


def test_runs_in_a_spawned_process_pool(tmp_path: Path) -> None:
    spec = RenderSpec(PROMPT, 0.3, 96, 64, seed=11)
    out = tmp_path / "pool.mp4"
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
        result = pool.submit(render_video, spec, out, tmp_path / "pool.progress").result()
    assert result.path == out and result.frames == 7
    assert _probe(out).declared_frames == 7
    assert (tmp_path / "pool.progress").read_text() == "100"
