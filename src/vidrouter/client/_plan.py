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
    """Send the request; the result is the response, read whole (or a TransportError thrown
    into the plan)."""

    request: httpx.Request


@dataclass(frozen=True)
class Save:
    """Send the request and stream a 2xx body into `path` (written whole or not at all); the
    result is the response."""

    request: httpx.Request
    path: Path


@dataclass(frozen=True)
class Sleep:
    seconds: float


@dataclass(frozen=True)
class Load:
    """Make the `image` argument a URL: the result is the URL (a local file is read)."""

    image: str | Path


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


Step = Send | Save | Load | Sleep | Notify | Emit
Plan = Generator[Step, httpx.Response | str | None, T]
Outcome = httpx.Response | str | httpx.TransportError | None
"""What performing a step gave: the response, the URL of a Load, the transport error to throw
into the plan, or None for a step without a result."""


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
        if isinstance(outcome, httpx.TransportError):
            return plan.throw(outcome)
        return plan.send(outcome)
    except StopIteration as stop:
        return Done(stop.value)


def part_file(path: Path) -> Path:
    """Where a download is written before it replaces `path` whole: beside it, unique."""
    return path.with_name(f".download-{path.name}.{uuid.uuid4().hex}.part")
