"""`Client`: the operations of `_core.py`, performed with blocking I/O."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterator
from types import TracebackType
from typing import Concatenate, ParamSpec, Unpack

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
from vidrouter.client.images import image_url
from vidrouter.client.types import Generation

P = ParamSpec("P")
OnProgress = Callable[[Generation], object]


def blocking(op: Callable[Concatenate[Core, P], Plan[T]]) -> Callable[Concatenate[Client, P], T]:
    """A method of `Client` that performs the plan of the same operation of `Core`."""

    @functools.wraps(op)
    def method(self: Client, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return self._run(op(self._core, *args, **kwargs))

    return method


class Client(Shell[httpx.Client]):
    """A blocking client of the vidrouter API. Use it as a context manager, or `close()` it."""

    models = blocking(Core.models)
    model = blocking(Core.model)
    get = blocking(Core.get)
    cancel = blocking(Core.cancel)
    page = blocking(Core.page)
    usage = blocking(Core.usage)
    download = blocking(Core.download)

    def create(self, model: str, prompt: str, **options: Unpack[CreateOptions]) -> Generation:
        """Start a generation. `image` is a URL, or a local PNG/JPEG sent as a data: URI."""
        image = options.get("image")
        url = image_url(image) if image is not None else None
        return self._run(self._core.create(model, prompt, options, url))

    def list(
        self, *, status: str | None = None, model: str | None = None, page_size: int = 100
    ) -> Iterator[Generation]:
        """Every generation of the account, newest first, fetching pages as it goes."""
        return self._iterate(self._core.list(status=status, model=model, page_size=page_size))

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
        on_progress: OnProgress | None = None,
        timeout: float | None = None,
        **options: Unpack[CreateOptions],
    ) -> Generation:
        """`create` then `wait`: the completed generation, or `GenerationFailedError`."""
        first = self.create(model, prompt, **options)
        plan = self._core.wait(first.id, timeout=timeout, first=first)
        return self._core.finish(self._run(plan, on_progress))

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

    # The driver: `resume` steps the plan, these perform its steps.

    def _open(self, timeout: float) -> httpx.Client:
        return httpx.Client(timeout=timeout)

    def _run(self, plan: Plan[T], on_progress: OnProgress | None = None) -> T:
        step = resume(plan, None)
        while not isinstance(step, Done):
            step = resume(plan, self._perform(step, on_progress))
        return step.value

    def _iterate(self, plan: Plan[None]) -> Iterator[Generation]:
        step = resume(plan, None)
        while not isinstance(step, Done):
            if isinstance(step, Emit):
                yield step.generation
                step = resume(plan, None)
            else:
                step = resume(plan, self._perform(step, None))

    def _perform(self, step: Step, on_progress: OnProgress | None) -> Outcome:
        """Do one step: the response for a request (or its transport error), else None."""
        try:
            if isinstance(step, Sleep):
                time.sleep(step.seconds)
            elif isinstance(step, Notify | Emit):
                if on_progress is not None:
                    on_progress(step.generation)
            elif isinstance(step, Save):
                return self._save(step)
            else:
                response = self._http.send(step.request)
                response.read()
                return response
        except httpx.TransportError as exc:
            return exc
        return None

    def _save(self, step: Save) -> httpx.Response:
        response = self._http.send(step.request, stream=True)
        try:
            if not response.is_success:
                response.read()
                return response
            step.path.parent.mkdir(parents=True, exist_ok=True)
            temp = part_file(step.path)
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
