"""The steps an operation asks its driver to perform, and the stepping of a plan.

Every operation (retries, waiting, paging, downloading) is written once, in `_core.py`, as a
generator that yields these steps and receives their results; `Client` performs them with
blocking I/O and `AsyncClient` with awaits, both stepping the plan with `resume`. So the sync
and async clients share all their logic and differ only in how a request is sent, a file
written, a pause taken and a callback called.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Generator
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

import httpx

from vidrouter.client.types import Generation

T = TypeVar("T")
OnProgress = Callable[[Generation], object]


@dataclass(frozen=True)
class Send:
    """Send the request; the result is the response, read whole (or the httpx error thrown
    into the plan). Connecting, sending and reading the whole answer take at most `timeout`
    seconds together, else the result is an `httpx.TimeoutException`: a server that drips its
    answer a byte at a time, or never answers, cannot hold the call longer."""

    request: httpx.Request
    timeout: float


@dataclass(frozen=True)
class Save:
    """Send the request and stream a 2xx body into `path`, within `timeout` seconds whole; the
    result is the response. The file is written whole or not at all, and only when the body
    is an MP4 (else the result is `NotVideo` and nothing is written)."""

    request: httpx.Request
    path: Path
    timeout: float


@dataclass(frozen=True)
class NotVideo:
    """What a Save gives when the 2xx body was not an MP4 (a proxy's page, say)."""

    response: httpx.Response
    head: bytes


@dataclass(frozen=True)
class Sleep:
    seconds: float


@dataclass(frozen=True)
class Load:
    """Make the `image` argument a URL: the result is the URL (a local file is read)."""

    image: str | Path


@dataclass(frozen=True)
class ReadFile:
    """Read a local file whole (a character's clip): the result is its bytes."""

    path: Path


@dataclass(frozen=True)
class Notify:
    """Hand the generation to the caller's `on_progress` callback (awaited when the async
    client's callback is a coroutine function)."""

    generation: Generation
    on_progress: OnProgress | None


@dataclass(frozen=True)
class Emit:
    """Yield the generation to the caller of an iterator (`list`)."""

    generation: Generation


Step = Send | Save | Load | ReadFile | Sleep | Notify | Emit
Plan = Generator[Step, httpx.Response | NotVideo | str | bytes | None, T]
Outcome = httpx.Response | NotVideo | str | bytes | httpx.RequestError | None
"""What performing a step gave: the response, the URL of a Load, the bytes of a ReadFile,
the httpx error to throw into the plan, or None for a step without a result."""


@dataclass(frozen=True)
class Done(Generic[T]):
    """The plan has returned `value`."""

    value: T


def resume(plan: Plan[T], outcome: Outcome) -> Step | Done[T]:
    """Hand the plan the outcome of its last step (None to start it): its next step, or Done.

    A plan's StopIteration carries its result; it is caught here, in the frame that calls
    send(), because one escaping a coroutine becomes a RuntimeError.
    """
    try:
        if isinstance(outcome, httpx.RequestError):
            return plan.throw(outcome)
        return plan.send(outcome)
    except StopIteration as stop:
        return Done(stop.value)


MP4_HEAD = 8  # bytes enough to tell an MP4: a box size, then its type


def is_mp4(head: bytes) -> bool:
    """True when the body starts as an MP4 (ISO BMFF) does: its first box is `ftyp`."""
    return len(head) >= MP4_HEAD and head[4:8] == b"ftyp"


def deadline_passed(request: httpx.Request, timeout: float) -> httpx.TimeoutException:
    """The outcome of a Send or Save that took longer than its `timeout`, whole."""
    return httpx.ReadTimeout(f"no complete answer within {timeout:g} s", request=request)


def whole(response: httpx.Response, raw: bytes) -> httpx.Response:
    """The streamed `response` again, its body the `raw` bytes read (decoded on `.read()`
    as httpx decodes any body), so the plan sees a response read whole."""
    complete = httpx.Response(
        response.status_code,
        headers=response.headers,
        content=raw,
        request=response.request,
        extensions=response.extensions,
    )
    complete.read()
    return complete


def part_file(path: Path) -> Path:
    """Where a download is written before it replaces `path` whole: beside it, unique."""
    return path.with_name(f".download-{path.name}.{uuid.uuid4().hex}.part")
