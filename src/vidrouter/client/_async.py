"""`AsyncClient`: the operations of `_core.py`, performed with awaits."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator
from types import TracebackType

import anyio
import httpx

from vidrouter.client import _plan as steps
from vidrouter.client._plan import T
from vidrouter.client._shell import Shell
from vidrouter.client.images import image_url, is_remote, read_file
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

    # The driver: `steps.resume` steps the plan, these perform its steps.

    def _open(self, timeout: float) -> httpx.AsyncClient:
        return httpx.AsyncClient(timeout=timeout)

    async def _run(self, plan: steps.Plan[T]) -> T:
        step = steps.resume(plan, None)
        while not isinstance(step, steps.Done):
            step = steps.resume(plan, await self._perform(step))
        return step.value

    async def _iterate(self, plan: steps.Plan[None]) -> AsyncIterator[Generation]:
        step = steps.resume(plan, None)
        while not isinstance(step, steps.Done):
            if isinstance(step, steps.Emit):
                yield step.generation
                step = steps.resume(plan, None)
            else:
                step = steps.resume(plan, await self._perform(step))

    async def _perform(self, step: steps.Step) -> steps.Outcome:
        """Do one step: its result (or a request's httpx error), None for most."""
        if isinstance(step, steps.Sleep):
            await anyio.sleep(step.seconds)
        elif isinstance(step, steps.Notify):
            outcome = None if step.on_progress is None else step.on_progress(step.generation)
            if inspect.isawaitable(outcome):
                await outcome
        elif isinstance(step, steps.Load):
            # Reading a local file is blocking I/O: off the event loop.
            if is_remote(step.image):
                return str(step.image)
            return await anyio.to_thread.run_sync(image_url, step.image)
        elif isinstance(step, steps.ReadFile):
            return await anyio.to_thread.run_sync(read_file, step.path)
        elif isinstance(step, steps.Send | steps.Save):
            try:
                # httpx's timeouts are per read: the step's deadline is for the steps.whole of it.
                with anyio.fail_after(step.timeout):
                    if isinstance(step, steps.Save):
                        return await self._save(step)
                    return await self._send(step)
            except TimeoutError:
                return steps.deadline_passed(step.request, step.timeout)
            except httpx.RequestError as exc:
                return exc
        return None

    async def _send(self, step: steps.Send) -> httpx.Response:
        response = await self._http.send(step.request)
        await response.aread()
        return response

    async def _save(self, step: steps.Save) -> httpx.Response | steps.NotVideo:
        # A video URL may redirect to the store (VIDROUTER_CONTENT_DELIVERY=redirect); the
        # request carries no API key, so following it gives nothing away.
        response = await self._http.send(step.request, stream=True, follow_redirects=True)
        try:
            if not response.is_success:
                await response.aread()
                return response
            target = anyio.Path(step.path)
            await target.parent.mkdir(parents=True, exist_ok=True)
            temp = anyio.Path(steps.part_file(step.path))
            head = b""
            try:
                async with await anyio.open_file(temp, "xb") as out:
                    async for chunk in response.aiter_bytes():
                        head = (
                            (head + chunk)[: steps.MP4_HEAD] if len(head) < steps.MP4_HEAD else head
                        )
                        await out.write(chunk)
                if not steps.is_mp4(head):
                    await temp.unlink()
                    return steps.NotVideo(response, head)
                await temp.replace(target)
            except BaseException:
                with anyio.CancelScope(shield=True):  # also when the deadline cancelled us
                    await temp.unlink(missing_ok=True)
                raise
            return response
        finally:
            with anyio.CancelScope(shield=True):
                await response.aclose()
