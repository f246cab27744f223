"""Listing generations: over 1,000 rows with inserts going on, every generation is seen
exactly once; filters work. CORS is off unless configured."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from tests.support.harness import Harness, running, test_settings
from vidrouter.domain import ids
from vidrouter.domain.generation import Generation, Status, Step

T0 = datetime(2026, 11, 1, tzinfo=UTC)


def _row(account: str, i: int, status: Status = Status.COMPLETED) -> Generation:
    return Generation(
        id=ids.generation_id(),
        account_id=account,
        model="local-preview" if i % 2 else "other-model",
        prompt=f"p{i}",
        duration=1.0,
        aspect_ratio="16:9",
        status=status,
        step=Step.DONE,
        created_at=T0 + timedelta(milliseconds=i // 4),  # ties on purpose
        updated_at=T0,
    )


async def test_pagination_over_1000_with_concurrent_inserts(app_any_db: Harness) -> None:
    app = app_any_db
    key = await app.new_key()
    account = key.key.account_id
    existing = [_row(account, i) for i in range(1000)]
    for g in existing:
        await app.service.generation_store.insert(g)

    async def keep_inserting() -> list[str]:
        made = []
        for i in range(60):
            g = replace(_row(account, 5000 + i), created_at=datetime.now(UTC))
            await app.service.generation_store.insert(g)
            made.append(g.id)
            await asyncio.sleep(0)
        return made

    inserter = asyncio.create_task(keep_inserting())
    seen: list[str] = []
    after = None
    while True:
        params = {"limit": 100, **({"after": after} if after else {})}
        page = (
            await app.client.get("/v1/generations", params=params, headers=app.auth(key))
        ).json()
        seen += [g["id"] for g in page["data"]]
        if not page["has_more"]:
            break
        after = page["data"][-1]["id"]
    await inserter
    assert len(seen) == len(set(seen))
    # Every row that existed when the walk began is seen exactly once (newer ones may or may not).
    assert {g.id for g in existing} <= set(seen)


async def test_filters(app: Harness) -> None:
    key = await app.new_key()
    account = key.key.account_id
    for i in range(10):
        await app.service.generation_store.insert(
            _row(account, i, Status.FAILED if i < 3 else Status.COMPLETED)
        )
    failed = await app.client.get("/v1/generations?status=failed", headers=app.auth(key))
    assert len(failed.json()["data"]) == 3
    model = await app.client.get("/v1/generations?model=other-model", headers=app.auth(key))
    assert {g["model"] for g in model.json()["data"]} == {"other-model"}
    assert len(model.json()["data"]) == 5
    unknown_cursor = await app.client.get(
        "/v1/generations?after=gen_doesnotexist", headers=app.auth(key)
    )
    assert unknown_cursor.json() == {"object": "list", "data": [], "has_more": False}


async def test_cors_is_off_by_default_and_configurable(tmp_path: Path) -> None:
    preflight = {
        "Origin": "https://app.example.com",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization,content-type",
    }
    async with running(test_settings(tmp_path / "a"), workers=False) as app:
        r = await app.client.options("/v1/generations", headers=preflight)
        assert "access-control-allow-origin" not in r.headers
    settings = test_settings(tmp_path / "b", cors_origins=("https://app.example.com",))
    async with running(settings, workers=False) as app:
        r = await app.client.options("/v1/generations", headers=preflight)
        assert r.headers["access-control-allow-origin"] == "https://app.example.com"
        other = await app.client.options(
            "/v1/generations", headers={**preflight, "Origin": "https://evil.example"}
        )
        assert other.headers.get("access-control-allow-origin") != "https://evil.example"
