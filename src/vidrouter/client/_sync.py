"""`Client`: the operations of `_core.py`, performed with blocking I/O."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from types import TracebackType

import httpx

from vidrouter.client import _plan as steps
from vidrouter.client._plan import T
from vidrouter.client._shell import Shell
from vidrouter.client.images import image_url, read_file
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

    # The driver: `steps.resume` steps the plan, these perform its steps.

    def _open(self, timeout: float) -> httpx.Client:
        return httpx.Client(timeout=timeout)

    def _run(self, plan: steps.Plan[T]) -> T:
        step = steps.resume(plan, None)
        while not isinstance(step, steps.Done):
            step = steps.resume(plan, self._perform(step))
        return step.value

    def _iterate(self, plan: steps.Plan[None]) -> Iterator[Generation]:
        step = steps.resume(plan, None)
        while not isinstance(step, steps.Done):
            if isinstance(step, steps.Emit):
                yield step.generation
                step = steps.resume(plan, None)
            else:
                step = steps.resume(plan, self._perform(step))

    def _perform(self, step: steps.Step) -> steps.Outcome:
        """Do one step: its result (or a request's httpx error), None for most."""
        if isinstance(step, steps.Sleep):
            time.sleep(step.seconds)
        elif isinstance(step, steps.Notify):
            if step.on_progress is not None:
                step.on_progress(step.generation)
        elif isinstance(step, steps.Load):
            return image_url(step.image)
        elif isinstance(step, steps.ReadFile):
            return read_file(step.path)
        elif isinstance(step, steps.Send | steps.Save):
            return self._within(step)
        return None

    def _within(self, step: steps.Send | steps.Save) -> steps.Outcome:
        """The request performed in a helper thread that this one waits for at most the
        step's timeout: httpx's own timeouts are per read, and a blocking read cannot be
        interrupted, so only a waiter can give up on a server that drips its answer. The
        helper stops at its next chunk once told to (nothing is left half written)."""
        stop = threading.Event()
        outcome: list[steps.Outcome | BaseException] = []

        def work() -> None:
            try:
                done = (
                    self._save(step, stop)
                    if isinstance(step, steps.Save)
                    else self._send(step, stop)
                )
                outcome.append(done)
            except BaseException as exc:  # to the caller's thread: an httpx error is returned
                outcome.append(exc)

        helper = threading.Thread(target=work, name="vidrouter-client-request", daemon=True)
        helper.start()
        try:
            helper.join(step.timeout)
        except BaseException:  # Ctrl-C: the helper must not finish a download after it
            stop.set()
            raise
        if helper.is_alive():
            stop.set()
            return steps.deadline_passed(step.request, step.timeout)
        result = outcome[0]
        if isinstance(result, BaseException) and not isinstance(result, httpx.RequestError):
            raise result
        return result

    def _send(self, step: steps.Send, stop: threading.Event) -> httpx.Response:
        response = self._http.send(step.request, stream=True)
        try:
            raw = b"".join(_chunks(response.iter_raw(), stop, step))
        finally:
            response.close()
        return steps.whole(response, raw)

    def _save(self, step: steps.Save, stop: threading.Event) -> httpx.Response | steps.NotVideo:
        # A video URL may redirect to the store (VIDROUTER_CONTENT_DELIVERY=redirect); the
        # request carries no API key, so following it gives nothing away.
        response = self._http.send(step.request, stream=True, follow_redirects=True)
        try:
            if not response.is_success:
                return steps.whole(response, b"".join(_chunks(response.iter_raw(), stop, step)))
            step.path.parent.mkdir(parents=True, exist_ok=True)
            temp = steps.part_file(step.path)
            head = b""
            try:
                with temp.open("xb") as out:
                    for chunk in _chunks(response.iter_bytes(), stop, step):
                        head = (
                            (head + chunk)[: steps.MP4_HEAD] if len(head) < steps.MP4_HEAD else head
                        )
                        out.write(chunk)
                if not steps.is_mp4(head):
                    temp.unlink()
                    return steps.NotVideo(response, head)
                temp.replace(step.path)
            except BaseException:
                temp.unlink(missing_ok=True)
                raise
            return response
        finally:
            response.close()


def _chunks(
    chunks: Iterator[bytes], stop: threading.Event, step: steps.Send | steps.Save
) -> Iterator[bytes]:
    for chunk in chunks:
        if stop.is_set():
            raise steps.deadline_passed(step.request, step.timeout)
        yield chunk
