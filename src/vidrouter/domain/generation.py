"""A generation: the durable record of one request, and the states it moves through."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from vidrouter.domain.controls import Controls
from vidrouter.domain.inputs import Reference, SourceVideo, inferred_type

JsonScalar = str | int | float | bool | None
JobData = dict[str, JsonScalar]


class Status(StrEnum):
    QUEUED = "queued"
    IN_PROGRESS = "in_progress"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELED = "canceled"

    @property
    def terminal(self) -> bool:
        return self in TERMINAL


TERMINAL = frozenset({Status.COMPLETED, Status.FAILED, Status.CANCELED})


class Step(StrEnum):
    """Where inside its status a generation is; what the engine does next when it is due."""

    SUBMIT = "submit"  # choose a route and hand the job to the provider
    POLL = "poll"  # the provider has the job (provider_job_id is set); ask how it goes
    DOWNLOAD = "download"  # the provider finished; copy the result into our storage
    DONE = "done"  # terminal: nothing left to do


@dataclass(frozen=True)
class GenerationError:
    code: str
    message: str


@dataclass(frozen=True)
class Attempt:
    """One try on one route: what the provider called it and how it ended."""

    route: str
    provider_job_id: str | None
    outcome: str  # "submitted", "completed", "failed", "retryable_error", ...
    at: datetime
    error_code: str | None = None


@dataclass(frozen=True)
class Generation:
    id: str
    account_id: str
    model: str
    prompt: str
    duration: float
    aspect_ratio: str
    status: Status
    step: Step
    created_at: datetime
    updated_at: datetime
    api_key_id: str | None = None
    image_url: str | None = None
    webhook_url: str | None = None
    metadata: dict[str, str] = field(default_factory=dict)
    progress: int | None = None
    route: str | None = None  # "<provider>:<provider model>" of the route in use
    provider_job_id: str | None = None
    provider_job_data: JobData = field(default_factory=dict)
    video_key: str | None = None
    video_duration: float | None = None
    video_width: int | None = None
    video_height: int | None = None
    error: GenerationError | None = None
    provider_error_code: str | None = None
    provider_request_id: str | None = None
    billed_seconds: float | None = None
    cost_amount: float | None = None
    cost_currency: str | None = None
    # Requested seconds x the price it would be billed at, from creation: what
    # an unfinished generation counts against a budget until `cost_amount` is known.
    estimated_cost: float | None = None
    tries: int = 0  # consecutive retryable failures of the current step, for backoff
    attempts: tuple[Attempt, ...] = ()
    started_at: datetime | None = None
    completed_at: datetime | None = None
    next_attempt_at: datetime | None = None
    deadline_at: datetime | None = None
    lease_owner: str | None = None
    lease_until: datetime | None = None
    # The request's routing policy as JSON (domain/routing.py `RoutingPolicy.to_json`);
    # None: the default policy.
    routing: dict[str, Any] | None = None
    # What it asked beyond the seed's fields, its model's defaults filled in.
    controls: Controls = field(default_factory=Controls)
    batch_id: str | None = None  # the batch that made it
    # What makes two requests the same (domain/cache_key.py); None: its inputs were not
    # hashed at accept.
    cache_key: str | None = None
    cached_from: str | None = None  # a cache hit: the generation whose video it shares
    # What it is made from (domain/inputs.py); a row from before types has none stored,
    # and its type follows from its image.
    asked_type: str | None = None  # None: as inferred (`type`)
    references: tuple[Reference, ...] = ()
    video: SourceVideo | None = None
    # Its media can be fetched only from this server, which the internet cannot reach:
    # only routes that upload or read files take it (domain/route.py `InputCaps`).
    local_media: bool = False

    @property
    def type(self) -> str:
        """Its type (domain/inputs.py)."""
        if self.asked_type is not None:
            return self.asked_type
        return inferred_type(image=self.image_url is not None, references=bool(self.references))
