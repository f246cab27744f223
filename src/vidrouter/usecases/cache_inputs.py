"""The content hash of each input of a create, for its cache key (domain/cache_key.py).

- `image_url` and `end_image_url` are fetched (or decoded) and kept now, only when the
  request asks for the cache: the engine then sends those very bytes. A request with images
  that does not ask for the cache has no key (it is no cache source).
- References and a source video given by URL were kept at accept (engine/kept_inputs.py),
  which noted the SHA-256 of the kept bytes.
- A source named by `video.generation_id` counts by the SHA-256 of that generation's stored
  video, read from the storage (off the event loop). A stored video is written once under
  its key, so the hash is remembered per key, size and etag: extending the same video again
  reads nothing.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections import OrderedDict

from vidrouter.domain.cache_key import IMAGE_INPUTS, InputHashes, content_hash, image_of
from vidrouter.domain.create_request import CreateRequest
from vidrouter.domain.errors import InvalidRequest
from vidrouter.engine.inputs import keep_input
from vidrouter.engine.kept_inputs import file_sha256
from vidrouter.providers.base import InvalidInput, ProviderError
from vidrouter.storage.base import BlobStorage

log = logging.getLogger(__name__)

REMEMBERED = 1024  # stored videos whose hash one process remembers


class InputHasher:
    def __init__(self, storage: BlobStorage, *, allow_private: bool) -> None:
        self._storage = storage
        self._allow_private = allow_private
        self._videos: OrderedDict[tuple[str, int, str], str] = OrderedDict()

    async def hashes(
        self, generation_id: str, req: CreateRequest, *, fetch: bool
    ) -> InputHashes | None:
        """The hash of each input of `req` (its references and source kept already); None
        when one cannot be had now (an image without `fetch`, an unreachable one, a source
        video gone from the storage): the request then has no cache key."""
        images: dict[str, str] = {}
        for name in IMAGE_INPUTS:
            url = image_of(req, name)
            if url is None:
                continue
            if not fetch:
                return None
            digest = await self._image(generation_id, name, url)
            if digest is None:
                return None
            images[name] = digest
        references = tuple(r.sha256 for r in req.references)
        if not all(references):
            return None  # not kept (no keeper): no key
        video = None
        if req.video is not None:
            video = req.video.sha256
            if video is None and req.video.generation_id is not None and req.video.key:
                video = await self.stored_video(req.video.key)
            if video is None:
                return None
        return InputHashes(images, tuple(r for r in references if r), video)

    async def _image(self, generation_id: str, name: str, url: str) -> str | None:
        kept_as = generation_id if name == "image_url" else f"{generation_id}-end"
        try:
            _, data = await keep_input(
                self._storage, kept_as, url, allow_private=self._allow_private
            )
        except InvalidInput as exc:
            raise InvalidRequest(
                f"{name}: {exc.message}", code="invalid_input", param=name
            ) from None
        except ProviderError:
            log.info("cache_input_unreachable", extra={"generation_id": generation_id})
            return None  # the engine tries again later; this one is not cached
        return await asyncio.to_thread(content_hash, data)

    async def stored_video(self, key: str) -> str | None:
        """The SHA-256 of a stored video; None when it is gone."""
        info = await self._storage.stat(key)
        if info is None:
            return None
        memo = (key, info.size, info.etag)
        known = self._videos.get(memo)
        if known is not None:
            self._videos.move_to_end(memo)
            return known
        local = self._storage.local_path(key)
        try:
            if local is not None:
                digest = await asyncio.to_thread(file_sha256, local)
            else:
                digest = await self._streamed(key, info.size)
        except FileNotFoundError:
            return None
        self._videos[memo] = digest
        while len(self._videos) > REMEMBERED:
            self._videos.popitem(last=False)
        return digest

    async def _streamed(self, key: str, size: int) -> str:
        h = hashlib.sha256()
        async for chunk in self._storage.read(key, 0, size):
            await asyncio.to_thread(h.update, chunk)
        return h.hexdigest()
