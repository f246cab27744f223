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

import colorsys
import contextlib
import math
import os
import random
import time
import unicodedata
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import av
import numpy as np
import numpy.typing as npt
from PIL import Image, ImageDraw, ImageFilter, ImageFont

__all__ = ["RESOLUTIONS", "RenderResult", "RenderSpec", "render_video"]

_F32 = npt.NDArray[np.float32]
_U8 = npt.NDArray[np.uint8]
_Font = ImageFont.FreeTypeFont | ImageFont.ImageFont

RESOLUTIONS: dict[str, tuple[int, int]] = {
    "16:9": (1280, 720),
    "9:16": (720, 1280),
    "1:1": (720, 720),
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

_BLAS_BAND_MNK = 200_000  # see _Background: keeps each GEMM single-threaded in OpenBLAS
_PROGRESS_INTERVAL = 0.1  # seconds between progress-file writes (at most ~10/s)
_PROGRESS_HEARTBEAT = 1.0  # rewrite an unchanged percent this often (fresh mtime)
_ELLIPSIS = "\u2026"
_STRIP_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})

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


# --------------------------------------------------------------------------- helpers


def _even(value: float) -> int:
    """Round to the nearest even integer (keeps 4:2:0 chroma aligned)."""
    return 2 * round(value / 2)


def _rgb_to_yuv(rgb: tuple[float, float, float]) -> tuple[float, float, float]:
    """BT.709 limited-range YUV for an RGB triple in 0..1."""
    r, g, b = rgb
    luma = 0.2126 * r + 0.7152 * g + 0.0722 * b
    return (
        16.0 + 219.0 * luma,
        128.0 + 224.0 * (b - luma) / 1.8556,
        128.0 + 224.0 * (r - luma) / 1.5748,
    )


def _clean_text(text: str) -> str:
    """Drop control/format/surrogate/unassigned characters and collapse whitespace."""
    kept = "".join(ch for ch in text if unicodedata.category(ch) not in _STRIP_CATEGORIES)
    return " ".join(kept.split())


def _load_font(size: int) -> _Font:
    # Pillow >= 10.1 with FreeType: a scalable built-in font (Aileron).  Glyphs it lacks
    # (emoji, CJK, ...) are drawn as a box, they never raise.
    return ImageFont.load_default(size=size)


def _text_width(font: _Font, text: str) -> float:
    return float(font.getlength(text)) if text else 0.0


def _ellipsize(font: _Font, line: str, max_width: float) -> str:
    """``line`` shortened so that ``line + '…'`` fits in ``max_width``."""
    while line and _text_width(font, line.rstrip() + _ELLIPSIS) > max_width:
        line = line[:-1]
    return line.rstrip() + _ELLIPSIS


def _wrap(font: _Font, text: str, max_width: float, max_lines: int) -> tuple[list[str], bool]:
    """Greedy word wrap; words longer than a line are broken between characters.

    Returns at most ``max_lines`` lines and whether text was cut off (in which case the last
    line ends with an ellipsis).  Lines are produced lazily, so only the text that can fit
    is ever measured and a huge prompt costs no more than a short one.
    """

    def fits(candidate: str) -> bool:
        return _text_width(font, candidate) <= max_width

    def produce() -> Iterator[str]:
        current = ""
        for word in text.split(" "):
            candidate = f"{current} {word}" if current else word
            if fits(candidate):
                current = candidate
                continue
            if current:
                yield current
            if fits(word):
                current = word
                continue
            # An over-long word (or a run of CJK without spaces): break between characters.
            # A single character is always accepted, even if wider than the line.
            current = ""
            for ch in word:
                if current and not fits(current + ch):
                    yield current
                    current = ""
                current += ch
        if current:
            yield current

    lines: list[str] = []
    truncated = False
    for line in produce():
        if len(lines) >= max_lines:
            truncated = True
            break
        lines.append(line)
    if truncated:
        lines[-1] = _ellipsize(font, lines[-1], max_width)
    return lines, truncated


# --------------------------------------------------------------------------- overlays


