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

from vidrouter.domain.catalog import Route
from vidrouter.domain.generation import Generation
from vidrouter.domain.inputs import VIDEO_EXTEND, SourceVideo, fetchable
from vidrouter.domain.media import IMAGE_EXTENSIONS, MEDIA_TYPES, media_type_of
from vidrouter.engine.join import join_videos
from vidrouter.engine.results import VideoInfo, inspect_and_normalise
from vidrouter.providers.base import ProviderJob, ProviderMedia, ProviderSource
from vidrouter.providers.images import load_image, to_data_uri
from vidrouter.storage.base import BlobStorage, copy_to_file, read_all
from vidrouter.storage.signing import UrlSigner

_EXTENSIONS = IMAGE_EXTENSIONS
# A route's catalog option saying what its extensions return: "added" (the default: only
# the new seconds, which the engine joins after the source) or "whole" (source included).
EXTENSION_RETURNS = "extension_returns"


async def route_inputs(
    inputs: InputImages | None, g: Generation, route: Route, now: datetime
) -> tuple[tuple[ProviderMedia, ...], ProviderSource | None]:
    """`InputImages.for_route`, nothing without inputs."""
    return ((), None) if inputs is None else await inputs.for_route(g, route, now)


async def kept_file(
    inputs: InputImages | None, g: Generation, name: str | None, route: Route
) -> Path | None:
    """The input image kept as `name` as a file on this machine, or None: the storage's own
    file on local disk; on object storage, a copy for a route that reads files here."""
    if inputs is None or name is None:
        return None
    on_disk = reads_files(route)
    if inputs.storage.local_path(f"inputs/{name}") is None and not on_disk:
        return None  # object storage and a route that takes URLs: no need to look
    key = await stored_input(inputs.storage, name)
    return None if key is None else await inputs.on_disk(g.id, key, on_disk)


def reads_files(route: Route) -> bool:
    """Whether the route's adapter reads its inputs as files on this machine (the local
    renderer): on object storage it gets copies in the work directory."""
    return "file" in (route.inputs.receives or ())


async def stored_result(
    inputs: InputImages | None, g: Generation, route: Route, path: Path
) -> tuple[VideoInfo, float]:
    """The result at `path` checked to play and made faststart, and for an extension whose
    route returns only the new seconds, joined after its source (`engine/join.py`): the
    video's facts, and the seconds the provider made (what it bills for)."""
    info = await inspect_and_normalise(path)
    made = info.duration
    whole = route.options.get(EXTENSION_RETURNS) == "whole"
    if inputs is not None and g.type == VIDEO_EXTEND and not whole and g.video is not None:
        info = await inputs.joined(g.video, path)
    return info, made


_MIMES = MEDIA_TYPES


