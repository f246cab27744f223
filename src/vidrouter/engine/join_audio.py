"""The sound of a joined video (`engine/join.py`): one AAC track as long as the video, in
step with it.

Each part's sound is decoded, resampled to one format and placed at its part's start: a part
without sound (the local renderer's, or a provider's silent extension), or a gap inside one,
is filled with silence, and sound running past its part's last frame is cut. So the
extension's first sample plays with its first frame, however the source's track ended. The
sound is encoded again (it is a small part of the file: the video's packets are still
copied), a frame at a time: samples wait only until the video has reached them.
"""

from __future__ import annotations

from fractions import Fraction

import av
import av.container
import numpy as np
import numpy.typing as npt

__all__ = ["AudioTrack"]

_F32 = npt.NDArray[np.float32]
_FORMAT = "fltp"
_FRAME = 1024  # AAC's samples per frame
_TOLERANCE = Fraction(1, 50)  # a gap or overlap shorter than this is jitter, left alone
_HOLD_SECONDS = 30  # at most this much sound waits for the video to reach it


class AudioTrack:
    """The joined sound: `start(part_start)`, then `add` every decoded frame of that part
    and `release` as the video advances, `end(part_end)`; `close` after the last part."""

    def __init__(self, target: av.container.OutputContainer, rate: int, layout: str) -> None:
        self.rate, self.layout = rate, layout
        self.channels = len(av.AudioLayout(layout).channels)
        stream = target.add_stream("aac", rate=rate, layout=layout)
        self.stream = stream
        self.target = target
        self.resampler: av.AudioResampler | None = None
        self.pending: list[_F32] = []  # samples pushed, not yet encoded, in order
        self.pending_samples = 0
        self.pushed = 0  # samples placed on the track (encoded + pending)
        self.encoded = 0
        self.part_start = 0  # the current part's first sample
        self.drop = 0  # samples of the next frames to drop (an overlap)

    @classmethod
    def for_parts(
        cls, target: av.container.OutputContainer, *parts: av.container.InputContainer
    ) -> AudioTrack | None:
        """The track in the format of the first part that has sound; None when none has."""
        for part in parts:
            if part.streams.audio:
                ctx = part.streams.audio[0].codec_context
                layout = "mono" if ctx.channels == 1 else "stereo"
                return cls(target, ctx.sample_rate or 48000, layout)
        return None

    def start(self, seconds: Fraction) -> None:
        self.part_start = round(seconds * self.rate)
        self.resampler = av.AudioResampler(format=_FORMAT, layout=self.layout, rate=self.rate)
        self.drop = 0

    def add(self, frame: av.AudioFrame) -> None:
        """A decoded frame of the current part, placed at its own time in the part."""
        if frame.time is not None:
            where = self.part_start + round(Fraction(frame.time) * self.rate)
            slack = round(_TOLERANCE * self.rate)
            if where > self.pushed + slack:
                self._push(self._silence(where - self.pushed))
            elif where < self.pushed - slack:
                self.drop = self.pushed - where
        assert self.resampler is not None
        frame.pts = None  # the resampler's own clock; placement is ours
        for out in self.resampler.resample(frame):
            self._take(out)

    def release(self, video_seconds: Fraction) -> None:
        """Encode what the video has reached (and what has waited too long)."""
        ready = max(round(video_seconds * self.rate), self.pushed - _HOLD_SECONDS * self.rate)
        self._encode(ready)

    def end(self, seconds: Fraction) -> None:
        """The part ends with its video at `seconds`: silence to there, or cut there."""
        assert self.resampler is not None
        for out in self.resampler.resample(None):
            self._take(out)
        last = round(seconds * self.rate)
        if self.pushed < last:
            self._push(self._silence(last - self.pushed))
        elif self.pushed > last:
            samples = self._pending()[:, : max(0, last - self.encoded)]
            self.pending, self.pending_samples = [samples], samples.shape[1]
            self.pushed = self.encoded + self.pending_samples
        self._encode(last)

    def close(self) -> None:
        if self.pending_samples:
            self._send(self._pending())  # the last frame may be short
        self.pending, self.pending_samples = [], 0
        for packet in self.stream.encode(None):
            self.target.mux(packet)

    def _take(self, frame: av.AudioFrame) -> None:
        samples = np.asarray(frame.to_ndarray(), dtype=np.float32).reshape(self.channels, -1)
        if self.drop:
            cut = min(self.drop, samples.shape[1])
            samples, self.drop = samples[:, cut:], self.drop - cut
        if samples.shape[1]:
            self._push(samples)

    def _push(self, samples: _F32) -> None:
        self.pending.append(samples)
        self.pending_samples += samples.shape[1]
        self.pushed += samples.shape[1]

    def _silence(self, count: int) -> _F32:
        return np.zeros((self.channels, count), dtype=np.float32)

    def _pending(self) -> _F32:
        if not self.pending:
            return self._silence(0)
        return np.concatenate(self.pending, axis=1) if len(self.pending) > 1 else self.pending[0]

    def _encode(self, upto: int) -> None:
        """Encode whole frames of pending samples that lie before sample `upto`."""
        whole = (min(upto, self.pushed) - self.encoded) // _FRAME
        if whole <= 0:
            return
        samples = self._pending()
        count = whole * _FRAME
        rest = samples[:, count:]
        self.pending, self.pending_samples = ([rest] if rest.shape[1] else []), rest.shape[1]
        for i in range(whole):
            self._send(samples[:, i * _FRAME : (i + 1) * _FRAME])

    def _send(self, samples: _F32) -> None:
        frame = av.AudioFrame.from_ndarray(
            np.ascontiguousarray(samples), format=_FORMAT, layout=self.layout
        )
        frame.sample_rate = self.rate
        frame.pts, frame.time_base = self.encoded, Fraction(1, self.rate)
        self.encoded += samples.shape[1]
        for packet in self.stream.encode(frame):
            self.target.mux(packet)
