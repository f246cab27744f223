"""Keyset pages of an account's rows in (created_at, id) order, the way every list of the
API pages: `after` is the id of the last row of the previous page, so rows inserted
meanwhile never shift a page."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

from sqlalchemy import ColumnElement, Row, Select, Table, and_, or_, select
from sqlalchemy.ext.asyncio import AsyncConnection

from vidrouter.store.database import Database

Item = TypeVar("Item")


class Listing(Generic[Item]):
    """An account's rows of `table`, read as `item`s, a page at a time."""

    def __init__(self, db: Database, table: Table, item: Callable[[Row[Any]], Item]) -> None:
        self._db = db
        self._table = table
        self._item = item

    async def page(
        self,
        query: Select[Any],
        account_id: str,
        *,
        limit: int,
        after: str | None,
        oldest_first: bool = False,
    ) -> tuple[list[Item], bool]:
        """The page after `after` of `query` (a select of the account's rows, maybe narrowed
        further), and whether more follow; empty when `after` names no row of the account."""
        t = self._table
        async with self._db.read() as conn:
            if after is not None:
                past = await _beyond(conn, t, account_id, after, oldest_first=oldest_first)
                if past is None:
                    return [], False
                query = query.where(past)
            query = _ordered(query, t, oldest_first=oldest_first).limit(limit + 1)
            rows = (await conn.execute(query)).all()
        return [self._item(r) for r in rows[:limit]], len(rows) > limit


async def _beyond(
    conn: AsyncConnection, table: Table, account_id: str, after: str, *, oldest_first: bool
) -> ColumnElement[bool] | None:
    """The condition for rows past `after` in the page order; None when `after` names no row
    of the account (the page is then empty)."""
    c = table.c
    cursor = (
        await conn.execute(
            select(c.created_at, c.id).where(c.id == after, c.account_id == account_id)
        )
    ).first()
    if cursor is None:
        return None
    if oldest_first:
        return or_(
            c.created_at > cursor.created_at,
            and_(c.created_at == cursor.created_at, c.id > cursor.id),
        )
    return or_(
        c.created_at < cursor.created_at,
        and_(c.created_at == cursor.created_at, c.id < cursor.id),
    )


def _ordered(query: Select[Any], table: Table, *, oldest_first: bool) -> Select[Any]:
    c = table.c
    if oldest_first:
        return query.order_by(c.created_at.asc(), c.id.asc())
    return query.order_by(c.created_at.desc(), c.id.desc())
