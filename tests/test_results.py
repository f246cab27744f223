"""Results brought home: a provider's MP4 whose index sits at the end is remuxed to
faststart without re-encoding; a file that is not a video is refused."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import av
import numpy as np
import pytest

from tests.support.video import decode, moov_before_mdat
from vidrouter.engine.results import inspect_and_normalise, is_faststart
from vidrouter.providers.base import MalformedResponse


def _mp4_without_faststart(path: Path, frames: int = 24) -> None:
    with av.open(str(path), "w", format="mp4") as out:
        stream = out.add_stream("libx264", rate=24)
        stream.width, stream.height, stream.pix_fmt = 160, 96, "yuv420p"
        stream.time_base = Fraction(1, 24)
        for i in range(frames):
            data = np.full((96, 160, 3), i * 8 % 255, dtype=np.uint8)
            frame = av.VideoFrame.from_ndarray(data, format="rgb24")
            frame.pts = i
            for packet in stream.encode(frame):
                out.mux(packet)
        for packet in stream.encode():
            out.mux(packet)


async def test_index_at_the_end_is_moved_to_the_front(tmp_path: Path) -> None:
    path = tmp_path / "late.mp4"
    _mp4_without_faststart(path)
    assert not is_faststart(path)
    before = decode(path.read_bytes(), tmp_path)
    info = await inspect_and_normalise(path)
    assert is_faststart(path) and moov_before_mdat(path.read_bytes())
    after = decode(path.read_bytes(), tmp_path)
    assert (info.width, info.height, info.codec) == (160, 96, "h264")
    assert after.frames == before.frames == 24
    assert abs(info.duration - 1.0) < 0.05


async def test_not_a_video_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "page.mp4"
    path.write_bytes(b"<html>an error page from a CDN</html>")
    with pytest.raises(MalformedResponse):
        await inspect_and_normalise(path)


@pytest.mark.parametrize("damage", ["cut_in_half", "frames_zeroed"])
async def test_a_damaged_video_with_intact_headers_is_refused(tmp_path: Path, damage: str) -> None:
    # The headers parse in both cases: only decoding the first frame shows the damage.
    path = tmp_path / "video.mp4"
    _mp4_without_faststart(path)
    await inspect_and_normalise(path)
    data = path.read_bytes()
    start = data.index(b"mdat") + 4
    if damage == "cut_in_half":
        data = data[: (start + len(data)) // 2]
    else:
        data = data[:start] + bytes(len(data) - start)
    path.write_bytes(data)
    with pytest.raises(MalformedResponse, match="decodable"):
        await inspect_and_normalise(path)
