"""The poster and sprite sheet kept beside each stored video (OpenAI's `thumbnail` and
`spritesheet` content variants).

They are made on first request (`ensure`: the signed `thumbnail_url`, or the `thumbnail` /
`spritesheet` content variants), never when the video is stored: decoding frames and
encoding two images costs ~16 ms of CPU, the largest single item of a generation's
lifecycle, for images most videos are never asked for. Once made they are stored
beside the video and served like it. Their keys follow from the video's
(`domain.media.preview_key`): no record changes, and a process killed while making them
leaves nothing that the next request does not make again.

The decoding is CPU-bound and runs on a thread, at most `concurrency` at a time (a console
listing many posters at once queues them, it does not take every core); requests for the
same video while one is being made wait for that one.
"""

from __future__ import annotations

import asyncio
import logging
import os
import uuid
from pathlib import Path

from vidrouter.domain.media import PREVIEW_VARIANTS, PreviewVariant, preview_key, preview_keys
from vidrouter.storage.base import BlobStorage
from vidrouter.storage.preview_images import PreviewError, PreviewImages, render_previews

log = logging.getLogger(__name__)


class Previews:
    def __init__(self, storage: BlobStorage, scratch: Path, *, concurrency: int = 2) -> None:
        """`scratch`: where a video in a remote store is copied to be decoded, and the images
        are written before they are stored. Their names carry no generation id, so the
        start-up sweep (engine/scratch.py) removes what a killed process left only once
        nobody has written to it for a while, never a file in use."""
        self._storage = storage
        self._scratch = scratch
        self._slots = asyncio.Semaphore(concurrency)
        self._making: dict[str, asyncio.Task[bool]] = {}

    async def ensure(self, video_key: str, variant: PreviewVariant) -> str | None:
        """The key of the video's preview once it is stored (made now when missing); None
        when the video itself is gone or cannot be decoded."""
        key = preview_key(video_key, variant)
        if await self._storage.stat(key) is not None:
            return key
        making = self._making.get(video_key)
        if making is None:
            making = asyncio.ensure_future(self._make(video_key))
            self._making[video_key] = making
            making.add_done_callback(lambda _: self._making.pop(video_key, None))
        # Shielded: one caller going away does not cancel the others' wait.
        return key if await asyncio.shield(making) else None

    async def _make(self, video_key: str) -> bool:
        info = await self._storage.stat(video_key)
        if info is None:
            return False
        local = self._storage.local_path(video_key)
        source = local if local is not None else await self._copy_here(video_key, info.size)
        try:
            await self._make_from(video_key, source)
        except PreviewError as exc:  # a store that fails raises: the request answers 503
            log.warning(
                "previews_not_made", extra={"video_key": video_key, "error": str(exc)[:200]}
            )
            return False
        finally:
            if local is None:
                await asyncio.to_thread(source.unlink, True)
        log.info("previews_made_on_request", extra={"video_key": video_key})
        return True

    async def _make_from(self, video_key: str, video: Path) -> None:
        async with self._slots:
            images = await asyncio.to_thread(render_previews, video)
        await self._put(video_key, images)

    async def _copy_here(self, video_key: str, size: int) -> Path:
        """A remote store's video streamed to a scratch file (never whole in memory)."""
        target = await self._scratch_file("mp4")
        try:
            with target.open("wb") as handle:
                async for chunk in self._storage.read(video_key, 0, size):
                    await asyncio.to_thread(handle.write, chunk)
        except BaseException:
            await asyncio.to_thread(target.unlink, True)
            raise
        return target

    async def _put(self, video_key: str, images: PreviewImages) -> None:
        data = {"thumbnail": images.thumbnail, "spritesheet": images.spritesheet}
        for variant in PREVIEW_VARIANTS:
            path = await self._scratch_file(f"mp4.{variant}")
            try:
                await asyncio.to_thread(path.write_bytes, data[variant])
                await self._storage.put_file(preview_key(video_key, variant), path)
            finally:
                await asyncio.to_thread(path.unlink, True)

    async def _scratch_file(self, suffix: str) -> Path:
        await asyncio.to_thread(self._scratch.mkdir, parents=True, exist_ok=True)
        return self._scratch / f"preview-{os.getpid()}-{uuid.uuid4().hex}.{suffix}"


async def delete_video(storage: BlobStorage, video_key: str) -> None:
    """The video and its previews (those it has: deleting a missing blob is no error)."""
    for key in (video_key, *preview_keys(video_key)):
        await storage.delete(key)
