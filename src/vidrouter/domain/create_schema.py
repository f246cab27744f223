"""The JSON Schema of a create request, per model, from its declaration (`create_fields.py`):
what each field takes from a model as the create rules check it, so that a client generated
from the OpenAPI document never sends a request that always fails (and a fuzzer finds no
request the document allows and the server refuses).

One schema per field kind (`offered`); the rules between fields are in
`create_schema_rules.py`. `api/openapi_requests.py` puts these into the document, for both
`POST /v1/generations` and, in OpenAI's names, `POST /v1/videos`.

What no schema can say is left to the descriptions: a webhook_url at a private address is
refused unless VIDROUTER_ALLOW_PRIVATE_WEBHOOK_URLS is set, and an image that is not PNG or
JPEG is refused.
"""

from __future__ import annotations

import sys
import unicodedata
from collections.abc import Sequence

from vidrouter.domain.catalog import ListedModel
from vidrouter.domain.controls import MAX_SEED
from vidrouter.domain.create_fields import CONTROLS, CREATE_FIELDS, CreateField, Kind
from vidrouter.domain.create_request import (
    MAX_METADATA_KEY,
    MAX_METADATA_PAIRS,
    MAX_METADATA_VALUE,
    shortest_duration,
)
from vidrouter.domain.create_schema_rules import NULL, Schema, required, rules, takes
from vidrouter.domain.inputs import IMAGE_TO_VIDEO, TEXT_TO_VIDEO
from vidrouter.domain.request_fields import IMAGE_DATA_PATTERN, MAX_URL_CHARS, URL_PATTERN
from vidrouter.domain.text import _INVISIBLE, _INVISIBLE_CATEGORIES

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
URL: Schema = {
    "type": "string",
    "pattern": URL_PATTERN,
    "maxLength": MAX_URL_CHARS,
    "description": "An absolute http(s) URL: a host name or IPv4 address, no credentials, "
    "printable ASCII without spaces (percent-encode the rest).",
}
WEBHOOK_URL: Schema = {
    **URL,
    "description": URL["description"] + " Private, loopback and metadata addresses are "
    "refused unless VIDROUTER_ALLOW_PRIVATE_WEBHOOK_URLS is set.",
}
IMAGE_DATA: Schema = {
    "type": "string",
    "pattern": IMAGE_DATA_PATTERN,
    "description": "A base64 PNG or JPEG data URI.",
}
IMAGE: Schema = {"anyOf": [IMAGE_DATA, URL]}
METADATA: Schema = {
    "type": "object",
    "maxProperties": MAX_METADATA_PAIRS,
    "propertyNames": {"minLength": 1, "maxLength": MAX_METADATA_KEY, "pattern": NO_NUL},
    "additionalProperties": {"type": "string", "maxLength": MAX_METADATA_VALUE, "pattern": NO_NUL},
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


def nullable(schema: Schema) -> Schema:
    return {"anyOf": [schema, NULL]}


def duration(m: ListedModel) -> Schema:
    if m.durations is not None:
        return {"type": "number", "enum": list(m.durations)}
    return {"type": "number", "minimum": shortest_duration(m), "maximum": m.max_duration}


def offered(f: CreateField, m: ListedModel, max_chars: int) -> Schema | None:
    """What model `m` takes in field `f`, null aside; None when it takes nothing there."""
    if f.kind is Kind.SOUND:  # every model makes its default; some let it be switched
        return {"type": "boolean", "enum": [True, False] if f.name in m.supports else [m.audio]}
    if not takes(f, m):
        return None
    match f.kind:
        case Kind.MODEL:
            return {"type": "string", "const": m.id}
        case Kind.PROMPT:
            return prompt(max_chars)
        case Kind.DURATION:
            return duration(m)
        case Kind.ASPECT_RATIO | Kind.RESOLUTION:
            values = m.aspect_ratios if f.kind is Kind.ASPECT_RATIO else m.resolutions
            return {"type": "string", "enum": list(values)}
        case Kind.IMAGE:
            return IMAGE
        case Kind.WEBHOOK:
            return dict(WEBHOOK_URL)
        case Kind.METADATA:
            return METADATA
        case Kind.PROSE:
            text = prompt(max_chars)
            most = m.limits.max_negative_prompt_chars
            return {**text, "maxLength": min(most, max_chars)} if most else text
        case Kind.SEED:
            return {"type": "integer", "minimum": 0, "maximum": m.limits.max_seed or MAX_SEED}
        case Kind.FLAG:
            return {"type": "boolean"}
        case Kind.TYPE:
            # The types the document's fields can make (references and a source video are
            # described in docs/api.md, not here).
            offered = [t for t in m.capabilities if t in (TEXT_TO_VIDEO, IMAGE_TO_VIDEO)]
            return {"type": "string", "enum": offered}
    return {"type": f.json_type}


def properties(
    fields: Sequence[CreateField], m: ListedModel, max_chars: int, *, form: bool
) -> dict[str, Schema]:
    """The documented `fields` as model `m` takes them. In JSON a field it does not take may
    only be null (= not given), an optional one also null; a form has no null, so there a
    field it does not take is absent from the schema (and refused as unknown to it)."""
    out: dict[str, Schema] = {}
    for f in fields:
        if not f.rule.documented:
            continue
        schema = offered(f, m, max_chars)
        if form:
            if schema is not None:
                out[f.name] = schema
        elif schema is None:
            out[f.name] = NULL
        else:
            out[f.name] = schema if required(f, m) else nullable(schema)
    return out


def shown_controls() -> dict[str, Schema]:
    """The controls as a generation shows them (our Generation and OpenAI's Video object):
    each as asked, the model's defaults filled in, null where nothing was asked."""
    out: dict[str, Schema] = {}
    for f in CONTROLS:
        schema: Schema = {
            **nullable({"type": f.json_type}),
            "title": f.name.replace("_", " ").title(),
        }
        if f.rule.shown:
            schema["description"] = f.rule.shown
        out[f.name] = schema
    return out


# --- POST /v1/generations -------------------------------------------------------------------


def generation_create(models: Sequence[ListedModel], max_prompt_chars: int) -> Schema:
    """The body, one `oneOf` branch per model listed here, told apart by `model`; without
    any, the declared fields and their types."""
    if not models:
        return {
            "title": "GenerationCreate",
            "description": "The body of POST /v1/generations (unknown fields are rejected).",
            "type": "object",
            "required": [f.name for f in CREATE_FIELDS if f.required],
            "additionalProperties": False,
            "properties": {
                f.name: {"type": f.json_type} if f.required else nullable({"type": f.json_type})
                for f in CREATE_FIELDS
            },
        }
    return {
        "title": "GenerationCreate",
        "description": "The body of POST /v1/generations: one branch per model listed here "
        "(unknown fields are rejected).",
        "oneOf": [
            {
                "title": f"GenerationCreate {m.id}",
                "type": "object",
                "required": [f.name for f in CREATE_FIELDS if required(f, m)],
                "additionalProperties": False,
                "properties": properties(CREATE_FIELDS, m, max_prompt_chars, form=False),
                **rules(m, "duration", list, None),
            }
            for m in models
        ],
    }
