"""The steps an operation asks its driver to perform.

Every operation (retries, waiting, paging, downloading) is written once, in `_core.py`, as a
generator that yields these steps and receives their results; `Client` performs them with
blocking I/O and `AsyncClient` with awaits. So the sync and async clients share all their
logic and differ only in how a request is sent, a file written and a pause taken.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import httpx

from vidrouter.client.types import Generation

T = TypeVar("T")


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
class Notify:
    """Hand the generation to the caller's `on_progress` callback."""

    generation: Generation


@dataclass(frozen=True)
class Emit:
    """Yield the generation to the caller of an iterator (`list`)."""

    generation: Generation


Step = Send | Save | Sleep | Notify | Emit
Plan = Generator[Step, httpx.Response | None, T]
