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
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from email.parser import HeaderParser
from email.utils import collapse_rfc2231_value
from typing import Any
from urllib.parse import parse_qsl

from vidrouter.domain.catalog import CURRENCY, ListedModel
from vidrouter.domain.errors import InvalidRequest
from vidrouter.domain.generation import Generation, Status
from vidrouter.domain.representation import shown_error

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

# `routing` is ours (docs/routing.md): a JSON object, or its JSON text in a form.
FIELDS = ("model", "prompt", "seconds", "size", "input_reference", "routing")
# OpenAI's own sizes map onto these too: 1792x1024 is 16:9 within the tolerance.
_RATIOS = {"16:9": 16 / 9, "9:16": 9 / 16, "1:1": 1.0}
_RATIO_TOLERANCE = 0.03
_SIZES = {"16:9": "1280x720", "9:16": "720x1280", "1:1": "720x720"}
_SIZE = re.compile(r"^\s*(\d{1,5})\s*[xX\u00d7]\s*(\d{1,5})\s*$")
_SECONDS = re.compile(r"^\s*\d{1,6}(\.\d{1,6})?\s*$")
_BOUNDARY = re.compile(r'boundary=(?:"([^"]{1,200})"|([^;\s]{1,200}))', re.IGNORECASE)
_IMAGE_TYPES = ((b"\x89PNG\r\n\x1a\n", "image/png"), (b"\xff\xd8\xff", "image/jpeg"))
# Our create rules' names for the fields, in OpenAI's vocabulary.
_PARAMS = {"duration": "seconds", "aspect_ratio": "size", "image_url": "input_reference"}


# --- requests -------------------------------------------------------------------------------


@dataclass(frozen=True)
class FormPart:
    name: str
    filename: str | None
    content_type: str
    data: bytes


@dataclass(frozen=True)
class VideoRequest:
    """A create request in OpenAI's terms, not yet checked against a model."""

    prompt: object = None
    model: object = None
    seconds: object = None
    size: object = None
    image_url: str | None = None
    routing: object = None


def from_json(body: object) -> VideoRequest:
    if not isinstance(body, Mapping):
        raise InvalidRequest("the request body must be a JSON object", code="invalid_body")
    _check_names(body)
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
    return VideoRequest(
        prompt=body.get("prompt"),
        model=body.get("model"),
        seconds=body.get("seconds"),
        size=body.get("size"),
        image_url=image_url,
        routing=body.get("routing"),
    )


def from_form(parts: Sequence[FormPart]) -> VideoRequest:
    """A multipart or url-encoded form: text fields, and `input_reference` as a file part
    (or its object form flattened the SDK's way, `input_reference[image_url]`)."""
    values: dict[str, str] = {}
    reference: dict[str, object] = {}
    image_url = None
    seen: set[str] = set()
    for part in parts:
        if part.name in seen:
            raise InvalidRequest(
                f"parameter {part.name!r} is given more than once",
                code="parameter_duplicated",
                param=part.name,
            )
        seen.add(part.name)
        if part.name == "input_reference" and part.filename is not None:
            image_url = image_data_url(part.data)
            continue
        text = _text(part)
        if part.name.startswith("input_reference[") and part.name.endswith("]"):
            reference[part.name[len("input_reference[") : -1]] = text
        elif part.name == "input_reference":
            reference["image_url"] = text
        else:
            values[part.name] = text
    _check_names(values)
    if reference:
        if image_url is not None:
            raise InvalidRequest(
                "give input_reference once: a file or an image_url, not both",
                code="parameter_duplicated",
                param="input_reference",
            )
        image_url = _reference(reference)
    return VideoRequest(
        prompt=values.get("prompt"),
        model=values.get("model"),
        seconds=values.get("seconds"),
        size=values.get("size"),
        image_url=image_url,
        routing=_routing_text(values["routing"]) if "routing" in values else None,
    )


def _routing_text(text: str) -> object:
    try:
        return json.loads(text)
    except ValueError:
        raise InvalidRequest(
            "routing must be a JSON object", code="parameter_invalid_type", param="routing"
        ) from None


def create_body(req: VideoRequest, models: Sequence[ListedModel]) -> dict[str, object]:
    """The body for our create rules (`domain.create_request.parse_create`). Without a model, the
    first listed one that can take the request: image-to-video when an image is given, else
    text-to-video."""
    model = req.model
    if model is None:
        wanted = "image-to-video" if req.image_url is not None else "text-to-video"
        model = next((m.id for m in models if wanted in m.spec.capabilities), None)
        if model is None:
            raise InvalidRequest(
                f"model is required: no {wanted} model is available to default to",
                code="parameter_missing",
                param="model",
            )
    body: dict[str, object] = {"model": model, "prompt": req.prompt}
    if req.seconds is not None:
        body["duration"] = parse_seconds(req.seconds)
    if req.size is not None:
        body["aspect_ratio"] = parse_size(req.size)
    if req.image_url is not None:
        body["image_url"] = req.image_url
    if req.routing is not None:
        body["routing"] = req.routing
    return body


