"""MP4 clips the tests make: small ones to upload (a source to edit, a character's clip), and
noise that compresses to megabytes a second (a large source to join)."""

from __future__ import annotations

import tempfile
from fractions import Fraction
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


def noise_mp4(
    path: Path,
    frames: int,
    *,
    width: int = 640,
    height: int = 360,
    keyint: int | None = None,
    tone: bool = False,
) -> None:
    """Lossless H.264 noise at 24 fps (about 1 MB a frame at 720p), made fast; `keyint`:
    closed GOPs of that many frames (x264's own choice without); `tone`: a 440 Hz AAC
    stereo track as long as the video."""
    rng = np.random.default_rng(frames)
    with av.open(str(path), "w", format="mp4") as out:
        video = out.add_stream("libx264", rate=24)
        video.width, video.height, video.pix_fmt = width, height, "yuv420p"
        video.options = {"preset": "ultrafast", "qp": "0"}
        if keyint is not None:
            video.options = {**video.options, "x264-params": f"keyint={keyint}:open-gop=0"}
        audio = out.add_stream("aac", rate=48000, layout="stereo") if tone else None
        block = rng.integers(0, 255, (height * 3 // 2, width), dtype=np.uint8)
        for i in range(frames):
            frame = av.VideoFrame.from_ndarray(np.roll(block, i * 7, axis=1), format="yuv420p")
            frame.pts, frame.time_base = i, Fraction(1, 24)
            out.mux(video.encode(frame))
        out.mux(video.encode(None))
        if audio is None:
            return
        total = frames * 2000  # 48000 / 24 samples a frame
        for start in range(0, total, 1024):
            t = np.arange(start, min(total, start + 1024)) / 48000
            wave = (0.5 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)
            sound = av.AudioFrame.from_ndarray(
                np.stack([wave, wave]), format="fltp", layout="stereo"
            )
            sound.sample_rate, sound.pts, sound.time_base = 48000, start, Fraction(1, 48000)
            out.mux(audio.encode(sound))
        out.mux(audio.encode(None))
