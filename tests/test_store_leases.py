"""The store's claim and lease rules, on SQLite and PostgreSQL: due rows are claimed once,
leases fence writers, expired leases are free again, terminal rows are never claimed."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import text

from tests.support.rows import generation
from vidrouter.domain.generation import Generation, Status, Step
from vidrouter.store import Database, GenerationStore, KeyStore

T0 = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


@pytest.fixture
async def store(db: Database) -> tuple[GenerationStore, str]:
    key = await KeyStore(db).create("t")
    return GenerationStore(db), key.key.account_id


def _generation(account: str, due: datetime | None = T0, **kw: object) -> Generation:
    fields: dict[str, Any] = {"next_attempt_at": due, **kw}
    return generation(account, T0, **fields)


async def test_claims_only_due_rows_in_due_order(store: tuple[GenerationStore, str]) -> None:
    gens, account = store
    late = _generation(account, T0 + timedelta(seconds=10))
    early = _generation(account, T0 - timedelta(seconds=10))
    now = _generation(account, T0)
    done = _generation(account, None, status=Status.COMPLETED, step=Step.DONE)
    for g in (late, early, now, done):
        await gens.insert(g)
    claimed = await gens.claim("w1", now=T0, lease_until=T0 + timedelta(seconds=30), limit=10)
    assert [g.id for g in claimed] == [early.id, now.id]
    assert all(g.lease_owner == "w1" for g in claimed)
    # Leased rows are not claimed again until the lease runs out.
    assert await gens.claim("w2", now=T0, lease_until=T0 + timedelta(seconds=30), limit=10) == []
    later = T0 + timedelta(seconds=31)
    again = await gens.claim("w2", now=later, lease_until=later + timedelta(seconds=30), limit=10)
    assert {g.id for g in again} == {early.id, now.id, late.id}


async def test_a_claim_ahead_takes_rows_due_soon_and_next_due_skips_held_rows(
    store: tuple[GenerationStore, str],
) -> None:
    gens, account = store
    soon = _generation(account, T0 + timedelta(milliseconds=200))
    later = _generation(account, T0 + timedelta(seconds=5))
    for g in (soon, later):
        await gens.insert(g)
    lease = T0 + timedelta(seconds=30)
    assert await gens.claim("w1", now=T0, lease_until=lease, limit=10) == []
    ahead = T0 + timedelta(milliseconds=250)
    claimed = await gens.claim("w1", now=T0, lease_until=lease, limit=10, due_by=ahead)
    assert [g.id for g in claimed] == [soon.id]
    # The held row is its holder's to report; the loop sleeps until the next free one.
    assert await gens.next_due_at(T0) == later.next_attempt_at
    # Once its lease has run out (a dead holder), it counts again.
    assert await gens.next_due_at(lease + timedelta(seconds=1)) == soon.next_attempt_at


async def test_save_is_fenced_by_the_lease(store: tuple[GenerationStore, str]) -> None:
    gens, account = store
    g = _generation(account)
    await gens.insert(g)
    [mine] = await gens.claim("w1", now=T0, lease_until=T0 + timedelta(seconds=5), limit=1)
    # w1 stalls; its lease expires and w2 takes the row over.
    t1 = T0 + timedelta(seconds=6)
    [theirs] = await gens.claim("w2", now=t1, lease_until=t1 + timedelta(seconds=5), limit=1)
    assert not await gens.save(replace(mine, progress=50, lease_owner=None), owner="w1")
    assert await gens.save(replace(theirs, progress=70, lease_owner=None), owner="w2")
    stored = await gens.get(g.id)
    assert stored is not None and stored.progress == 70


async def test_terminal_rows_are_never_overwritten(store: tuple[GenerationStore, str]) -> None:
    gens, account = store
    g = _generation(account)
    await gens.insert(g)
    [claimed] = await gens.claim("w1", now=T0, lease_until=T0 + timedelta(seconds=5), limit=1)
    canceled = replace(claimed, status=Status.CANCELED, step=Step.DONE, next_attempt_at=None)
    assert await gens.cancel(canceled)
    completed = replace(claimed, status=Status.COMPLETED, step=Step.DONE, next_attempt_at=None)
    assert not await gens.save(completed, owner="w1")
    assert not await gens.cancel(canceled)
    stored = await gens.get(g.id)
    assert stored is not None and stored.status is Status.CANCELED


async def test_concurrent_claimers_never_share_a_row(store: tuple[GenerationStore, str]) -> None:
    gens, account = store
    rows = [_generation(account) for _ in range(60)]
    for g in rows:
        await gens.insert(g)

    async def claimer(name: str) -> list[str]:
        got: list[str] = []
        for _ in range(10):
            batch = await gens.claim(name, now=T0, lease_until=T0 + timedelta(minutes=1), limit=3)
            got += [g.id for g in batch]
        return got

    results = await asyncio.gather(*(claimer(f"w{i}") for i in range(6)))
    claimed = [gid for result in results for gid in result]
    assert len(claimed) == len(set(claimed)) == 60


async def test_renew_and_release(store: tuple[GenerationStore, str]) -> None:
    gens, account = store
    g = _generation(account)
    await gens.insert(g)
    await gens.claim("w1", now=T0, lease_until=T0 + timedelta(seconds=5), limit=1)
    assert await gens.renew("w1", [g.id], until=T0 + timedelta(seconds=60)) == 1
    assert await gens.renew("w2", [g.id], until=T0 + timedelta(seconds=90)) == 0
    t1 = T0 + timedelta(seconds=30)
    assert await gens.claim("w2", now=t1, lease_until=t1, limit=1) == []
    assert await gens.release("w1", [g.id]) == 1
    assert len(await gens.claim("w2", now=t1, lease_until=t1 + timedelta(seconds=5), limit=1)) == 1


async def test_pagination_is_newest_first_with_a_stable_cursor(
    store: tuple[GenerationStore, str],
) -> None:
    gens, account = store
    made = []
    for i in range(25):
        g = replace(_generation(account), created_at=T0 + timedelta(seconds=i // 3))
        made.append(g)
        await gens.insert(g)
    seen: list[str] = []
    after = None
    while True:
        page = await gens.page(account, limit=7, after=after)
        seen += [g.id for g in page.data]
        if not page.has_more:
            break
        after = page.data[-1].id
    expected = [g.id for g in sorted(made, key=lambda g: (g.created_at, g.id), reverse=True)]
    assert seen == expected


async def test_a_provider_job_id_pokes_only_its_waiting_generation(
    store: tuple[GenerationStore, str],
) -> None:
    """A provider's account-wide webhook names its job: the generation polling that job on a
    route of that provider is due now; another provider's job of the same id, a finished
    generation and an unknown job are left alone."""
    gens, account = store
    later = T0 + timedelta(minutes=5)
    waiting = _generation(
        account, later, step=Step.POLL, status=Status.IN_PROGRESS, route="pixverse:v6"
    )
    waiting = replace(waiting, provider_job_id="318466123456789")
    elsewhere = replace(
        _generation(account, later, step=Step.POLL, status=Status.IN_PROGRESS, route="fal:x"),
        provider_job_id="318466123456789",
    )
    for g in (waiting, elsewhere):
        await gens.insert(g)
    assert await gens.poke_job("pixverse", "318466123456789", now=T0)
    assert not await gens.poke_job("pixverse", "999", now=T0)
    assert not await gens.poke_job("pixverse", "318466123456789", now=T0)  # already due
    poked, untouched = await gens.get(waiting.id), await gens.get(elsewhere.id)
    assert poked is not None and poked.next_attempt_at == T0
    assert untouched is not None and untouched.next_attempt_at == later


async def test_a_renew_skips_a_row_being_written_instead_of_waiting(
    store: tuple[GenerationStore, str], db: Database
) -> None:
    """A heartbeat never waits on a row another transaction holds (a step's save in a group
    commit): waiting for row locks taken in another order is how PostgreSQL deadlocks."""
    if db.engine.dialect.name != "postgresql":
        pytest.skip("SQLite has one writer and no row locks")
    gens, account = store
    held, free = _generation(account), _generation(account)
    for g in (held, free):
        await gens.insert(g)
    claimed = await gens.claim("w1", now=T0, lease_until=T0 + timedelta(seconds=5), limit=10)
    assert len(claimed) == 2
    async with db.engine.connect() as other:
        writing = await other.begin()
        await other.execute(
            text("SELECT id FROM generations WHERE id = :id FOR UPDATE"), {"id": held.id}
        )
        renewed = await asyncio.wait_for(
            gens.renew("w1", [held.id, free.id], until=T0 + timedelta(seconds=60)), 10
        )
        await writing.rollback()
    assert renewed == 1  # the free one; the held one at the next heartbeat
    assert await gens.renew("w1", [held.id, free.id], until=T0 + timedelta(seconds=60)) == 2
