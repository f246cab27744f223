"""What this server accepts, written into its OpenAPI document exactly, so that a client
generated from `/openapi.json` never sends a request that always fails (and a fuzzer finds
no request the document allows and the server refuses).

The create bodies depend on the models this server lists (their ids, durations and aspect
ratios): one `oneOf` branch per model, told apart by `model`. The document is built once per
process, like the list of models (credentials are read at start-up).

What no schema can say is left to the descriptions: a webhook_url at a private address is
refused unless VIDROUTER_ALLOW_PRIVATE_WEBHOOK_URLS is set, and an image that is not PNG or
JPEG is refused.
"""

from __future__ import annotations

import math
import sys
import unicodedata
from collections.abc import Callable, Sequence
from typing import Any

from vidrouter.api import openai_videos_map as wire
from vidrouter.api import openapi_controls as controls
from vidrouter.domain.catalog import ListedModel
from vidrouter.domain.create_request import (
    MAX_METADATA_KEY,
    MAX_METADATA_PAIRS,
    MAX_METADATA_VALUE,
    MAX_URL_CHARS,
    URL_PATTERN,
    shortest_duration,
)
from vidrouter.domain.errors import InvalidRequest
from vidrouter.domain.text import _INVISIBLE, _INVISIBLE_CATEGORIES

Schema = dict[str, Any]

NO_NUL = "^[^\\x00]*$"  # the databases refuse NUL in any string (domain/text.py)


def _invisible_class() -> str:
    """The characters `domain.text.is_blank` counts as showing nothing, as the inside of a
    regex character class: a prompt needs one character outside it. Spelled out (no `\\s`,
    no `\\p{..}`): regex dialects disagree on those, and on nothing spelled out."""
    chars = [
        c
        for c in range(sys.maxunicode + 1)
        if not 0xD800 <= c <= 0xDFFF
        and (chr(c) in _INVISIBLE or unicodedata.category(chr(c)) in _INVISIBLE_CATEGORIES)
    ]
    ranges: list[tuple[int, int]] = []
    for c in chars:
        if ranges and ranges[-1][1] == c - 1:
            ranges[-1] = (ranges[-1][0], c)
        else:
            ranges.append((c, c))
    return "".join(_char(a) if a == b else f"{_char(a)}-{_char(b)}" for a, b in ranges)


def _char(c: int) -> str:
    if c < 0x80:
        return f"\\x{c:02x}"
    if c <= 0xFFFF:
        return f"\\u{c:04x}"
    return chr(c)  # above the BMP each dialect spells escapes its own way; the character works


PROMPT_PATTERN = f"^[^\\x00]*[^{_invisible_class()}][^\\x00]*$"
# Sizes that map onto our aspect ratios and resolutions, and OpenAI's own (whose short side
# names no resolution); others within 3 % of a ratio are accepted as well, but these are the
# ones the document promises.
_SIZES = (
    *(
        wire.size_for(ratio, resolution)
        for resolution in wire.SHORT_SIDES.values()
        for ratio in ("16:9", "9:16", "1:1")
    ),
    "1792x1024",
    "1024x1792",
    "1024x1024",
)
URL: Schema = {
    "type": "string",
    "pattern": URL_PATTERN,
    "maxLength": MAX_URL_CHARS,
    "description": "An absolute http(s) URL: a host name or IPv4 address, no credentials, "
    "printable ASCII without spaces (percent-encode the rest).",
}
IMAGE_DATA: Schema = {
    "type": "string",
    "pattern": "^data:image/(png|jpeg);base64,",
    "description": "A base64 PNG or JPEG data URI.",
}
METADATA: Schema = {
    "type": "object",
    "maxProperties": MAX_METADATA_PAIRS,
    "propertyNames": {"minLength": 1, "maxLength": MAX_METADATA_KEY, "pattern": NO_NUL},
    "additionalProperties": {"type": "string", "maxLength": MAX_METADATA_VALUE, "pattern": NO_NUL},
}
_IMAGE: Schema = {"anyOf": [IMAGE_DATA, URL]}
USAGE_BOUND: Schema = {
    "type": "string",
    "maxLength": 64,
    "anyOf": [{"format": "date"}, {"format": "date-time"}],
}


def prompt(max_chars: int) -> Schema:
    return {
        "type": "string",
        "minLength": 1,
        "maxLength": max_chars,
        "pattern": PROMPT_PATTERN,
        "description": "At least one visible character (not only spaces or invisible "
        "marks); no NUL characters.",
    }


def _nullable(schema: Schema) -> Schema:
    return {"anyOf": [schema, {"type": "null"}]}


def _takes_image(m: ListedModel) -> bool:
    return "image-to-video" in m.spec.capabilities


def _needs_image(m: ListedModel) -> bool:
    return "text-to-video" not in m.spec.capabilities


def _duration(m: ListedModel) -> Schema:
    if m.durations is not None:
        return {"type": "number", "enum": list(m.durations)}
    return {"type": "number", "minimum": shortest_duration(m), "maximum": m.max_duration}


# --- POST /v1/generations -------------------------------------------------------------------


def generation_create(models: Sequence[ListedModel], max_prompt_chars: int) -> Schema:
    webhook = dict(URL)
    webhook["description"] = (
        URL["description"] + " Private, loopback and metadata addresses are refused unless "
        "VIDROUTER_ALLOW_PRIVATE_WEBHOOK_URLS is set."
    )
    return {
        "title": "GenerationCreate",
        "description": "The body of POST /v1/generations: one branch per model listed here "
        "(unknown fields are rejected).",
        "oneOf": [_generation_branch(m, max_prompt_chars, webhook) for m in models],
    }


