"""The fields of a create request, declared once: the one place that says which fields
`POST /v1/generations` takes, of which type, with which rules.

Each field is a key of `CreateBody`, a TypedDict: its name and its Python type (JSON's null
is "not given", hence `| None`), which the Python client offers as they are. Its rules ride
along in `Annotated[..., Rule(...)]`:
- `kind`: the sort of value it takes; it picks the field's checks (`create_request.py`,
  `create_controls.py`) and its JSON Schema per model (`create_schema.py`);
- `supports`: a model takes it only when its catalog entry lists it in `supports` (the
  optional controls, `controls.OPTIONAL_CONTROLS`);
- `needs`: the field it goes with (an end frame needs a start frame);
- `videos`: its name on OpenAI's `POST /v1/videos` (`SAME`: the same name; None: not
  taken there), where `api/openai_videos_map.py` maps it;
- `documented`: False for a field whose rules depend on this server's routes, or on what
  its store and the network hold (a source generation, a reference URL that must be
  fetched), which the OpenAPI document leaves out rather than promise more than the server
  takes (docs/api.md describes them).

The keys of `CreateControls` are the generation's controls (`controls.Controls`, one
attribute each). What follows from here: the accepted names and their order
(`FIELD_NAMES`, the "accepted: ..." of an unknown field), the controls and which of them a
model must list, the parser's reading of each control, the OpenAPI document's create
bodies (both APIs), the fields `/v1/videos` passes through and how its forms spell them,
and the client's keywords (`client.types.CreateControls`, `client._core.CreateOptions`).

A new field or input type is one key here (and an attribute of `Controls` for a control),
its kind's checks and schema if the kind is new, the catalog's `supports`, and the
adapters that map it.
"""

from __future__ import annotations

import types
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Annotated, Any, Required, TypedDict, Union, get_args, get_origin, get_type_hints

__all__ = [
    "CONTROLS",
    "CREATE_FIELDS",
    "FIELD_NAMES",
    "SAME",
    "CreateBody",
    "CreateControls",
    "CreateField",
    "Delivery",
    "Inputs",
    "Kind",
    "Rule",
    "Shape",
    "Subject",
    "declared",
]

SAME = "="  # `Rule.videos`: the field has the same name on /v1/videos


class Kind(Enum):
    MODEL = "model"  # a listed model's id
    PROMPT = "prompt"  # the text for the model: visible, no NUL, the server's length limit
    DURATION = "duration"  # seconds the model makes
    ASPECT_RATIO = "aspect_ratio"  # one of the model's
    IMAGE = "image"  # an http(s) URL or a base64 PNG/JPEG data: URI
    WEBHOOK = "webhook"  # a public http(s) URL
    METADATA = "metadata"  # string pairs kept with the generation
    ROUTING = "routing"  # a routing policy (domain/routing.py)
    RESOLUTION = "resolution"  # one of the model's resolutions
    SOUND = "sound"  # a boolean whose default is the model's `audio`
    PROSE = "prose"  # a text like the prompt, within the model's limit
    SEED = "seed"  # an integer from 0 to the model's largest seed
    FLAG = "flag"  # a boolean
    TYPE = "type"  # one of the generation types (domain/inputs.py) the model makes
    REFERENCES = "references"  # reference media: [{"type": image|video|audio, "url": ...}]
    SOURCE = "source"  # a source video: {"generation_id": ...} or {"url": ...}


@dataclass(frozen=True)
class Rule:
    kind: Kind
    supports: bool = False
    needs: str | None = None
    needs_why: str = ""  # what it is, said when it comes without what it needs
    videos: str | None = SAME
    documented: bool = True
    shown: str = ""  # how a generation shows it, where that needs saying (response docs)


class Subject(TypedDict):
    model: Required[Annotated[str, Rule(Kind.MODEL)]]
    prompt: Required[Annotated[str, Rule(Kind.PROMPT)]]


class Shape(TypedDict, total=False):
    duration: Annotated[float | None, Rule(Kind.DURATION, videos="seconds")]
    aspect_ratio: Annotated[str | None, Rule(Kind.ASPECT_RATIO, videos="size")]


