"""OpenAI's Videos API wire format, translated: a `POST /v1/videos` request (JSON, form or
multipart, as the official `openai` SDK sends it) into the body of our create rules, and a
Generation into OpenAI's Video object. Pure functions; the routes live in `routes/videos.py`.

| OpenAI            | ours                                                         |
|-------------------|--------------------------------------------------------------|
| `seconds` "8"     | `duration` 8                                                 |
| `size` "1280x720" | `aspect_ratio` "16:9" (by the ratio: 16:9, 9:16 or 1:1)      |
| `input_reference` | `image_url`, a `data:image/png|jpeg;base64,` URI of the file |
| status `failed`   | `failed`, and `canceled` with error code `canceled`          |
"""

from __future__ import annotations

import base64
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from vidrouter.api.openai_videos_forms import FormPart, parse_multipart, parse_urlencoded, text
from vidrouter.domain import json_text
from vidrouter.domain.catalog import CURRENCY, ListedModel
from vidrouter.domain.create_fields import CREATE_FIELDS, SAME
from vidrouter.domain.errors import InvalidRequest
from vidrouter.domain.generation import Generation, Status
from vidrouter.domain.inputs import VIDEO_EXTEND
from vidrouter.domain.representation import controls_object, shown_error
from vidrouter.domain.request_fields import check_names

__all__ = [
    "FIELDS",
    "FormPart",
    "VideoRequest",
    "create_body",
    "deleted_object",
    "from_form",
    "from_json",
    "list_object",
    "parse_multipart",
    "parse_urlencoded",
    "rename_error",
    "size_for",
    "video_object",
]

# The fields of our create (domain/create_fields.py) by their names here: OpenAI's where it
# has its own, ours for the rest (`routing`, `cache` and the controls are ours, taken as on
# /v1/generations); `webhook_url` and `metadata` are not taken here.
FIELDS = tuple(
    f.name if f.rule.videos == SAME else f.rule.videos
    for f in CREATE_FIELDS
    if f.rule.videos is not None
)
# `characters` too, which `openai_video_ops.with_characters` makes references of.
TAKEN = (*FIELDS, "characters")
# Passed to our create rules as they are (`model` aside: it may default).
_SAME_NAMED = tuple(f for f in CREATE_FIELDS if f.rule.videos == SAME and f.name != "model")
# OpenAI's own sizes map onto these too: 1792x1024 is 16:9 within the tolerance.
_RATIOS = {"16:9": 16 / 9, "9:16": 9 / 16, "1:1": 1.0}
_RATIO_TOLERANCE = 0.03
# The short side of a size names a resolution; other sides (OpenAI's 1024) leave the model's
# default resolution.
SHORT_SIDES = {480: "480p", 540: "540p", 720: "720p", 768: "768p", 1080: "1080p", 2160: "4k"}
_SIDES = {resolution: side for side, resolution in SHORT_SIDES.items()}
_SIZE = re.compile(r"^\s*(\d{1,5})\s*[xX\u00d7]\s*(\d{1,5})\s*$")
_CHARACTER_PART = re.compile(r"characters\[\d{0,3}\]\[id\]")
_SECONDS = re.compile(r"^\s*\d{1,6}(\.\d{1,6})?\s*$")
_IMAGE_TYPES = ((b"\x89PNG\r\n\x1a\n", "image/png"), (b"\xff\xd8\xff", "image/jpeg"))
# Our create rules' names for the fields, in OpenAI's vocabulary.
_PARAMS = {f.name: f.rule.videos for f in CREATE_FIELDS if f.rule.videos not in (None, SAME)}
# Form fields are text: booleans, integers and objects become JSON values first (anything
# else is left as text, which the create rules then refuse naming the field).
_FORM_BOOLEANS = {"true": True, "false": False}
_FORM_TYPES = {f.name: f.json_type for f in _SAME_NAMED}


# --- requests -------------------------------------------------------------------------------


@dataclass(frozen=True)
class VideoRequest:
    """A create request in OpenAI's terms, not yet checked against a model: its fields as
    given (`input_reference` aside), and the image that reference names."""

    values: Mapping[str, object] = field(default_factory=dict)
    image_url: str | None = None

    @property
    def model(self) -> object:
        return self.values.get("model")

    @property
    def seconds(self) -> object:
        return self.values.get("seconds")

    @property
    def size(self) -> object:
        return self.values.get("size")


def from_json(body: object) -> VideoRequest:
    if not isinstance(body, Mapping):
        raise InvalidRequest("the request body must be a JSON object", code="invalid_body")
    check_names(body, TAKEN)
    image_url = None
    reference = body.get("input_reference")
    if reference is not None:
        if not isinstance(reference, Mapping):
            raise InvalidRequest(
                'input_reference must be an object {"image_url": ...} in a JSON body; '
                "upload a file with multipart/form-data",
                code="parameter_invalid_type",
                param="input_reference",
            )
        image_url = _reference(dict(reference))
    values = {k: v for k, v in body.items() if k != "input_reference"}
    return VideoRequest(values, image_url)