@dataclass
class _Overlay:
    """Per-pixel affine blend ``out = in * k + c`` for a rectangle of the frame.

    Luma arrays are full resolution, chroma arrays half resolution; ``x``/``y`` and the sizes
    are even so both planes stay aligned.
    """

    x: int
    y: int
    k_y: _F32
    c_y: _F32
    k_c: _F32
    c_c: _F32

    @classmethod
    def from_masks(cls, x: int, y: int, shade: _F32, ink: _F32, ink_level: float) -> _Overlay:
        """``shade`` darkens/desaturates, then ``ink`` paints ``ink_level`` luma (0..1 masks)."""
        k_y = ((1.0 - shade) * (1.0 - ink)).astype(np.float32)
        c_y = (ink_level * ink).astype(np.float32)
        h, w = k_y.shape
        k_c = k_y.reshape(h // 2, 2, w // 2, 2).mean(axis=(1, 3), dtype=np.float32)
        c_c = (_C_NEUTRAL * (1.0 - k_c)).astype(np.float32)
        return cls(x, y, k_y, c_y, k_c, c_c)

    def faded(self, alpha: float) -> _Overlay:
        """The same overlay at opacity ``alpha`` (0..1)."""
        if alpha >= 1.0:
            return self
        a = np.float32(alpha)
        return _Overlay(
            self.x,
            self.y,
            (1.0 - a * (1.0 - self.k_y)).astype(np.float32),
            (a * self.c_y).astype(np.float32),
            (1.0 - a * (1.0 - self.k_c)).astype(np.float32),
            (a * self.c_c).astype(np.float32),
        )


def _blend(plane: _U8, x: int, y: int, k: _F32, c: _F32) -> None:
    """In-place ``plane[region] = plane[region] * k + c``, clipped to the plane."""
    ph, pw = plane.shape
    h, w = k.shape
    x0, y0 = max(x, 0), max(y, 0)
    x1, y1 = min(x + w, pw), min(y + h, ph)
    if x1 <= x0 or y1 <= y0:
        return
    region = plane[y0:y1, x0:x1]
    ks = k[y0 - y : y1 - y, x0 - x : x1 - x]
    cs = c[y0 - y : y1 - y, x0 - x : x1 - x]
    tmp = region * ks
    tmp += cs
    np.clip(tmp, 0.0, 255.0, out=tmp)
    region[...] = tmp


def _apply(planes: tuple[_U8, _U8, _U8], overlay: _Overlay, dy: int = 0) -> None:
    y_plane, u_plane, v_plane = planes
    top = overlay.y + dy
    _blend(y_plane, overlay.x, top, overlay.k_y, overlay.c_y)
    _blend(u_plane, overlay.x // 2, top // 2, overlay.k_c, overlay.c_c)
    _blend(v_plane, overlay.x // 2, top // 2, overlay.k_c, overlay.c_c)


def _mask_array(image: Image.Image) -> _F32:
    return np.asarray(image, dtype=np.float32) * np.float32(1.0 / 255.0)


def _fit_title(text: str, width: int, height: int) -> tuple[_Font, int, int, list[str]]:
    """Wrap ``text`` at the largest font size at which it fits whole.

    Returns ``(font, size, line_height, lines)``; at the smallest size the text is truncated
    with an ellipsis if it still does not fit.
    """
    short = min(width, height)
    max_w = width * 0.82
    max_h = height * 0.56
    sizes = sorted({max(8, round(short * f)) for f in (0.11, 0.09, 0.075, 0.062, 0.052)})[::-1]

    def layout(size: int) -> tuple[_Font, int, int, list[str], bool]:
        font = _load_font(size)
        line_h = max(1, round(size * 1.3))
        lines, truncated = _wrap(font, text, max_w, max(1, int(max_h // line_h)))
        return font, size, line_h, lines, truncated

    for size in sizes[:-1]:
        font, size, line_h, lines, truncated = layout(size)
        if not truncated:
            return font, size, line_h, lines
    font, size, line_h, lines, _ = layout(sizes[-1])
    return font, size, line_h, lines


def _title_overlay(prompt: str, width: int, height: int) -> _Overlay | None:
    """Rasterise the prompt once: white text with a soft shadow on a translucent panel."""
    text = _clean_text(prompt)
    if not text:
        return None
    font, size, line_h, lines = _fit_title(text, width, height)
    if not lines:
        return None

    pad = max(2, round(size * 0.55))
    text_w = max(math.ceil(_text_width(font, line)) for line in lines)
    block_w = max(2, min(_even(text_w + 2 * pad + 1), width))
    block_h = max(2, min(_even(line_h * len(lines) + 2 * pad + 1), height))

    ink_img = Image.new("L", (block_w, block_h), 0)
    draw = ImageDraw.Draw(ink_img)
    ascent, descent = font.getmetrics() if isinstance(font, ImageFont.FreeTypeFont) else (0, 0)
    # Centre each line's em box (ascent+descent) inside its line slot.
    top = pad + (line_h - (ascent + descent)) / 2
    for index, line in enumerate(lines):
        x = (block_w - _text_width(font, line)) / 2
        draw.text((x, top + index * line_h), line, fill=255, font=font)

    shadow_img = ink_img.filter(ImageFilter.GaussianBlur(radius=max(1.0, size * 0.08)))
    panel_img = Image.new("L", (block_w, block_h), 0)
    ImageDraw.Draw(panel_img).rounded_rectangle(
        (0, 0, block_w - 1, block_h - 1), radius=max(1, round(pad * 0.8)), fill=255
    )
    ink = _mask_array(ink_img)
    shade = np.maximum(_mask_array(panel_img) * np.float32(0.38), _mask_array(shadow_img))
    shade = np.minimum(shade, np.float32(0.85))
    x0 = _even((width - block_w) / 2)
    y0 = _even((height - block_h) / 2)
    return _Overlay.from_masks(x0, y0, shade, ink, _Y_WHITE)


class _Timecode:
    """Renders ``MM:SS.ss / MM:SS.ss`` from a glyph atlas (digits in fixed-width cells)."""

    def __init__(self, size: int) -> None:
        font = _load_font(size)
        self.height = _even(size * 1.3 + 1)
        digit_w = max(_text_width(font, d) for d in "0123456789")
        self.glyphs: dict[str, _F32] = {}
        for ch in "0123456789:./ ":
            cell_w = max(1, math.ceil(digit_w if ch.isdigit() else _text_width(font, ch)))
            img = Image.new("L", (cell_w, self.height), 0)
            draw = ImageDraw.Draw(img)
            draw.text(((cell_w - _text_width(font, ch)) / 2, size * 0.1), ch, fill=255, font=font)
            self.glyphs[ch] = _mask_array(img)

    @staticmethod
    def format(seconds: float) -> str:
        centis = max(0, round(seconds * 100))
        minutes, rest = divmod(centis, 6000)
        return f"{minutes:02d}:{rest // 100:02d}.{rest % 100:02d}"

    def overlay(self, text: str, x: int, y: int) -> _Overlay:
        mask = np.concatenate([self.glyphs[ch] for ch in text if ch in self.glyphs], axis=1)
        if mask.shape[1] % 2:
            mask = np.pad(mask, ((0, 0), (0, 1)))
        # A faint shadow below the white digits keeps them readable on light gradients.
        shade = np.zeros_like(mask)
        shade[1:, 1:] = mask[:-1, :-1] * np.float32(0.6)
        return _Overlay.from_masks(x, y, shade, mask, _Y_WHITE)


# --------------------------------------------------------------------------- background


class _Background:
    """Two travelling sine waves mixing three seed-picked colours.

    Each wave is ``sin(ax*x + ay*y + w*t + phi) = sin(A(x, t)) cos(B(y)) + cos(A) sin(B)``, so
    a colour plane (a linear mix of the waves, times a separable vignette for luma) is a rank-5
    matrix product ``columns(y) @ rows(x, t)``: a few small BLAS calls per frame instead of
    a per-pixel ``sin``.  Luma is full resolution, chroma half resolution.
    """

    def __init__(self, width: int, height: int, seed: int) -> None:
        rng = random.Random(seed)  # local instance: no global random state is touched
        short = min(width, height)
        hue = rng.random()
        hues = (hue, (hue + rng.uniform(0.18, 0.42)) % 1.0, (hue + rng.uniform(0.5, 0.8)) % 1.0)
        colours = np.array(
            [
                _rgb_to_yuv(colorsys.hsv_to_rgb(h, rng.uniform(0.5, 0.8), rng.uniform(0.5, 0.85)))
                for h in hues
            ],
            dtype=np.float64,
        )
        # plane = base + d1 * (0.5 + 0.5 w1) + 0.8 * d2 * (0.5 + 0.5 w2)
        #       = const + e1 * w1 + e2 * w2                      (per Y/U/V channel)
        d1, d2 = colours[1] - colours[0], colours[2] - colours[0]
        self.e1, self.e2 = 0.5 * d1, 0.4 * d2
        self.const = colours[0] + 0.5 * d1 + 0.4 * d2

        # Pixel-centre coordinates normalised by the short side.
        x_full = (np.arange(width) + 0.5) / short
        y_full = (np.arange(height) + 0.5) / short
        x_half = (np.arange(width // 2) + 0.5) * 2.0 / short
        y_half = (np.arange(height // 2) + 0.5) * 2.0 / short

        # Per wave: (ax, speed, phase); column matrices [cos B1, sin B1, cos B2, sin B2, 1].
        self.waves: list[tuple[float, float, float]] = []
        cols_full, cols_half = [], []
        for _ in range(2):
            angle = rng.uniform(0.0, 2.0 * math.pi)
            freq = rng.uniform(2.0, 4.5)  # radians per short-side unit
            speed = rng.uniform(0.7, 1.6) * rng.choice((-1.0, 1.0))  # radians per second
            phase = rng.uniform(0.0, 2.0 * math.pi)
            ay = freq * math.sin(angle)
            self.waves.append((freq * math.cos(angle), speed, phase))
            cols_full += [np.cos(ay * y_full), np.sin(ay * y_full)]
            cols_half += [np.cos(ay * y_half), np.sin(ay * y_half)]
        cols_full.append(np.ones_like(y_full))
        cols_half.append(np.ones_like(y_half))

        # Separable vignette on luma: v(x, y) = vx(x) * vy(y), folded into the factors.
        vx = 1.0 - 0.5 * (x_full / x_full[-1] - 0.5) ** 2 * 1.8
        vy = 1.0 - 0.5 * (y_full / y_full[-1] - 0.5) ** 2 * 1.8
        self.cols_y: _F32 = (np.stack(cols_full, axis=1) * vy[:, None]).astype(np.float32)
        self.cols_c: _F32 = np.stack(cols_half, axis=1).astype(np.float32)
        self.x_full, self.x_half, self.vx = x_full, x_half, vx
        self.rows_y = np.empty((5, width), dtype=np.float32)
        self.rows_c = np.empty((5, width), dtype=np.float32)  # U then V, each width // 2
        # The products are evaluated in bands of rows small enough (m*n*k below OpenBLAS's
        # 65536*4 threshold) for BLAS to stay single-threaded: its spinning thread pool
        # otherwise fights x264's threads for the CPUs and slows the render by ~30%.
        # Bands also keep the float scratch buffer in cache for the clip/convert.
        self.band = max(2, min(64, _even(_BLAS_BAND_MNK // (5 * width) - 1)))
        self.scratch: _F32 = np.empty((self.band, width), dtype=np.float32)

    def render(self, t: float, y_plane: _U8, u_plane: _U8, v_plane: _U8) -> None:
        """Write the background for time ``t`` into the three uint8 planes."""
        half = self.x_half.shape[0]
        for index, (ax, speed, phase) in enumerate(self.waves):
            shift = speed * t + phase
            a_full = ax * self.x_full + shift
            a_half = ax * self.x_half + shift
            sin_f, cos_f = np.sin(a_full), np.cos(a_full)
            sin_h, cos_h = np.sin(a_half), np.cos(a_half)
            amp = self.e1 if index == 0 else self.e2
            self.rows_y[2 * index] = amp[0] * sin_f * self.vx
            self.rows_y[2 * index + 1] = amp[0] * cos_f * self.vx
            for channel, start in ((1, 0), (2, half)):
                self.rows_c[2 * index, start : start + half] = amp[channel] * sin_h
                self.rows_c[2 * index + 1, start : start + half] = amp[channel] * cos_h
        self.rows_y[4] = self.const[0] * self.vx
        self.rows_c[4, :half] = self.const[1]
        self.rows_c[4, half:] = self.const[2]

        band = self.band
        for top in range(0, y_plane.shape[0], band):
            tmp = self._band(self.cols_y[top : top + band], self.rows_y)
            y_plane[top : top + band] = tmp
        for top in range(0, u_plane.shape[0], band):
            tmp = self._band(self.cols_c[top : top + band], self.rows_c)
            u_plane[top : top + band] = tmp[:, :half]
            v_plane[top : top + band] = tmp[:, half:]

    def _band(self, cols: _F32, rows: _F32) -> _F32:
        tmp = self.scratch[: cols.shape[0]]
        np.matmul(cols, rows, out=tmp)
        np.clip(tmp, 0.0, 255.0, out=tmp)
        return tmp


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
        self.background = _Background(width, height, spec.seed)
        self.title = _title_overlay(spec.prompt, width, height)
        # Title animation: fade in while sliding up over ~0.8 s (a third of a short video);
        # fully visible on the last frame even for a one-frame video.
        self.fade_frames = max(1, min(round(0.8 * fps), frames // 3))
        self.slide = _even(short * 0.05)

        margin = _even(short * 0.045)
        bar_h = max(2, _even(short * 0.008))
        self.bar_x0, self.bar_x1 = margin, width - margin
        self.bar_y0 = height - margin - bar_h
        self.bar_y1 = self.bar_y0 + bar_h
        self.track = _Overlay.from_masks(
            self.bar_x0,
            self.bar_y0,
            np.full((bar_h, self.bar_x1 - self.bar_x0), 0.45, dtype=np.float32),
            np.zeros((bar_h, self.bar_x1 - self.bar_x0), dtype=np.float32),
            _Y_WHITE,
        )
        self.timecode = _Timecode(max(8, round(short * 0.032)))
        self.tc_x = margin
        self.tc_y = max(0, self.bar_y0 - self.timecode.height - _even(short * 0.01))
        self.total_tc = _Timecode.format(frames / fps)

        # yuv420p layout expected by av.VideoFrame.from_ndarray: Y, then U, then V.
        hw, hh = width // 2, height // 2
        self.buf: _U8 = np.empty((height * 3 // 2, width), dtype=np.uint8)
        self.planes = (
            self.buf[:height],
            self.buf[height : height + height // 4].reshape(hh, hw),
            self.buf[height + height // 4 :].reshape(hh, hw),
        )

    def paint(self, index: int) -> _U8:
        t = index / self.fps
        y_plane, u_plane, v_plane = self.planes
        self.background.render(t, y_plane, u_plane, v_plane)

        if self.title is not None:
            p = min(1.0, (index + 1) / self.fade_frames)
            eased = 1.0 - (1.0 - p) ** 3
            _apply(self.planes, self.title.faded(eased), _even(self.slide * (1.0 - eased)))

        _apply(self.planes, self.track)
        fill_end = self.bar_x0 + _even((self.bar_x1 - self.bar_x0) * (index + 1) / self.frames)
        if fill_end > self.bar_x0:
            y0, y1, x0 = self.bar_y0, self.bar_y1, self.bar_x0
            y_plane[y0:y1, x0:fill_end] = int(_Y_WHITE)
            u_plane[y0 // 2 : y1 // 2, x0 // 2 : fill_end // 2] = int(_C_NEUTRAL)
            v_plane[y0 // 2 : y1 // 2, x0 // 2 : fill_end // 2] = int(_C_NEUTRAL)

        label = f"{_Timecode.format(t)} / {self.total_tc}"
        _apply(self.planes, self.timecode.overlay(label, self.tc_x, self.tc_y))
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
