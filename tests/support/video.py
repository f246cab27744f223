"""Decode what the service returns, to prove it is a real, playable video."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import av


@dataclass(frozen=True)
class Decoded:
    codec: str
    width: int
    height: int
    frames: int
    duration: float
    pix_fmt: str


def decode(data: bytes, tmp: Path) -> Decoded:
    path = tmp / "decoded.mp4"
    path.write_bytes(data)
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        frames = sum(1 for _ in container.decode(stream))
        duration = float(stream.duration * stream.time_base) if stream.duration else 0.0
        return Decoded(
            stream.codec_context.name,
            stream.codec_context.width,
            stream.codec_context.height,
            frames,
            duration,
            stream.codec_context.pix_fmt or "",
        )


def moov_before_mdat(data: bytes) -> bool:
    offset = 0
    while offset + 8 <= len(data):
        size = int.from_bytes(data[offset : offset + 4], "big")
        kind = data[offset + 4 : offset + 8]
        if kind == b"moov":
            return True
        if kind == b"mdat":
            return False
        if size == 1:
            size = int.from_bytes(data[offset + 8 : offset + 16], "big")
        if size < 8:
            return False
        offset += size
    return False
