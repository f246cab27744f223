"""One MP4 from two: a source video followed by its extension (a `video-extend` whose
provider returns only the new seconds).

When the two video streams are alike (codec, size, pixel format and codec setup), their
packets are copied into one file, the extension's shifted to start where the source ends:
no re-encoding, no quality lost, and it takes about as long as copying the files. When they
are not, both are decoded and encoded again into the source's size. The sound, if either
has any, is one track re-encoded in step with the video (`engine/join_audio.py`). Either
way packets and frames go through one at a time, so memory stays flat whatever the size of
the source; `faststart` moves the index to the front in a second pass over the file on disk.
Synchronous: run it off the event loop.
"""

from __future__ import annotations

import os
from fractions import Fraction
from pathlib import Path
from typing import Any, Protocol

import av
import av.container
import av.stream
from av.video.stream import VideoStream

from vidrouter.engine.join_audio import AudioTrack

__all__ = ["join_videos", "streams_alike"]

_OPTIONS = {"movflags": "+faststart"}


def join_videos(first: Path, second: Path, out: Path) -> bool:
    """Write `first` then `second` to `out` (replaced atomically), with one sound track in
    step with the video when either has sound (`engine/join_audio.py`); True when it copied
    the video's packets, False when it had to re-encode them."""
    partial = out.with_name(out.name + ".join.mp4")
    try:
        with av.open(str(first)) as a, av.open(str(second)) as b:
            copied = streams_alike(a.streams.video[0], b.streams.video[0])
            with av.open(str(partial), "w", format="mp4", options=_OPTIONS) as target:
                video: _Video = (
                    _CopiedVideo(target, a.streams.video[0])
                    if copied
                    else _EncodedVideo(target, a.streams.video[0])
                )
                audio = AudioTrack.for_parts(target, a, b)
                start = Fraction(0)
                for part in (a, b):
                    start = _part(part, start, video, audio)
                video.close()
                if audio is not None:
                    audio.close()
        os.replace(partial, out)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return copied


def _part(
    part: av.container.InputContainer,
    start: Fraction,
    video: _Video,
    audio: AudioTrack | None,
) -> Fraction:
    """Write one part, its video from `start` (seconds) on, its sound beside it; where it
    ends."""
    vs = part.streams.video[0]
    sound = part.streams.audio[0] if audio is not None and part.streams.audio else None
    video.start(vs, start)
    if audio is not None:
        audio.start(start)
    for packet in part.demux(*(s for s in (vs, sound) if s is not None)):
        if packet.stream.index == vs.index:
            video.add(packet)
        elif audio is not None:
            for frame in packet.decode():
                audio.add(frame)  # type: ignore[arg-type]
        if audio is not None:
            audio.release(video.end)
    end = video.finish()
    if audio is not None:
        audio.end(end)
    return end


def streams_alike(a: VideoStream, b: VideoStream) -> bool:
    """Whether `b`'s packets can follow `a`'s in one stream."""
    ca, cb = a.codec_context, b.codec_context
    return (
        ca.name == cb.name
        and (ca.width, ca.height) == (cb.width, cb.height)
        and ca.format is not None
        and cb.format is not None
        and ca.format.name == cb.format.name
        and bytes(ca.extradata or b"") == bytes(cb.extradata or b"")
    )


class _Video(Protocol):
    end: Fraction  # where the video written so far ends, in seconds

    def start(self, stream: av.video.stream.VideoStream, at: Fraction) -> None: ...

    def add(self, packet: av.Packet[Any]) -> None: ...

    def finish(self) -> Fraction: ...

    def close(self) -> None: ...


class _CopiedVideo:
    """The parts' packets copied, each part's timestamps shifted to start where the
    previous one ended."""

    def __init__(self, target: av.container.OutputContainer, template: VideoStream) -> None:
        self.target = target
        self.stream = target.add_stream_from_template(template)
        self.end = Fraction(0)
        self.shift = 0
        self.first_dts: int | None = None
        self.time_base = Fraction(1)

    def start(self, stream: VideoStream, at: Fraction) -> None:
        assert stream.time_base is not None
        self.time_base = Fraction(stream.time_base)
        self.shift = round(at / self.time_base)
        self.first_dts = None

    def add(self, packet: av.Packet[Any]) -> None:
        if packet.dts is None:
            return
        if self.first_dts is None:
            self.first_dts = packet.dts
        # A later part's timestamps start where the earlier ones end (its first dts at 0).
        offset = self.shift - min(self.first_dts, 0) if self.shift else 0
        packet.dts += offset
        if packet.pts is not None:
            packet.pts += offset
            stop = (packet.pts + (packet.duration or 0)) * self.time_base
            self.end = max(self.end, Fraction(stop))
        packet.stream = self.stream
        self.target.mux(packet)

    def finish(self) -> Fraction:
        return self.end

    def close(self) -> None:
        pass


class _EncodedVideo:
    """The parts' frames decoded and encoded again at the first part's size and rate."""

    def __init__(self, target: av.container.OutputContainer, first: VideoStream) -> None:
        width, height = first.codec_context.width, first.codec_context.height
        self.rate = Fraction(first.average_rate or 24)
        self.target = target
        stream = target.add_stream("libx264", rate=self.rate)
        stream.width, stream.height = width - width % 2, height - height % 2
        stream.pix_fmt = "yuv420p"
        stream.options = {"preset": "veryfast", "crf": "20"}
        self.stream = stream
        self.index = 0
        self.end = Fraction(0)

    def start(self, stream: VideoStream, at: Fraction) -> None:
        pass

    def add(self, packet: av.Packet[Any]) -> None:
        for frame in packet.decode():
            out = frame.reformat(self.stream.width, self.stream.height, "yuv420p")
            out.pts, out.time_base = self.index, 1 / self.rate
            self.index += 1
            self.end = self.index / self.rate
            for encoded in self.stream.encode(out):
                self.target.mux(encoded)

    def finish(self) -> Fraction:
        return self.end

    def close(self) -> None:
        for packet in self.stream.encode(None):
            self.target.mux(packet)
