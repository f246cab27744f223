"""Batches under test: submitting one, waiting for its end, reading its results, and the
rows behind it."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from sqlalchemy import func, select

from tests.support.harness import Harness
from vidrouter.store.keys import NewKey
from vidrouter.store.tables import batch_lines, generations

BATCH_TERMINAL = ("completed", "failed", "canceled")


def lines_of(n: int, model: str, **body: Any) -> list[dict[str, Any]]:
    """`n` create bodies of `model`, custom ids `line-1`..., prompts told apart."""
    return [
        {"custom_id": f"line-{i}", "model": model, "prompt": f"clip {i}", **body}
        for i in range(1, n + 1)
    ]


async def submit(app: Harness, key: NewKey, lines: list[dict[str, Any]], **extra: Any) -> str:
    r = await app.client.post("/v1/batches", json={"lines": lines, **extra}, headers=app.auth(key))
    assert r.status_code == 202, r.text
    assert r.headers["location"] == f"/v1/batches/{r.json()['id']}"
    return str(r.json()["id"])


async def batch(app: Harness, key: NewKey, batch_id: str) -> dict[str, Any]:
    r = await app.client.get(f"/v1/batches/{batch_id}", headers=app.auth(key))
    assert r.status_code == 200, r.text
    return dict(r.json())


async def wait_batch(
    app: Harness, key: NewKey, batch_id: str, timeout: float = 60.0
) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        b = await batch(app, key, batch_id)
        if b["status"] in BATCH_TERMINAL:
            return b
        if loop.time() > deadline:
            raise TimeoutError(f"{batch_id} still {b['status']}: {b['counts']}")
        await asyncio.sleep(0.25)


async def results(app: Harness, key: NewKey, batch_id: str) -> list[dict[str, Any]]:
    r = await app.client.get(f"/v1/batches/{batch_id}/results", headers=app.auth(key))
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("application/jsonl")
    return [json.loads(line) for line in r.text.splitlines()]


async def row_counts(app: Harness) -> tuple[int, int]:
    """(batch lines, generations made by batches) in the database."""
    async with app.service.db.read() as conn:
        lines = await conn.scalar(select(func.count()).select_from(batch_lines))
        made = await conn.scalar(select(func.count()).where(generations.c.batch_id.is_not(None)))
    return int(lines or 0), int(made or 0)
