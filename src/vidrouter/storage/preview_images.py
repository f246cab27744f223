"""A video's poster (WebP) and sprite sheet (JPEG), from a few frames found by seeking.

Blocking and CPU-bound: callers run it on a thread. Memory stays bounded whatever the
video's length: for each tile the demuxer seeks to the keyframe before its time and decodes
forward to it (at most `_MAX_DECODED` frames, so a video with sparse keyframes costs a
bounded decode too); each frame is shrunk to its tile at once, and only the tiles and the
poster are kept.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

import av
from PIL import Image

from vidrouter.storage.video_file import frame_image, open_video, stream_duration

# The sprite sheet: COLUMNS x ROWS tiles at even steps through the video, each fitting a
# TILE_SIDE square with the video's aspect ratio.
COLUMNS = 5
ROWS = 2
TILE_SIDE = 256
# The poster: the frame a quarter of the way in (the first is often black or a fade-in),
# no larger than POSTER_SIDE on its longer side.
POSTER_AT = 0.25
POSTER_SIDE = 1280
_MAX_DECODED = 64


class PreviewError(Exception):
    """The video has no decodable frame to make a preview of."""


@dataclass(frozen=True)
class PreviewImages:
    thumbnail: bytes  # WebP
    spritesheet: bytes  # JPEG


def render_previews(video: Path) -> PreviewImages:
    """Blocking: the poster and the sprite sheet of the MP4 at `video`."""
    with open_video(video, PreviewError) as (container, stream):
        duration = stream_duration(container, stream)
        # Frame times count from the stream's start, which need not be zero.
        base = stream.time_base
        start = float(stream.start_time * base) if stream.start_time and base else 0.0
        tiles = COLUMNS * ROWS
        times = [start + duration * (i + 0.5) / tiles for i in range(tiles)]
        poster_at = start + duration * POSTER_AT
        # The poster's frame is decoded in the pass that passes its time.
        poster: Image.Image | None = None
        tile_images: list[Image.Image] = []
        for at in times:
            if poster is None and at >= poster_at:
                poster = frame_image(_frame_at(container, stream, poster_at), POSTER_SIDE)
            tile_images.append(frame_image(_frame_at(container, stream, at), TILE_SIDE))
        if poster is None:
            poster = frame_image(_frame_at(container, stream, poster_at), POSTER_SIDE)
    return PreviewImages(_encode(poster, "WEBP"), _encode(_sheet(tile_images), "JPEG"))


def _frame_at(
    container: av.container.InputContainer, stream: av.video.stream.VideoStream, at: float
) -> av.VideoFrame:
    """The first frame shown at or after `at` seconds (the last one before the end when
    none is)."""
    if stream.time_base is not None:
        container.seek(int(at / stream.time_base), stream=stream, backward=True)
    last: av.VideoFrame | None = None
    for decoded, frame in enumerate(container.decode(stream), start=1):
        last = frame
        if frame.time is None or frame.time >= at - 1e-3 or decoded >= _MAX_DECODED:
            break
    if last is None:
        raise PreviewError("the video has no decodable frame")
    return last


def _sheet(tiles: list[Image.Image]) -> Image.Image:
    width, height = tiles[0].size
    sheet = Image.new("RGB", (width * COLUMNS, height * ROWS))
    for index, tile in enumerate(tiles):
        if tile.size != (width, height):
            tile = tile.resize((width, height))
        sheet.paste(tile, ((index % COLUMNS) * width, (index // COLUMNS) * height))
    return sheet


def _encode(image: Image.Image, kind: str) -> bytes:
    out = io.BytesIO()
    image.save(out, kind, quality=80)
    return out.getvalue()
