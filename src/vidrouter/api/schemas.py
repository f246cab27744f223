"""The response and request shapes, for the OpenAPI document. Handlers build the JSON with
`domain.representation` and return it directly; these classes describe it exactly."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema


class ErrorDetail(BaseModel):
    type: str = Field(examples=["invalid_request_error"])
    code: str = Field(examples=["duration_too_long"])
    message: str
    param: str | None = None


class ErrorOut(BaseModel):
    error: ErrorDetail


def _errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    return {code: {"model": ErrorOut} for code in codes}


ERRORS = _errors(400, 401, 404)
ERRORS_CREATE = _errors(400, 401, 402, 413, 503)  # 402: budget_exceeded
ERRORS_ID = _errors(401, 404)


Resolution = Literal["480p", "540p", "720p", "768p", "1080p", "4k"]
Control = Literal["negative_prompt", "seed", "generate_audio", "end_image_url", "enhance_prompt"]


class Variant(BaseModel):
    """The price of one configuration (resolution x sound)."""

    resolution: Resolution
    audio: bool
    per_second: float


class Pricing(BaseModel):
    per_second: float = Field(description="USD per second of the default configuration.")
    currency: Literal["USD"] = "USD"
    variants: list[Variant] = Field(
        description="Every priced configuration the model offers, the default first."
    )


class ModelItem(BaseModel):
    id: str
    name: str
    description: str
    provider: str
    type: str
    max_duration: float
    aspect_ratios: list[str]
    pricing: Pricing
    capabilities: list[str]
    default_duration: float
    durations: list[float] | None = Field(
        default=None, description="Present when the model takes only these durations."
    )
    resolutions: list[Resolution] = Field(
        description="The output resolutions it makes, the default first (empty: no choice)."
    )
    audio: bool = Field(description="Whether its default output has sound.")
    supports: list[Control] = Field(
        description="The optional controls it honours; `generate_audio` here: sound may be "
        "switched either way (otherwise only `audio` may be asked for)."
    )
    durations_by_resolution: dict[str, list[float]] | None = Field(
        default=None,
        description="Present when a resolution allows only some durations.",
    )
    max_seed: int | None = Field(
        default=None, description="Present when the model takes seeds up to this one only."
    )
    max_negative_prompt_chars: int | None = Field(
        default=None, description="Present when a negative prompt may be at most this long."
    )
    controls_by_resolution: dict[str, list[Control]] | None = Field(
        default=None,
        description="Present when a resolution honours only some of `supports`: those, there.",
    )
    exclusive_controls: list[list[Control]] | None = Field(
        default=None,
        description="Present when some pairs of controls cannot be asked together "
        "(`generate_audio`: asking for sound).",
    )


class RouteOut(BaseModel):
    """One usable route of a model and how it has been delivering (docs/routing.md)."""

    provider: str
    price_per_second: float
    variants: list[Variant]
    state: Literal["available", "degraded", "unavailable"]
    success_rate: float | None
    p50_seconds: float | None
    p95_seconds: float | None
    completed: int
    failed: int


class ModelOut(ModelItem):
    object: Literal["model"] = "model"
    routes: list[RouteOut]


class ModelList(BaseModel):
    object: Literal["list"] = "list"
    data: list[ModelItem]


# The `routing` object of a create, written out in place (a nested model would put a `$ref`
# into the inline request schemas). Every member may be null (= not given).
def _or_null(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, {"type": "null"}]}


_PROVIDERS = {"type": "array", "items": {"type": "string"}, "maxItems": 32}
ROUTING_SCHEMA: dict[str, Any] = _or_null(
    {
        "type": "object",
        "additionalProperties": False,
        "description": "How to choose among the model's routes (docs/routing.md).",
        "properties": {
            "sort": _or_null({"type": "string", "enum": ["price", "speed", "reliability"]}),
            "only": _or_null(_PROVIDERS),
            "ignore": _or_null(_PROVIDERS),
            "max_price_per_second": _or_null({"type": "number", "minimum": 0}),
            "allow_fallbacks": _or_null({"type": "boolean"}),
        },
    }
)


class GenerationErrorOut(BaseModel):
    code: str
    message: str


class Cost(BaseModel):
    amount: float
    currency: str


Status = Literal["queued", "in_progress", "completed", "failed", "canceled"]


class ControlsOut(BaseModel):
    """The controls of a generation (issue 13), as asked, the model's defaults filled in."""

    resolution: str | None = Field(
        description="The output resolution: the one asked for, else the model's default "
        "(null for a model that lists no resolutions)."
    )
    generate_audio: bool | None = Field(
        description="Whether the video has sound: as asked, else the model's default."
    )
    negative_prompt: str | None
    seed: int | None
    end_image_url: str | None
    enhance_prompt: bool | None


class ControlsIn(BaseModel):
    """The controls a create may give (docs/api.md, Controls)."""

    resolution: str | None = None
    generate_audio: bool | None = None
    negative_prompt: str | None = None
    seed: int | None = Field(default=None, ge=0, le=4_294_967_295)
    end_image_url: str | None = None
    enhance_prompt: bool | None = None


class GenerationOut(ControlsOut):
    id: str = Field(examples=["gen_7HqXb2cV9kLmN3pQrS4tUvW8"])
    object: Literal["generation"] = "generation"
    model: str
    prompt: str
    status: Status
    duration: float
    aspect_ratio: str
    image_url: str | None
    webhook_url: str | None
    progress: int | None
    video_url: str | None = Field(
        description="Signed URL of the MP4 on our content host; fetch it without a key."
    )
    error: GenerationErrorOut | None
    cost: Cost | None
    estimated_cost: Cost | None = Field(
        description="Requested seconds x the price of the route it would be billed at, from "
        "creation; what an unfinished generation counts against a budget."
    )
    metadata: dict[str, str]
    routing: dict[str, Any] | None = Field(
        default=None,
        description="The routing policy it was routed under, defaults filled in (docs/routing.md).",
    )
    created_at: str
    started_at: str | None
    completed_at: str | None


class GenerationList(BaseModel):
    object: Literal["list"] = "list"
    data: list[GenerationOut]
    has_more: bool


class GenerationCreate(ControlsIn):
    """The body of POST /v1/generations (unknown fields are rejected)."""

    model_config = ConfigDict(extra="forbid")

    model: str
    prompt: str = Field(min_length=1)
    duration: float | None = Field(default=None, gt=0)
    aspect_ratio: str | None = None
    image_url: str | None = None
    webhook_url: str | None = Field(default=None, max_length=2048)
    metadata: dict[str, str] | None = None
    routing: Annotated[dict[str, Any] | None, WithJsonSchema(ROUTING_SCHEMA)] = None
