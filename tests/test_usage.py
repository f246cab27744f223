"""GET /v1/usage: an account's generations, outcomes, billed seconds and cost over a time
range, grouped by model or by UTC day, summed by the database (SQLite and PostgreSQL)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.harness import test_settings
from vidrouter.api.routes import usage
from vidrouter.composition import Composition, create_app
from vidrouter.domain import ids
from vidrouter.domain.generation import Generation, Status, Step
from vidrouter.store.database import Database
from vidrouter.store.generations import GenerationStore
from vidrouter.store.keys import KeyStore, NewKey
from vidrouter.store.usage import UsageRow, UsageStore, UsageTotal

DAY1 = datetime(2026, 11, 20, tzinfo=UTC)


def _generation(
    account_id: str,
    at: datetime,
    model: str = "local-preview",
    status: Status = Status.COMPLETED,
    billed: float | None = None,
) -> Generation:
    done = status is Status.COMPLETED
    seconds = billed if billed is not None else (4.0 if done else None)
    return Generation(
        id=ids.generation_id(),
        account_id=account_id,
        model=model,
        prompt="p",
        duration=4.0,
        aspect_ratio="16:9",
        status=status,
        step=Step.DONE if status.terminal else Step.SUBMIT,
        created_at=at,
        updated_at=at,
        billed_seconds=seconds,
        cost_amount=round(seconds * 0.1, 6) if seconds is not None else None,
        cost_currency="USD" if seconds is not None else None,
    )


async def _insert(store: GenerationStore, *generations: Generation) -> None:
    for g in generations:
        await store.insert(g)


async def test_usage_by_model_and_by_day_is_the_accounts_only(db: Database) -> None:
    for account in ("acct_a", "acct_b"):
        await KeyStore(db).create(account, account_id=account)
    store = GenerationStore(db)
    await _insert(
        store,
        _generation("acct_a", DAY1 + timedelta(hours=1), "ray-2", billed=5.0),
        _generation("acct_a", DAY1 + timedelta(hours=2), "ray-2", Status.FAILED),
        _generation("acct_a", DAY1 + timedelta(hours=23, minutes=59, seconds=59), "veo-3.1"),
        _generation("acct_a", DAY1 + timedelta(days=1), "veo-3.1", billed=8.0),  # midnight
        _generation("acct_a", DAY1 + timedelta(days=1, hours=5), "veo-3.1", Status.CANCELED),
        _generation("acct_a", DAY1 + timedelta(days=1, hours=6), "ray-2", Status.IN_PROGRESS),
        _generation("acct_a", DAY1 - timedelta(microseconds=1), "ray-2"),  # before the range
        _generation("acct_a", DAY1 + timedelta(days=2), "ray-2"),  # at the end: excluded
        _generation("acct_b", DAY1 + timedelta(hours=3), "ray-2", billed=100.0),  # not ours
    )
    usage = UsageStore(db)
    end = DAY1 + timedelta(days=2)

    by_model = await usage.report("acct_a", start=DAY1, end=end, group_by="model")
    assert by_model.rows == [
        UsageRow("ray-2", generations=3, completed=1, failed=1, billed_seconds=5.0, cost=0.5),
        UsageRow("veo-3.1", generations=3, completed=2, failed=0, billed_seconds=12.0, cost=1.2),
    ]
    assert by_model.total == UsageTotal(6, 3, 1, 17.0, 1.7)

    by_day = await usage.report("acct_a", start=DAY1, end=end, group_by="day")
    assert by_day.rows == [
        UsageRow("2026-11-20", generations=3, completed=2, failed=1, billed_seconds=9.0, cost=0.9),
        UsageRow("2026-11-21", generations=3, completed=1, failed=0, billed_seconds=8.0, cost=0.8),
    ]
    assert by_day.total == by_model.total

    empty = await usage.report("acct_nobody", start=DAY1, end=end, group_by="day")
    assert (empty.rows, empty.total) == ([], UsageTotal(0, 0, 0, 0.0, 0.0))


# --- the endpoint ----------------------------------------------------------------------------


@dataclass
class Api:
    service: Composition
    client: httpx.AsyncClient
    key: NewKey

    async def usage(self, **params: str) -> httpx.Response:
        headers = {"Authorization": f"Bearer {self.key.plaintext}"}
        return await self.client.get("/v1/usage", params=params, headers=headers)


@contextlib.asynccontextmanager
async def _api(data_dir: Path, database_url: str | None = None) -> AsyncIterator[Api]:
    settings = test_settings(data_dir, database_url)
    service = Composition(settings)
    await service.open()
    app = create_app(settings, composition=service)
    if not any(getattr(r, "path", None) == "/v1/usage" for r in app.routes):
        app.include_router(usage.router)  # until app.py includes it
    transport = httpx.ASGITransport(app=app)
    try:
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
            yield Api(service, c, await KeyStore(service.db).create("usage"))
    finally:
        await service.close(grace=1)


@pytest.fixture
async def api(tmp_path: Path, database_url: str) -> AsyncIterator[Api]:
    async with _api(tmp_path / "data", database_url) as value:
        yield value


async def test_usage_endpoint_shape_and_default_range(api: Api) -> None:
    now = api.service.clock()
    account = api.key.key.account_id
    await _insert(
        api.service.generation_store,
        _generation(account, now - timedelta(days=29), "ray-2", billed=3.0),
        _generation(account, now - timedelta(days=31), "ray-2"),  # older than 30 days
        _generation(account, now - timedelta(hours=1), "veo-3.1", Status.FAILED),
    )
    response = await api.usage()
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    assert body["object"] == "usage" and body["group_by"] == "model"
    start = datetime.fromisoformat(body["from"].replace("Z", "+00:00"))
    end = datetime.fromisoformat(body["to"].replace("Z", "+00:00"))
    assert end - start == timedelta(days=30) and abs(end - now) < timedelta(minutes=1)
    assert body["data"] == [
        {
            "model": "ray-2",
            "generations": 1,
            "completed": 1,
            "failed": 0,
            "billed_seconds": 3.0,
            "cost": {"amount": 0.3, "currency": "USD"},
            "cached": 0,
        },
        {
            "model": "veo-3.1",
            "generations": 1,
            "completed": 0,
            "failed": 1,
            "billed_seconds": 0.0,
            "cost": {"amount": 0.0, "currency": "USD"},
            "cached": 0,
        },
    ]
    assert body["total"] == {
        "generations": 2,
        "completed": 1,
        "failed": 1,
        "billed_seconds": 3.0,
        "cost": {"amount": 0.3, "currency": "USD"},
        "cached": 0,
    }

    by_day = (await api.usage(group_by="day")).json()
    assert [row["day"] for row in by_day["data"]] == sorted(
        {
            (now - timedelta(days=29)).date().isoformat(),
            (now - timedelta(hours=1)).date().isoformat(),
        }
    )
    assert all("model" not in row for row in by_day["data"])


async def test_usage_range_dates_and_datetimes(api: Api) -> None:
    account = api.key.key.account_id
    await _insert(
        api.service.generation_store,
        _generation(account, DAY1 + timedelta(hours=10)),
        _generation(account, DAY1 + timedelta(days=1, hours=23)),
    )
    # A date alone is its whole UTC day, at either end.
    both = (await api.usage(**{"from": "2026-11-20", "to": "2026-11-21"})).json()
    assert (both["from"], both["to"]) == ("2026-11-20T00:00:00.000Z", "2026-11-22T00:00:00.000Z")
    assert both["total"]["generations"] == 2
    first = (await api.usage(**{"from": "2026-11-20", "to": "2026-11-20"})).json()
    assert first["total"]["generations"] == 1
    # Date-times: Z, an offset (also with its "+" unescaped), or none (UTC).
    for start in ["2026-11-20T11:00:00Z", "2026-11-20T12:00:00+01:00", "2026-11-20T11:00:00"]:
        late = (await api.usage(**{"from": start, "to": "2026-11-22T00:00:00Z"})).json()
        assert late["from"] == "2026-11-20T11:00:00.000Z", start
        assert late["total"]["generations"] == 1
    raw = await api.client.get(
        "/v1/usage?from=2026-11-20T12:00:00+01:00&to=2026-11-22",
        headers={"Authorization": f"Bearer {api.key.plaintext}"},
    )
    assert raw.json()["from"] == "2026-11-20T11:00:00.000Z"


@pytest.mark.parametrize(
    ("params", "param"),
    [
        ({"from": "yesterday"}, "from"),
        ({"from": "2026-11-31"}, "from"),
        ({"to": "2026-13-01T00:00:00Z"}, "to"),
        ({"group_by": "week"}, "group_by"),
        ({"from": "x" * 100}, "from"),
    ],
)
async def test_usage_refuses_bad_parameters(
    tmp_path: Path, params: dict[str, str], param: str
) -> None:
    async with _api(tmp_path / "data") as api:
        response = await api.usage(**params)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert (error["type"], error["param"]) == ("invalid_request_error", param)


@pytest.mark.parametrize(
    "params",
    [
        {"from": "2026-11-21", "to": "2026-11-20"},
        {"from": "2026-11-20T10:00:00Z", "to": "2026-11-20T10:00:00Z"},
        {"to": "0001-01-01"},
        {"from": "0001-01-01T00:00:00+05:00", "to": "9999-12-31"},
        {"from": "9999-12-31T23:59:59-05:00"},
    ],
)
async def test_usage_of_an_empty_or_extreme_range_is_an_answer(
    tmp_path: Path, params: dict[str, str]
) -> None:
    """A range whose end is not after its start holds nothing, and dates at the ends of
    the calendar are clamped: the OpenAPI document cannot tell these apart from other valid
    dates, so the server does not refuse them."""
    async with _api(tmp_path / "data") as api:
        response = await api.usage(**params)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["total"]["generations"] == 0 and body["data"] == []
    if params.get("from", "").startswith("0001"):
        assert (body["from"], body["to"]) == (
            "0001-01-01T00:00:00.000Z",
            "9999-12-31T23:59:59.999Z",
        )
    if params.get("from", "").startswith("9999"):
        assert body["from"] == "9999-12-31T23:59:59.999Z"


async def test_usage_needs_a_key_and_counts_real_generations(tmp_path: Path) -> None:
    async with _api(tmp_path / "data") as api:
        assert (await api.client.get("/v1/usage")).status_code == 401
        api.service.start_workers()
        headers = {"Authorization": f"Bearer {api.key.plaintext}"}
        created = await api.client.post(
            "/v1/generations",
            json={"model": "local-preview", "prompt": "count me", "duration": 0.5},
            headers=headers,
        )
        gid = created.json()["id"]
        for _ in range(600):
            done = (await api.client.get(f"/v1/generations/{gid}", headers=headers)).json()
            if done["status"] == "completed":
                break
            await asyncio.sleep(0.1)
        body = (await api.usage()).json()
    assert done["status"] == "completed"
    [row] = body["data"]
    assert (row["model"], row["generations"], row["completed"]) == ("local-preview", 1, 1)
    assert row["billed_seconds"] > 0
    assert row["cost"] == done["cost"]
