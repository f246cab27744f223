"""Characters: insert, read and delete, each within one account (another account's id
reads as none)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Row, delete, insert, select

from vidrouter.domain import ids
from vidrouter.store.database import Database
from vidrouter.store.records import from_row
from vidrouter.store.tables import characters as t


@dataclass(frozen=True)
class Character:
    id: str
    account_id: str
    name: str
    video_key: str  # the clip, an MP4
    image_key: str  # a frame of it, a JPEG: what a model that takes only images gets
    seconds: float
    created_at: datetime


class CharacterStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def insert(self, character: Character) -> None:
        async with self._db.write() as conn:
            await conn.execute(insert(t).values(**character.__dict__))

    async def get(self, character_id: str, *, account_id: str) -> Character | None:
        if not ids.is_character_id(character_id):
            return None  # answered without a query (PostgreSQL refuses a NUL, say)
        query = select(t).where(t.c.id == character_id, t.c.account_id == account_id)
        async with self._db.read() as conn:
            row = (await conn.execute(query)).first()
        return None if row is None else _character(row)

    async def delete(self, character_id: str, *, account_id: str) -> Character | None:
        """The removed character; None when the account has none of that id."""
        if not ids.is_character_id(character_id):
            return None
        query = (
            delete(t).where(t.c.id == character_id, t.c.account_id == account_id).returning(*t.c)
        )
        async with self._db.write() as conn:
            row = (await conn.execute(query)).first()
        return None if row is None else _character(row)


def _character(row: Row[tuple[object, ...]]) -> Character:
    m = row._mapping
    return from_row(Character, m, seconds=float(m["seconds"]))