def from_form(parts: Sequence[FormPart]) -> VideoRequest:
    """A multipart or url-encoded form: text fields, and `input_reference` as a file part
    (or its object form flattened the SDK's way, `input_reference[image_url]`)."""
    values: dict[str, object] = {}
    reference: dict[str, object] = {}
    image_url = None
    seen: set[str] = set()
    characters: list[object] = []
    for part in parts:
        if _CHARACTER_PART.fullmatch(part.name):  # the SDK's `characters[][id]`, repeated
            characters.append({"id": text(part)})
            continue
        if part.name in seen:
            raise InvalidRequest(
                f"parameter {part.name!r} is given more than once",
                code="parameter_duplicated",
                param=part.name,
            )
        seen.add(part.name)
        if part.name == "input_reference" and part.is_file:
            image_url = image_data_url(part.data)
            continue
        value = text(part)
        if part.name.startswith("input_reference[") and part.name.endswith("]"):
            reference[part.name[len("input_reference[") : -1]] = value
        elif part.name == "input_reference":
            reference["image_url"] = value
        else:
            values[part.name] = _form_value(part.name, value)
    if characters:
        if "characters" in values:
            raise InvalidRequest(
                "give characters once", code="parameter_duplicated", param="characters"
            )
        values["characters"] = characters
    check_names(values, TAKEN)
    if reference:
        if image_url is not None:
            raise InvalidRequest(
                "give input_reference once: a file or an image_url, not both",
                code="parameter_duplicated",
                param="input_reference",
            )
        image_url = _reference(reference)
    return VideoRequest(values, image_url)


def _form_value(name: str, value: str) -> object:
    json_type = _FORM_TYPES.get(name)
    if json_type in ("object", "array"):
        # The same parser as a JSON body: bounded depth, no duplicate keys, our words.
        try:
            return json_text.loads(value)
        except json_text.JsonTextError as exc:
            raise InvalidRequest(
                f"{name} must be a JSON {json_type}: {exc}",
                code="parameter_invalid_type",
                param=name,
            ) from None
    if json_type in ("boolean", "integer"):
        if value.strip().lower() in _FORM_BOOLEANS:
            return _FORM_BOOLEANS[value.strip().lower()]
        if value.strip().isdecimal() and len(value.strip()) <= 20:
            return int(value.strip())
    return value


def create_body(req: VideoRequest, models: Sequence[ListedModel]) -> dict[str, object]:
    """The body for our create rules (`domain.create_request.parse_create`). Without a model, the
    first listed one that can take the request: image-to-video when an image is given, else
    text-to-video. `models` holds the named model when it is listed. `size` gives the aspect
    ratio and, by its short side, the resolution (an explicit `resolution` wins; a model that
    lists no resolutions takes any size of its aspect ratios at its one resolution)."""
    model = req.model
    if model is None:
        wanted = "image-to-video" if req.image_url is not None else "text-to-video"
        model = next((m.id for m in models if wanted in m.capabilities), None)
        if model is None:
            raise InvalidRequest(
                f"model is required: no {wanted} model is available to default to",
                code="parameter_missing",
                param="model",
            )
    body: dict[str, object] = {"model": model}
    if req.seconds is not None:
        body["duration"] = parse_seconds(req.seconds)
    if req.size is not None:
        body["aspect_ratio"], resolution = parse_size(req.size)
        target = next((m for m in models if m.id == model), None)
        if resolution is not None and (target is None or target.resolutions):
            body["resolution"] = resolution
    if req.image_url is not None:
        body["image_url"] = req.image_url
    for f in _SAME_NAMED:
        if req.values.get(f.name) is not None:
            body[f.name] = req.values[f.name]
    return body


def rename_error(exc: InvalidRequest, req: VideoRequest) -> InvalidRequest:
    """An error of our create rules, naming OpenAI's parameter instead of ours."""
    param = _PARAMS.get(exc.param or "", exc.param)
    if exc.param == "resolution" and req.values.get("resolution") is None:
        param = "size"  # the resolution came from the size
    message = exc.message
    if exc.param == "duration" and req.seconds is not None:
        message = f"seconds {str(req.seconds)!r}: {message}"
    elif param == "size" and req.size is not None:
        message = f"size {str(req.size)!r}: {message}"
    elif exc.param == "image_url":
        message = f"input_reference: {message}"
    return InvalidRequest(message, code=exc.code, param=param)


def parse_seconds(value: object) -> float:
    """OpenAI sends a string ("4", "8", "12"); any number our model allows is taken."""
    seconds: float | None = None
    if isinstance(value, int | float) and not isinstance(value, bool):
        seconds = float(value)
    elif isinstance(value, str) and _SECONDS.match(value):
        seconds = float(value.strip())
    if seconds is None or not math.isfinite(seconds) or seconds <= 0:
        raise InvalidRequest(
            f'seconds must be a positive number of seconds such as "4", got {_show(value)}',
            code="seconds_invalid",
            param="seconds",
        )
    return seconds


