"""The cache of identical requests, in the generations table: finding the completed
generation a create may share the video of, and telling whether a stored video is still
shared by another generation (a video is deleted only with the last generation showing it).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncConnection

from vidrouter.domain.errors import VidrouterError
from vidrouter.domain.generation import Generation, Status
from vidrouter.store.database import Database
from vidrouter.store.generation_rows import generation_from_row
from vidrouter.store.generations import InsertGuard
from vidrouter.store.tables import generations as t


class SourceGone(VidrouterError):
    """The generation a cache hit was to share the video of was deleted meanwhile."""


async def find_source(
    db: Database, cache_key: str, *, account_id: str | None, since: datetime
) -> Generation | None:
    """The latest completed, undeleted generation with this key completed since `since`,
    of the account (None: of any account, the operator's shared cache). Only generations
    that made their own video are sources: a hit's TTL runs from the original's completion,
    and a deleted original is never served again."""
    query = select(t).where(
        t.c.cache_key == cache_key,
        t.c.status == Status.COMPLETED.value,
        t.c.deleted_at.is_(None),
        t.c.cached_from.is_(None),
        t.c.video_key.is_not(None),
        t.c.completed_at >= since,
    )
    if account_id is not None:
        query = query.where(t.c.account_id == account_id)
    query = query.order_by(t.c.completed_at.desc()).limit(1)
    async with db.read() as conn:
        row = (await conn.execute(query)).first()
    return generation_from_row(row) if row is not None else None


def source_still_there(source: Generation, dialect_name: str) -> InsertGuard:
    """An insert guard (store.generations.InsertGuard) for a cache hit: the source still
    stands with its video, locked until the hit is written, so that deleting it either
    sees the hit (and keeps the video) or happens first (and the hit is refused)."""

    async def check(conn: AsyncConnection) -> None:
        query = select(t.c.id).where(
            t.c.id == source.id, t.c.deleted_at.is_(None), t.c.video_key == source.video_key
        )
        if dialect_name == "postgresql":
            query = query.with_for_update()
        if (await conn.execute(query)).first() is None:
            raise SourceGone(source.id)

    return check


async def video_shared(db: Database, video_key: str) -> bool:
    """Whether any undeleted generation still shows this stored video."""
    query = select(func.count()).where(t.c.video_key == video_key, t.c.deleted_at.is_(None))
    async with db.read() as conn:
        return bool(await conn.scalar(query))
