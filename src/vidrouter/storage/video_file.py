"""A stored or uploaded MP4 opened with PyAV for a look at it: its first video stream, its
length, a frame of it as an image. What the result check (engine/results.py), the previews
(storage/preview_images.py) and a character's still (engine/still.py) share.

Blocking and CPU-bound: callers run it on a thread. The decoder runs on the calling thread:
FFmpeg's default frame threading starts and joins a thread pool per open, which cost more
than the decode itself (0.85 -> 0.47 ms for a small clip).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import av
from PIL import Image

# Also for the decoders that opening the container runs to fill in the stream parameters.
ONE_THREAD = {"threads": "1"}

Opened = tuple[av.container.InputContainer, av.video.stream.VideoStream]


@contextmanager
def open_video(
    path: Path,
    error: Callable[[str], Exception],
    *,
    no_stream: str = "the video has no video stream",
    undecodable: str = "the video cannot be decoded",
) -> Iterator[Opened]:
    """The container at `path` and its first video stream, decoded on one thread. Raises
    `error(no_stream)` when it has no video stream, and `error` of `undecodable` and FFmpeg's
    words for an FFmpeg error inside the block, the caller's decoding included."""
    try:
        with av.open(str(path), options=ONE_THREAD) as container:
            if not container.streams.video:
                raise error(no_stream)
            stream = container.streams.video[0]
            stream.codec_context.thread_count = 1
            yield container, stream
    except av.error.FFmpegError as exc:
        raise error(f"{undecodable}: {exc}") from exc


def stream_duration(
    container: av.container.InputContainer, stream: av.video.stream.VideoStream
) -> float:
    if stream.duration is not None and stream.time_base is not None:
        return float(stream.duration * stream.time_base)
    if container.duration is not None:
        return container.duration / av.time_base
    return 0.0


def frame_image(frame: av.VideoFrame, side: int) -> Image.Image:
    """The frame as RGB, scaled down (never up) by FFmpeg so that its longer side is at
    most `side`, with even dimensions."""
    scale = min(1.0, side / max(frame.width, frame.height))
    width = max(2, round(frame.width * scale) // 2 * 2)
    height = max(2, round(frame.height * scale) // 2 * 2)
    rgb = frame.reformat(width=width, height=height, format="rgb24")
    return Image.fromarray(rgb.to_ndarray())
