"""One frame of a video as a JPEG: what a character is given as to a model that takes only
image references. Blocking and CPU-bound: callers run it on a thread."""

from __future__ import annotations

import io
from pathlib import Path

import av
from PIL import Image

from vidrouter.storage.preview_images import ONE_THREAD, stream_duration

# The frame a quarter of the way in (the first is often black or a fade-in), no larger
# than this on its longer side (reference images of providers take up to 4096 or so).
STILL_AT = 0.25
STILL_SIDE = 1280
_MAX_DECODED = 64


class NoStill(Exception):
    """The video has no decodable frame."""


def still_jpeg(video: Path) -> bytes:
    try:
        with av.open(str(video), options=ONE_THREAD) as container:
            if not container.streams.video:
                raise NoStill("the video has no video stream")
            stream = container.streams.video[0]
            stream.codec_context.thread_count = 1
            at = stream_duration(container, stream) * STILL_AT
            if stream.time_base is not None and at > 0:
                container.seek(int(at / stream.time_base), stream=stream, backward=True)
            frame = None
            for decoded, frame in enumerate(container.decode(stream), start=1):
                if frame.time is None or frame.time >= at - 1e-3 or decoded >= _MAX_DECODED:
                    break
            if frame is None:
                raise NoStill("the video has no decodable frame")
            scale = min(1.0, STILL_SIDE / max(frame.width, frame.height))
            width = max(2, round(frame.width * scale) // 2 * 2)
            height = max(2, round(frame.height * scale) // 2 * 2)
            rgb = frame.reformat(width=width, height=height, format="rgb24").to_ndarray()
    except av.error.FFmpegError as exc:
        raise NoStill(f"the video cannot be decoded: {exc}") from exc
    out = io.BytesIO()
    Image.fromarray(rgb).save(out, "JPEG", quality=90)
    return out.getvalue()
