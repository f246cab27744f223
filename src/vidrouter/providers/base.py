"""The seam between the engine and every provider: a Protocol, its values and its errors.

Adapters only translate between our generation and a provider's wire format. They do not
retry, sleep or touch the store: the engine does, guided by the error classes below.

    ProviderError                 retryable?  our error.code
    ├── RateLimited(retry_after)  yes         rate_limited
    ├── ProviderUnavailable       yes         provider_unavailable   (5xx, connection errors)
    ├── ProviderTimeout           yes         timeout
    ├── MalformedResponse         yes         provider_error          (unparseable answer)
    ├── JobFailed                 per case    provider_error          (the job failed there)
    ├── InvalidInput              no          invalid_input           (the user's request)
    ├── ContentRejected           no          content_policy          (moderation)
    └── AccountRefused            no*         provider_unavailable    (our account: key, credit,
                                                                       quota, suspension)

* An account-level refusal is never retried on the same route: the engine opens the route's
circuit at once and moves to the next route of the model, whatever HTTP status it came with
(Kling's "no units" is a 429, MiniMax's "no balance" a 200). `AuthFailed` is its older name.
Each provider's `errors` module decides, per documented error code, which class an answer is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures import Executor
from dataclasses import dataclass, field
from datetime import timedelta
from enum import StrEnum
from pathlib import Path
from typing import ClassVar, Protocol

import httpx

from vidrouter.domain.controls import Controls
from vidrouter.domain.errors import VidrouterError
from vidrouter.domain.generation import JobData, JsonScalar
from vidrouter.settings import Settings


class ProviderError(VidrouterError):
    retryable: ClassVar[bool] = False
    code: ClassVar[str] = "provider_error"

    def __init__(
        self,
        message: str,
        *,
        provider_code: str | None = None,
        request_id: str | None = None,
        status_code: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.provider_code = provider_code
        self.request_id = request_id
        self.status_code = status_code
        self.response: httpx.Response | None = None  # the answer it was built from, if any

    @property
    def is_retryable(self) -> bool:
        return self.retryable


class RateLimited(ProviderError):
    retryable = True
    code = "rate_limited"

    def __init__(self, message: str, *, retry_after: float | None = None, **kw: object) -> None:
        super().__init__(message, **kw)  # type: ignore[arg-type]
        self.retry_after = retry_after


class ProviderUnavailable(ProviderError):
    retryable = True
    code = "provider_unavailable"


class ProviderTimeout(ProviderError):
    retryable = True
    code = "timeout"


class MalformedResponse(ProviderError):
    retryable = True
    code = "provider_error"


class JobFailed(ProviderError):
    """The provider accepted the job and then reported that it failed."""

    code = "provider_error"

    def __init__(self, message: str, *, retryable: bool = False, **kw: object) -> None:
        super().__init__(message, **kw)  # type: ignore[arg-type]
        self._retryable = retryable

    @property
    def is_retryable(self) -> bool:
        return self._retryable


class InvalidInput(ProviderError):
    code = "invalid_input"


class ContentRejected(ProviderError):
    code = "content_policy"


class AccountRefused(ProviderError):
    """The provider refused our account, not the request: a rejected key, no credit, an
    exhausted quota, a suspension. Only the operator can fix it, so no retry on this route."""

    code = "provider_unavailable"


# The older name, still what the engine catches: a refused key is one account-level refusal.
AuthFailed = AccountRefused


@dataclass(frozen=True)
class ProviderJob:
    id: str
    data: JobData = field(default_factory=dict)  # persisted; what poll/fetch need later
    request_id: str | None = None


@dataclass(frozen=True)
class ProviderMedia:
    """One input medium as a provider gets it (a reference, or a source video).

    `url` is what to send where the provider fetches media by URL: a signed URL of our copy
    when our content host is reachable from the internet, else the user's own URL (checked
    and fetched by us once) or a `data:` URI of our copy (images and small media only).
    `path` is our copy on this machine when the storage is local (None on S3): an adapter
    that uploads through its provider's own upload API, or renders here, reads it from there,
    streaming. `reachable` is False when `url` is only a data: URI or a loopback address,
    which a provider that fetches by URL cannot use."""

    kind: str  # "image", "video" or "audio"
    url: str
    mime: str
    path: Path | None = None
    reachable: bool = True


@dataclass(frozen=True)
class ProviderSource:
    """The source of a video-to-video or video-extend: the video, its length and, when this
    very route made it, the provider's job that made it (`job`), which is what providers that
    extend only their own output (Veo, Luma, Kling) take instead of the video."""

    video: ProviderMedia
    seconds: float
    job: ProviderJob | None = None


@dataclass(frozen=True)
class ProviderRequest:
    """One generation as an adapter receives it. Mapping a type is a match on `type`:

    | type                 | read                          | `duration` is            |
    |----------------------|-------------------------------|--------------------------|
    | `text-to-video`      | `prompt`                      | the video's length       |
    | `image-to-video`     | `image_url` (+ `controls.end_image_url`) | the video's length |
    | `reference-to-video` | `references` (kinds in order) | the video's length       |
    | `video-to-video`     | `source.video` (+ `references`)| the source's length (`source.seconds`) |
    | `video-extend`       | `source.job` if set, else `source.video` | the seconds added |

    For `video-extend` the engine expects back either the whole video (the source followed
    by the extension: Veo) or the extension alone, and the route says which in its catalog
    options (`extension_returns = "whole"`; the default, "added", has the engine join the
    source and the extension without re-encoding, `engine/join.py`). A route only ever
    gets the types its catalog `capabilities` list, with at most its `max_references`.
    """

    generation_id: str
    model: str  # the route's provider model name
    prompt: str
    duration: float
    aspect_ratio: str
    image_url: str | None = None
    options: Mapping[str, JsonScalar] = field(default_factory=dict)
    callback_url: str | None = None
    # What the user asked beyond the seed's fields, the model's defaults filled in
    # (resolution, generate_audio); the route honours every control set here.
    controls: Controls = field(default_factory=Controls)
    # The optional controls its route honours (the catalog's `supports`): a control it does
    # not list is the model's default, which a host may refuse to be sent at all.
    supports: frozenset[str] = frozenset()
    type: str = "text-to-video"
    references: tuple[ProviderMedia, ...] = ()
    source: ProviderSource | None = None
    # Our kept copies of `image_url` and `controls.end_image_url` on this machine (local
    # storage only, else None): for an adapter that renders here or uploads the file.
    image_path: Path | None = None
    end_image_path: Path | None = None


class JobState(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELED = "canceled"


@dataclass(frozen=True)
class ProviderStatus:
    state: JobState
    progress: int | None = None
    error: ProviderError | None = None  # set when state is FAILED
    billed_seconds: float | None = None
    data: JobData | None = None  # replaces the job's data when given (e.g. the result URL)


@dataclass(frozen=True)
class ResultRef:
    """Where the finished video is: a URL to download (with the headers it needs) or, for
    the local renderer, a file on this machine."""

    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    path: Path | None = None
    delete_after: bool = False  # the engine removes `path` once the video is stored


@dataclass(frozen=True)
class PollPolicy:
    first_poll: timedelta = timedelta(seconds=5)
    interval: timedelta = timedelta(seconds=5)
    max_interval: timedelta = timedelta(seconds=30)
    max_wait: timedelta = timedelta(minutes=30)  # the provider's documented longest run

    @classmethod
    def seconds(cls, first: float, every: float, at_most: float, give_up: float) -> PollPolicy:
        """First poll after `first` s, then every `every` s backing off to `at_most`, and no
        longer than `give_up` s in all."""
        return cls(*(timedelta(seconds=value) for value in (first, every, at_most, give_up)))


class Provider(Protocol):
    name: ClassVar[str]
    poll_policy: PollPolicy

    async def submit(self, request: ProviderRequest) -> ProviderJob: ...

    async def poll(self, job: ProviderJob) -> ProviderStatus: ...

    async def fetch_result(self, job: ProviderJob) -> ResultRef: ...

    async def cancel(self, job: ProviderJob) -> None:
        """Best effort: stop the job at the provider where it can be stopped."""
        ...

    async def aclose(self) -> None: ...


@dataclass(frozen=True)
class ProviderContext:
    settings: Settings
    work_dir: Path  # scratch space for adapters that produce files on this machine
    render_pool: Callable[[], Executor]  # CPU work off the event loop, created on first use


@dataclass(frozen=True)
class PublishedModel:
    """What a host publishes about one model it serves (for `vidrouter catalog check`)."""

    provider_model: str
    price_per_second: float | None = None
    durations: tuple[float, ...] | None = None
    max_duration: float | None = None
    aspect_ratios: tuple[str, ...] | None = None  # in our vocabulary ("16:9", ...)


@dataclass(frozen=True)
class CallbackDelivery:
    """A provider's callback as it reached us, for adapters whose provider signs them: an
    adapter with `callback_is_genuine(delivery) -> bool` has each delivery to one of its
    generations checked before it counts (it is still only a hint to poll now); one with
    `webhook_job(delivery, now=) -> str | None` takes its provider's account-wide webhooks
    (`/v1/provider-callbacks/<provider>`), answering the job a genuine one names."""

    method: str
    url: str  # the callback URL we gave the provider (what a signature covers)
    headers: Mapping[str, str]
    body: bytes
