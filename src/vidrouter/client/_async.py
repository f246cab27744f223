"""`AsyncClient`: the operations of `_core.py`, performed with awaits."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator
from types import TracebackType

import anyio
import httpx

from vidrouter.client._plan import (
    Done,
    Emit,
    Load,
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


class AsyncClient(Shell[httpx.AsyncClient]):
    """An asyncio client of the vidrouter API. Use it as an async context manager, or
    `await aclose()` it. `on_progress` callbacks may be plain functions or coroutines."""

    def list(
        self, *, status: str | None = None, model: str | None = None, page_size: int = 100
    ) -> AsyncIterator[Generation]:
        """Every generation of the account, newest first, fetching pages as it goes."""
        return self._iterate(self._core.list(status=status, model=model, page_size=page_size))

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

    async def _run(self, plan: Plan[T]) -> T:
        step = resume(plan, None)
        while not isinstance(step, Done):
            step = resume(plan, await self._perform(step))
        return step.value

    async def _iterate(self, plan: Plan[None]) -> AsyncIterator[Generation]:
        step = resume(plan, None)
        while not isinstance(step, Done):
            if isinstance(step, Emit):
                yield step.generation
                step = resume(plan, None)
            else:
                step = resume(plan, await self._perform(step))

    async def _perform(self, step: Step) -> Outcome:
        """Do one step: its result (or a request's transport error), None for most."""
        try:
            if isinstance(step, Sleep):
                await anyio.sleep(step.seconds)
            elif isinstance(step, Notify):
                outcome = None if step.on_progress is None else step.on_progress(step.generation)
                if inspect.isawaitable(outcome):
                    await outcome
            elif isinstance(step, Load):
                # Reading a local file is blocking I/O: off the event loop.
                if is_remote(step.image):
                    return str(step.image)
                return await anyio.to_thread.run_sync(image_url, step.image)
            elif isinstance(step, Save):
                return await self._save(step)
            elif not isinstance(step, Emit):
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
