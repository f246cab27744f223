"""Group commit (store/group_commit.py), on SQLite and PostgreSQL: concurrent saves share one
transaction, each still fenced by its own lease and told about its own row; a failing write
fails alone; nothing is answered, or visible, before the batch commits, and a batch cut
short writes none of its items."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import event, update
from sqlalchemy.ext.asyncio import AsyncConnection

from tests.support.rows import generation
from vidrouter.domain.generation import Generation
from vidrouter.store import Database, GenerationStore, KeyStore
from vidrouter.store.tables import generations as table

T0 = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
LEASE = timedelta(seconds=30)


@pytest.fixture
async def claimed(db: Database) -> tuple[GenerationStore, list[Generation]]:
    """Three generations, claimed by worker w1."""
    key = await KeyStore(db).create("t")
    gens = GenerationStore(db)
    for _ in range(3):
        await gens.insert(generation(key.key.account_id, T0, next_attempt_at=T0))
    rows = await gens.claim("w1", now=T0, lease_until=T0 + LEASE, limit=10)
    assert len(rows) == 3
    return gens, rows


async def _progress(gens: GenerationStore, *rows: Generation) -> list[int | None]:
    found = [await gens.get(g.id) for g in rows]
    return [g.progress if g is not None else None for g in found]


def _commits(db: Database) -> list[int]:
    seen: list[int] = []
    event.listen(db.engine.sync_engine, "commit", lambda _conn: seen.append(1))
    return seen


async def test_concurrent_saves_share_one_commit_and_each_answers_for_its_own_row(
    db: Database, claimed: tuple[GenerationStore, list[Generation]]
) -> None:
    gens, (a, b, c) = claimed
    # b's lease ran out and w2 took it: w1's save of b must fail, and only that one.
    later = T0 + LEASE + timedelta(seconds=1)
    await db.changed(update(table).where(table.c.id == b.id).values(lease_owner="w2"))
    commits = _commits(db)
    saved = await asyncio.gather(
        *(gens.save(replace(g, progress=50, updated_at=later), owner="w1") for g in (a, b, c))
    )
    assert saved == [True, False, True]
    assert len(commits) == 1  # one transaction for the three
    assert await _progress(gens, a, b, c) == [50, b.progress, 50]


async def test_a_failing_write_fails_alone(
    db: Database, claimed: tuple[GenerationStore, list[Generation]]
) -> None:
    gens, (a, b, c) = claimed

    def setting(g: Generation) -> Any:
        async def write(conn: AsyncConnection) -> int:
            statement = update(table).where(table.c.id == g.id).values(progress=70)
            return int((await conn.execute(statement)).rowcount)

        return write

    async def failing(conn: AsyncConnection) -> int:
        await setting(b)(conn)
        raise ValueError("this item's own bug")

    results = await asyncio.gather(
        db.grouped(setting(a)),
        db.grouped(failing),
        db.grouped(setting(c)),
        return_exceptions=True,
    )
    assert results[0] == 1 and results[2] == 1
    assert isinstance(results[1], ValueError)
    assert await _progress(gens, a, b, c) == [70, b.progress, 70]


async def test_nothing_is_answered_or_visible_before_commit_and_a_cut_batch_writes_none(
    db: Database, claimed: tuple[GenerationStore, list[Generation]]
) -> None:
    gens, (a, b, _) = claimed
    stuck = asyncio.Event()
    never = asyncio.Event()

    async def hangs(conn: AsyncConnection) -> bool:
        stuck.set()
        await never.wait()  # the process "dies" here, mid-batch
        return True

    save = asyncio.create_task(gens.save(replace(a, progress=90), owner="w1"))
    hang = asyncio.create_task(db.grouped(hangs))
    await asyncio.wait_for(stuck.wait(), 10)
    # a's UPDATE ran in the batch's transaction: not committed, so not seen, not answered.
    fresh = GenerationStore(db)  # no cache of this process's own writes
    assert (await fresh.get(a.id)).progress == a.progress  # type: ignore[union-attr]
    assert not save.done()
    for task in asyncio.all_tasks():
        if task.get_name() == "group-commit":
            task.cancel()  # as if the process ended before the commit
    outcomes = await asyncio.gather(save, hang, return_exceptions=True)
    assert all(isinstance(o, asyncio.CancelledError) for o in outcomes)
    assert (await fresh.get(a.id)).progress == a.progress  # type: ignore[union-attr]
    assert (await fresh.get(b.id)).lease_owner == "w1"  # type: ignore[union-attr]
    # The store goes on: the next grouped save is written.
    assert await gens.save(replace(a, progress=95), owner="w1")
    assert (await fresh.get(a.id)).progress == 95  # type: ignore[union-attr]
