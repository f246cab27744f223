"""Usage and cost of an account over a time range, summed by the database.

Generations count in the range their `created_at` falls in; days are UTC days. Cost and
billed seconds are set when a generation completes, so only completed ones add to them.
Deleted generations keep their rows (`deleted_at`) and count: usage is history. Cache hits
(`cached_from` set) count apart in `cached` as well. By route,
a group is the host that served it ("fal", "replicate", ...; its own model names stay
private), None for generations that never reached one. By resolution, what it was made at
(None for generations made before resolutions were recorded). Every price is in USD
(`domain.catalog.CURRENCY`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Literal, Self

from sqlalchemy import ColumnElement, case, func, literal_column, select

from vidrouter.domain.generation import Status
from vidrouter.store.database import Database
from vidrouter.store.tables import generations

GroupBy = Literal["model", "route", "resolution", "day"]


@dataclass(frozen=True)
class UsageTotal:
    generations: int
    completed: int
    failed: int
    billed_seconds: float
    cost: float
    # Completed by the cache (a new generation sharing an earlier one's video, at no
    # cost); counted in `generations` and `completed` too.
    cached: int = 0

    def __add__(self, other: UsageTotal) -> Self:
        """Both summed, as this one (a row keeps its group)."""
        return replace(
            self,
            generations=self.generations + other.generations,
            completed=self.completed + other.completed,
            failed=self.failed + other.failed,
            billed_seconds=_round(self.billed_seconds + other.billed_seconds),
            cost=_round(self.cost + other.cost),
            cached=self.cached + other.cached,
        )


@dataclass(frozen=True)
class _Grouped:
    # The model id, the route's host (None: none), the resolution (None: made before
    # resolutions were recorded, or by a model that lists none) or the UTC day.
    group: str | None


@dataclass(frozen=True)
class UsageRow(UsageTotal, _Grouped):
    """One group's total. The group comes first: a dataclass takes its bases' fields in
    reverse method resolution order, `_Grouped`'s before `UsageTotal`'s."""


@dataclass(frozen=True)
class UsageReport:
    rows: list[UsageRow]
    total: UsageTotal


class UsageStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def report(
        self, account_id: str, *, start: datetime, end: datetime, group_by: GroupBy
    ) -> UsageReport:
        """Generations of the account created in [start, end), grouped by model, route or
        day: one GROUP BY query over the (account_id, created_at) index."""
        g = generations
        group: ColumnElement[Any]
        if group_by == "model":
            group = g.c.model
        elif group_by == "route":
            group = g.c.route
        elif group_by == "resolution":
            group = g.c.resolution
        else:
            group = day_of(g.c.created_at, self._db.dialect)
        query = (
            select(
                group.label("grp"),
                func.count().label("generations"),
                func.sum(_is(Status.COMPLETED)).label("completed"),
                func.sum(_is(Status.FAILED)).label("failed"),
                func.coalesce(func.sum(g.c.billed_seconds), 0.0).label("billed_seconds"),
                func.coalesce(func.sum(g.c.cost_amount), 0.0).label("cost"),
                func.sum(case((g.c.cached_from.is_not(None), 1), else_=0)).label("cached"),
            )
            .where(g.c.account_id == account_id, g.c.created_at >= start, g.c.created_at < end)
            .group_by(group)
            .order_by(group)
        )
        async with self._db.read() as conn:
            rows = [_row(r._mapping) for r in await conn.execute(query)]
        if group_by == "route":
            rows = _by_host(rows)
        return UsageReport(rows, sum(rows, UsageTotal(0, 0, 0, 0.0, 0.0)))


def day_of(column: Any, dialect_name: str) -> ColumnElement[str]:
    """The UTC day of a `UTCDateTime` column as 'YYYY-MM-DD' (stored naive UTC on both).
    The format is inlined, not bound: PostgreSQL matches the SELECT and GROUP BY
    expressions textually, and two bound parameters would not match."""
    if dialect_name == "postgresql":
        return func.to_char(column, literal_column("'YYYY-MM-DD'"))
    return func.strftime(literal_column("'%Y-%m-%d'"), column)


def _is(status: Status) -> ColumnElement[int]:
    return case((generations.c.status == status.value, 1), else_=0)


def _by_host(rows: list[UsageRow]) -> list[UsageRow]:
    """Routes ("<host>:<host's model>[#id]") folded into their hosts, hosts in name order."""
    hosts: dict[str | None, UsageRow] = {}
    for r in rows:
        host = r.group.split(":", 1)[0] if r.group else None
        seen = hosts.get(host)
        hosts[host] = replace(r, group=host) if seen is None else seen + r
    return [hosts[h] for h in sorted(hosts, key=lambda h: (h is None, h or ""))]


def _row(m: Any) -> UsageRow:
    return UsageRow(
        group=None if m["grp"] is None else str(m["grp"]),
        generations=int(m["generations"]),
        completed=int(m["completed"] or 0),
        failed=int(m["failed"] or 0),
        billed_seconds=_round(float(m["billed_seconds"])),
        cost=_round(float(m["cost"])),
        cached=int(m["cached"] or 0),
    )


def _round(value: float) -> float:
    return round(value, 6)
