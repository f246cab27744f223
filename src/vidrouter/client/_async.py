"""`AsyncClient`: the operations of `_core.py`, performed with awaits."""

from __future__ import annotations

import inspect
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from pathlib import Path
from types import TracebackType
from typing import Unpack

import anyio
import httpx

from vidrouter.client._core import Core
from vidrouter.client._plan import Emit, Notify, Plan, Save, Send, Sleep, Step, T
from vidrouter.client._sync import DEFAULT_BASE_URL
from vidrouter.client.images import image_url, is_remote
from vidrouter.client.retry import RetryPolicy
from vidrouter.client.types import (
    CreateControls,
    Generation,
    GenerationPage,
    Model,
    Usage,
    UsageGroupBy,
)

OnProgress = Callable[[Generation], Awaitable[object] | object]


class AsyncClient:
    """An asyncio client of the vidrouter API. Use it as an async context manager, or
    `await aclose()` it. `on_progress` callbacks may be plain functions or coroutines."""

    def __init__(
        self,
        api_key: str,
        *,
        base_url: str = DEFAULT_BASE_URL,
        timeout: float = 30.0,
        max_retries: int = 3,
        poll_interval: float = 1.0,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        self._core = Core(
            base_url=base_url,
            api_key=api_key,
            retry=RetryPolicy(max_retries=max_retries),
            poll_interval=poll_interval,
        )
        self._http = http_client or httpx.AsyncClient(timeout=timeout)

    async def models(self) -> list[Model]:
        return await self._run(self._core.models())

    async def model(self, model_id: str) -> Model:
        return await self._run(self._core.model(model_id))

    async def create(
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
        image_value: str | None = None
        if image is not None:
            # Reading a local file is blocking I/O: off the event loop.
            image_value = (
                str(image) if is_remote(image) else await anyio.to_thread.run_sync(image_url, image)
            )
        return await self._run(
            self._core.create(
                model=model,
                prompt=prompt,
                duration=duration,
                aspect_ratio=aspect_ratio,
                image_url=image_value,
                webhook_url=webhook_url,
                metadata=metadata,
                idempotency_key=idempotency_key,
                controls=controls,
            )
        )

    async def get(self, generation_id: str) -> Generation:
        return await self._run(self._core.get(generation_id))

    async def cancel(self, generation_id: str) -> Generation:
        return await self._run(self._core.cancel(generation_id))

    async def page(
        self,
        *,
        after: str | None = None,
        limit: int | None = None,
        status: str | None = None,
        model: str | None = None,
    ) -> GenerationPage:
        plan = self._core.page(after=after, limit=limit, status=status, model=model)
        return await self._run(plan)

    def list(
        self, *, status: str | None = None, model: str | None = None, page_size: int = 100
    ) -> AsyncIterator[Generation]:
        """Every generation of the account, newest first, fetching pages as it goes."""
        return self._iterate(self._core.list(status=status, model=model, page_size=page_size))

    async def usage(
        self,
        *,
        from_: str | None = None,
        to: str | None = None,
        group_by: UsageGroupBy = "model",
    ) -> Usage:
        return await self._run(self._core.usage(from_=from_, to=to, group_by=group_by))

    async def wait(
        self,
        generation_id: str,
        *,
        on_progress: OnProgress | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 - WaitTimeoutError keeps the last state
        poll_interval: float | None = None,
    ) -> Generation:
        """Poll until the generation is `completed`, `failed` or `canceled` and return it;
        `on_progress` gets the generation each time its status or progress changes."""
        plan = self._core.wait(generation_id, timeout=timeout, poll_interval=poll_interval)
        return await self._run(plan, on_progress)

    async def generate(
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
        timeout: float | None = None,  # noqa: ASYNC109 - WaitTimeoutError keeps the last state
        **controls: Unpack[CreateControls],
    ) -> Generation:
        """`create` then `wait`: the completed generation, or `GenerationFailedError`."""
        first = await self.create(
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
        return self._core.finish(await self._run(plan, on_progress))

    async def download(self, generation_id: str, path: str | Path) -> Path:
        """Save the finished video to `path` (replaced whole, never left half written)."""
        return await self._run(self._core.download(generation_id, Path(path)))

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    # The driver. A plan's StopIteration carries its result; it is caught here, in the
    # frame that calls send(), because one escaping a coroutine becomes a RuntimeError.

    async def _run(self, plan: Plan[T], on_progress: OnProgress | None = None) -> T:
        try:
            step = next(plan)
            while True:
                try:
                    result = await self._perform(step, on_progress)
                except httpx.TransportError as exc:
                    step = plan.throw(exc)
                else:
                    step = plan.send(result)
        except StopIteration as stop:
            value: T = stop.value
            return value

    async def _iterate(self, plan: Plan[None]) -> AsyncIterator[Generation]:
        try:
            step = next(plan)
            while True:
                if isinstance(step, Emit):
                    yield step.generation
                    step = plan.send(None)
                    continue
                try:
                    result = await self._perform(step, None)
                except httpx.TransportError as exc:
                    step = plan.throw(exc)
                else:
                    step = plan.send(result)
        except StopIteration:
            return

    async def _perform(self, step: Step, on_progress: OnProgress | None) -> httpx.Response | None:
        """Do one step: the response for a request, None for the others."""
        if isinstance(step, Sleep):
            await anyio.sleep(step.seconds)
            return None
        if isinstance(step, Notify | Emit):
            if on_progress is not None:
                outcome = on_progress(step.generation)
                if inspect.isawaitable(outcome):
                    await outcome
            return None
        response = await (self._save(step) if isinstance(step, Save) else self._send(step))
        return response

    async def _send(self, step: Send) -> httpx.Response:
        response = await self._http.send(step.request)
        await response.aread()
        return response

    async def _save(self, step: Save) -> httpx.Response:
        response = await self._http.send(step.request, stream=True)
        try:
            if not response.is_success:
                await response.aread()
                return response
            target = anyio.Path(step.path)
            await target.parent.mkdir(parents=True, exist_ok=True)
            temp = target.with_name(f".download-{target.name}.{uuid.uuid4().hex}.part")
            try:
                async with await anyio.open_file(temp, "xb") as out:
                    async for chunk in response.aiter_bytes():
                        await out.write(chunk)
                await temp.replace(target)
            except BaseException:
                await temp.unlink(missing_ok=True)
                raise
            return response
        finally:
            await response.aclose()
