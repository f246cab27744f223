"""The API's objects as the client returns them (docs/api.md).

The response objects are defined here rather than imported from `vidrouter.api.schemas` so
that the client depends on the wire format only, not on the server's code;
`tests/test_client_schemas.py` holds them to the server's OpenAPI document and to its real
responses. The create request's fields are the domain's declaration
(`vidrouter.domain.create_fields`), re-exported as `CreateControls`. Unknown fields are
ignored, so a newer server's additions never break an older client.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

# The create request's fields are the server's own declaration (a domain value, which the
# client may share): its keywords follow each field the server takes.
from vidrouter.domain.create_fields import CreateControls

Status = Literal["queued", "in_progress", "completed", "failed", "canceled"]
TERMINAL: frozenset[str] = frozenset({"completed", "failed", "canceled"})
UsageGroupBy = Literal["model", "route", "resolution", "day"]

__all__ = [
    "TERMINAL",
    "Attempt",
    "Character",
    "Cost",
    "CreateControls",
    "ErrorObject",
    "Generation",
    "GenerationError",
    "GenerationPage",
    "Model",
    "ModelList",
    "ModelRoute",
    "Pricing",
    "Status",
    "Usage",
    "UsageGroupBy",
    "UsageItem",
    "UsageTotal",
    "Variant",
    "WebhookEvent",
]


class _Wire(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True)


class ErrorObject(_Wire):
    """The `error` member of every non-2xx response."""

    type: str
    code: str
    message: str
    param: str | None = None


class Variant(_Wire):
    """The price of one configuration (resolution x sound); of one type when `type` is set."""

    resolution: str
    audio: bool
    per_second: float
    type: str | None = None


class Pricing(_Wire):
    per_second: float  # the default configuration's
    currency: str = "USD"
    variants: list[Variant] = Field(default_factory=list)


class ModelRoute(_Wire):
    """One usable route of a model and how it has been delivering (docs/routing.md)."""

    provider: str
    price_per_second: float
    variants: list[Variant] = Field(default_factory=list)
    state: Literal["available", "degraded", "unavailable"]
    success_rate: float | None = None
    p50_seconds: float | None = None
    p95_seconds: float | None = None
    completed: int = 0
    failed: int = 0


class Model(_Wire):
    id: str
    name: str
    description: str
    provider: str
    type: str
    max_duration: float
    aspect_ratios: list[str]
    pricing: Pricing
    capabilities: list[str]  # the generation types it makes
    limits: dict[str, Any] = Field(default_factory=dict)  # `references`: kind -> most
    default_duration: float
    durations: list[float] | None = None
    resolutions: list[str] = Field(default_factory=list)  # the default first
    audio: bool = False  # whether the default output has sound
    supports: list[str] = Field(default_factory=list)  # the optional controls it honours
    durations_by_resolution: dict[str, list[float]] | None = None
    max_seed: int | None = None  # the limits below: present where the model has them
    max_negative_prompt_chars: int | None = None
    controls_by_resolution: dict[str, list[str]] | None = None
    exclusive_controls: list[list[str]] | None = None
    status: Literal["available", "degraded", "unavailable"] = "available"
    object: Literal["model"] | None = None  # on GET /v1/models/{id} only, not on list items
    routes: list[ModelRoute] | None = None  # on GET /v1/models/{id} only


class Cost(_Wire):
    amount: float
    currency: str


class GenerationError(_Wire):
    code: str
    message: str


class Attempt(_Wire):
    route: str | None
    outcome: str
    error_code: str | None = None
    at: datetime


class Generation(_Wire):
    id: str
    object: Literal["generation"] = "generation"
    model: str
    prompt: str
    status: Status
    duration: float
    aspect_ratio: str
    type: str = "text-to-video"  # text-, image-, reference-to-video, video-to-video, -extend
    image_url: str | None = None
    references: list[dict[str, str]] = Field(default_factory=list)
    video: dict[str, str] | None = None  # the source: {"generation_id"} or {"url"}
    # The controls: as asked, the model's defaults filled in.
    resolution: str | None = None
    generate_audio: bool | None = None
    negative_prompt: str | None = None
    seed: int | None = None
    end_image_url: str | None = None
    enhance_prompt: bool | None = None
    webhook_url: str | None = None
    progress: int | None = None
    video_url: str | None = None
    thumbnail_url: str | None = None
    error: GenerationError | None = None
    cost: Cost | None = None
    estimated_cost: Cost | None = None  # from creation: seconds x the price
    metadata: dict[str, str] = Field(default_factory=dict)
    routing: dict[str, Any] | None = None  # the routing policy it was routed under
    cached_from: str | None = None  # a cache hit: the generation whose video it shares
    batch_id: str | None = None  # the batch that made it
    route: str | None = None
    attempts: list[Attempt] = Field(default_factory=list)
    created_at: datetime
    started_at: datetime | None = None
    completed_at: datetime | None = None

    @property
    def done(self) -> bool:
        """True once the status is terminal (it never changes again)."""
        return self.status in TERMINAL


class Character(_Wire):
    """A clip kept once under a name (POST /v1/videos/characters), named in creates as a
    reference: `references=[{"type": "character", "id": c.id}]`."""

    id: str
    object: Literal["character"] = "character"
    name: str
    created_at: int  # Unix seconds


class GenerationPage(_Wire):
    object: Literal["list"] = "list"
    data: list[Generation]
    has_more: bool


class ModelList(_Wire):
    object: Literal["list"] = "list"
    data: list[Model]


class UsageTotal(_Wire):
    generations: int
    completed: int
    failed: int
    billed_seconds: float
    cost: Cost
    cached: int = 0  # of the completed, those the cache answered (at no cost)


class UsageItem(UsageTotal):
    model: str | None = None
    route: str | None = None  # with group_by="route": the host (None: none served it)
    resolution: str | None = None  # with group_by="resolution"
    day: str | None = None


class Usage(_Wire):
    object: Literal["usage"] = "usage"
    from_: datetime = Field(alias="from")
    to: datetime
    group_by: UsageGroupBy
    data: list[UsageItem]
    total: UsageTotal


BatchStatus = Literal["queued", "in_progress", "canceling", "completed", "failed", "canceled"]
BATCH_TERMINAL: frozenset[str] = frozenset({"completed", "failed", "canceled"})


class Batch(_Wire):
    """A batch (docs/api.md): `counts` has `pending` (lines not started) and one count per
    generation status; `cost` is what its generations cost so far."""

    id: str
    object: Literal["batch"] = "batch"
    status: BatchStatus
    total: int
    counts: dict[str, int]
    cost: Cost
    estimated_total: Cost
    error: GenerationError | None = None
    webhook_url: str | None = None
    metadata: dict[str, str] = Field(default_factory=dict)
    created_at: datetime
    completed_at: datetime | None = None

    @property
    def done(self) -> bool:
        return self.status in BATCH_TERMINAL


class BatchPage(_Wire):
    object: Literal["list"] = "list"
    data: list[Batch]
    has_more: bool


class BatchResult(_Wire):
    """One line of a batch's results."""

    line: int
    custom_id: str
    generation_id: str | None
    status: str  # a generation status, or pending / deleted
    video_url: str | None = None
    cost: Cost | None = None
    error: GenerationError | None = None


class WebhookEvent(_Wire):
    """A verified webhook delivery: its Standard Webhooks id (the same on every retry of
    one event, so use it to drop duplicates), when it was sent, and the Generation."""

    id: str
    timestamp: datetime
    generation: Generation

    @property
    def type(self) -> Status:
        return self.generation.status
