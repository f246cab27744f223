"""What the local renderer draws from a generation's inputs, under its title card:

- reference images, each drawn as a framed picture in a row along the top of every frame;
- a source to re-render (`video-to-video`): each of the source's frames, decoded one at a
  time, scaled to the output and blended with the moving colours of the prompt's look;
- a source to extend (`video-extend`): the source's last frame, from which the extension
  fades into the prompt's look over its first second (the engine then joins the two);
- a first frame (`image-to-video`): the image, filling the frame, from which the video fades
  into the prompt's look over its first second; an end frame, into which it fades over its
  last second (each at most half of a short video).

Frames are YUV 4:2:0 planes as `render._FramePainter` keeps them. Pure and synchronous,
for the render process pool.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence

import av
import numpy as np
import numpy.typing as npt
from PIL import Image, ImageOps

__all__ = ["InputLayer", "UnreadableImage", "source_size"]

_U8 = npt.NDArray[np.uint8]
Planes = tuple[_U8, _U8, _U8]
EDIT = "edit"
EXTEND = "extend"
_FADE_SECONDS = 1.0
_SOURCE_WEIGHT = 0.6  # how much of a re-rendered frame is the source's (the rest: the look)


class UnreadableImage(ValueError):
    """An input image that does not decode (its signature was right, its data was not): the
    user's input failed, not the renderer."""


def _rgb(path: str) -> Image.Image:
    try:
        with Image.open(path) as image:
            return image.convert("RGB")
    except (OSError, SyntaxError, ValueError, Image.DecompressionBombError) as exc:
        # Pillow reports a bad or truncated file as any of these (SyntaxError for some headers).
        raise UnreadableImage(f"an input image does not decode: {exc}") from None


def source_size(path: str) -> tuple[int, int, int]:
    """The source's width and height (made even) and its frame rate (24 when unknown)."""
    with av.open(path) as container:
        stream = container.streams.video[0]
        rate = stream.average_rate
        fps = round(float(rate)) if rate else 24
        width, height = stream.codec_context.width, stream.codec_context.height
    return width - width % 2, height - height % 2, max(1, min(60, fps))


def _split(buf: _U8, width: int, height: int) -> Planes:
    """The Y, U and V planes of a packed yuv420p buffer (as `to_ndarray` gives it)."""
    flat, luma, hw, hh = buf.reshape(-1), width * height, width // 2, height // 2
    return (
        flat[:luma].reshape(height, width),
        flat[luma : luma + hh * hw].reshape(hh, hw),
        flat[luma + hh * hw : luma + 2 * hh * hw].reshape(hh, hw),
    )


def _frames(path: str, width: int, height: int) -> Generator[Planes, None, None]:
    """The source's frames at the output size, decoded one at a time."""
    with av.open(path) as container:
        for frame in container.decode(container.streams.video[0]):
            buf = frame.reformat(width, height, "yuv420p").to_ndarray()
            yield _split(np.ascontiguousarray(buf), width, height)


def _last(path: str, width: int, height: int) -> Planes | None:
    last = None
    for planes in _frames(path, width, height):
        last = tuple(p.copy() for p in planes)
    return last  # type: ignore[return-value]


def _yuv(picture: Image.Image) -> Planes:
    """An RGB picture (even sides) as Y, U and V planes: BT.709, limited range, as the
    renderer's frames."""
    rgb = np.asarray(picture, dtype=np.float32)
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    luma = 16 + (0.1826 * r + 0.6142 * g + 0.0620 * b)
    cb = 128 + (-0.1006 * r - 0.3386 * g + 0.4392 * b)
    cr = 128 + (0.4392 * r - 0.3989 * g - 0.0403 * b)
    return (
        np.clip(luma, 16, 235).astype(np.uint8),
        np.clip(cb[::2, ::2], 16, 240).astype(np.uint8),
        np.clip(cr[::2, ::2], 16, 240).astype(np.uint8),
    )


def _still(path: str, width: int, height: int) -> Planes:
    """An image scaled and cropped to fill the whole frame (as a first or last frame)."""
    return _yuv(ImageOps.fit(_rgb(path), (width, height)))


class _Picture:
    """One reference image, scaled and converted once, pasted into every frame."""

    def __init__(self, path: str, x: int, y: int, side: int) -> None:
        picture = ImageOps.contain(_rgb(path), (side, side))  # scaled up or down to fit
        w, h = picture.width - picture.width % 2, picture.height - picture.height % 2
        self.x, self.y = x - x % 2, y - y % 2
        self.planes = _yuv(picture.crop((0, 0, w, h)))

    def paste(self, planes: Planes) -> None:
        for i, (target, part) in enumerate(zip(planes, self.planes, strict=True)):
            x, y = (self.x, self.y) if i == 0 else (self.x // 2, self.y // 2)
            h = min(part.shape[0], target.shape[0] - y)
            w = min(part.shape[1], target.shape[1] - x)
            if h > 0 and w > 0:
                target[y : y + h, x : x + w] = part[:h, :w]


class InputLayer:
    """The inputs' part of each frame: `paint(index, planes)` after the background."""

    def __init__(
        self,
        width: int,
        height: int,
        fps: int,
        references: Sequence[str] = (),
        source: str | None = None,
        mode: str = "",
        *,
        image: str | None = None,
        end_image: str | None = None,
        count: int = 0,
    ) -> None:
        short = min(width, height)
        side, gap = max(16, short // 4), max(4, short // 40)
        self.pictures = [
            _Picture(path, gap + i * (side + gap), gap, side)
            for i, path in enumerate(references)
            if gap + i * (side + gap) + 16 <= width
        ]
        self.mode = mode
        self.fade = max(1, round(_FADE_SECONDS * fps))
        self._source = _frames(source, width, height) if source and mode == EDIT else None
        self._last = _last(source, width, height) if source and mode == EXTEND else None
        self._first_image = _still(image, width, height) if image else None
        self._end_image = _still(end_image, width, height) if end_image else None
        self.count = count
        self.image_fade = max(1, min(self.fade, count // 2))

    def paint(self, index: int, planes: Planes) -> None:
        if self._source is not None:
            frame = next(self._source, None)
            if frame is not None:
                _mix(planes, frame, _SOURCE_WEIGHT)
        if self._last is not None and index < self.fade:
            _mix(planes, self._last, 1.0 - index / self.fade)
        if self._first_image is not None and index < self.image_fade:
            _mix(planes, self._first_image, 1.0 - index / self.image_fade)
        into_end = index - (self.count - self.image_fade) + 1
        if self._end_image is not None and into_end > 0:
            _mix(planes, self._end_image, into_end / self.image_fade)
        for picture in self.pictures:
            picture.paste(planes)

    def close(self) -> None:
        if self._source is not None:
            self._source.close()


def _mix(planes: Planes, other: Planes, weight: float) -> None:
    """`planes` = weight x `other` + (1 - weight) x `planes`, in place."""
    for target, part in zip(planes, other, strict=True):
        mixed = part.astype(np.float32) * weight + target.astype(np.float32) * (1.0 - weight)
        target[...] = mixed.astype(np.uint8)