class InputImages:
    def __init__(
        self,
        storage: BlobStorage,
        signer: UrlSigner,
        *,
        allow_private: bool,
        publicly_reachable: bool,
        copies: Path | None = None,
    ) -> None:
        # Where kept inputs are copied for a route that reads files while the storage is
        # object storage: each named for the generation that reads it, so the scratch
        # sweep (engine/scratch.py) knows whose it is once a crash left it.
        self._copies = copies
        self._storage = storage
        self._signer = signer
        self._allow_private = allow_private
        self._public = publicly_reachable

    @property
    def storage(self) -> BlobStorage:
        return self._storage

    async def for_provider(self, generation_id: str, image_url: str, now: datetime) -> str:
        """The image as providers get it; raises InvalidInput / ProviderUnavailable."""
        stored = await stored_input(self._storage, generation_id)
        if stored is None:
            stored, _ = await keep_input(
                self._storage, generation_id, image_url, allow_private=self._allow_private
            )
        if self._public:
            return self._signer.sign(stored, now)
        if not image_url.startswith("data:"):
            return image_url
        data = await read_all(self._storage, stored)
        return to_data_uri(data, _MIMES[stored.rsplit(".", 1)[1]])

    async def for_route(
        self, g: Generation, route: Route, now: datetime
    ) -> tuple[tuple[ProviderMedia, ...], ProviderSource | None]:
        """The generation's references and source as the route gets them (the source's job
        too when this route made it: what providers that extend their own output take)."""
        copy_for = g.id if reads_files(route) else None
        references = tuple(
            [await self.media(r.kind, r.key, r.url, now, copy_for) for r in g.references if r.key]
        )
        video = g.video
        if video is None or video.key is None:
            return references, None
        job = None
        if video.route == route.key and video.provider_job_id is not None:
            job = ProviderJob(video.provider_job_id, dict(video.job_data or {}))
        media = await self.media("video", video.key, video.url, now, copy_for)
        return references, ProviderSource(media, video.seconds or 0.0, job)

    async def on_disk(self, owner: str, key: str, wanted: bool = True) -> Path | None:
        """The blob `key` as a file on this machine: the storage's own on local disk; on
        object storage (when `wanted`) a copy for generation `owner`, streamed once and
        kept until that generation ends (`drop_copies`), so a render started again reads
        it too. None when neither."""
        path = self._storage.local_path(key)
        if path is not None or not wanted or self._copies is None:
            return path
        copy = self._copies / f"{owner}-{key.replace('/', '-')}"
        if not await asyncio.to_thread(copy.is_file):
            # Written aside and renamed: a copy cut short by a kill is never read as whole.
            part = copy.with_name(copy.name + ".part")
            await asyncio.to_thread(self._copies.mkdir, parents=True, exist_ok=True)
            await copy_to_file(self._storage, key, part)
            await asyncio.to_thread(part.replace, copy)
        return copy

    async def drop_copies(self, owner: str) -> None:
        """The copies made for generation `owner` (`on_disk`), once it has ended."""
        if self._copies is not None:
            await asyncio.to_thread(_remove_copies, self._copies, owner)

    async def joined(self, source: SourceVideo, path: Path) -> VideoInfo:
        """`path` replaced by the source followed by it, streamed (`engine/join.py`)."""
        assert source.key is not None
        local = self._storage.local_path(source.key)
        with tempfile.TemporaryDirectory() as tmp:
            if local is None:  # object storage: a copy on this machine's disk first
                local = Path(tmp) / "source.mp4"
                await copy_to_file(self._storage, source.key, local)
            await asyncio.to_thread(join_videos, local, path, path)
        return await inspect_and_normalise(path)

    async def media(
        self, kind: str, key: str, given: str | None, now: datetime, copy_for: str | None = None
    ) -> ProviderMedia:
        """A reference or source kept at accept (`engine/kept_inputs.py`) as providers get
        it (`ProviderMedia`): our signed copy where our host is public, else the user's own
        http(s) URL (`given`; a data: URI, an upload or a character has none), else (an image) a data: URI of our copy; else a signed URL of
        this host, not reachable from outside, which only an adapter that reads `path` or
        uploads it can use. `copy_for`: the generation a route that reads files is given a
        copy for (`on_disk`) when the storage keeps none on this machine."""
        mime = media_type_of(key)
        path = await self.on_disk(copy_for or "", key, copy_for is not None)
        if self._public:
            return ProviderMedia(kind, self._signer.sign(key, now), mime, path)
        if fetchable(given):
            return ProviderMedia(kind, given, mime, path)
        if kind == "image":
            data = await read_all(self._storage, key)
            return ProviderMedia(kind, to_data_uri(data, mime), mime, path, reachable=False)
        return ProviderMedia(kind, self._signer.sign(key, now), mime, path, reachable=False)


async def keep_input(
    storage: BlobStorage, name: str, image_url: str, *, allow_private: bool
) -> tuple[str, bytes]:
    """Fetch (or decode) an input image, check it and keep it as `inputs/<name>.<ext>`: its
    storage key and bytes. Raises InvalidInput / ProviderUnavailable. A create that asks for
    the cache keeps its images at accept (their content is part of the cache key), and the
    engine then sends those very bytes."""
    data, mime = await load_image(image_url, allow_private=allow_private)
    key = f"inputs/{name}.{_EXTENSIONS[mime]}"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "image"
        await asyncio.to_thread(path.write_bytes, data)
        await storage.put_file(key, path)
    return key, data


def _remove_copies(directory: Path, owner: str) -> None:
    if directory.is_dir():
        for path in directory.glob(f"{owner}-*"):
            path.unlink(missing_ok=True)


async def stored_input(storage: BlobStorage, name: str) -> str | None:
    for ext in _MIMES:
        key = f"inputs/{name}.{ext}"
        if await storage.stat(key) is not None:
            return key
    return None
