"""Built-in local renderer: turns a prompt into a real (if modest) H.264 MP4.

The ``local`` provider needs no GPU and no network: it draws the prompt as an animated
title card over a moving colour gradient and encodes it with PyAV/libx264.  It is used for
demos, tests and as a fallback, so it has to be fast (several times real time at 720p on a
small machine) and robust against any prompt text.

Everything here is pure and synchronous, without module-level state, so that
:func:`render_video` can run inside a ``ProcessPoolExecutor`` worker.

Frames are generated straight in YUV 4:2:0 with vectorised numpy (no RGB->YUV conversion):

* the background is two travelling sine waves mixing three colours picked from ``seed``;
  being separable, each plane is a rank-5 matrix product (one BLAS call per row band)
  instead of a per-pixel ``sin``;
* the prompt is rasterised once with Pillow into coverage masks, turned into per-pixel
  affine coefficients (``out = in * k + c``), and composited per frame on its region only;
* a progress bar and a timecode (built from a pre-rendered glyph atlas) change every frame.
"""

from __future__ import annotations

import contextlib
import math
import os
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path

import av
import numpy as np
import numpy.typing as npt

from vidrouter.providers.local.background import Background
from vidrouter.providers.local.layers import EXTEND, InputLayer, source_size
from vidrouter.providers.local.overlay import (
    Overlay,
    Timecode,
    apply_overlay,
    even,
    title_overlay,
)

__all__ = ["FRAME_SIZES", "RESOLUTIONS", "RenderResult", "RenderSpec", "render_video"]

_F32 = npt.NDArray[np.float32]
_U8 = npt.NDArray[np.uint8]

RESOLUTIONS: dict[str, tuple[int, int]] = {
    "16:9": (1280, 720),
    "9:16": (720, 1280),
    "1:1": (720, 720),
}
# Frame sizes by resolution, then aspect ratio. 720p is the default; 480p renders in about
# half the time (the tests' videos stay at the default).
FRAME_SIZES: dict[str, dict[str, tuple[int, int]]] = {
    "720p": RESOLUTIONS,
    "480p": {"16:9": (854, 480), "9:16": (480, 854), "1:1": (480, 480)},
}

MAX_DURATION = 600.0
MIN_SIDE = 16
MAX_SIDE = 4096
MAX_FPS = 60

# libx264 settings, measured on a 2-core Xeon for 5 s of 1280x720 (see benchmarks/):
# ultrafast ~0.7 s / 1.5 MB, superfast ~1.05 s / 1.0 MB, veryfast ~1.45 s / 0.6 MB, and
# veryfast + tune=animation (flat synthetic graphics) ~1.3 s / 0.45 MB: ~3.8x real time.
_X264_PRESET = "veryfast"
_X264_TUNE = "animation"
_X264_CRF = "23"
# Modest threading: the caller runs several renders in parallel in a process pool.
_X264_THREADS = 2

_PROGRESS_INTERVAL = 0.1  # seconds between progress-file writes (at most ~10/s)
_PROGRESS_HEARTBEAT = 1.0  # rewrite an unchanged percent this often (fresh mtime)

# Limited-range ("TV") 8-bit YUV levels.
_Y_WHITE = 235.0
_C_NEUTRAL = 128.0


@dataclass(frozen=True)
class RenderSpec:
    """What to render."""

    prompt: str
    duration: float  # seconds, > 0
    width: int
    height: int
    fps: int = 24
    seed: int = 0  # picks the colour palette / motion so different jobs look different
    # Its inputs (providers/local/layers.py): reference image files drawn into the frames,
    # and a source video file to re-render ("edit") or to continue ("extend"; rendered at
    # the source's size and rate, so that the engine can join the two without re-encoding).
    references: tuple[str, ...] = ()
    source: str | None = None
    mode: str = ""
    # Image files the video starts from (image-to-video) and ends on (an end frame).
    image: str | None = None
    end_image: str | None = None


@dataclass(frozen=True)
class RenderResult:
    """What was written."""

    path: Path
    duration: float  # real duration of the written file in seconds
    width: int
    height: int
    frames: int
    size_bytes: int


# --------------------------------------------------------------------------- validation


