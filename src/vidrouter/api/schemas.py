"""The response and request shapes, for the OpenAPI document. Handlers build the JSON with
`domain.representation` and return it directly; these classes describe it exactly."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, WithJsonSchema

from vidrouter.domain.controls import OPTIONAL_CONTROLS


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
# One of the optional controls a model may honour (declared in domain/create_fields.py).
Control = Annotated[str, WithJsonSchema({"type": "string", "enum": list(OPTIONAL_CONTROLS)})]


class Variant(BaseModel):
    """The price of one configuration (resolution x sound), of one generation type when
    `type` is present (else of every type)."""

    resolution: Resolution
    audio: bool
    per_second: float
    type: str | None = Field(
        default=None, description="Present when this price is of that generation type only."
    )


class Pricing(BaseModel):
    per_second: float = Field(description="USD per second of the default configuration.")
    currency: Literal["USD"] = "USD"
    variants: list[Variant] = Field(
        description="Every priced configuration the model offers, the default first."
    )


class InputLimits(BaseModel):
    references: dict[Literal["image", "video", "audio"], int] = Field(
        description="How many reference media of each kind it takes (absent kind: none)."
    )
    max_source_seconds: float | None = Field(
        default=None, description="Present when a source video may be at most this long."
    )
    max_source_bytes: int | None = Field(
        default=None, description="Present when a source video may be at most this large."
    )
    extend_durations: list[float] | None = Field(
        default=None,
        description="Present when an extension adds only these seconds (its `duration`).",
    )
    extends_own_output: bool | None = Field(
        default=None,
        description="True when it extends only videos it made itself (a generation of it).",
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
    capabilities: list[
        Literal[
            "text-to-video",
            "image-to-video",
            "reference-to-video",
            "video-to-video",
            "video-extend",
        ]
    ] = Field(description="The generation types its usable routes make (a create's `type`).")
    limits: InputLimits = Field(description="What it takes beyond the prompt.")
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


class GenerationErrorOut(BaseModel):
    code: str
    message: str


class Cost(BaseModel):
    amount: float
    currency: str


Status = Literal["queued", "in_progress", "completed", "failed", "canceled"]


# Also the controls, as asked, the model's defaults filled in: from their declaration
# (`domain.create_schema.shown_controls`, which `api/openapi.py` writes in).
class GenerationOut(BaseModel):
    id: str = Field(examples=["gen_7HqXb2cV9kLmN3pQrS4tUvW8"])
    object: Literal["generation"] = "generation"
    model: str
    prompt: str
    status: Status
    duration: float
    aspect_ratio: str
    type: str = Field(
        description="text-to-video, image-to-video, reference-to-video, video-to-video or "
        "video-extend: as asked, else inferred from the inputs."
    )
    image_url: str | None
    references: list[dict[str, str]] = Field(
        description='Its reference media, [{"type": "image" | "video" | "audio", "url"}]; '
        'a character as {"type": "character", "id"}.'
    )
    video: dict[str, str] | None = Field(
        description='Its source video: {"generation_id"}, {"url"}, or {"file"} (its name) '
        "for one uploaded to /v1/videos/edits or /extensions (the video types)."
    )
    webhook_url: str | None
    progress: int | None
    video_url: str | None = Field(
        description="Signed URL of the MP4 on our content host; fetch it without a key."
    )
    thumbnail_url: str | None = Field(
        default=None,
        description="Signed URL of the video's poster (WebP) on our content host; set with "
        "`video_url`.",
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
    cached_from: str | None = Field(
        default=None,
        description="A cache hit: the generation whose video this one shares (it cost 0).",
    )
    batch_id: str | None = Field(default=None, description="The batch that made it, if any.")
    created_at: str
    started_at: str | None
    completed_at: str | None


class GenerationList(BaseModel):
    object: Literal["list"] = "list"
    data: list[GenerationOut]
    has_more: bool


class BatchOut(BaseModel):
    id: str = Field(examples=["batch_7HqXb2cV9kLmN3pQrS4tUvW8"])
    object: Literal["batch"] = "batch"
    status: Literal["queued", "in_progress", "canceling", "completed", "failed", "canceled"]
    total: int = Field(description="Lines.")
    counts: dict[str, int] = Field(
        description="`pending` (lines not started) and one count per generation status."
    )
    cost: Cost = Field(description="What its generations cost so far.")
    estimated_total: Cost = Field(description="Its lines' estimated costs at submission.")
    error: GenerationErrorOut | None = Field(description="Why it stopped early.")
    webhook_url: str | None
    metadata: dict[str, str]
    created_at: str
    completed_at: str | None


class BatchList(BaseModel):
    object: Literal["list"] = "list"
    data: list[BatchOut]
    has_more: bool
