"""The local renderer's drawing: the prompt as a title card and a running timecode, made
once as per-pixel blend coefficients and composited onto YUV planes every frame."""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from PIL import Image, ImageDraw, ImageFilter, ImageFont

_F32 = npt.NDArray[np.float32]
_U8 = npt.NDArray[np.uint8]
_Font = ImageFont.FreeTypeFont | ImageFont.ImageFont

__all__ = ["Overlay", "Timecode", "apply_overlay", "even", "rgb_to_yuv", "title_overlay"]

_ELLIPSIS = "\u2026"
_STRIP_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})

# Limited-range ("TV") 8-bit YUV levels.
_Y_WHITE = 235.0
_C_NEUTRAL = 128.0


def rgb_to_yuv(rgb: tuple[float, float, float]) -> tuple[float, float, float]:
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
class Overlay:
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
    def from_masks(cls, x: int, y: int, shade: _F32, ink: _F32, ink_level: float) -> Overlay:
        """``shade`` darkens/desaturates, then ``ink`` paints ``ink_level`` luma (0..1 masks)."""
        k_y = ((1.0 - shade) * (1.0 - ink)).astype(np.float32)
        c_y = (ink_level * ink).astype(np.float32)
        h, w = k_y.shape
        k_c = k_y.reshape(h // 2, 2, w // 2, 2).mean(axis=(1, 3), dtype=np.float32)
        c_c = (_C_NEUTRAL * (1.0 - k_c)).astype(np.float32)
        return cls(x, y, k_y, c_y, k_c, c_c)

    def faded(self, alpha: float) -> Overlay:
        """The same overlay at opacity ``alpha`` (0..1)."""
        if alpha >= 1.0:
            return self
        a = np.float32(alpha)
        return Overlay(
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


def apply_overlay(planes: tuple[_U8, _U8, _U8], overlay: Overlay, dy: int = 0) -> None:
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


def title_overlay(prompt: str, width: int, height: int) -> Overlay | None:
    """Rasterise the prompt once: white text with a soft shadow on a translucent panel."""
    text = _clean_text(prompt)
    if not text:
        return None
    font, size, line_h, lines = _fit_title(text, width, height)
    if not lines:
        return None

    pad = max(2, round(size * 0.55))
    text_w = max(math.ceil(_text_width(font, line)) for line in lines)
    block_w = max(2, min(even(text_w + 2 * pad + 1), width))
    block_h = max(2, min(even(line_h * len(lines) + 2 * pad + 1), height))

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
    x0 = even((width - block_w) / 2)
    y0 = even((height - block_h) / 2)
    return Overlay.from_masks(x0, y0, shade, ink, _Y_WHITE)


class Timecode:
    """Renders ``MM:SS.ss / MM:SS.ss`` from a glyph atlas (digits in fixed-width cells)."""

    def __init__(self, size: int) -> None:
        font = _load_font(size)
        self.height = even(size * 1.3 + 1)
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

    def overlay(self, text: str, x: int, y: int) -> Overlay:
        mask = np.concatenate([self.glyphs[ch] for ch in text if ch in self.glyphs], axis=1)
        if mask.shape[1] % 2:
            mask = np.pad(mask, ((0, 0), (0, 1)))
        # A faint shadow below the white digits keeps them readable on light gradients.
        shade = np.zeros_like(mask)
        shade[1:, 1:] = mask[:-1, :-1] * np.float32(0.6)
        return Overlay.from_masks(x, y, shade, mask, _Y_WHITE)


# --------------------------------------------------------------------------- background


def even(value: float) -> int:
    """Round to the nearest even integer (keeps 4:2:0 chroma aligned)."""
    return 2 * round(value / 2)
