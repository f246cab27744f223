"""What this server accepts on `POST /v1/generations` and `POST /v1/videos`, written into
its OpenAPI document exactly, so that a client generated from `/openapi.json` never sends a
request that always fails (and a fuzzer finds no request the document allows and the server
refuses).

The create bodies depend on the models this server lists (their ids, durations and aspect
ratios): one `oneOf` branch per model, told apart by `model`. The document is built once per
process, like the list of models (credentials are read at start-up). Each field's schema
comes from its declaration (`domain/create_schema.py`); here are OpenAI's own spellings of
some (`seconds`, `size`, `input_reference`) and its forms.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Sequence

from vidrouter.api import openai_videos_map as wire
from vidrouter.domain import create_schema as fields
from vidrouter.domain.batch import MAX_CUSTOM_ID
from vidrouter.domain.catalog import ListedModel
from vidrouter.domain.create_fields import CREATE_FIELDS, SAME
from vidrouter.domain.create_request import shortest_duration
from vidrouter.domain.create_schema import IMAGE, NO_NUL, nullable
from vidrouter.domain.create_schema_rules import Schema, required, rules
from vidrouter.domain.errors import InvalidRequest
from vidrouter.domain.inputs import IMAGE_TO_VIDEO, TEXT_TO_VIDEO

__all__ = ["NO_NUL", "USAGE_BOUND", "batch_create", "generation_create", "video_create"]

generation_create = fields.generation_create
CUSTOM_ID: Schema = {
    "type": "string",
    "minLength": 1,
    "maxLength": MAX_CUSTOM_ID,
    "pattern": NO_NUL,
    "description": "Yours, to find the line in the results (which also give its number).",
}


def batch_create(models: Sequence[ListedModel], max_prompt_chars: int, max_lines: int) -> Schema:
    """A batch as JSON: `lines` of create bodies, each with a `custom_id` (the JSONL upload
    and body forms are described in the operation's text: a schema of a file's lines could
    not be checked by a fuzzer)."""
    line = generation_create(models, max_prompt_chars)
    branches = [
        {
            **branch,
            "required": ["custom_id", *branch["required"]],
            "properties": {"custom_id": CUSTOM_ID, **branch["properties"]},
        }
        for branch in line.get("oneOf", [line])
    ]
    return {
        "title": "BatchCreate",
        "type": "object",
        "required": ["lines"],
        "additionalProperties": False,
        "properties": {
            "lines": {
                "type": "array",
                "minItems": 1,
                "maxItems": max_lines,
                "items": {"title": "BatchLine", "oneOf": branches},
            },
            "webhook_url": nullable(fields.WEBHOOK_URL),
            "metadata": nullable(fields.METADATA),
        },
    }


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
# The fields /v1/videos takes under their own names (the others it spells OpenAI's way).
_SAME_NAMED = tuple(f for f in CREATE_FIELDS if f.rule.videos == SAME)
_NEED_IMAGE = tuple(f.name for f in _SAME_NAMED if f.rule.needs == "image_url")
USAGE_BOUND: Schema = {
    "type": "string",
    "maxLength": 64,
    "anyOf": [{"format": "date"}, {"format": "date-time"}],
}


def _takes_image(m: ListedModel) -> bool:
    return "image-to-video" in m.capabilities


def _needs_image(m: ListedModel) -> bool:
    return "text-to-video" not in m.capabilities


# --- POST /v1/videos ------------------------------------------------------------------------


def video_create(models: Sequence[ListedModel], max_prompt_chars: int) -> tuple[Schema, Schema]:
    """The JSON and the multipart schema."""
    json_branches: list[Schema] = []
    form_branches: list[Schema] = []
    for m in models:
        sizes = _sizes(m)
        if sizes:
            json_branches.append(_video_branch(m, sizes, max_prompt_chars, form=False))
            form_branches.extend(_form_branches(m, sizes, max_prompt_chars))
    if not json_branches:
        return _no_model(form=False), _no_model(form=True)
    # Without `model`: the first listed model that makes videos from text, or from an image
    # when one is given, as it is asked for by name.
    listed = [m for m in models if _sizes(m)]
    text = next((m for m in listed if not _needs_image(m)), None)
    image = next((m for m in listed if _takes_image(m)), None)
    if text is not None:
        branch = _video_branch(text, _sizes(text), max_prompt_chars, form=False)
        branch["properties"]["input_reference"] = {"type": "null"}  # null: "not given"
        json_branches.append(_by_default(branch, text, form=False))
        form = _form_branches(text, _sizes(text), max_prompt_chars)[0]
        form_branches.append(_by_default(form, text, form=True))
    if image is not None:
        branch = _video_branch(image, _sizes(image), max_prompt_chars, form=False)
        given = branch["properties"]["input_reference"]
        branch["properties"]["input_reference"] = given.get("anyOf", [given])[0]  # not null
        branch["required"] = [*dict.fromkeys([*branch["required"], "input_reference"])]
        json_branches.append(_by_default(branch, image, form=False))
        form = _form_branches(image, _sizes(image), max_prompt_chars)[-1]
        form_branches.append(_by_default(form, image, form=True))
    described = "OpenAI's create video request; one branch per model listed here."
    return (
        {"title": "VideoCreate", "description": described, "oneOf": json_branches},
        {"title": "VideoCreateForm", "description": described, "oneOf": form_branches},
    )


def _by_default(branch: Schema, m: ListedModel, *, form: bool) -> Schema:
    """Model `m`'s branch for a request that names no model (absent in a form, null or
    absent in JSON)."""
    if form:
        del branch["properties"]["model"]
    else:
        branch["properties"]["model"] = {"type": "null"}
    branch["required"] = [n for n in branch["required"] if n != "model"]
    branch["title"] = branch["title"].replace(
        f"VideoCreate {m.id}", f"VideoCreate (model {m.id} by default)"
    )
    return branch


def _form_branches(m: ListedModel, sizes: list[str], max_prompt_chars: int) -> list[Schema]:
    """Model `m`'s multipart branches. A form cannot say null, and a fuzzer cannot judge a rule
    over a file part, so a model that takes an image gets a branch without one (text to
    video) and a branch that needs one (image to video) instead of rules between `type`,
    `input_reference` and the fields that need it."""
    branch = _video_branch(m, sizes, max_prompt_chars, form=True)
    if not _takes_image(m):
        return [branch]
    out = []
    if not _needs_image(m):
        text = copy.deepcopy(branch)
        text["title"] += " (text to video)"
        for name in ("input_reference", *_NEED_IMAGE):
            text["properties"].pop(name, None)
        text["properties"]["type"] = {"type": "string", "enum": [TEXT_TO_VIDEO]}
        out.append(text)
    image = copy.deepcopy(branch)
    image["title"] += " (image to video)"
    image["properties"]["type"] = {"type": "string", "enum": [IMAGE_TO_VIDEO]}
    image["required"] = [*dict.fromkeys([*image["required"], "input_reference"])]
    out.append(image)
    return out


def _no_model(*, form: bool) -> Schema:
    """No model listed here takes a request: the fields and their types only."""
    typed: Schema = {f.name: {"type": f.json_type} for f in _SAME_NAMED if f.rule.documented}
    extra = {"seconds": {"type": "string"}, "size": {"type": "string"}}
    reference = {"type": "string", "format": "binary"} if form else {"type": "object"}
    return {
        "title": "VideoCreateForm" if form else "VideoCreate",
        "type": "object",
        "required": [f.name for f in _SAME_NAMED if f.required and f.name != "model"],
        "additionalProperties": False,
        "properties": {**typed, **extra, "input_reference": reference},
    }


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


def seconds_of(m: ListedModel) -> list[str]:
    if m.durations is not None:
        return [_number(d) for d in m.durations]
    return [str(n) for n in range(math.ceil(shortest_duration(m)), int(m.max_duration) + 1)]


def _video_branch(m: ListedModel, sizes: list[str], max_prompt_chars: int, *, form: bool) -> Schema:
    seconds: Schema = {"type": "string", "enum": seconds_of(m), "examples": ["4"]}
    if not form:
        seconds = nullable({"anyOf": [seconds, fields.duration(m)]})
    properties: Schema = {
        **fields.properties(_SAME_NAMED, m, max_prompt_chars, form=form),
        "seconds": seconds,
        "size": {"type": "string", "enum": sizes}
        if form
        else nullable({"type": "string", "enum": sizes}),
    }
    needed = [f.name for f in _SAME_NAMED if required(f, m)]
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
                "properties": {"image_url": IMAGE},
            }
            properties["input_reference"] = reference if _needs_image(m) else nullable(reference)
        if _needs_image(m):
            needed.append("input_reference")
    elif not form:
        properties["input_reference"] = {"type": "null"}  # null is "not given" in JSON
    return {
        "title": f"VideoCreate {m.id}",
        "type": "object",
        "required": needed,
        "additionalProperties": False,
        "properties": properties,
        **rules(
            m,
            "seconds",
            _texts if form else _numbers_or_texts,
            _size_of(m),
            None if form else "input_reference",
        ),
    }


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
