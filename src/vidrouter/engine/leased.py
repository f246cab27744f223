"""A work loop over a store of leased work (generations, webhook deliveries)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, timedelta
from typing import Protocol, TypeVar

from vidrouter.domain.clock import Clock
from vidrouter.engine.loop import HasId, WorkLoop

Q = TypeVar("Q", bound=HasId)
Q_co = TypeVar("Q_co", bound=HasId, covariant=True)


class Leased(Protocol[Q_co]):
    async def claim(
        self,
        owner: str,
        *,
        now: datetime,
        lease_until: datetime,
        limit: int,
        due_by: datetime | None = None,
    ) -> Sequence[Q_co]: ...

    async def next_due_at(self, now: datetime) -> datetime | None: ...


async def _nothing() -> int:
    return 0


def leased_loop(
    name: str,
    queue: Leased[Q],
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
