"""`AsyncClient`: the operations of `_core.py`, performed with awaits."""

from __future__ import annotations

import functools
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from types import TracebackType
from typing import Any, Concatenate, ParamSpec, Unpack

import anyio
import httpx

from vidrouter.client._core import Core, CreateOptions
from vidrouter.client._plan import (
    Done,
    Emit,
    Notify,
    Outcome,
    Plan,
    Save,
    Sleep,
    Step,
    T,
    part_file,
    resume,
)
from vidrouter.client._shell import Shell
from vidrouter.client.images import image_url, is_remote
from vidrouter.client.types import Generation

P = ParamSpec("P")
OnProgress = Callable[[Generation], Awaitable[object] | object]


def awaiting(
    op: Callable[Concatenate[Core, P], Plan[T]],
) -> Callable[Concatenate[AsyncClient, P], Coroutine[Any, Any, T]]:
    """A method of `AsyncClient` that performs the plan of the same operation of `Core`."""

    @functools.wraps(op)
    async def method(self: AsyncClient, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return await self._run(op(self._core, *args, **kwargs))

    return method


class AsyncClient(Shell[httpx.AsyncClient]):
    """An asyncio client of the vidrouter API. Use it as an async context manager, or
    `await aclose()` it. `on_progress` callbacks may be plain functions or coroutines."""

    models = awaiting(Core.models)
    model = awaiting(Core.model)
    get = awaiting(Core.get)
    cancel = awaiting(Core.cancel)
    page = awaiting(Core.page)
    usage = awaiting(Core.usage)
    download = awaiting(Core.download)

    async def create(self, model: str, prompt: str, **options: Unpack[CreateOptions]) -> Generation:
        """Start a generation. `image` is a URL, or a local PNG/JPEG sent as a data: URI."""
        image = options.get("image")
        url: str | None = None
        if image is not None:
            # Reading a local file is blocking I/O: off the event loop.
            url = (
                str(image) if is_remote(image) else await anyio.to_thread.run_sync(image_url, image)
            )
        return await self._run(self._core.create(model, prompt, options, url))

    def list(
        self, *, status: str | None = None, model: str | None = None, page_size: int = 100
    ) -> AsyncIterator[Generation]:
        """Every generation of the account, newest first, fetching pages as it goes."""
        return self._iterate(self._core.list(status=status, model=model, page_size=page_size))

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
        on_progress: OnProgress | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 - WaitTimeoutError keeps the last state
        **options: Unpack[CreateOptions],
    ) -> Generation:
        """`create` then `wait`: the completed generation, or `GenerationFailedError`."""
        first = await self.create(model, prompt, **options)
        plan = self._core.wait(first.id, timeout=timeout, first=first)
        return self._core.finish(await self._run(plan, on_progress))

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

    # The driver: `resume` steps the plan, these perform its steps.

    def _open(self, timeout: float) -> httpx.AsyncClient:
        return httpx.AsyncClient(timeout=timeout)

    async def _run(self, plan: Plan[T], on_progress: OnProgress | None = None) -> T:
        step = resume(plan, None)
        while not isinstance(step, Done):
            step = resume(plan, await self._perform(step, on_progress))
        return step.value

    async def _iterate(self, plan: Plan[None]) -> AsyncIterator[Generation]:
        step = resume(plan, None)
        while not isinstance(step, Done):
            if isinstance(step, Emit):
                yield step.generation
                step = resume(plan, None)
            else:
                step = resume(plan, await self._perform(step, None))

    async def _perform(self, step: Step, on_progress: OnProgress | None) -> Outcome:
        """Do one step: the response for a request (or its transport error), else None."""
        try:
            if isinstance(step, Sleep):
                await anyio.sleep(step.seconds)
            elif isinstance(step, Notify | Emit):
                outcome = None if on_progress is None else on_progress(step.generation)
                if inspect.isawaitable(outcome):
                    await outcome
            elif isinstance(step, Save):
                return await self._save(step)
            else:
                response = await self._http.send(step.request)
                await response.aread()
                return response
        except httpx.TransportError as exc:
            return exc
        return None

    async def _save(self, step: Save) -> httpx.Response:
        response = await self._http.send(step.request, stream=True)
        try:
            if not response.is_success:
                await response.aread()
                return response
            target = anyio.Path(step.path)
            await target.parent.mkdir(parents=True, exist_ok=True)
            temp = anyio.Path(part_file(step.path))
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