def rename_error(exc: InvalidRequest, req: VideoRequest) -> InvalidRequest:
    """An error of our create rules, naming OpenAI's parameter instead of ours."""
    param = _PARAMS.get(exc.param or "", exc.param)
    message = exc.message
    if exc.param == "duration" and req.seconds is not None:
        message = f"seconds {str(req.seconds)!r}: {message}"
    elif exc.param == "aspect_ratio" and req.size is not None:
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


def parse_size(value: object) -> str:
    """`WIDTHxHEIGHT` -> our aspect ratio (16:9, 9:16 or 1:1), by the ratio of the sides."""
    match = _SIZE.match(value) if isinstance(value, str) else None
    if match is not None and int(match[1]) > 0 and int(match[2]) > 0:
        ratio = int(match[1]) / int(match[2])
        for name, target in _RATIOS.items():
            if abs(math.log(ratio / target)) <= _RATIO_TOLERANCE:
                return name
    sizes = ", ".join(f"{size} ({ratio})" for ratio, size in _SIZES.items())
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


def _check_names(body: Mapping[str, object]) -> None:
    for name in body:
        if name not in FIELDS:
            raise InvalidRequest(
                f"unknown parameter {str(name)[:80]!r}; accepted: {', '.join(FIELDS)}",
                code="parameter_unknown",
                param=str(name)[:80],
            )


def _text(part: FormPart) -> str:
    try:
        return part.data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidRequest(
            f"{part.name} is not valid UTF-8", code="parameter_invalid", param=part.name
        ) from exc


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "…"


# --- form bodies ----------------------------------------------------------------------------


def parse_multipart(content_type: str, body: bytes) -> list[FormPart]:
    """The parts of a `multipart/form-data` body (RFC 7578), byte for byte."""
    match = _BOUNDARY.search(content_type)
    if match is None:
        raise _malformed("the multipart/form-data body has no boundary")
    delimiter = b"\r\n--" + (match[1] or match[2]).encode("latin-1")
    sections = (b"\r\n" + body).split(delimiter)
    parts: list[FormPart] = []
    for section in sections[1:]:
        if section.startswith(b"--"):
            return parts
        padding, newline, rest = section.partition(b"\r\n")
        if not newline or padding.strip(b" \t"):
            raise _malformed("a multipart/form-data part is malformed")
        if rest.startswith(b"\r\n"):
            head, data = b"", rest[2:]
        else:
            head, separator, data = rest.partition(b"\r\n\r\n")
            if not separator:
                raise _malformed("a multipart/form-data part has no end of headers")
        parts.append(_part(head, data))
    raise _malformed("the multipart/form-data body is truncated (no closing boundary)")


def _part(head: bytes, data: bytes) -> FormPart:
    headers = HeaderParser().parsestr(head.decode("utf-8", "replace"))
    if headers.get_content_disposition() != "form-data":
        raise _malformed("each multipart part needs 'Content-Disposition: form-data'")
    name = headers.get_param("name", header="content-disposition")
    if not name:
        raise _malformed("a multipart part has no name")
    filename = headers.get_filename()
    return FormPart(
        name=collapse_rfc2231_value(name),
        filename=filename,
        content_type=headers.get_content_type(),
        data=data,
    )


def parse_urlencoded(body: bytes) -> list[FormPart]:
    try:
        pairs = parse_qsl(body.decode("utf-8"), keep_blank_values=True, strict_parsing=False)
    except UnicodeDecodeError as exc:
        raise _malformed("the form body is not valid UTF-8") from exc
    return [FormPart(k, None, "text/plain", v.encode("utf-8")) for k, v in pairs]


def _malformed(message: str) -> InvalidRequest:
    return InvalidRequest(message, code="invalid_body")


# --- responses ------------------------------------------------------------------------------


def size_for(aspect_ratio: str) -> str:
    """The `size` shown for an aspect ratio: 720 pixels on the short side."""
    if aspect_ratio in _SIZES:
        return _SIZES[aspect_ratio]
    try:
        width, height = (float(x) for x in aspect_ratio.split(":"))
        long_side = 2 * round(360 * max(width, height) / min(width, height))
    except (ValueError, ZeroDivisionError):
        return _SIZES["16:9"]
    return f"{long_side}x720" if width >= height else f"720x{long_side}"


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
        "seconds": _seconds(g.duration),
        "size": size_for(g.aspect_ratio),
        "error": error,
        "remixed_from_video_id": None,
        "prompt": g.prompt,
        # Our extension (OpenAI's object has no price; its SDK keeps unknown fields): the
        # same objects as on a Generation, so that one client reads cost in one shape.
        "estimated_cost": _usd(g.estimated_cost),
        "cost": _usd(g.cost_amount),
    }


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
