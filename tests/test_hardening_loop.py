"""Issue 15 item 8 (the loop and the log): while the database refuses every write, the claim
loop backs off and logs each kind of failure at most once a second; when writes work again,
the work goes on. A trigger makes the real database refuse the claim's UPDATE, the way a
full disk does."""

from __future__ import annotations

import asyncio
import logging

import pytest
from sqlalchemy import text

from tests.support.harness import Harness

REFUSE = {
    "sqlite": [
        "CREATE TRIGGER refuse_writes BEFORE UPDATE ON generations "
        "BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END"
    ],
    "postgresql": [
        "CREATE FUNCTION refuse_writes() RETURNS trigger LANGUAGE plpgsql AS "
        "'BEGIN RAISE EXCEPTION ''could not extend file: No space left on device''; END'",
        "CREATE TRIGGER refuse_writes BEFORE UPDATE ON generations "
        "FOR EACH ROW EXECUTE FUNCTION refuse_writes()",
    ],
}
ALLOW = {
    "sqlite": ["DROP TRIGGER refuse_writes"],
    "postgresql": ["DROP TRIGGER refuse_writes ON generations", "DROP FUNCTION refuse_writes()"],
}
FAILING_FOR = 3.0  # seconds


async def _run(app: Harness, statements: list[str]) -> None:
    async with app.service.db.write() as conn:
        for statement in statements:
            await conn.execute(text(statement))


async def test_failing_claims_back_off_and_log_once_a_second(
    app_any_db: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="vidrouter.engine")
    dialect = app_any_db.service.db.dialect
    key = await app_any_db.new_key()
    await _run(app_any_db, REFUSE[dialect])
    loop = asyncio.get_running_loop()
    started = loop.time()
    created = await app_any_db.create(key, model="local-preview", prompt="p", duration=0.5)
    assert created.status_code == 202, created.text
    await asyncio.sleep(FAILING_FOR)
    failing = loop.time() - started
    await _run(app_any_db, ALLOW[dialect])
    done = await app_any_db.wait_for(key, created.json()["id"], timeout=60)
    assert done["status"] == "completed", done

    records = [
        r
        for r in caplog.records
        if getattr(r, "failure", None) == "claim_failed" and getattr(r, "loop", None) != "webhooks"
    ]
    failed = [r for r in records if not getattr(r, "recovered", False)]
    assert failed, "the failing claims were not logged"
    assert failed[0].exc_info is not None  # the first one with its traceback
    assert all(not r.exc_info for r in failed[1:])  # then a line each, no traceback
    # At most one line a second (and one more for the start), however long it went on.
    assert len(failed) <= failing + 2, [r.getMessage() for r in failed]
    assert [r for r in records if getattr(r, "recovered", False)], "no recovery line"
    # Every failed claim is counted in some line: the loop backed off instead of retrying
    # every few milliseconds (about 600 times in 3 s before this fix).
    total = len(failed) + sum(getattr(r, "repeated", 0) for r in records)
    assert 1 <= total <= 20, total
