"""Remix, edit and extend a generation, and the account's characters, as plans of `Core`
(see `_plan.py`). The operations go through OpenAI's routes on /v1/videos (their mapping is
the server's: docs/openai-compatibility.md) with one Idempotency-Key for every try, so a
lost answer is retried into one generation; each returns the new Generation, read back from
/v1/generations, as `create` does."""

from __future__ import annotations

import uuid
from pathlib import Path

from pydantic import BaseModel

from vidrouter.client._core import Core, _segment
from vidrouter.client._plan import Plan, ReadFile
from vidrouter.client._responses import parse
from vidrouter.client.types import Character, Generation


class Video(BaseModel):
    """Of the Video object a /v1/videos operation answers, the id: the generation's."""

    id: str


def remix(
    core: Core, generation_id: str, prompt: str, *, idempotency_key: str | None = None
) -> Plan[Generation]:
    """The completed generation re-rendered with a new prompt, on its model, at its length
    (video-to-video; it shows `remixed_from_video_id` on /v1/videos)."""
    path = f"/v1/videos/{_segment(generation_id)}/remix"
    return (yield from _operate(core, path, {"prompt": prompt}, idempotency_key))


def edit(
    core: Core,
    generation_id: str,
    prompt: str,
    *,
    model: str | None = None,
    idempotency_key: str | None = None,
) -> Plan[Generation]:
    """A video-to-video edit of the completed generation (on its model unless `model`)."""
    body: dict[str, object] = {"prompt": prompt, "video": {"id": generation_id}}
    if model is not None:
        body["model"] = model
    return (yield from _operate(core, "/v1/videos/edits", body, idempotency_key))


def extend(
    core: Core,
    generation_id: str,
    prompt: str,
    seconds: float,
    *,
    idempotency_key: str | None = None,
) -> Plan[Generation]:
    """`seconds` more of the completed generation: the result is the whole video."""
    body: dict[str, object] = {
        "prompt": prompt,
        "seconds": f"{seconds:g}",
        "video": {"id": generation_id},
    }
    return (yield from _operate(core, "/v1/videos/extensions", body, idempotency_key))


def _operate(
    core: Core, path: str, body: dict[str, object], idempotency_key: str | None
) -> Plan[Generation]:
    key = idempotency_key or f"vrc_{uuid.uuid4().hex}"
    request = core.request("POST", path, json=body, headers={"Idempotency-Key": key})
    made = yield from core.call(request)
    return (yield from core.get(parse(Video, made).id))


def create_character(core: Core, name: str, video: str | Path) -> Plan[Character]:
    """Keep a character: `video` is a local MP4 clip. Sent once (no retry after the request
    may have reached the server: a second character would be kept too)."""
    data = yield ReadFile(Path(video))
    assert isinstance(data, bytes)
    form = ({"name": name}, {"video": (Path(video).name, data, "video/mp4")})
    request = core.request("POST", "/v1/videos/characters", form=form)
    response = yield from core.call(request, when="unsent")
    return parse(Character, response)


def character(core: Core, character_id: str) -> Plan[Character]:
    path = f"/v1/videos/characters/{_segment(character_id)}"
    response = yield from core.call(core.request("GET", path))
    return parse(Character, response)


def delete_character(core: Core, character_id: str) -> Plan[None]:
    """Delete the character; generations that named it keep their copy."""
    path = f"/v1/videos/characters/{_segment(character_id)}"
    yield from core.call(core.request("DELETE", path), when="unsent")
