"""Spend limits of accounts and keys, and the spend they are checked against.

A budget is two columns on `accounts` and on `api_keys` (`budget_usd`, `budget_period`:
`day`, `month` or `total`); NULL means no limit. Spend is not kept in a ledger: it is summed
from the generations themselves, each counting its `cost_amount` once it has finished and
its `estimated_cost` until then (the reservation). A generation's contribution therefore
changes in the very UPDATE that makes it terminal, and there is no reservation to release
or leak when a process dies (kill -9) at any point. Deleted generations keep their rows
(`deleted_at`) and count.

Creates that a budget applies to are serialised per account: `lock_account` takes the
account's row `FOR UPDATE` on PostgreSQL (every process's creates for the account queue on
it); on SQLite the write transaction is `BEGIN IMMEDIATE` already, one writer at a time.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from sqlalchemy import and_, case, func, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from vidrouter.domain.generation import TERMINAL
from vidrouter.domain.money import check_budget
from vidrouter.store.database import Database
from vidrouter.store.tables import accounts, api_keys, generations

Period = Literal["day", "month", "total"]
PERIODS: tuple[Period, ...] = ("day", "month", "total")
_TERMINAL = [s.value for s in TERMINAL]


@dataclass(frozen=True)
class Budget:
    limit_usd: float
    period: Period


@dataclass(frozen=True)
class Budgets:
    """The budgets a create of one key in one account must fit in."""

    account: Budget | None
    key: Budget | None


@dataclass(frozen=True)
class Account:
    id: str
    name: str
    created_at: datetime
    budget: Budget | None


def budget_of(limit: float | None, period: str | None) -> Budget | None:
    if limit is None:
        return None
    return Budget(float(limit), period if period in PERIODS else "total")


async def budgets(
    conn: AsyncConnection, account_id: str, key_id: str | None, *, lock: bool = False
) -> Budgets:
    """The account's and the key's budgets as committed now, in one primary-key read;
    `lock`: also hold the account's row until the transaction ends (PostgreSQL; SQLite's
    write transaction holds the whole database already)."""
    query = (
        select(
            accounts.c.budget_usd,
            accounts.c.budget_period,
            api_keys.c.budget_usd.label("key_budget_usd"),
            api_keys.c.budget_period.label("key_budget_period"),
        )
        .select_from(
            accounts.outerjoin(
                api_keys, and_(api_keys.c.account_id == accounts.c.id, api_keys.c.id == key_id)
            )
        )
        .where(accounts.c.id == account_id)
    )
    if lock:
        query = query.with_for_update(of=accounts)
    row = (await conn.execute(query)).first()
    if row is None:
        return Budgets(None, None)
    return Budgets(
        budget_of(row.budget_usd, row.budget_period),
        budget_of(row.key_budget_usd, row.key_budget_period),
    )


async def spend(
    conn: AsyncConnection,
    account_id: str,
    *,
    key_id: str | None = None,
    since: datetime | None = None,
) -> float:
    """USD spent by the account (or one of its keys) on generations created since `since`
    (all time when None): finished ones at their cost, unfinished ones at their estimate.
    One SUM over the (account_id, created_at) index."""
    g = generations
    amount = case(
        (g.c.status.in_(_TERMINAL), func.coalesce(g.c.cost_amount, 0.0)),
        else_=func.coalesce(g.c.estimated_cost, 0.0),
    )
    query = select(func.coalesce(func.sum(amount), 0.0)).where(g.c.account_id == account_id)
    if key_id is not None:
        query = query.where(g.c.api_key_id == key_id)
    if since is not None:
        query = query.where(g.c.created_at >= since)
    value = await conn.scalar(query)
    return round(float(value or 0.0), 6)


class BudgetStore:
    """Reading and setting budgets outside a create (the CLI, the response header)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    @property
    def db(self) -> Database:
        return self._db

    async def spend(
        self, account_id: str, *, key_id: str | None = None, since: datetime | None = None
    ) -> float:
        async with self._db.read() as conn:
            return await spend(conn, account_id, key_id=key_id, since=since)

    async def account(self, account_id: str) -> Account | None:
        async with self._db.read() as conn:
            row = (await conn.execute(select(accounts).where(accounts.c.id == account_id))).first()
        if row is None:
            return None
        return Account(
            row.id, row.name, row.created_at, budget_of(row.budget_usd, row.budget_period)
        )

    async def set_account_budget(self, account_id: str, budget: Budget | None) -> bool:
        """False when there is no such account."""
        changed = await self._db.changed(
            update(accounts).where(accounts.c.id == account_id).values(**_values(budget))
        )
        return bool(changed)

    async def set_key_budget(self, key_id: str, budget: Budget | None) -> bool:
        """False when there is no unrevoked key `key_id`."""
        changed = await self._db.changed(
            update(api_keys)
            .where(api_keys.c.id == key_id, api_keys.c.revoked_at.is_(None))
            .values(**_values(budget))
        )
        return bool(changed)


def _values(budget: Budget | None) -> dict[str, object]:
    if budget is None:
        return {"budget_usd": None, "budget_period": None}
    # Infinity or NaN would come back as no JSON at all: refused (ValueError), here too.
    return {"budget_usd": check_budget(budget.limit_usd), "budget_period": budget.period}
