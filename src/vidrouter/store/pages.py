"""Keyset pages of an account's rows in (created_at, id) order, the way every list of the
API pages: `after` is the id of the last row of the previous page, so rows inserted
meanwhile never shift a page."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, Select, Table, and_, or_, select
from sqlalchemy.ext.asyncio import AsyncConnection


async def beyond(
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


def ordered(query: Select[Any], table: Table, *, oldest_first: bool) -> Select[Any]:
    c = table.c
    if oldest_first:
        return query.order_by(c.created_at.asc(), c.id.asc())
    return query.order_by(c.created_at.desc(), c.id.desc())
