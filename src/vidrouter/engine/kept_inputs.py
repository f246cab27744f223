"""A create's media inputs, fetched and kept when it is accepted: each reference and the
source video, through the outbound guard (or decoded from a data: URI), checked to be what
it claims, and stored under `inputs/<generation id>-...` before the generation exists. So a
generation never waits on a user's server, every retry and failover sends the same bytes,
and a bad input is a 400 at create, not a failure at a provider.

A source named by `generation_id` must be a completed generation of the same account
(another account's is a 404, an unfinished one a 409); its stored video is used as it is.
A source URL is downloaded to a file as it arrives (never whole in memory), within the
model's `max_source_mb` (else 512 MiB), and must be an MP4 of at most `max_source_seconds`;
a source uploaded with the request (OpenAI's edits and extensions) is held to the same
(`keep_upload`). A character reference is a copy of the account's character's video, or of
its frame where the model takes it as an image (`create_inputs.character_kind`); another
account's character is a 404.
Each kept file's SHA-256 is noted on its reference or source (the cache of identical
requests compares inputs by their content: usecases/cache.py).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import hashlib
import logging
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from vidrouter.domain.catalog import ListedModel
from vidrouter.domain.create_request import CreateRequest
from vidrouter.domain.errors import Conflict, InvalidRequest, NotFound, StorageUnavailable
from vidrouter.domain.generation import Status
from vidrouter.domain.inputs import Reference, SourceVideo
from vidrouter.domain.media import IMAGE_EXTENSIONS
from vidrouter.domain.media import INPUT_EXTENSIONS as EXTENSIONS
from vidrouter.engine.results import probe
from vidrouter.net.fetch import ResponseTooLarge, guarded_download
from vidrouter.net.guard import ForbiddenAddress, OutboundError
from vidrouter.providers.base import MalformedResponse
from vidrouter.storage.base import BlobStorage, copy_to_file
from vidrouter.store.characters import CharacterStore
from vidrouter.store.generations import GenerationStore

__all__ = ["DEFAULT_MAX_SOURCE_BYTES", "InputKeeper", "media_type", "remove_inputs"]

log = logging.getLogger(__name__)

DEFAULT_MAX_SOURCE_BYTES = 512 * 1024 * 1024
MAX_REFERENCE_BYTES = {"image": 20 * 1024 * 1024, "video": 200 * 1024 * 1024, "audio": 50 << 20}
FETCH_TIMEOUT = 120.0  # the whole download
_HEAD = 16


def media_type(kind: str, head: bytes) -> str | None:
    """The media type of a file of `kind` by its first bytes; None when it is not one we
    take (PNG/JPEG images, MP4 videos, MP3/WAV/M4A audio)."""
    if kind == "image":
        if head.startswith(b"\x89PNG\r\n\x1a\n"):
            return "image/png"
        return "image/jpeg" if head.startswith(b"\xff\xd8\xff") else None
    if head[4:8] == b"ftyp":
        return "video/mp4" if kind == "video" else "audio/mp4"
    if kind == "audio":
        if head.startswith(b"RIFF") and head[8:12] == b"WAVE":
            return "audio/wav"
        if head.startswith(b"ID3") or (len(head) > 1 and head[0] == 0xFF and head[1] >= 0xE0):
            return "audio/mpeg"
    return None


class InputKeeper:
    def __init__(
        self,
        storage: BlobStorage,
        store: GenerationStore,
        *,
        allow_private: bool,
        characters: CharacterStore | None = None,
    ) -> None:
        self._storage = storage
        self._store = store
        self._allow_private = allow_private
        self._characters = characters

    async def keep(self, generation_id: str, account_id: str, req: CreateRequest) -> CreateRequest:
        """The request with its references and source kept (their `key`s set); raises
        InvalidRequest (400), NotFound (404) or Conflict (409) naming the input. What it
        stored before a refusal is removed."""
        kept: list[str] = []
        try:
            references = []
            for i, ref in enumerate(req.references):
                stem = f"inputs/{generation_id}-ref{i}"
                if ref.character is not None:
                    key, digest = await self._character(
                        ref, account_id, stem, f"references[{i}].id"
                    )
                else:
                    key, digest = await self._fetch(
                        ref.url,
                        ref.kind,
                        stem,
                        f"references[{i}].url",
                        MAX_REFERENCE_BYTES[ref.kind],
                    )
                kept.append(key)
                references.append(replace(ref, key=key, sha256=digest))
            video = req.video
            if video is not None:
                video = await self._source(generation_id, account_id, video, req, kept)
        except BaseException:
            for key in kept:
                with contextlib.suppress(OSError):
                    await self._storage.delete(key)
            raise
        return replace(req, references=tuple(references), video=video)

    async def forget(self, req: CreateRequest, generation_id: str | None = None) -> None:
        """Remove what `keep` stored (a create that did not make its generation), and the
        input images kept under `generation_id` for the cache's key."""
        frames = (req.image_url, req.controls.end_image_url)
        await remove_inputs(self._storage, generation_id, req.references, req.video, frames)

    async def _source(
        self,
        generation_id: str,
        account_id: str,
        video: SourceVideo,
        req: CreateRequest,
        kept: list[str],
    ) -> SourceVideo:
        if video.generation_id is not None:
            return await self._own(video, account_id)
        if video.uploaded:
            return video  # kept already (`keep_upload`)
        assert video.url is not None
        most = req.model.inputs.max_source_bytes or DEFAULT_MAX_SOURCE_BYTES
        lengths: list[float] = []
        key, digest = await self._fetch(
            video.url,
            "video",
            f"inputs/{generation_id}-source",
            "video.url",
            most,
            lambda path: lengths.append(_seconds(path, req.model, "video.url")),
        )
        kept.append(key)
        return replace(video, key=key, seconds=lengths[0], sha256=digest)

    async def keep_upload(
        self, generation_id: str, path: Path, model: ListedModel, filename: str | None = None
    ) -> SourceVideo:
        """A source video uploaded with the request (at `path`), checked as a source URL's
        would be and kept under the generation's id; errors name `video`."""
        most = model.inputs.max_source_bytes or DEFAULT_MAX_SOURCE_BYTES
        size = (await asyncio.to_thread(path.stat)).st_size
        if size > most:
            raise InvalidRequest(
                f"video is larger than {most // (1024 * 1024)} MiB, the most model "
                f"{model.id} takes",
                code="input_too_large",
                param="video",
            )
        if media_type("video", await asyncio.to_thread(_head, path)) != "video/mp4":
            raise InvalidRequest("video must be an MP4 file", code="input_invalid", param="video")
        seconds = await asyncio.to_thread(_seconds, path, model, "video")
        key = f"inputs/{generation_id}-source.mp4"
        digest = await asyncio.to_thread(file_sha256, path)
        await self._storage.put_file(key, path)
        return SourceVideo(key=key, seconds=seconds, file=filename, sha256=digest)

    async def _character(
        self, ref: Reference, account_id: str, stem: str, param: str
    ) -> tuple[str, str]:
        """A copy of the character's media (its video, or its frame for an image reference)
        as this generation's reference: the character may be deleted while it runs."""
        assert ref.character is not None
        found = None
        if self._characters is not None:
            found = await self._characters.get(ref.character, account_id=account_id)
        if found is None:
            raise NotFound.for_id("character", ref.character, param=param)
        source = found.video_key if ref.kind == "video" else found.image_key
        key = f"{stem}.{source.rsplit('.', 1)[-1]}"
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "character"
            await copy_to_file(self._storage, source, path)
            digest = await asyncio.to_thread(file_sha256, path)
            await self._storage.put_file(key, path)
        return key, digest

    async def _own(self, video: SourceVideo, account_id: str) -> SourceVideo:
        assert video.generation_id is not None
        source = await self._store.get(video.generation_id, account_id=account_id)
        if source is None:
            raise NotFound(
                f"no generation with id {video.generation_id!r}",
                code="generation_not_found",
                param="video.generation_id",
            )
        if source.status is not Status.COMPLETED or source.video_key is None:
            raise Conflict(
                f"generation {source.id} is {source.status.value}; only a completed one can "
                "be a source",
                code="video_not_ready",
                param="video.generation_id",
            )
        return replace(
            video,
            key=source.video_key,
            seconds=source.video_duration or source.duration,
            route=source.route,
            provider_job_id=source.provider_job_id,
            job_data=dict(source.provider_job_data),
        )

    async def _fetch(
        self,
        url: str,
        kind: str,
        stem: str,
        param: str,
        most: int,
        check: Callable[[Path], object] | None = None,
    ) -> tuple[str, str]:
        """Fetch `url` (or decode a data: URI) to our storage as `stem.<ext>`, once `check`
        (run off the event loop on the file) has passed; its key and its SHA-256."""
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "input"
            if url.startswith("data:"):
                await asyncio.to_thread(_decode_to, url, path, param, most)
            else:
                await self._download(url, path, param, most)
            head = await asyncio.to_thread(_head, path)
            mime = media_type(kind, head)
            if mime is None:
                raise InvalidRequest(
                    f"{param} is not {'an' if kind[:1] in 'aeiou' else 'a'} {kind} we take "
                    "(images: PNG or JPEG; videos: MP4; audio: MP3, WAV or M4A)",
                    code="input_invalid",
                    param=param,
                )
            if check is not None:
                await asyncio.to_thread(check, path)
            digest = await asyncio.to_thread(file_sha256, path)
            key = f"{stem}.{EXTENSIONS[mime]}"
            await self._storage.put_file(key, path)
            return key, digest

    async def _download(self, url: str, path: Path, param: str, most: int) -> None:
        try:
            status, _ = await guarded_download(
                url, path, allow_private=self._allow_private, max_bytes=most, timeout=FETCH_TIMEOUT
            )
        except ForbiddenAddress as exc:
            raise InvalidRequest(
                f"{param} refused: {exc}", code="url_forbidden", param=param
            ) from None
        except ResponseTooLarge:
            raise InvalidRequest(
                f"{param} is larger than {most // (1024 * 1024)} MiB",
                code="input_too_large",
                param=param,
            ) from None
        except OutboundError as exc:
            raise InvalidRequest(
                f"{param} could not be fetched: {exc}", code="input_unreachable", param=param
            ) from None
        if status != 200:
            raise InvalidRequest(
                f"{param} answered HTTP {status}", code="input_unreachable", param=param
            )


