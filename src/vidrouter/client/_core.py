"""Every operation of the client, written once as a plan of steps (see `_plan.py`)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Literal, Unpack
from urllib.parse import quote

import httpx

from vidrouter import __version__
from vidrouter.client._plan import (
    Emit,
    Load,
    Notify,
    NotVideo,
    OnProgress,
    Plan,
    Save,
    Send,
    Sleep,
)
from vidrouter.client._responses import api_error, parse, unexpected
from vidrouter.client.errors import (
    APIConnectionError,
    APITimeoutError,
    ClientError,
    GenerationFailedError,
    WaitTimeoutError,
)
from vidrouter.client.retry import RETRY_STATUSES, RetryPolicy, request_was_sent, retry_after
from vidrouter.client.types import (
    Generation,
    GenerationPage,
    Model,
    ModelList,
    Usage,
    UsageGroupBy,
)
from vidrouter.domain.create_fields import CreateControls, Delivery, Inputs, Shape

Params = Mapping[str, str | int | float | None]
# "any": also when the request may have reached the server (reads, and creates that carry an
# Idempotency-Key); "unsent": only when it surely did not (cancel).
RetryWhen = Literal["any", "unsent"]
# A multipart body: its text fields, and its files as (name, bytes, media type) by field.
Form = tuple[Mapping[str, str], Mapping[str, tuple[str, bytes, str]]]


class CreateOptions(Shape, Inputs, Delivery, CreateControls, total=False):
    """The optional fields of a create: the keywords of `create` and `generate`, every
    optional field the server declares (`vidrouter.domain.create_fields`), and these."""

    image: str | Path | None  # a URL, or a local PNG/JPEG sent as image_url (a data: URI)
    idempotency_key: str | None


class Core:
    def __init__(
        self,
        *,
        base_url: str,
        api_key: str,
        retry: RetryPolicy,
        poll_interval: float,
        timeout: float,
        download_timeout: float,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.retry = retry
        self.poll_interval = poll_interval
        self.timeout = timeout  # one request and its whole answer
        self.download_timeout = download_timeout  # one video download, whole
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
        content: bytes | None = None,
        form: Form | None = None,
    ) -> httpx.Request:
        """`form`: a multipart body, its text fields and its file parts."""
        query = {k: v for k, v in (params or {}).items() if v is not None}
        return _request(
            method,
            self.base_url + path,
            params=query or None,
            json=json,
            content=content,
            headers={**self._headers, **(headers or {})},
            form=form,
        )

    def call(self, request: httpx.Request, *, when: RetryWhen = "any") -> Plan[httpx.Response]:
        """Send with retries; the 2xx response, else the typed error."""
        attempt = 0
        while True:
            try:
                response = yield Send(request, self.timeout)
                assert isinstance(response, httpx.Response)
            except httpx.RequestError as exc:
                retryable = isinstance(exc, httpx.TransportError) and (
                    when == "any" or not request_was_sent(exc)
                )
                if not retryable or attempt >= self.retry.max_retries:
                    raise _connection_error(f"{request.method} {request.url}", exc) from exc
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
        return parse(ModelList, response).data

    def model(self, model_id: str) -> Plan[Model]:
        response = yield from self.call(self.request("GET", f"/v1/models/{_segment(model_id)}"))
        return parse(Model, response)

    def create(self, model: str, prompt: str, **options: Unpack[CreateOptions]) -> Plan[Generation]:
        """Start a generation. `image` is a URL, or a local PNG/JPEG sent as a data: URI."""
        unknown = sorted(options.keys() - CreateOptions.__annotations__.keys())
        if unknown:
            raise TypeError(f"create() got unexpected keyword arguments: {', '.join(unknown)}")
        # The other options are the API's fields of the same name (objects sent as JSON's).
        fields: dict[str, object] = {
            k: _json_value(v) for k, v in options.items() if k not in ("image", "idempotency_key")
        }
        image = options.get("image")
        if image is not None:
            fields["image_url"] = yield Load(image)
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
        return parse(GenerationPage, response)

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
            if page.data[-1].id == after:  # the same page again: it would never end
                raise ClientError(f"the server's page after {after} does not move on")
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
        return parse(Usage, response)

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
                if generation.id != generation_id:
                    raise ClientError(
                        f"asked for generation {generation_id}, the server answered "
                        f"with {generation.id}"
                    )
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
        request = _request("GET", generation.video_url)
        attempt = 0
        while True:
            try:
                saved = yield Save(request, path, self.download_timeout)
            except httpx.RequestError as exc:
                if not isinstance(exc, httpx.TransportError) or attempt >= self.retry.max_retries:
                    raise _connection_error(f"download of {generation.id}", exc) from exc
                attempt += 1
                yield Sleep(self.retry.delay(attempt, None))
                continue
            if isinstance(saved, NotVideo):
                raise unexpected(saved.response, "is not an MP4 video; nothing was saved")
            assert isinstance(saved, httpx.Response)
            if not saved.is_success:
                raise api_error(saved)
            return path


def _request(
    method: str,
    url: str,
    *,
    params: Params | None = None,
    json: object = None,
    headers: Mapping[str, str] | None = None,
    content: bytes | None = None,
    form: Form | None = None,
) -> httpx.Request:
    """The request, or ClientError for an address httpx cannot send to (a bad --base-url, or
    a video URL of a server that is not vidrouter)."""
    fields, files = form if form is not None else (None, None)
    try:
        return httpx.Request(
            method,
            url,
            params=params,
            json=json,
            content=content,
            headers=headers,
            data=fields,
            files=files,
        )
    except (httpx.InvalidURL, httpx.UnsupportedProtocol, ValueError) as exc:
        raise ClientError(f"cannot send {method} to {url!r}: {exc}") from exc


def _connection_error(what: str, exc: httpx.RequestError) -> APIConnectionError:
    if isinstance(exc, httpx.TimeoutException):
        return APITimeoutError(f"{what}: timed out ({exc or type(exc).__name__})")
    return APIConnectionError(f"{what}: {exc or type(exc).__name__}")


def _generation(response: httpx.Response) -> Generation:
    return parse(Generation, response)


def _segment(value: str) -> str:
    """A path segment, escaped: an id can never reach another path (dots too: a segment of
    `..` would be resolved away by URL normalisation)."""
    return quote(value, safe="").replace(".", "%2E")


def _json_value(value: object) -> object:
    """An option as JSON takes it: mappings (and lists of them, as `references`) as dicts."""
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, list | tuple):
        return [dict(v) if isinstance(v, Mapping) else v for v in value]
    return value