def parse_size(value: object) -> tuple[str, str | None]:
    """`WIDTHxHEIGHT` -> our aspect ratio (16:9, 9:16 or 1:1), by the ratio of the sides,
    and the resolution its short side names (480p, 540p, 720p, 768p, 1080p, 4k = 2160), or
    None (e.g. OpenAI's 1792x1024): then the model's default resolution."""
    match = _SIZE.match(value) if isinstance(value, str) else None
    if match is not None and int(match[1]) > 0 and int(match[2]) > 0:
        width, height = int(match[1]), int(match[2])
        for name, target in _RATIOS.items():
            if abs(math.log(width / height / target)) <= _RATIO_TOLERANCE:
                return name, SHORT_SIDES.get(min(width, height))
    sizes = ", ".join(f"{size_for(ratio)} ({ratio})" for ratio in _RATIOS)
    raise InvalidRequest(
        f"size must be WIDTHxHEIGHT with an aspect ratio of 16:9, 9:16 or 1:1 (e.g. {sizes}), "
        f"got {_show(value)}",
        code="size_unsupported",
        param="size",
    )


def image_data_url(data: bytes) -> str:
    """An uploaded reference image as a data URI our create rules take (PNG or JPEG)."""
    for magic, mime in _IMAGE_TYPES:
        if data.startswith(magic):
            return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
    raise InvalidRequest(
        "input_reference must be a PNG or JPEG image",
        code="input_reference_invalid",
        param="input_reference",
    )


def _reference(reference: Mapping[str, object]) -> str:
    if "file_id" in reference:
        raise InvalidRequest(
            "input_reference.file_id is not supported (there is no Files API here); "
            "upload the image as a file or give input_reference.image_url",
            code="parameter_unsupported",
            param="input_reference.file_id",
        )
    for name in reference:
        if name != "image_url":
            raise InvalidRequest(
                f"unknown parameter 'input_reference.{name}'; accepted: image_url",
                code="parameter_unknown",
                param=f"input_reference.{name}",
            )
    url = reference.get("image_url")
    if not isinstance(url, str) or not url:
        raise InvalidRequest(
            "input_reference.image_url must be a non-empty string",
            code="parameter_invalid_type",
            param="input_reference.image_url",
        )
    return url


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "…"


# --- responses ------------------------------------------------------------------------------


def size_for(aspect_ratio: str, resolution: str | None = None) -> str:
    """The `size` shown: the aspect ratio at the resolution's short side (720 pixels without
    one), the long side rounded to an even number of pixels."""
    short = _SIDES.get(resolution or "", 720)
    try:
        width, height = (float(x) for x in aspect_ratio.split(":"))
        long_side = 2 * round(short / 2 * max(width, height) / min(width, height))
    except (ValueError, ZeroDivisionError):
        return size_for("16:9", resolution)
    return f"{long_side}x{short}" if width >= height else f"{short}x{long_side}"


def video_object(g: Generation) -> dict[str, Any]:
    """A generation as OpenAI's Video object."""
    error = shown_error(g)
    status = g.status.value
    if g.status is Status.CANCELED:
        status = "failed"
        error = {"code": "canceled", "message": "the video was canceled before it finished"}
    progress = 100 if g.status is Status.COMPLETED else max(0, min(100, g.progress or 0))
    return {
        "id": g.id,
        "object": "video",
        "model": g.model,
        "status": status,
        "progress": progress,
        "created_at": int(g.created_at.timestamp()),
        "completed_at": int(g.completed_at.timestamp()) if g.completed_at else None,
        "expires_at": None,
        "seconds": _seconds(shown_seconds(g)),
        "size": size_for(g.aspect_ratio, g.controls.resolution),
        "error": error,
        "remixed_from_video_id": (
            g.video.generation_id if g.video is not None and g.video.remix else None
        ),
        "prompt": g.prompt,
        # Our extension (OpenAI's object has no price; its SDK keeps unknown fields): the
        # same objects as on a Generation, so that one client reads cost in one shape.
        "estimated_cost": _usd(g.estimated_cost),
        "cost": _usd(g.cost_amount),
        # Our controls, as on a Generation.
        **controls_object(g),
        "cached_from": g.cached_from,
    }


def shown_seconds(g: Generation) -> float:
    """The video's length as OpenAI shows it: an extension's is the joined total (its
    `duration` is the seconds added)."""
    if g.type == VIDEO_EXTEND and g.video is not None and g.video.seconds is not None:
        return round(g.video.seconds + g.duration, 3)
    return g.duration


def _usd(amount: float | None) -> dict[str, Any] | None:
    return None if amount is None else {"amount": round(amount, 6), "currency": CURRENCY}


def list_object(items: Sequence[Generation], has_more: bool) -> dict[str, Any]:
    return {
        "object": "list",
        "data": [video_object(g) for g in items],
        "first_id": items[0].id if items else None,
        "last_id": items[-1].id if items else None,
        "has_more": has_more,
    }


def deleted_object(video_id: str) -> dict[str, Any]:
    return {"id": video_id, "object": "video.deleted", "deleted": True}


def _seconds(duration: float) -> str:
    return str(int(duration)) if float(duration).is_integer() else f"{duration:g}"