def _validate(spec: RenderSpec) -> None:
    if not isinstance(spec.prompt, str):
        raise ValueError("prompt must be a string")
    if isinstance(spec.duration, bool) or not isinstance(spec.duration, int | float):
        raise ValueError("duration must be a number")
    if not math.isfinite(spec.duration) or not 0 < spec.duration <= MAX_DURATION:
        raise ValueError(f"duration must be > 0 and <= {MAX_DURATION:g} seconds")
    for name, value in (("width", spec.width), ("height", spec.height)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{name} must be an integer")
        if not MIN_SIDE <= value <= MAX_SIDE or value % 2:
            raise ValueError(f"{name} must be even and between {MIN_SIDE} and {MAX_SIDE}")
    if isinstance(spec.fps, bool) or not isinstance(spec.fps, int):
        raise ValueError("fps must be an integer")
    if not 1 <= spec.fps <= MAX_FPS:
        raise ValueError(f"fps must be between 1 and {MAX_FPS}")
    if isinstance(spec.seed, bool) or not isinstance(spec.seed, int):
        raise ValueError("seed must be an integer")


def _frame_count(spec: RenderSpec) -> int:
    return max(1, round(spec.duration * spec.fps))


# --------------------------------------------------------------------------- progress


def _write_progress(path: Path, percent: int) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        tmp.write_text(str(percent), encoding="ascii")
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _progress_writer(path: Path | None) -> Callable[[int, bool], None]:
    """A throttled ``report(percent, force)`` callback (no-op without a path)."""
    last_time = -math.inf
    last_percent = -1

    def report(percent: int, force: bool = False) -> None:
        nonlocal last_time, last_percent
        if path is None:
            return
        now = time.monotonic()
        since = now - last_time
        # A changed percent at most every _PROGRESS_INTERVAL; the same one again every
        # _PROGRESS_HEARTBEAT so that the file's mtime shows the render is alive.
        if not force and since < (
            _PROGRESS_INTERVAL if percent != last_percent else _PROGRESS_HEARTBEAT
        ):
            return
        _write_progress(path, percent)
        last_time, last_percent = now, percent

    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
    return report


# --------------------------------------------------------------------------- render


class _FramePainter:
    """Everything precomputed for one render; :meth:`paint` fills the YUV buffer per frame."""

    def __init__(self, spec: RenderSpec, frames: int) -> None:
        width, height, fps = spec.width, spec.height, spec.fps
        short = min(width, height)
        self.fps, self.frames = fps, frames
        self.background = Background(width, height, spec.seed)
        self.inputs = InputLayer(
            width,
            height,
            fps,
            spec.references,
            spec.source,
            spec.mode,
            image=spec.image,
            end_image=spec.end_image,
            count=frames,
        )
        self.title = title_overlay(spec.prompt, width, height)
        # Title animation: fade in while sliding up over ~0.8 s (a third of a short video);
        # fully visible on the last frame even for a one-frame video.
        self.fade_frames = max(1, min(round(0.8 * fps), frames // 3))
        self.slide = even(short * 0.05)

        margin = even(short * 0.045)
        bar_h = max(2, even(short * 0.008))
        self.bar_x0, self.bar_x1 = margin, width - margin
        self.bar_y0 = height - margin - bar_h
        self.bar_y1 = self.bar_y0 + bar_h
        self.track = Overlay.from_masks(
            self.bar_x0,
            self.bar_y0,
            np.full((bar_h, self.bar_x1 - self.bar_x0), 0.45, dtype=np.float32),
            np.zeros((bar_h, self.bar_x1 - self.bar_x0), dtype=np.float32),
            _Y_WHITE,
        )
        self.timecode = Timecode(max(8, round(short * 0.032)))
        self.tc_x = margin
        self.tc_y = max(0, self.bar_y0 - self.timecode.height - even(short * 0.01))
        self.total_tc = Timecode.format(frames / fps)

        # yuv420p layout expected by av.VideoFrame.from_ndarray: Y, then U, then V, packed.
        # Sliced flat: a chroma plane is not whole rows of the buffer when height % 4 == 2
        # (480x854).
        hw, hh = width // 2, height // 2
        self.buf: _U8 = np.empty((height * 3 // 2, width), dtype=np.uint8)
        flat, luma = self.buf.reshape(-1), width * height
        self.planes = (
            self.buf[:height],
            flat[luma : luma + hh * hw].reshape(hh, hw),
            flat[luma + hh * hw :].reshape(hh, hw),
        )

    def paint(self, index: int) -> _U8:
        t = index / self.fps
        y_plane, u_plane, v_plane = self.planes
        self.background.render(t, y_plane, u_plane, v_plane)
        self.inputs.paint(index, self.planes)

        if self.title is not None:
            p = min(1.0, (index + 1) / self.fade_frames)
            eased = 1.0 - (1.0 - p) ** 3
            apply_overlay(self.planes, self.title.faded(eased), even(self.slide * (1.0 - eased)))

        apply_overlay(self.planes, self.track)
        fill_end = self.bar_x0 + even((self.bar_x1 - self.bar_x0) * (index + 1) / self.frames)
        if fill_end > self.bar_x0:
            y0, y1, x0 = self.bar_y0, self.bar_y1, self.bar_x0
            y_plane[y0:y1, x0:fill_end] = int(_Y_WHITE)
            u_plane[y0 // 2 : y1 // 2, x0 // 2 : fill_end // 2] = int(_C_NEUTRAL)
            v_plane[y0 // 2 : y1 // 2, x0 // 2 : fill_end // 2] = int(_C_NEUTRAL)

        label = f"{Timecode.format(t)} / {self.total_tc}"
        apply_overlay(self.planes, self.timecode.overlay(label, self.tc_x, self.tc_y))
        return self.buf


def _encode(spec: RenderSpec, part: Path, frames: int, report: Callable[[int, bool], None]) -> None:
    painter = _FramePainter(spec, frames)
    time_base = Fraction(1, spec.fps)
    container = av.open(str(part), mode="w", format="mp4", options={"movflags": "+faststart"})
    try:
        stream = container.add_stream("libx264", rate=spec.fps)
        stream.width = spec.width
        stream.height = spec.height
        stream.pix_fmt = "yuv420p"
        stream.time_base = time_base
        stream.codec_context.gop_size = 2 * spec.fps
        stream.codec_context.thread_count = _X264_THREADS
        stream.options = {
            "preset": _X264_PRESET,
            "tune": _X264_TUNE,
            "crf": _X264_CRF,
            "x264-params": "colorprim=bt709:transfer=bt709:colormatrix=bt709",
        }
        for index in range(frames):
            frame = av.VideoFrame.from_ndarray(painter.paint(index), format="yuv420p")
            frame.pts = index
            frame.time_base = time_base
            for packet in stream.encode(frame):
                container.mux(packet)
            report(min(99, 100 * (index + 1) // frames), False)
        for packet in stream.encode(None):
            container.mux(packet)
        painter.inputs.close()
    except BaseException:
        with contextlib.suppress(Exception):
            container.close()
        raise
    container.close()  # writes the trailer and, with faststart, moves 'moov' to the front


def render_video(
    spec: RenderSpec, out_path: Path, progress_path: Path | None = None
) -> RenderResult:
    """Render ``spec`` to an H.264/MP4 (yuv420p, faststart) file at ``out_path``.

    The file is written to a temporary ``.part`` sibling and atomically moved into place.
    If ``progress_path`` is given, the integer percent (0..100) is written to it (atomically,
    at most ~10 times a second), ending with ``100`` once ``out_path`` exists.

    Raises ``ValueError`` for an invalid spec.
    """
    if spec.mode == EXTEND and spec.source is not None:
        width, height, fps = source_size(spec.source)
        spec = replace(spec, width=width, height=height, fps=fps)
    _validate(spec)
    out_path = Path(out_path)
    progress = Path(progress_path) if progress_path is not None else None
    frames = _frame_count(spec)

    out_path.parent.mkdir(parents=True, exist_ok=True)
    report = _progress_writer(progress)
    report(0, True)
    part = out_path.with_name(f".{out_path.name}.{uuid.uuid4().hex[:12]}.part")
    try:
        _encode(spec, part, frames, report)
        os.replace(part, out_path)
    except BaseException:
        part.unlink(missing_ok=True)
        raise
    size = out_path.stat().st_size
    report(100, True)
    return RenderResult(
        path=out_path,
        duration=frames / spec.fps,
        width=spec.width,
        height=spec.height,
        frames=frames,
        size_bytes=size,
    )
