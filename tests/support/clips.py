"""Small MP4 clips the tests upload (a source to edit, a character's clip)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import av
import numpy as np

RED = (230, 20, 20)


def solid_mp4(
    rgb: tuple[int, int, int] = RED, seconds: float = 1.0, size: tuple[int, int] = (128, 72)
) -> bytes:
    """An H.264 MP4 of one colour, at 24 fps."""
    width, height = size
    frame = np.zeros((height, width, 3), dtype=np.uint8)
    frame[:, :] = rgb
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "clip.mp4"
        with av.open(str(path), "w") as container:
            stream = container.add_stream("libx264", rate=24)
            stream.width, stream.height, stream.pix_fmt = width, height, "yuv420p"
            for _ in range(max(1, round(seconds * 24))):
                container.mux(stream.encode(av.VideoFrame.from_ndarray(frame, format="rgb24")))
            container.mux(stream.encode(None))
        return path.read_bytes()
