"""`Client`: the operations of `_core.py`, performed with blocking I/O."""

from __future__ import annotations

import time
from collections.abc import Iterator
from types import TracebackType

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
from vidrouter.client.images import image_url
from vidrouter.client.types import Generation


class Client(Shell[httpx.Client]):
    """A blocking client of the vidrouter API. Use it as a context manager, or `close()` it."""

    def list(
        self, *, status: str | None = None, model: str | None = None, page_size: int = 100
    ) -> Iterator[Generation]:
        """Every generation of the account, newest first, fetching pages as it goes."""
        return self._iterate(self._core.list(status=status, model=model, page_size=page_size))

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

    def _run(self, plan: Plan[T]) -> T:
        step = resume(plan, None)
        while not isinstance(step, Done):
            step = resume(plan, self._perform(step))
        return step.value

    def _iterate(self, plan: Plan[None]) -> Iterator[Generation]:
        step = resume(plan, None)
        while not isinstance(step, Done):
            if isinstance(step, Emit):
                yield step.generation
                step = resume(plan, None)
            else:
                step = resume(plan, self._perform(step))

    def _perform(self, step: Step) -> Outcome:
        """Do one step: its result (or a request's transport error), None for most."""
        try:
            if isinstance(step, Sleep):
                time.sleep(step.seconds)
            elif isinstance(step, Notify):
                if step.on_progress is not None:
                    step.on_progress(step.generation)
            elif isinstance(step, Load):
                return image_url(step.image)
            elif isinstance(step, Save):
                return self._save(step)
            elif not isinstance(step, Emit):
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
