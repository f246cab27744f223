"""Every operation of the client, written once as a plan of steps (see `_plan.py`)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Literal, Unpack
from urllib.parse import quote

import httpx
from pydantic import ValidationError

from vidrouter import __version__
from vidrouter.client._plan import Emit, Load, Notify, OnProgress, Plan, Save, Send, Sleep
from vidrouter.client.errors import (
    APIConnectionError,
    APIError,
    ClientError,
    GenerationFailedError,
    WaitTimeoutError,
    error_class,
)
from vidrouter.client.retry import RETRY_STATUSES, RetryPolicy, request_was_sent, retry_after
from vidrouter.client.types import (
    CreateControls,
    ErrorObject,
    Generation,
    GenerationPage,
    Model,
    ModelList,
    Usage,
    UsageGroupBy,
)

Params = Mapping[str, str | int | float | None]
# "any": also when the request may have reached the server (reads, and creates that carry an
# Idempotency-Key); "unsent": only when it surely did not (cancel).
RetryWhen = Literal["any", "unsent"]


class CreateOptions(CreateControls, total=False):
    """The optional fields of a create: the keywords of `create` and `generate` (the
    controls among them)."""

    duration: float | None
    aspect_ratio: str | None
    image: str | Path | None  # a URL, or a local PNG/JPEG sent as a data: URI
    webhook_url: str | None
    metadata: Mapping[str, str] | None
    idempotency_key: str | None


class Core:
    def __init__(
        self, *, base_url: str, api_key: str, retry: RetryPolicy, poll_interval: float
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.retry = retry
        self.poll_interval = poll_interval
        self._headers = {
            "Authorization": f"Bearer {api_key}",
            "Accept": "application/json",
            "User-Agent": f"vidrouter-python/{__version__}",
        }

    def request(
        self,
        method: str,
        path: str,
        *,
        json: object = None,
        params: Params | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> httpx.Request:
        query = {k: v for k, v in (params or {}).items() if v is not None}
        return httpx.Request(
            method,
            self.base_url + path,
            params=query or None,
            json=json,
            headers={**self._headers, **(headers or {})},
        )

    def call(self, request: httpx.Request, *, when: RetryWhen = "any") -> Plan[httpx.Response]:
        """Send with retries; the 2xx response, else the typed error."""
        attempt = 0
        while True:
            try:
                response = yield Send(request)
                assert isinstance(response, httpx.Response)
            except httpx.TransportError as exc:
                retryable = when == "any" or not request_was_sent(exc)
                if not retryable or attempt >= self.retry.max_retries:
                    raise APIConnectionError(
                        f"{request.method} {request.url}: {exc or type(exc).__name__}"
                    ) from exc
                delay = self.retry.delay(attempt, None)
            else:
                if response.is_success:
                    return response
                retryable = when == "any" or response.status_code == 429
                if response.status_code not in RETRY_STATUSES or not retryable:
                    raise api_error(response)
                if attempt >= self.retry.max_retries:
                    raise api_error(response)
                delay = self.retry.delay(attempt, retry_after(response))
            attempt += 1
            yield Sleep(delay)

    # The API's operations.

    def models(self) -> Plan[list[Model]]:
        response = yield from self.call(self.request("GET", "/v1/models"))
        return ModelList.model_validate_json(response.content).data

    def model(self, model_id: str) -> Plan[Model]:
        response = yield from self.call(self.request("GET", f"/v1/models/{_segment(model_id)}"))
        return Model.model_validate_json(response.content)

    def create(self, model: str, prompt: str, **options: Unpack[CreateOptions]) -> Plan[Generation]:
        """Start a generation. `image` is a URL, or a local PNG/JPEG sent as a data: URI."""
        unknown = sorted(options.keys() - CreateOptions.__annotations__.keys())
        if unknown:
            raise TypeError(f"create() got unexpected keyword arguments: {', '.join(unknown)}")
        # The other options are the API's fields of the same name.
        fields: dict[str, object] = {
            k: v for k, v in options.items() if k not in ("image", "idempotency_key")
        }
        metadata, image = options.get("metadata"), options.get("image")
        image_url = None if image is None else (yield Load(image))
        fields.update(image_url=image_url, metadata=None if metadata is None else dict(metadata))
        body: dict[str, object] = {"model": model, "prompt": prompt}
        body.update({k: v for k, v in fields.items() if v is not None})
        # One key for every try of this call: a repeat returns the first try's generation.
        key = options.get("idempotency_key") or f"vrc_{uuid.uuid4().hex}"
        request = self.request(
            "POST", "/v1/generations", json=body, headers={"Idempotency-Key": key}
        )
        response = yield from self.call(request)
        return _generation(response)

    def get(self, generation_id: str) -> Plan[Generation]:
        path = f"/v1/generations/{_segment(generation_id)}"
        response = yield from self.call(self.request("GET", path))
        return _generation(response)

    def cancel(self, generation_id: str) -> Plan[Generation]:
        path = f"/v1/generations/{_segment(generation_id)}/cancel"
        response = yield from self.call(self.request("POST", path), when="unsent")
        return _generation(response)

    def page(
        self,
        *,
        after: str | None = None,
        limit: int | None = None,
        status: str | None = None,
        model: str | None = None,
    ) -> Plan[GenerationPage]:
        params = {"after": after, "limit": limit, "status": status, "model": model}
        response = yield from self.call(self.request("GET", "/v1/generations", params=params))
        return GenerationPage.model_validate_json(response.content)

    def list(
        self, *, status: str | None = None, model: str | None = None, page_size: int = 100
    ) -> Plan[None]:
        """Every generation, newest first, one page at a time."""
        after: str | None = None
        while True:
            page = yield from self.page(after=after, limit=page_size, status=status, model=model)
            for generation in page.data:
                yield Emit(generation)
            if not page.has_more or not page.data:
                return
            after = page.data[-1].id

    def usage(
        self,
        *,
        from_: str | None = None,
        to: str | None = None,
        group_by: UsageGroupBy = "model",
    ) -> Plan[Usage]:
        params = {"from": from_, "to": to, "group_by": group_by}
        response = yield from self.call(self.request("GET", "/v1/usage", params=params))
        return Usage.model_validate_json(response.content)

    def wait(
        self,
        generation_id: str,
        *,
        on_progress: OnProgress | None = None,
        timeout: float | None = None,
        poll_interval: float | None = None,
    ) -> Plan[Generation]:
        """Poll until the generation is `completed`, `failed` or `canceled` and return it;
        `on_progress` gets the generation each time its status or progress changes."""
        return (yield from self._watch(generation_id, None, on_progress, timeout, poll_interval))

    def generate(
        self,
        model: str,
        prompt: str,
        *,
        on_progress: OnProgress | None = None,
        timeout: float | None = None,
        **options: Unpack[CreateOptions],
    ) -> Plan[Generation]:
        """`create` then `wait`: the completed generation, or `GenerationFailedError`."""
        first = yield from self.create(model, prompt, **options)
        final = yield from self._watch(first.id, first, on_progress, timeout, None)
        return self.finish(final)

    def _watch(
        self,
        generation_id: str,
        first: Generation | None,
        on_progress: OnProgress | None,
        timeout: float | None,
        poll_interval: float | None,
    ) -> Plan[Generation]:
        interval = self.poll_interval if poll_interval is None else poll_interval
        deadline = None if timeout is None else time.monotonic() + timeout
        seen: tuple[str, int | None] | None = None
        generation = first
        while True:
            if generation is None:
                generation = yield from self.get(generation_id)
            if (generation.status, generation.progress) != seen:
                seen = (generation.status, generation.progress)
                yield Notify(generation, on_progress)
            if generation.done:
                return generation
            if deadline is not None and time.monotonic() >= deadline:
                raise WaitTimeoutError(generation, timeout or 0.0)
            yield Sleep(interval)
            generation = None

    def finish(self, generation: Generation) -> Generation:
        """What `generate` returns: a completed generation, else the failure as an error."""
        if generation.status != "completed":
            raise GenerationFailedError(generation)
        return generation

    def download(self, generation_id: str, path: str | Path) -> Plan[Path]:
        """Save the finished video to `path` (replaced whole, never left half written)."""
        path = Path(path)
        generation = yield from self.get(generation_id)
        if generation.status != "completed" or generation.video_url is None:
            raise ClientError(
                f"generation {generation.id} is {generation.status}: it has no video to download"
            )
        # The video URL is a signed capability on the content host: no API key goes with it,
        # so the key never reaches another host.
        request = httpx.Request("GET", generation.video_url)
        attempt = 0
        while True:
            try:
                response = yield Save(request, path)
                assert isinstance(response, httpx.Response)
            except httpx.TransportError as exc:
                if attempt >= self.retry.max_retries:
                    raise APIConnectionError(f"download of {generation.id}: {exc}") from exc
                attempt += 1
                yield Sleep(self.retry.delay(attempt, None))
                continue
            if not response.is_success:
                raise api_error(response)
            return path


def api_error(response: httpx.Response) -> APIError:
    """The typed error of a non-2xx response, carrying the API's error object."""
    try:
        error = ErrorObject.model_validate(response.json()["error"])
    except (ValueError, KeyError, TypeError, ValidationError):
        # Not the API's shape (a proxy's page, say): keep what is there.
        error = ErrorObject(
            type="api_error",
            code=f"http_{response.status_code}",
            message=response.text[:500] or response.reason_phrase,
        )
    return error_class(response.status_code)(
        response.status_code,
        error,
        request_id=response.headers.get("x-request-id"),
        retry_after=retry_after(response),
    )


def _generation(response: httpx.Response) -> Generation:
    return Generation.model_validate_json(response.content)


def _segment(value: str) -> str:
    """A path segment, escaped: an id can never reach another path."""
    return quote(value, safe="")
