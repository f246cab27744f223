"""A work loop over a store of leased work (generations, webhook deliveries)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, timedelta
from typing import TypeVar

from vidrouter.domain.clock import Clock
from vidrouter.engine.loop import HasId, WorkLoop
from vidrouter.store.leases import LeasedRows

Q = TypeVar("Q", bound=HasId)


async def _nothing() -> int:
    return 0


def leased_loop(
    name: str,
    queue: LeasedRows[Q],
    handle: Callable[[Q], Awaitable[datetime | None]],
    *,
    owner: str,
    capacity: int,
    lease: timedelta,
    idle_poll: float,
    clock: Clock,
    ahead: float = 0.0,
    renew: Callable[[Sequence[str], datetime], Awaitable[int]] = lambda ids, until: _nothing(),
    release: Callable[[Sequence[str]], Awaitable[int]] = lambda ids: _nothing(),
) -> WorkLoop[Q]:
    """A loop that claims `queue`'s due work as `owner`; by default it neither renews nor
    releases leases (for work that ends well inside its lease)."""
    return WorkLoop(
        name,
        claim=lambda n, now, until, by: queue.claim(
            owner, now=now, lease_until=until, limit=n, due_by=by
        ),
        handle=handle,
        renew=renew,
        release=release,
        next_due=queue.next_due_at,
        capacity=capacity,
        lease=lease,
        idle_poll=idle_poll,
        clock=clock,
        ahead=ahead,
    )
