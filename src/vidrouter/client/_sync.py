"""`Client`: the operations of `_core.py`, performed with blocking I/O."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from types import TracebackType
from typing import Unpack

import httpx

from vidrouter.client._core import Core
from vidrouter.client._plan import Emit, Notify, Plan, Save, Send, Sleep, Step, T
from vidrouter.client.images import image_url
from vidrouter.client.retry import RetryPolicy
from vidrouter.client.types import (
    CreateControls,
    Generation,
    GenerationPage,
    Model,
    Usage,
    UsageGroupBy,
)

DEFAULT_BASE_URL = "http://127.0.0.1:8000"
OnProgress = Callable[[Generation], object]


class Client:
    """A blocking client of the vidrouter API. Use it as a context manager, or `close()` it."""

    def __init__(
        self,
        api_key: str,
        *,
        base_url: str = DEFAULT_BASE_URL,
        timeout: float = 30.0,
        max_retries: int = 3,
        poll_interval: float = 1.0,
        http_client: httpx.Client | None = None,
    ) -> None:
        self._core = Core(
            base_url=base_url,
            api_key=api_key,
            retry=RetryPolicy(max_retries=max_retries),
            poll_interval=poll_interval,
        )
        self._http = http_client or httpx.Client(timeout=timeout)

    def models(self) -> list[Model]:
        return self._run(self._core.models())

    def model(self, model_id: str) -> Model:
        return self._run(self._core.model(model_id))

    def create(
        self,
        model: str,
        prompt: str,
        *,
        duration: float | None = None,
        aspect_ratio: str | None = None,
        image: str | Path | None = None,
        webhook_url: str | None = None,
        metadata: Mapping[str, str] | None = None,
        idempotency_key: str | None = None,
        **controls: Unpack[CreateControls],
    ) -> Generation:
        """Start a generation. `image` is a URL, or a local PNG/JPEG sent as a data: URI;
        `controls`: resolution, generate_audio, negative_prompt, seed, end_image_url,
        enhance_prompt (docs/api.md)."""
        return self._run(
            self._core.create(
                model=model,
                prompt=prompt,
                duration=duration,
                aspect_ratio=aspect_ratio,
                image_url=image_url(image) if image is not None else None,
                webhook_url=webhook_url,
                metadata=metadata,
                idempotency_key=idempotency_key,
                controls=controls,
            )
        )

    def get(self, generation_id: str) -> Generation:
        return self._run(self._core.get(generation_id))

    def cancel(self, generation_id: str) -> Generation:
        return self._run(self._core.cancel(generation_id))

    def page(
        self,
        *,
        after: str | None = None,
        limit: int | None = None,
        status: str | None = None,
        model: str | None = None,
    ) -> GenerationPage:
        return self._run(self._core.page(after=after, limit=limit, status=status, model=model))

    def list(
        self, *, status: str | None = None, model: str | None = None, page_size: int = 100
    ) -> Iterator[Generation]:
        """Every generation of the account, newest first, fetching pages as it goes."""
        return self._iterate(self._core.list(status=status, model=model, page_size=page_size))

    def usage(
        self,
        *,
        from_: str | None = None,
        to: str | None = None,
        group_by: UsageGroupBy = "model",
    ) -> Usage:
        return self._run(self._core.usage(from_=from_, to=to, group_by=group_by))

    def wait(
        self,
        generation_id: str,
        *,
        on_progress: OnProgress | None = None,
        timeout: float | None = None,
        poll_interval: float | None = None,
    ) -> Generation:
        """Poll until the generation is `completed`, `failed` or `canceled` and return it;
        `on_progress` gets the generation each time its status or progress changes."""
        plan = self._core.wait(generation_id, timeout=timeout, poll_interval=poll_interval)
        return self._run(plan, on_progress)

    def generate(
        self,
        model: str,
        prompt: str,
        *,
        duration: float | None = None,
        aspect_ratio: str | None = None,
        image: str | Path | None = None,
        webhook_url: str | None = None,
        metadata: Mapping[str, str] | None = None,
        idempotency_key: str | None = None,
        on_progress: OnProgress | None = None,
        timeout: float | None = None,
        **controls: Unpack[CreateControls],
    ) -> Generation:
        """`create` then `wait`: the completed generation, or `GenerationFailedError`."""
        first = self.create(
            model,
            prompt,
            duration=duration,
            aspect_ratio=aspect_ratio,
            image=image,
            webhook_url=webhook_url,
            metadata=metadata,
            idempotency_key=idempotency_key,
            **controls,
        )
        plan = self._core.wait(first.id, timeout=timeout, first=first)
        return self._core.finish(self._run(plan, on_progress))

    def download(self, generation_id: str, path: str | Path) -> Path:
        """Save the finished video to `path` (replaced whole, never left half written)."""
        return self._run(self._core.download(generation_id, Path(path)))

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # The driver. A plan's StopIteration carries its result; it is caught here, in the
    # frame that calls send(), because one escaping a coroutine becomes a RuntimeError.

    def _run(self, plan: Plan[T], on_progress: OnProgress | None = None) -> T:
        try:
            step = next(plan)
            while True:
                try:
                    result = self._perform(step, on_progress)
                except httpx.TransportError as exc:
                    step = plan.throw(exc)
                else:
                    step = plan.send(result)
        except StopIteration as stop:
            value: T = stop.value
            return value

    def _iterate(self, plan: Plan[None]) -> Iterator[Generation]:
        try:
            step = next(plan)
            while True:
                if isinstance(step, Emit):
                    yield step.generation
                    step = plan.send(None)
                    continue
                try:
                    result = self._perform(step, None)
                except httpx.TransportError as exc:
                    step = plan.throw(exc)
                else:
                    step = plan.send(result)
        except StopIteration:
            return

    def _perform(self, step: Step, on_progress: OnProgress | None) -> httpx.Response | None:
        """Do one step: the response for a request, None for the others."""
        if isinstance(step, Sleep):
            time.sleep(step.seconds)
            return None
        if isinstance(step, Notify | Emit):
            if on_progress is not None:
                on_progress(step.generation)
            return None
        response = self._save(step) if isinstance(step, Save) else self._send(step)
        return response

    def _send(self, step: Send) -> httpx.Response:
        response = self._http.send(step.request)
        response.read()
        return response

    def _save(self, step: Save) -> httpx.Response:
        response = self._http.send(step.request, stream=True)
        try:
            if not response.is_success:
                response.read()
                return response
            step.path.parent.mkdir(parents=True, exist_ok=True)
            temp = step.path.with_name(f".download-{step.path.name}.{uuid.uuid4().hex}.part")
            try:
                with temp.open("xb") as out:
                    for chunk in response.iter_bytes():
                        out.write(chunk)
                temp.replace(step.path)
            except BaseException:
                temp.unlink(missing_ok=True)
                raise
            return response
        finally:
            response.close()
