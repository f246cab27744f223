"""One frame of a video as a JPEG: what a character is given as to a model that takes only
image references. Blocking and CPU-bound: callers run it on a thread."""

from __future__ import annotations

import io
from pathlib import Path

from vidrouter.storage.video_file import frame_image, open_video, stream_duration

# The frame a quarter of the way in (the first is often black or a fade-in), no larger
# than this on its longer side (reference images of providers take up to 4096 or so).
STILL_AT = 0.25
STILL_SIDE = 1280
_MAX_DECODED = 64


class NoStill(Exception):
    """The video has no decodable frame."""


def still_jpeg(video: Path) -> bytes:
    with open_video(video, NoStill) as (container, stream):
        at = stream_duration(container, stream) * STILL_AT
        if stream.time_base is not None and at > 0:
            container.seek(int(at / stream.time_base), stream=stream, backward=True)
        frame = None
        for decoded, frame in enumerate(container.decode(stream), start=1):
            if frame.time is None or frame.time >= at - 1e-3 or decoded >= _MAX_DECODED:
                break
        if frame is None:
            raise NoStill("the video has no decodable frame")
        still = frame_image(frame, STILL_SIDE)
    out = io.BytesIO()
    still.save(out, "JPEG", quality=90)
    return out.getvalue()