async def remove_inputs(
    storage: BlobStorage,
    generation_id: str | None,
    references: Sequence[Reference],
    video: SourceVideo | None,
    frames: tuple[str | None, str | None] = (None, None),
) -> None:
    """Remove the inputs kept for a generation that is deleted or was never made: its
    references, a source fetched from a URL or uploaded (not a source generation's video:
    that stays the other generation's), and its first and last frames (`inputs/<id>[-end].<ext>`,
    engine/inputs.py; looked for only when `frames`, its `image_url` and `end_image_url`,
    are set). A store that cannot delete now leaves them, logged."""
    keys = [r.key for r in references]
    if video is not None and video.generation_id is None:  # a URL's or an upload
        keys.append(video.key)
    if generation_id is not None:
        for name, url in zip((generation_id, f"{generation_id}-end"), frames, strict=True):
            if url is not None:
                keys += [f"inputs/{name}.{ext}" for ext in IMAGE_EXTENSIONS.values()]
    for key in keys:
        if key is None:
            continue
        try:
            await storage.delete(key)
        except (OSError, StorageUnavailable) as exc:
            log.warning("input_not_removed", extra={"key": key, "error": str(exc)[:300]})


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file, read in pieces (a source may be hundreds of MiB)."""
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _head(path: Path) -> bytes:
    with path.open("rb") as handle:
        return handle.read(_HEAD)


def _decode_to(uri: str, path: Path, param: str, most: int) -> None:
    payload = uri.partition(",")[2]
    if len(payload) > most * 4 // 3 + 4:
        raise InvalidRequest(
            f"{param} is larger than {most // (1024 * 1024)} MiB",
            code="input_too_large",
            param=param,
        )
    try:
        data = base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError):
        raise InvalidRequest(
            f"{param} is not valid base64", code="input_invalid", param=param
        ) from None
    path.write_bytes(data)


def _seconds(path: Path, model: ListedModel, param: str) -> float:
    """The length of a source video file, checked to play and to be within the model's."""
    try:
        seconds = probe(path).duration
    except MalformedResponse:
        raise InvalidRequest(
            f"{param} is not a playable MP4 (no video stream, or none that decodes)",
            code="video_invalid",
            param=param,
        ) from None
    limit = model.inputs.max_source_seconds
    if limit is not None and seconds > limit + 1e-6:
        raise InvalidRequest(
            f"the source video is {seconds:.1f} s long; model {model.id} takes at most {limit:g} s",
            code="video_too_long",
            param="video",
        )
    return seconds
