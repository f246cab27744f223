"""Input images: fetched once through the outbound guard (or decoded from a data: URI),
checked, and kept in our storage before any provider sees them.

Providers then get our copy as a signed URL on our content host when that host is
reachable from the internet, so they never fetch the user's URL themselves and every retry
and failover sends the same bytes. When it is not (a loopback VIDROUTER_PUBLIC_URL, as in
development), they get the user's URL as given (already checked and fetched by us once) or
the data: URI.
"""

from __future__ import annotations

import asyncio
import tempfile
from datetime import datetime
from pathlib import Path

from vidrouter.domain.media import IMAGE_EXTENSIONS, MEDIA_TYPES
from vidrouter.providers.images import load_image, to_data_uri
from vidrouter.storage.base import BlobStorage, read_all
from vidrouter.storage.signing import UrlSigner

_EXTENSIONS = IMAGE_EXTENSIONS
_MIMES = MEDIA_TYPES


class InputImages:
    def __init__(
        self,
        storage: BlobStorage,
        signer: UrlSigner,
        *,
        allow_private: bool,
        publicly_reachable: bool,
    ) -> None:
        self._storage = storage
        self._signer = signer
        self._allow_private = allow_private
        self._public = publicly_reachable

    async def for_provider(self, generation_id: str, image_url: str, now: datetime) -> str:
        """The image as providers get it; raises InvalidInput / ProviderUnavailable."""
        stored = await self._stored(generation_id)
        if stored is None:
            data, mime = await load_image(image_url, allow_private=self._allow_private)
            key = f"inputs/{generation_id}.{_EXTENSIONS[mime]}"
            await self._put(key, data)
            stored = key
        if self._public:
            return self._signer.sign(stored, now)
        if not image_url.startswith("data:"):
            return image_url
        data = await read_all(self._storage, stored)
        return to_data_uri(data, _MIMES[stored.rsplit(".", 1)[1]])

    async def _stored(self, generation_id: str) -> str | None:
        for ext in _MIMES:
            key = f"inputs/{generation_id}.{ext}"
            if await self._storage.stat(key) is not None:
                return key
        return None

    async def _put(self, key: str, data: bytes) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "image"
            await asyncio.to_thread(path.write_bytes, data)
            await self._storage.put_file(key, path)
