"""Budgets (issue 13): a spend limit in USD per key and per account, per UTC day, UTC month or
in total, held exactly under concurrent creates on SQLite and PostgreSQL; `estimated_cost`
from creation; `X-Budget-Remaining-USD`; deleted videos still count."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.budgets import EACH, HEADER, PRICE, SECONDS, write_catalog
from tests.support.harness import Harness, running, test_settings
from vidrouter.domain import ids
from vidrouter.domain.generation import Generation, Status, Step
from vidrouter.store.budgets import Budget, BudgetStore
from vidrouter.store.keys import NewKey


@contextlib.asynccontextmanager
async def service(
    tmp_path: Path, database_url: str | None = None, *, workers: bool = False
) -> AsyncIterator[Harness]:
    settings = test_settings(
        tmp_path / "data", database_url, catalog=write_catalog(tmp_path), key_cache_seconds=0.0
    )
    async with running(settings, workers=workers) as harness:
        yield harness


def budgets_of(app: Harness) -> BudgetStore:
    return BudgetStore(app.service.db)


async def create(app: Harness, key: NewKey, **extra: Any) -> httpx.Response:
    headers = app.auth(key) | extra.pop("headers", {})
    body = {"model": "house-paid", "prompt": "a paid fox"} | extra
    return await app.client.post("/v1/generations", json=body, headers=headers)


def refused(response: httpx.Response) -> bool:
    if response.status_code != 402:
        return False
    error = response.json()["error"]
    assert error["code"] == "budget_exceeded" and error["type"] == "budget_error", error
    return True


async def test_twenty_concurrent_creates_against_a_budget_for_ten(
    tmp_path: Path, database_url: str
) -> None:
    async with service(tmp_path, database_url) as app:
        key = await app.new_key("racer")
        other = await app.new_key("account-racer")
        assert await budgets_of(app).set_key_budget(key.key.id, Budget(10 * EACH, "total"))
        await budgets_of(app).set_account_budget(other.key.account_id, Budget(10 * EACH, "day"))

        for racer in (key, other):
            answers = await asyncio.gather(*(create(app, racer) for _ in range(20)))
            accepted = [r for r in answers if r.status_code == 202]
            assert len(accepted) == 10, [r.status_code for r in answers]
            assert sum(refused(r) for r in answers) == 10
            after = await app.client.get("/v1/models", headers=app.auth(racer))
            assert after.headers[HEADER] == "0"

        page = await app.client.get("/v1/generations?limit=100", headers=app.auth(key))
        assert len(page.json()["data"]) == 10  # the refused ones left nothing behind


async def test_estimated_cost_then_cost_and_the_402_message(
    tmp_path: Path, database_url: str
) -> None:
    async with service(tmp_path, database_url, workers=True) as app:
        key = await app.new_key()
        await budgets_of(app).set_key_budget(key.key.id, Budget(2 * EACH, "day"))

        first = await create(app, key)
        assert first.status_code == 202, first.text
        made = first.json()
        assert made["estimated_cost"] == {"amount": EACH, "currency": "USD"}
        assert made["cost"] is None
        assert float(first.headers[HEADER]) == pytest.approx(EACH)

        done = await app.wait_for(key, made["id"])
        assert done["status"] == "completed"
        assert done["estimated_cost"] == made["estimated_cost"]
        assert done["cost"]["amount"] == pytest.approx(PRICE * SECONDS, abs=0.02)

        video = await app.client.get(f"/v1/videos/{made['id']}", headers=app.auth(key))
        assert video.json()["estimated_cost"] == made["estimated_cost"]
        assert video.json()["cost"] == done["cost"]

        assert (await create(app, key)).status_code == 202
        third = await create(app, key, duration=2)
        assert refused(third)
        message = third.json()["error"]["message"]
        tomorrow = (datetime.now(UTC) + timedelta(days=1)).strftime("%Y-%m-%dT00:00:00")
        assert "$0.80 per UTC day" in message  # the limit
        assert "is spent" in message and "$0.20" in message  # the spend, the estimate
        assert f"resets at {tomorrow}" in message


async def test_key_and_account_budgets_both_apply(tmp_path: Path) -> None:
    async with service(tmp_path) as app:
        a = await app.new_key("a")
        b = await app.new_key("b", account=a.key.account_id)
        alone = await app.new_key("another account")
        await budgets_of(app).set_account_budget(a.key.account_id, Budget(3 * EACH, "month"))
        await budgets_of(app).set_key_budget(a.key.id, Budget(EACH, "month"))

        assert (await create(app, a)).status_code == 202
        over_key = await create(app, a)
        assert refused(over_key) and "the key's budget" in over_key.json()["error"]["message"]

        assert (await create(app, b)).status_code == 202
        response = await create(app, b)
        assert response.status_code == 202
        assert response.headers[HEADER] == "0"  # b has no budget of its own: the account's
        over_account = await create(app, b)
        assert refused(over_account)
        assert "the account's budget" in over_account.json()["error"]["message"]
        videos = await app.client.post(
            "/v1/videos",
            json={"model": "house-paid", "prompt": "a paid fox", "seconds": "4"},
            headers=app.auth(b),
        )
        assert refused(videos) and videos.headers[HEADER] == "0"  # the same on /v1/videos

        free = await create(app, alone)  # other accounts are not touched
        assert free.status_code == 202 and HEADER not in free.headers


async def test_periods_reset_at_utc_day_and_month(tmp_path: Path, database_url: str) -> None:
    async with service(tmp_path, database_url) as app:
        key = await app.new_key()
        now = datetime.now(UTC)
        day_start = datetime(now.year, now.month, now.day, tzinfo=UTC)
        month_start = datetime(now.year, now.month, 1, tzinfo=UTC)
        # Spent before the current day and before the current month: $1 each, one finished
        # (its cost) and one unfinished (its estimate).
        for at, status in (
            (day_start - timedelta(seconds=1), Status.COMPLETED),
            (month_start - timedelta(seconds=1), Status.QUEUED),
        ):
            await app.service.generation_store.insert(_spent(key, at, status, 1.0))

        store = budgets_of(app)
        await store.set_key_budget(key.key.id, Budget(EACH, "day"))
        assert (await create(app, key)).status_code == 202  # yesterday's dollar is not today's
        assert refused(await create(app, key))

        # Yesterday's dollar is this month's too, unless today is the 1st.
        earlier_this_month = 1.0 if day_start != month_start else 0.0
        await store.set_key_budget(key.key.id, Budget(earlier_this_month + 2 * EACH, "month"))
        assert (await create(app, key)).status_code == 202  # last month's dollar not counted
        assert refused(await create(app, key))

        # In total both old dollars count, and today's two creates: $2.80 of $3 is spent.
        await store.set_key_budget(key.key.id, Budget(3.0, "total"))
        response = await create(app, key)
        assert refused(response)
        assert "never resets" in response.json()["error"]["message"]
        models = await app.client.get("/v1/models", headers=app.auth(key))
        assert models.headers[HEADER] == "0.2"


def _spent(key: NewKey, at: datetime, status: Status, amount: float) -> Generation:
    done = status.terminal
    return Generation(
        id=ids.generation_id(),
        account_id=key.key.account_id,
        api_key_id=key.key.id,
        model="house-paid",
        prompt="p",
        duration=10.0,
        aspect_ratio="16:9",
        status=status,
        step=Step.DONE if done else Step.SUBMIT,
        created_at=at,
        updated_at=at,
        estimated_cost=amount,
        billed_seconds=10.0 if done else None,
        cost_amount=amount if done else None,
        cost_currency="USD" if done else None,
    )


async def test_deleted_videos_still_count(tmp_path: Path, database_url: str) -> None:
    async with service(tmp_path, database_url, workers=True) as app:
        key = await app.new_key()
        await budgets_of(app).set_key_budget(key.key.id, Budget(2 * EACH, "total"))
        made = (await create(app, key)).json()
        done = await app.wait_for(key, made["id"])
        cost = done["cost"]["amount"]

        gone = await app.client.delete(f"/v1/videos/{made['id']}", headers=app.auth(key))
        assert gone.status_code == 200 and gone.json()["deleted"] is True
        assert (await app.get(key, made["id"])).status_code == 404
        assert (
            await app.client.get(f"/v1/videos/{made['id']}", headers=app.auth(key))
        ).status_code == 404
        listed = await app.client.get("/v1/generations", headers=app.auth(key))
        assert listed.json()["data"] == []

        usage = (await app.client.get("/v1/usage", headers=app.auth(key))).json()
        assert usage["total"]["generations"] == 1 and usage["total"]["completed"] == 1
        assert usage["total"]["cost"]["amount"] == pytest.approx(cost)

        remaining = float(listed.headers[HEADER])
        assert remaining == pytest.approx(2 * EACH - cost, abs=1e-6)
        second = (await create(app, key, duration=1)).json()
        deleted = await app.client.delete(f"/v1/videos/{second['id']}", headers=app.auth(key))
        assert deleted.status_code == 200  # canceled first if still unfinished
        usage = (await app.client.get("/v1/usage", headers=app.auth(key))).json()
        assert usage["total"]["generations"] == 2
        big = await create(app, key, duration=8)  # $0.80 > what is left
        assert refused(big)


async def test_the_header_on_every_v1_answer_and_only_with_a_budget(tmp_path: Path) -> None:
    async with service(tmp_path) as app:
        key = await app.new_key("budgeted")
        plain = await app.new_key("no budget")
        await budgets_of(app).set_key_budget(key.key.id, Budget(1.0, "month"))

        made = await create(app, key)
        assert made.headers[HEADER] == "0.6"
        gen_id = made.json()["id"]
        for path in (
            f"/v1/generations/{gen_id}",  # the poll: budgeted keys skip the fast path
            "/v1/generations",
            "/v1/models",
            "/v1/usage",
            f"/v1/videos/{gen_id}",
            "/v1/generations/gen_unknown",  # a 404 too
        ):
            response = await app.client.get(path, headers=app.auth(key))
            assert response.headers.get(HEADER) == "0.6", (path, response.status_code)

        for path in (f"/v1/generations/{gen_id}", "/v1/models"):
            response = await app.client.get(path, headers=app.auth(plain))
            assert HEADER not in response.headers
        assert HEADER not in (await create(app, plain)).headers
        assert HEADER not in (await app.client.get("/v1/models")).headers  # no key: none


async def test_idempotent_replays_do_not_count_twice(tmp_path: Path, database_url: str) -> None:
    async with service(tmp_path, database_url) as app:
        key = await app.new_key()
        await budgets_of(app).set_key_budget(key.key.id, Budget(2 * EACH, "total"))
        once = {"Idempotency-Key": "order-1"}

        replays = await asyncio.gather(*(create(app, key, headers=once) for _ in range(5)))
        assert {r.status_code for r in replays} == {202}
        assert len({r.json()["id"] for r in replays}) == 1
        assert (await app.client.get("/v1/models", headers=app.auth(key))).headers[HEADER] == (
            "0.4"
        )

        assert (await create(app, key)).status_code == 202  # the budget's second one
        assert refused(await create(app, key))
        again = await create(app, key, headers=once)  # a replay when the budget is spent
        assert again.status_code == 202 and again.json()["id"] == replays[0].json()["id"]


async def test_usage_groups_by_route(tmp_path: Path) -> None:
    async with service(tmp_path, workers=True) as app:
        key = await app.new_key()
        made = (await create(app, key)).json()
        await app.wait_for(key, made["id"])
        await app.service.generation_store.insert(
            _spent(key, datetime.now(UTC) - timedelta(minutes=1), Status.QUEUED, 1.0)
        )
        usage = await app.client.get("/v1/usage?group_by=route", headers=app.auth(key))
        assert usage.status_code == 200, usage.text
        body = usage.json()
        assert body["group_by"] == "route"
        assert [(row["route"], row["generations"]) for row in body["data"]] == [
            ("local", 1),
            (None, 1),  # never reached a host
        ]
        assert "title-card" not in usage.text  # the host's model names stay private


async def test_a_deleted_generations_idempotency_key_makes_a_new_one(tmp_path: Path) -> None:
    async with service(tmp_path) as app:
        key = await app.new_key()
        once = {"Idempotency-Key": "order-2"}
        first = (await create(app, key, headers=once)).json()
        gone = await app.client.delete(f"/v1/videos/{first['id']}", headers=app.auth(key))
        assert gone.status_code == 200
        again = await create(app, key, headers=once)
        assert again.status_code == 202 and again.json()["id"] != first["id"]
        usage = (await app.client.get("/v1/usage", headers=app.auth(key))).json()
        assert usage["total"]["generations"] == 2  # the deleted one is still history
