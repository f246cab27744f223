"""Bringing a finished video home: download it (streamed), check it, store it.

Provider URLs expire and are often gated by the provider's key, so every result is copied
into our own storage. The file is checked to be a decodable MP4 with a video stream and is
remuxed (never re-encoded) to `faststart` when its index sits at the end.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from dataclasses import dataclass
from pathlib import Path

import av
import httpx

from vidrouter.providers.base import MalformedResponse, ProviderUnavailable, ResultRef
from vidrouter.storage.video_file import open_video, stream_duration

MAX_VIDEO_BYTES = 2 * 1024**3


@dataclass(frozen=True)
class VideoInfo:
    duration: float
    width: int
    height: int
    codec: str


class ResultFetcher:
    def __init__(self, scratch: Path, client: httpx.AsyncClient) -> None:
        self._scratch = scratch
        self._client = client

    async def to_local_file(self, ref: ResultRef, generation_id: str) -> tuple[Path, bool]:
        """The result as a file on this machine, and whether it is our own temporary copy."""
        if ref.path is not None:
            return ref.path, False
        if ref.url is None:
            raise MalformedResponse("the provider returned no result location")
        await asyncio.to_thread(self._scratch.mkdir, parents=True, exist_ok=True)
        # Named for its generation: a worker starting after a crash asks the store whether
        # anyone still needs it (engine/scratch.py).
        target = self._scratch / f"{generation_id}.{uuid.uuid4().hex[:12]}.mp4"
        try:
            await self._download(ref, target)
        except BaseException:
            await asyncio.to_thread(target.unlink, True)
            raise
        return target, True

    async def _download(self, ref: ResultRef, target: Path) -> None:
        assert ref.url is not None
        try:
            async with self._client.stream("GET", ref.url, headers=dict(ref.headers)) as response:
                if response.status_code >= 500 or response.status_code == 429:
                    raise ProviderUnavailable(
                        f"result download answered {response.status_code}",
                        status_code=response.status_code,
                    )
                if response.status_code >= 400:
                    raise MalformedResponse(
                        f"result download answered {response.status_code}",
                        status_code=response.status_code,
                    )
                size = 0
                with target.open("wb") as handle:
                    async for chunk in response.aiter_bytes(1 << 20):
                        size += len(chunk)
                        if size > MAX_VIDEO_BYTES:
                            raise MalformedResponse("the result is larger than 2 GiB")
                        await asyncio.to_thread(handle.write, chunk)
        except httpx.TimeoutException as exc:
            raise ProviderUnavailable(f"result download timed out: {exc}") from exc
        except httpx.TransportError as exc:
            raise ProviderUnavailable(f"result download failed: {exc}") from exc


async def inspect_and_normalise(path: Path) -> VideoInfo:
    """Check the file is a playable video and make it `faststart`; off the event loop."""
    return await asyncio.to_thread(_inspect_and_normalise, path)


def _inspect_and_normalise(path: Path) -> VideoInfo:
    info = probe(path)
    if not is_faststart(path):
        remux_faststart(path)
    return info


def probe(path: Path) -> VideoInfo:
    """The stream's facts from the container's headers, and its first frame decoded.

    Only the first frame: a header alone does not prove the file plays (a cut-off or zeroed
    `mdat` parses fine), and one frame proves the codec data is there.
    """
    with open_video(
        path,
        MalformedResponse,
        no_stream="the result has no video stream",
        undecodable="the result is not a decodable video",
    ) as (container, stream):
        for _frame in container.decode(stream):
            break
        else:
            raise MalformedResponse("the result has no decodable frame")
        return VideoInfo(
            stream_duration(container, stream),
            stream.codec_context.width,
            stream.codec_context.height,
            stream.codec_context.name,
        )


def is_faststart(path: Path) -> bool:
    """True when the `moov` box comes before `mdat` (players can start before the end)."""
    with path.open("rb") as handle:
        while True:
            header = handle.read(8)
            if len(header) < 8:
                return False
            size = int.from_bytes(header[:4], "big")
            kind = header[4:8]
            if kind == b"moov":
                return True
            if kind == b"mdat":
                return False
            if size == 1:
                size = int.from_bytes(handle.read(8), "big")
                handle.seek(size - 16, os.SEEK_CUR)
            elif size < 8:
                return False
            else:
                handle.seek(size - 8, os.SEEK_CUR)


def remux_faststart(path: Path) -> None:
    partial = path.with_name(path.name + ".remux.mp4")
    with (
        av.open(str(path)) as source,
        av.open(str(partial), "w", format="mp4", options={"movflags": "+faststart"}) as target,
    ):
        mapping = {}
        for stream in source.streams:
            if stream.type in ("video", "audio"):
                mapping[stream.index] = target.add_stream_from_template(stream)
        for packet in source.demux():
            out = mapping.get(packet.stream.index)
            if out is None or packet.dts is None:
                continue
            packet.stream = out
            target.mux(packet)
    os.replace(partial, path)
