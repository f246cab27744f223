"""Characters (OpenAI's `POST /v1/videos/characters`): a short clip an account uploads once
and then names in its creates as a reference, `{"type": "character", "id": "char_..."}` on
/v1/generations or `characters: [{"id": ...}]` on /v1/videos.

A character is stored as two blobs, its video and a frame of it (a JPEG, a quarter of the
way in), and a row of the account (`store/characters.py`). A model that takes video
references gets the video; one that takes only image references gets the frame
(`create_inputs.character_kind`). Each create copies what it uses (engine/kept_inputs.py),
so deleting a character never breaks a generation that named it. Another account's
character does not exist for this one (404). The blobs are stored before the row: a process
killed between the two leaves blobs no row names, never a row without its media.
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
from pathlib import Path

from vidrouter.domain import ids
from vidrouter.domain.clock import Clock
from vidrouter.domain.errors import InvalidRequest, NotFound
from vidrouter.engine.kept_inputs import MAX_REFERENCE_BYTES, media_type
from vidrouter.engine.results import probe
from vidrouter.engine.still import NoStill, still_jpeg
from vidrouter.providers.base import MalformedResponse
from vidrouter.storage.base import BlobStorage
from vidrouter.store.characters import Character, CharacterStore

__all__ = ["MAX_CHARACTER_BYTES", "MAX_CHARACTER_SECONDS", "MAX_NAME_CHARS", "Characters"]

MAX_NAME_CHARS = 80
MAX_CHARACTER_BYTES = MAX_REFERENCE_BYTES["video"]  # what a reference video may be
# Providers take reference clips of a few seconds (2-4 s are recommended); 30 s is plenty.
MAX_CHARACTER_SECONDS = 30.0


class Characters:
    def __init__(self, store: CharacterStore, storage: BlobStorage, *, clock: Clock) -> None:
        self._store = store
        self._storage = storage
        self._clock = clock

    async def create(self, account_id: str, name: object, video: Path | None) -> Character:
        """A new character of the account from the uploaded clip at `video`; InvalidRequest
        naming `name` or `video`."""
        checked = check_name(name)
        if video is None:
            raise InvalidRequest(
                "video is required: upload the character's clip as an MP4 file part",
                code="parameter_missing",
                param="video",
            )
        seconds = await asyncio.to_thread(_checked_clip, video)
        try:
            still = await asyncio.to_thread(still_jpeg, video)
        except NoStill as exc:
            raise InvalidRequest(
                f"video is not a playable MP4: {exc}", code="video_invalid", param="video"
            ) from None
        character_id = ids.character_id()
        character = Character(
            id=character_id,
            account_id=account_id,
            name=checked,
            video_key=f"characters/{character_id}.mp4",
            image_key=f"characters/{character_id}.jpg",
            seconds=seconds,
            created_at=self._clock(),
        )
        stored: list[str] = []
        try:
            await self._storage.put_file(character.video_key, video)
            stored.append(character.video_key)
            with tempfile.TemporaryDirectory() as tmp:
                frame = Path(tmp) / "frame.jpg"
                await asyncio.to_thread(frame.write_bytes, still)
                await self._storage.put_file(character.image_key, frame)
            stored.append(character.image_key)
            await self._store.insert(character)
        except BaseException:
            await self._forget(stored)
            raise
        return character

    async def get(self, account_id: str, character_id: str) -> Character:
        found = await self._store.get(character_id, account_id=account_id)
        if found is None:
            raise NotFound.for_id("character", character_id)
        return found

    async def delete(self, account_id: str, character_id: str) -> Character:
        """Remove the character and its media (generations that named it keep their copy)."""
        removed = await self._store.delete(character_id, account_id=account_id)
        if removed is None:
            raise NotFound.for_id("character", character_id)
        await self._forget([removed.video_key, removed.image_key])
        return removed

    async def _forget(self, keys: list[str]) -> None:
        for key in keys:
            with contextlib.suppress(OSError):
                await self._storage.delete(key)


def check_name(name: object) -> str:
    if not isinstance(name, str) or not name.strip():
        raise InvalidRequest(
            "name is required: the character's name, 1-80 characters",
            code="parameter_missing" if name is None else "name_invalid",
            param="name",
        )
    if len(name) > MAX_NAME_CHARS or not name.isprintable():
        raise InvalidRequest(
            f"name must be 1-{MAX_NAME_CHARS} printable characters, got {len(name)}",
            code="name_invalid",
            param="name",
        )
    return name


def _checked_clip(video: Path) -> float:
    """Blocking: the clip's length, once it is an MP4 within the size and length limits."""
    if video.stat().st_size > MAX_CHARACTER_BYTES:
        raise InvalidRequest(
            f"video is larger than {MAX_CHARACTER_BYTES // (1024 * 1024)} MiB",
            code="input_too_large",
            param="video",
        )
    with video.open("rb") as handle:
        head = handle.read(16)
    if media_type("video", head) != "video/mp4":
        raise InvalidRequest("video must be an MP4 file", code="input_invalid", param="video")
    try:
        seconds = probe(video).duration
    except MalformedResponse as exc:
        raise InvalidRequest(
            f"video is not a playable MP4: {exc.message}", code="video_invalid", param="video"
        ) from None
    if seconds > MAX_CHARACTER_SECONDS + 1e-6:
        raise InvalidRequest(
            f"the character's clip is {seconds:.1f} s long; at most "
            f"{MAX_CHARACTER_SECONDS:g} s is taken (2-4 s work best)",
            code="video_too_long",
            param="video",
        )
    return seconds