class Inputs(TypedDict, total=False):
    type: Annotated[str | None, Rule(Kind.TYPE)]
    image_url: Annotated[str | None, Rule(Kind.IMAGE, videos="input_reference")]
    references: Annotated[
        Sequence[Mapping[str, str]] | None, Rule(Kind.REFERENCES, documented=False)
    ]
    video: Annotated[Mapping[str, str] | None, Rule(Kind.SOURCE, documented=False)]


class Delivery(TypedDict, total=False):
    webhook_url: Annotated[str | None, Rule(Kind.WEBHOOK, videos=None)]
    metadata: Annotated[Mapping[str, str] | None, Rule(Kind.METADATA, videos=None)]
    routing: Annotated[Mapping[str, Any] | None, Rule(Kind.ROUTING, documented=False)]
    # Answer from an identical completed generation (usecases/cache.py); None: the key's
    # setting decides.
    cache: Annotated[bool | None, Rule(Kind.FLAG)]


class CreateControls(TypedDict, total=False):
    """The optional controls of a create (docs/api.md); absent ones take the model's
    defaults. `GET /v1/models` lists what each model takes (`resolutions`, `supports`)."""

    resolution: Annotated[
        str | None,
        Rule(
            Kind.RESOLUTION,
            shown="The output resolution: the one asked for, else the model's default "
            "(null for a model that lists no resolutions).",
        ),
    ]
    negative_prompt: Annotated[str | None, Rule(Kind.PROSE, supports=True)]
    seed: Annotated[int | None, Rule(Kind.SEED, supports=True)]
    generate_audio: Annotated[
        bool | None,
        Rule(
            Kind.SOUND,
            supports=True,
            shown="Whether the video has sound: as asked, else the model's default.",
        ),
    ]
    end_image_url: Annotated[
        str | None,
        Rule(
            Kind.IMAGE,
            supports=True,
            needs="image_url",
            needs_why="the last frame of a video that starts at image_url",
        ),
    ]
    enhance_prompt: Annotated[bool | None, Rule(Kind.FLAG, supports=True)]


class CreateBody(Subject, Shape, Inputs, Delivery, CreateControls):
    """The JSON body of `POST /v1/generations`, its fields in the order they are listed."""


@dataclass(frozen=True)
class CreateField:
    """One declared field, read off `CreateBody`."""

    name: str
    json_type: str  # "string", "number", "integer", "boolean", "object" or "array"
    required: bool
    control: bool  # one of the generation's controls (a key of `CreateControls`)
    rule: Rule

    @property
    def kind(self) -> Kind:
        return self.rule.kind


_JSON_TYPES: dict[Any, str] = {
    str: "string",
    float: "number",
    int: "integer",
    bool: "boolean",
    Mapping: "object",
    Sequence: "array",
}


def _json_type(annotation: Any) -> str:
    """The JSON type of `X | None` (or `X`)."""
    if get_origin(annotation) in (Union, types.UnionType):
        annotation = next(a for a in get_args(annotation) if a is not type(None))
    return _JSON_TYPES[get_origin(annotation) or annotation]


def declared(body: type, *, controls: Collection[str]) -> tuple[CreateField, ...]:
    """The fields a TypedDict like `CreateBody` declares (`controls`: the names of those
    that are controls)."""
    hints = get_type_hints(body, include_extras=True)
    out = []
    for name, hint in hints.items():
        annotated = get_args(hint)[0] if get_origin(hint) is Required else hint
        value_type, rule = get_args(annotated)[:2]
        out.append(
            CreateField(
                name=name,
                json_type=_json_type(value_type),
                required=name in getattr(body, "__required_keys__", ()),
                control=name in controls,
                rule=rule,
            )
        )
    return tuple(out)


CREATE_FIELDS = declared(CreateBody, controls=CreateControls.__annotations__)
FIELD_NAMES = tuple(f.name for f in CREATE_FIELDS)
CONTROLS = tuple(f for f in CREATE_FIELDS if f.control)
