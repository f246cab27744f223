"""Generations: insert, read, list, and the engine's claim / save / renew under a lease."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from vidrouter.domain import ids
from vidrouter.domain.generation import (
    Generation,
    Status,
    Step,
)
from vidrouter.store import pages
from vidrouter.store.database import Database, StoreError
from vidrouter.store.deliveries import Delivery, insert_delivery
from vidrouter.store.generation_rows import (
    ACTIVE,
    REPLACE_FENCED,
    REPLACE_UNFINISHED,
    columns,
    generation_from_row,
    replacing_params,
)
from vidrouter.store.leases import LeasedRows
from vidrouter.store.tables import generations as t
from vidrouter.store.tables import idempotency_keys as idem
from vidrouter.store.tables import webhook_deliveries as deliveries_table

# Run in an insert's transaction before the row is written (e.g. the budget check): it may
# read and lock, and refuses the insert by raising.
InsertGuard = Callable[[AsyncConnection], Awaitable[None]]


@dataclass(frozen=True)
class ListPage:
    data: list[Generation]
    has_more: bool


class GenerationStore(LeasedRows[Generation]):
    def __init__(
        self, db: Database, *, cache_size: int = 20_000, display_seconds: float = 0.0
    ) -> None:
        super().__init__(db, t, generation_from_row)
        self._listing = pages.Listing(db, t, generation_from_row)
        # Terminal generations never change again, so they are kept in memory once read:
        # clients poll finished generations far more than anything else.
        self._finished: OrderedDict[str, Generation] = OrderedDict()
        self._cache_size = cache_size
        # Unfinished ones, for display only (`peek`): this process's own writes replace
        # them at once; another process's are seen within `display_seconds`.
        self._recent: OrderedDict[str, tuple[float, Generation]] = OrderedDict()
        self._display_seconds = display_seconds

    def _remember(self, g: Generation) -> None:
        if self._cache_size <= 0:
            return
        if not g.status.terminal:
            if self._display_seconds > 0:
                self._recent[g.id] = (time.monotonic(), g)
                self._recent.move_to_end(g.id)
                if len(self._recent) > self._cache_size:
                    self._recent.popitem(last=False)
            return
        self._recent.pop(g.id, None)
        self._finished[g.id] = g
        self._finished.move_to_end(g.id)
        if len(self._finished) > self._cache_size:
            self._finished.popitem(last=False)

    async def peek(self, generation_id: str, *, account_id: str) -> Generation | None:
        """A generation to show: like `get`, but an unfinished one may be up to
        `display_seconds` old when another process changed it. Never write from it."""
        recent = self._recent.get(generation_id)
        if recent is not None and time.monotonic() - recent[0] < self._display_seconds:
            g = recent[1]
            return g if g.account_id == account_id else None
        return await self.get(generation_id, account_id=account_id)

    async def insert(
        self,
        generation: Generation,
        *,
        guard: InsertGuard | None = None,
        deliveries: Sequence[Delivery] = (),
        grouped: bool = False,
    ) -> None:
        """Insert a new generation (with the webhook deliveries it owes already: a cache
        hit is born completed). `grouped`: in a transaction shared with other tasks' writes
        (store/group_commit.py), for a batch's many inserts."""

        async def write(conn: AsyncConnection) -> None:
            if guard is not None:
                await guard(conn)
            await conn.execute(insert(t).values(**columns(generation), id=generation.id))
            for delivery in deliveries:
                await insert_delivery(conn, delivery)

        if grouped:
            await self._db.grouped(write)
        else:
            async with self._db.write() as conn:
                await write(conn)
        self._remember(generation)

    async def insert_idempotent(
        self,
        generation: Generation,
        *,
        key: str,
        request_hash: str,
        since: datetime,
        guard: InsertGuard | None = None,
        deliveries: Sequence[Delivery] = (),
    ) -> tuple[Generation, str]:
        """Insert unless the account used `key` after `since`: then the generation made with
        it, and the hash of the request that made it. Concurrent duplicates make one row."""
        for _ in range(3):
            found = await self._by_idempotency_key(generation.account_id, key, since)
            if found is not None:
                return found
            try:
                async with self._db.write() as conn:
                    await conn.execute(
                        delete(idem).where(
                            idem.c.account_id == generation.account_id,
                            idem.c.key == key,
                            idem.c.created_at < since,  # only an expired use of the key
                        )
                    )
                    await conn.execute(
                        insert(idem).values(
                            account_id=generation.account_id,
                            key=key,
                            request_hash=request_hash,
                            generation_id=generation.id,
                            created_at=generation.created_at,
                        )
                    )
                    # After the key's row: a concurrent duplicate waits on it and then
                    # replays, instead of being refused by a budget its original used up.
                    if guard is not None:
                        await guard(conn)
                    await conn.execute(insert(t).values(**columns(generation), id=generation.id))
                    for delivery in deliveries:
                        await insert_delivery(conn, delivery)
                return generation, request_hash
            except IntegrityError:
                continue  # another request with this key won the race: read its result
        raise StoreError("idempotency key contention")

    async def _by_idempotency_key(
        self, account_id: str, key: str, since: datetime
    ) -> tuple[Generation, str] | None:
        async with self._db.read() as conn:
            row = (
                await conn.execute(
                    select(idem.c.request_hash, idem.c.generation_id).where(
                        idem.c.account_id == account_id,
                        idem.c.key == key,
                        idem.c.created_at >= since,
                    )
                )
            ).first()
        if row is None:
            return None
        g = await self.get(row.generation_id, account_id=account_id)
        return (g, row.request_hash) if g is not None else None

    async def get(self, generation_id: str, *, account_id: str | None = None) -> Generation | None:
        """One generation; with `account_id`, only if it belongs to that account."""
        cached = self._finished.get(generation_id)
        if cached is not None:
            return cached if account_id in (None, cached.account_id) else None
        if not ids.is_generation_id(generation_id):
            return None
        query = select(t).where(t.c.id == generation_id, t.c.deleted_at.is_(None))
        if account_id is not None:
            query = query.where(t.c.account_id == account_id)
        async with self._db.read() as conn:
            row = (await conn.execute(query)).first()
        if row is None:
            return None
        g = generation_from_row(row)
        self._remember(g)
        return g

    async def page(
        self,
        account_id: str,
        *,
        limit: int,
        after: str | None = None,
        status: str | None = None,
        model: str | None = None,
        oldest_first: bool = False,
    ) -> ListPage:
        """Newest first (or oldest first); `after` is the id of the last item of the previous
        page. The (account, created_at, id) index serves both directions."""
        if after is not None and not ids.is_generation_id(after):
            return ListPage([], False)  # like a cursor that names no generation
        query = select(t).where(t.c.account_id == account_id, t.c.deleted_at.is_(None))
        if status is not None:
            query = query.where(t.c.status == status)
        if model is not None:
            query = query.where(t.c.model == model)
        data, has_more = await self._listing.page(
            query, account_id, limit=limit, after=after, oldest_first=oldest_first
        )
        return ListPage(data, has_more)

    # --- the engine's side ------------------------------------------------------------------

    async def save(
        self, generation: Generation, *, owner: str, deliveries: Sequence[Delivery] = ()
    ) -> bool:
        """Write the engine's new version of a row it holds the lease on, with the webhook
        deliveries of a terminal state in the same transaction (the outbox). False when the
        lease was lost or the row became terminal meanwhile (e.g. canceled): nothing written.
        Concurrent saves share one transaction (group commit); each answers for its own row,
        and only once that transaction committed."""
        return await self._write_unfinished(generation, deliveries, owner=owner)

    async def delete(
        self, generation_id: str, *, account_id: str, now: datetime
    ) -> Generation | None:
        """Delete a generation for its owner: its delivery records and idempotency key go,
        and what the client
        wrote (prompt, URLs, metadata) and the video's key are erased, but the row stays,
        marked deleted, as the record of its spend (usage and budgets count it; nothing
        shows it again). The generation as it was, or None."""
        async with self._db.write() as conn:
            row = (
                await conn.execute(
                    select(t).where(
                        t.c.id == generation_id,
                        t.c.account_id == account_id,
                        t.c.deleted_at.is_(None),
                    )
                )
            ).first()
            if row is None:
                return None
            await conn.execute(
                delete(deliveries_table).where(deliveries_table.c.generation_id == generation_id)
            )
            # Its Idempotency-Key is forgotten: a replay makes a new generation instead of
            # pointing at one nothing shows any more.
            await conn.execute(delete(idem).where(idem.c.generation_id == generation_id))
            await conn.execute(
                update(t)
                .where(t.c.id == generation_id)
                .values(
                    deleted_at=now,
                    prompt="",
                    image_url=None,
                    webhook_url=None,
                    metadata={},
                    video_key=None,
                    controls=_without_client_text(row.controls),
                )
            )
        self._finished.pop(generation_id, None)
        self._recent.pop(generation_id, None)
        return generation_from_row(row)

    async def unfinished_leases(
        self, generation_ids: Sequence[str], *, now: datetime
    ) -> dict[str, bool]:
        """Of these generations, the unfinished ones, each with whether a process holds its
        lease now: the only ones a scratch file named for them may still serve."""
        found: dict[str, bool] = {}
        for start in range(0, len(generation_ids), 500):
            chunk = list(generation_ids[start : start + 500])
            async with self._db.read() as conn:
                rows = await conn.execute(
                    select(t.c.id, t.c.lease_until).where(t.c.id.in_(chunk), t.c.status.in_(ACTIVE))
                )
            found.update({r.id: r.lease_until is not None and r.lease_until > now for r in rows})
        return found

    async def settle_canceled(self, generation_id: str, *, owner: str) -> bool:
        """A canceled generation's provider job was canceled: nothing is left to do."""
        changed = await self._db.changed(
            update(t)
            .where(
                t.c.id == generation_id,
                t.c.lease_owner == owner,
                t.c.status == Status.CANCELED.value,
            )
            .values(next_attempt_at=None, lease_owner=None, lease_until=None)
        )
        return changed == 1

    async def poke(self, generation_id: str, *, now: datetime) -> bool:
        """Make a generation that waits on its provider due now (a provider said it moved)."""
        changed = await self._db.changed(
            update(t)
            .where(
                t.c.id == generation_id,
                t.c.step == Step.POLL.value,
                t.c.status.in_(ACTIVE),
                t.c.next_attempt_at > now,
            )
            .values(next_attempt_at=now)
        )
        return changed == 1

    async def poke_job(self, provider: str, provider_job_id: str, *, now: datetime) -> bool:
        """`poke`, for the generation whose job `provider_job_id` runs on a route of
        `provider` (a webhook that names the provider's job, not our generation)."""
        changed = await self._db.changed(
            update(t)
            .where(
                t.c.provider_job_id == provider_job_id,
                t.c.next_attempt_at > now,
                t.c.route.like(f"{provider}:%"),
                t.c.step == Step.POLL.value,
                t.c.status.in_(ACTIVE),
            )
            .values(next_attempt_at=now)
        )
        return changed >= 1

    async def cancel(self, canceled: Generation, *, deliveries: Sequence[Delivery] = ()) -> bool:
        """Write the canceled version of a generation that is still unfinished, whoever holds
        its lease (the holder's next save then fails), with its webhook deliveries. False when
        it had finished already."""
        return await self._write_unfinished(canceled, deliveries, owner=None)

    async def _write_unfinished(
        self, g: Generation, deliveries: Sequence[Delivery], *, owner: str | None
    ) -> bool:
        """Replace a row that is still unfinished (and, with `owner`, whose lease `owner`
        holds) by `g`, with its webhook deliveries in the same transaction. False, nothing
        written, otherwise. The engine's saves (with `owner`) go in a transaction shared
        with other tasks' writes (group commit); a cancel in its own."""
        statement = REPLACE_UNFINISHED if owner is None else REPLACE_FENCED
        params = replacing_params(g, owner)

        async def write(conn: AsyncConnection) -> bool:
            result = await conn.execute(statement, params)
            if result.rowcount != 1:
                return False
            for delivery in deliveries:
                await insert_delivery(conn, delivery)
            return True

        if owner is not None:
            written = await self._db.grouped(write)
        else:
            async with self._db.write() as conn:
                written = await write(conn)
        if written:
            self._remember(g)
        return written


# What a client wrote into the controls' JSON (store/generation_rows.py): erased on delete
# with the prompt and the URLs; the rest (resolution, type) stays with the record of spend.
_CLIENT_TEXT = ("references", "video", "end_image_url", "negative_prompt")


def _without_client_text(controls: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if controls is None:
        return None
    return {k: v for k, v in controls.items() if k not in _CLIENT_TEXT}
