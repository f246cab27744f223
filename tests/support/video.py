"""Decode what the service returns, to prove it is a real, playable video."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import av
import numpy as np
import numpy.typing as npt


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
        duration = (
            float(stream.duration * stream.time_base)
            if stream.duration and stream.time_base
            else 0.0
        )
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


def frame_rgb(data: bytes, tmp: Path, index: int = 0) -> npt.NDArray[np.uint8]:
    """The video's frame `index` (-1: the last) as RGB pixels, rows x columns x 3."""
    path = tmp / "frame.mp4"
    path.write_bytes(data)
    with av.open(str(path)) as container:
        frames = container.decode(container.streams.video[0])
        if index >= 0:
            for i, frame in enumerate(frames):
                if i == index:
                    return np.asarray(frame.to_ndarray(format="rgb24"), dtype=np.uint8)
            raise IndexError(index)
        last = None
        for frame in frames:
            last = frame
        assert last is not None
        return np.asarray(last.to_ndarray(format="rgb24"), dtype=np.uint8)


def clear_rgb(pixels: npt.NDArray[np.uint8]) -> tuple[float, float, float]:
    """The mean colour of a patch of the local renderer's frame that nothing covers: above
    its title (in the middle), right of its reference pictures (top left), far from its bar
    and timecode (at the bottom)."""
    h, w = pixels.shape[:2]
    patch = pixels[h // 8 : h // 4, 2 * w // 3 : 5 * w // 6].reshape(-1, 3).mean(axis=0)
    return float(patch[0]), float(patch[1]), float(patch[2])


def near(got: tuple[float, float, float], want: tuple[int, int, int]) -> bool:
    """Each channel of `got` within 30 of `want`'s (a colour through H.264 and back)."""
    return all(abs(g - w) < 30 for g, w in zip(got, want, strict=True))


def reference_rgb(pixels: npt.NDArray[np.uint8]) -> tuple[float, float, float]:
    """The mean colour inside the local renderer's first reference picture (top left)."""
    short = min(pixels.shape[:2])
    gap, side = max(4, short // 40), max(16, short // 4)
    patch = pixels[gap + 4 : gap + side - 4, gap + 4 : gap + side - 4].reshape(-1, 3).mean(axis=0)
    return float(patch[0]), float(patch[1]), float(patch[2])


def clip_with_sound(
    path: Path,
    seconds: float,
    tone: float | None,
    *,
    width: int = 160,
    height: int = 96,
    fps: int = 24,
    rate: int = 48000,
    sound_seconds: float | None = None,
) -> None:
    """An H.264 MP4 of grey frames with, unless `tone` is None, an AAC sine of `tone` Hz
    (stereo, `sound_seconds` long: the video's length unless given)."""
    from fractions import Fraction

    with av.open(str(path), "w", format="mp4") as out:
        video = out.add_stream("libx264", rate=fps)
        video.width, video.height, video.pix_fmt = width, height, "yuv420p"
        video.options = {"preset": "ultrafast"}
        audio = out.add_stream("aac", rate=rate, layout="stereo") if tone is not None else None
        grey = np.full((height * 3 // 2, width), 128, dtype=np.uint8)
        for i in range(round(seconds * fps)):
            frame = av.VideoFrame.from_ndarray(grey, format="yuv420p")
            frame.pts, frame.time_base = i, Fraction(1, fps)
            for packet in video.encode(frame):
                out.mux(packet)
        for packet in video.encode(None):
            out.mux(packet)
        if audio is None or tone is None:
            return
        total = round((sound_seconds if sound_seconds is not None else seconds) * rate)
        for start in range(0, total, 1024):
            n = min(1024, total - start)
            t = (np.arange(start, start + n) / rate).astype(np.float32)
            wave = (0.5 * np.sin(2 * np.pi * tone * t)).astype(np.float32)
            sound = av.AudioFrame.from_ndarray(
                np.stack([wave, wave]), format="fltp", layout="stereo"
            )
            sound.sample_rate, sound.pts, sound.time_base = rate, start, Fraction(1, rate)
            for packet in audio.encode(sound):
                out.mux(packet)
        for packet in audio.encode(None):
            out.mux(packet)


def sound_of(path: Path) -> tuple[int, npt.NDArray[np.float32], float]:
    """The file's sound decoded: its rate, its first channel's samples placed at their
    times (from 0), and its video's length in seconds."""
    with av.open(str(path)) as container:
        stream = container.streams.audio[0]
        rate = stream.codec_context.sample_rate
        chunks: list[npt.NDArray[np.float32]] = []
        start: float | None = None
        for frame in container.decode(stream):
            if start is None:
                start = float(frame.time or 0.0)
            chunks.append(np.asarray(frame.to_ndarray()[0], dtype=np.float32))
    with av.open(str(path)) as container:
        vs = container.streams.video[0]
        ends = [
            float((p.pts + (p.duration or 0)) * p.time_base)
            for p in container.demux(vs)
            if p.pts is not None and p.time_base is not None
        ]
    offset = round((start or 0.0) * rate)
    samples = np.concatenate([np.zeros(max(0, offset), dtype=np.float32), *chunks])
    return rate, samples[max(0, -offset) :], max(ends)


def tone_at(rate: int, samples: npt.NDArray[np.float32], at: float, span: float = 0.2) -> float:
    """The loudest frequency (Hz) of the `span` seconds from `at`; 0 for silence."""
    part = samples[round(at * rate) : round((at + span) * rate)]
    if part.size == 0 or float(np.abs(part).max()) < 0.01:
        return 0.0
    spectrum = np.abs(np.fft.rfft(part * np.hanning(part.size)))
    return float(np.argmax(spectrum) * rate / part.size)
