"""Budgets: a spend limit in USD per key and per account, per UTC day, UTC month or in
total. No HTTP here.

A create is checked inside the transaction that inserts it (`guard`), against every budget
that applies (the key's and its account's): spend in the current period (see
`store.budgets.spend`: finished generations at their cost, unfinished ones at their
estimate) plus the new generation's estimate must not pass the limit, else
`BudgetExceeded` (402 `budget_exceeded`). The check and the insert are serialised per
account across processes, so 20 concurrent creates against a budget for 10 accept exactly
10. An idempotent replay inserts nothing and is not checked again.

A generation counts in the period its creation falls in.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from vidrouter.domain.catalog import Route
from vidrouter.domain.clock import Clock, isoformat
from vidrouter.domain.create_request import CreateRequest
from vidrouter.domain.errors import RequestError
from vidrouter.domain.money import usd
from vidrouter.domain.routing import price_of
from vidrouter.store.budgets import Budget, BudgetStore, Period, budgets, spend
from vidrouter.store.generations import InsertGuard
from vidrouter.store.keys import ApiKey

# Spend and estimates are rounded to micro-dollars; a create that fills a budget exactly
# must not be refused for a rounding error.
_EPSILON = 1e-7
STATE_KEY = "vidrouter.api_key"  # the request's authenticated key, for the budget header


class BudgetExceeded(RequestError):
    status_code = 402

    def __init__(self, message: str) -> None:
        super().__init__(message, code="budget_exceeded")


def period_start(period: Period, now: datetime) -> datetime | None:
    """Where the UTC period holding `now` began; None for `total` (all time)."""
    now = now.astimezone(UTC)
    if period == "day":
        return datetime(now.year, now.month, now.day, tzinfo=UTC)
    if period == "month":
        return datetime(now.year, now.month, 1, tzinfo=UTC)
    return None


def period_end(period: Period, now: datetime) -> datetime | None:
    """When the UTC period holding `now` resets; None for `total` (never)."""
    start = period_start(period, now)
    if start is None:
        return None
    if period == "day":
        return start + timedelta(days=1)
    return datetime(start.year + start.month // 12, start.month % 12 + 1, 1, tzinfo=UTC)


def estimated_cost(req: CreateRequest, route: Route) -> float:
    """Requested seconds (for an extension: the seconds added) x the price of the
    configuration and type asked for (resolution, audio, type) on the route it would be
    billed at now (`ModelCatalog.ensure_servable`: the first of its
    candidates whose circuit is not open)."""
    return round(req.duration * price_of(route, req.controls, req.type), 6)


def remember_key(state: MutableMapping[str, Any], key: ApiKey) -> None:
    """Keep the request's key where the budget header finds it."""
    state[STATE_KEY] = key


class Budgets:
    def __init__(self, store: BudgetStore, *, clock: Clock) -> None:
        self._store = store
        self._clock = clock

    def guard(self, key: ApiKey, estimated_cost: float) -> InsertGuard:
        """The check a create of `key` costing `estimated_cost` runs in its insert's
        transaction. Without any budget it costs one primary-key read and locks nothing."""

        async def check(conn: AsyncConnection) -> None:
            found = await budgets(conn, key.account_id, key.id)
            if found.account is None and found.key is None:
                return
            # Serialise with every other budgeted create of the account, then re-read: a
            # budget changed meanwhile is seen, and the spend below is all committed.
            found = await budgets(conn, key.account_id, key.id, lock=True)
            now = self._clock()
            for whose, budget, key_id in (
                ("the key's", found.key, key.id),
                ("the account's", found.account, None),
            ):
                if budget is None:
                    continue
                spent = await spend(
                    conn,
                    key.account_id,
                    key_id=key_id,
                    since=period_start(budget.period, now),
                )
                if spent + estimated_cost > budget.limit_usd + _EPSILON:
                    raise BudgetExceeded(_refusal(whose, budget, spent, estimated_cost, now))

        return check

    async def remaining(self, key: ApiKey) -> float | None:
        """What `key` may still spend now: the least of what its own budget and its
        account's leave (as of the key's lookup); None when neither has a budget."""
        if not key.budgeted:
            return None
        now = self._clock()
        left: list[float] = []
        for budget, key_id in ((key.budget, key.id), (key.account_budget, None)):
            if budget is None:
                continue
            spent = await self._store.spend(
                key.account_id, key_id=key_id, since=period_start(budget.period, now)
            )
            left.append(budget.limit_usd - spent)
        return round(max(0.0, min(left)), 6)


def _refusal(whose: str, budget: Budget, spent: float, estimated: float, now: datetime) -> str:
    resets = period_end(budget.period, now)
    period = {"day": "per UTC day", "month": "per UTC month", "total": "in total"}[budget.period]
    when = (
        f"it resets at {isoformat(resets)}"
        if resets is not None
        else "a total budget never resets; the operator can raise it"
    )
    return (
        f"this generation would pass {whose} budget: its estimated cost is "
        f"{usd(estimated)}, the limit is {usd(budget.limit_usd)} {period}, and "
        f"{usd(spent)} is spent (finished generations at their cost, unfinished ones at "
        f"their estimate); {when}"
    )