def _generation_branch(m: ListedModel, max_prompt_chars: int, webhook: Schema) -> Schema:
    image: Schema
    if not _takes_image(m):
        image = {"type": "null"}
    elif _needs_image(m):
        image = {"anyOf": [IMAGE_DATA, URL]}
    else:
        image = _nullable({"anyOf": [IMAGE_DATA, URL]})
    return {
        "title": f"GenerationCreate {m.id}",
        "type": "object",
        "required": ["model", "prompt", *(["image_url"] if _needs_image(m) else [])],
        "additionalProperties": False,
        "properties": {
            "model": {"type": "string", "const": m.id},
            "prompt": prompt(max_prompt_chars),
            "duration": _nullable(_duration(m)),
            "aspect_ratio": _nullable({"type": "string", "enum": list(m.aspect_ratios)}),
            "image_url": image,
            **controls.properties(m, prompt(max_prompt_chars), _IMAGE, form=False),
            "webhook_url": _nullable(webhook),
            "metadata": _nullable(METADATA),
        },
        **controls.rules(m, "duration", _numbers, None),
    }


# --- POST /v1/videos ------------------------------------------------------------------------


def video_create(
    models: Sequence[ListedModel], max_prompt_chars: int
) -> tuple[Schema, Schema] | None:
    """The JSON and the multipart schema; None when no model could take a request."""
    default = next((m for m in models if not _needs_image(m)), None)
    json_branches: list[Schema] = []
    form_branches: list[Schema] = []
    for m in models:
        sizes = _sizes(m)
        if sizes:
            json_branches.append(_video_branch(m, sizes, max_prompt_chars, form=False))
            form_branches.append(_video_branch(m, sizes, max_prompt_chars, form=True))
    if not json_branches:
        return None
    if default is not None and _sizes(default):
        # Without `model`: the first listed text-to-video model (and no image).
        for form, branches in ((False, json_branches), (True, form_branches)):
            branch = _video_branch(default, _sizes(default), max_prompt_chars, form=form)
            branch["title"] = f"VideoCreate (model {default.id} by default)"
            if form:
                del branch["properties"]["model"]
                branch["properties"].pop("input_reference", None)
            else:  # null is "not given" in JSON
                branch["properties"]["model"] = {"type": "null"}
                branch["properties"]["input_reference"] = {"type": "null"}
            branch["required"] = [n for n in branch["required"] if n != "model"]
            branches.append(branch)
    described = "OpenAI's create video request; one branch per model listed here."
    return (
        {"title": "VideoCreate", "description": described, "oneOf": json_branches},
        {"title": "VideoCreateForm", "description": described, "oneOf": form_branches},
    )


def _sizes(m: ListedModel) -> list[str]:
    """The sizes model `m` takes: of its aspect ratios, at one of its resolutions (any, for
    a model that lists none; OpenAI's sizes name none and leave its default)."""
    out = []
    for size in _SIZES:
        try:
            ratio, resolution = wire.parse_size(size)
        except InvalidRequest:
            continue
        if ratio in m.aspect_ratios and (
            resolution is None or not m.resolutions or resolution in m.resolutions
        ):
            out.append(size)
    return out


def _seconds(m: ListedModel) -> list[str]:
    if m.durations is not None:
        return [_number(d) for d in m.durations]
    return [str(n) for n in range(math.ceil(shortest_duration(m)), int(m.max_duration) + 1)]


def _video_branch(m: ListedModel, sizes: list[str], max_prompt_chars: int, *, form: bool) -> Schema:
    seconds: Schema = {"type": "string", "enum": _seconds(m), "examples": ["4"]}
    if not form:
        seconds = _nullable({"anyOf": [seconds, _duration(m)]})
    properties: Schema = {
        "model": {"type": "string", "const": m.id},
        "prompt": prompt(max_prompt_chars),
        "seconds": seconds,
        "size": {"type": "string", "enum": sizes}
        if form
        else _nullable({"type": "string", "enum": sizes}),
    }
    required = ["model", "prompt"]
    if _takes_image(m):
        if form:
            properties["input_reference"] = {
                "type": "string",
                "format": "binary",
                "description": "A PNG or JPEG file.",
            }
        else:
            reference = {
                "type": "object",
                "required": ["image_url"],
                "additionalProperties": False,
                "properties": {"image_url": {"anyOf": [IMAGE_DATA, URL]}},
            }
            properties["input_reference"] = reference if _needs_image(m) else _nullable(reference)
        if _needs_image(m):
            required.append("input_reference")
    elif not form:
        properties["input_reference"] = {"type": "null"}  # null is "not given" in JSON
    properties.update(controls.properties(m, prompt(max_prompt_chars), _IMAGE, form=form))
    return {
        "title": f"VideoCreate {m.id}",
        "type": "object",
        "required": required,
        "additionalProperties": False,
        "properties": properties,
        **controls.rules(m, "seconds", _texts if form else _numbers_or_texts, _size_of(m)),
    }


def _numbers(durations: Sequence[float]) -> list[object]:
    return list(durations)


def _texts(durations: Sequence[float]) -> list[object]:
    return [_number(d) for d in durations]


def _numbers_or_texts(durations: Sequence[float]) -> list[object]:
    return [*durations, *_texts(durations)]


def _size_of(m: ListedModel) -> Callable[[str | None], list[str]]:
    """The sizes (of those `m` takes) whose short side names `resolution` (None: none)."""

    def sizes(resolution: str | None) -> list[str]:
        return [s for s in _sizes(m) if wire.parse_size(s)[1] == resolution]

    return sizes


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"
