"""Batches: a JSONL file of creates run as one durable piece of work (docs/api.md)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from tests.fakes.chaos import ChaosProvider
from tests.support.batches import lines_of, results, row_counts, submit, wait_batch
from tests.support.chaos import MODEL, chaos_service
from tests.support.harness import Harness, assert_error
from tests.support.receiver import WebhookReceiver
from tests.support.servers import serve_app
from vidrouter.domain.media import preview_key
from vidrouter.store.budgets import Budget, BudgetStore
from vidrouter.store.keys import NewKey

FAST: dict[str, Any] = {
    "provider_delay_scale": 0.001,
    "batch_poll_seconds": 0.05,
    "batch_concurrency": 64,
    "max_concurrent_generations": 200,
    "rate_limit_rpm": 1_000_000,
    "workers": 32,
}


async def test_a_1000_line_batch_completes_with_every_line_accounted_for(
    tmp_path: Path, database_url: str
) -> None:
    # 1,000 lines on the embedded default; 300 on PostgreSQL, whose engine is slower on a
    # shared test machine (the same code and checks).
    n = 1000 if database_url.startswith("sqlite") else 300
    fake = ChaosProvider()
    async with chaos_service(tmp_path, database_url, {"a": fake}, **FAST) as app:
        key = await app.new_key()
        batch_id = await submit(app, key, lines_of(n, MODEL))
        done = await wait_batch(app, key, batch_id, timeout=300)
        assert done["status"] == "completed", done
        assert done["counts"]["completed"] == n, done["counts"]
        assert done["cost"]["amount"] == round(n * 4 * 0.1, 6)
        lines = await results(app, key, batch_id)
        assert [x["custom_id"] for x in lines] == [f"line-{i}" for i in range(1, n + 1)]
        assert {x["status"] for x in lines} == {"completed"}
        assert all(x["video_url"] and x["error"] is None for x in lines)
        assert len({x["generation_id"] for x in lines}) == n
        assert await row_counts(app) == (n, n)
        # Each line reached the provider once: nothing was created twice.
        assert len(fake.accepted) == n


async def test_a_bad_line_is_a_400_naming_it_and_nothing_is_created(
    tmp_path: Path, database_url: str
) -> None:
    async with chaos_service(tmp_path, database_url, {"a": ChaosProvider()}, **FAST) as app:
        key = await app.new_key()
        good = lines_of(3, MODEL)
        cases = [
            (
                [*good, {"custom_id": "x", "model": MODEL, "prompt": "p", "duration": 5}],
                "duration_unsupported",
                "lines[4].duration",
            ),
            (
                [*good[:1], {"model": MODEL, "prompt": "p"}],
                "custom_id_invalid",
                "lines[2].custom_id",
            ),
            (
                [{"custom_id": "a", "model": "nope", "prompt": "p"}],
                "model_not_found",
                "lines[1].model",
            ),
            ([*good, {"custom_id": "y", "model": MODEL}], "parameter_missing", "lines[4].prompt"),
            ([*good[:2], "not an object"], "invalid_body", "lines[3]"),
            ([], "batch_empty", "lines"),
        ]
        for lines, code, param in cases:
            r = await app.client.post("/v1/batches", json={"lines": lines}, headers=app.auth(key))
            error = assert_error(r, 400, code)
            assert error["param"] == param, (code, error)
        # A JSONL upload names the line of the file, blank lines counted.
        jsonl = b'{"custom_id":"a","model":"chaos-clip","prompt":"p"}\n\n{"custom_id":"b",\n'
        r = await app.client.post(
            "/v1/batches",
            files={"file": ("batch.jsonl", jsonl, "application/jsonl")},
            headers=app.auth(key),
        )
        error = assert_error(r, 400, "invalid_json")
        assert error["param"] == "lines[3]" and "line 3" in error["message"]
        listed = await app.client.get("/v1/batches", headers=app.auth(key))
        assert listed.json()["data"] == []
        assert await row_counts(app) == (0, 0)


async def test_an_uploaded_jsonl_file_runs_and_its_webhook_says_it_ended(
    tmp_path: Path, database_url: str
) -> None:
    receiver = WebhookReceiver()
    async with (
        serve_app(receiver) as hook_url,
        chaos_service(tmp_path, database_url, {"a": ChaosProvider()}, **FAST) as app,
    ):
        key = await app.new_key()
        jsonl = "\n".join(
            f'{{"custom_id":"c{i}","model":"{MODEL}","prompt":"p{i}"}}' for i in range(5)
        )
        r = await app.client.post(
            "/v1/batches",
            files={"file": ("b.jsonl", jsonl.encode(), "application/jsonl")},
            data={"webhook_url": hook_url, "metadata": '{"run": "nightly"}'},
            headers=app.auth(key),
        )
        assert r.status_code == 202, r.text
        batch_id = r.json()["id"]
        assert r.json()["metadata"] == {"run": "nightly"}
        done = await wait_batch(app, key, batch_id)
        assert done["status"] == "completed"
        [event] = await receiver.wait_for(1)
        assert event.headers["webhook-id"]
        body = json.loads(event.body)
        assert body["id"] == batch_id and body["status"] == "completed"
        assert body["counts"]["completed"] == 5
        listed = (await app.client.get("/v1/batches", headers=app.auth(key))).json()
        assert [b["id"] for b in listed["data"]] == [batch_id]
        other = await app.new_key()  # another account sees none of it
        r = await app.client.get(f"/v1/batches/{batch_id}", headers=app.auth(other))
        assert_error(r, 404, "batch_not_found")
        r = await app.client.get(f"/v1/batches/{batch_id}/results", headers=app.auth(other))
        assert_error(r, 404, "batch_not_found")


async def test_a_batch_over_budget_stops_at_the_budget(tmp_path: Path, database_url: str) -> None:
    async with chaos_service(tmp_path, database_url, {"a": ChaosProvider()}, **FAST) as app:
        key = await app.new_key()
        # Each line costs 4 s x $0.1: a $2 budget pays for five of the twelve.
        await BudgetStore(app.service.db).set_key_budget(key.key.id, Budget(2.0, "total"))
        batch_id = await submit(app, key, lines_of(12, MODEL))
        done = await wait_batch(app, key, batch_id)
        assert done["status"] == "failed", done
        assert done["error"]["code"] == "budget_exceeded"
        assert done["counts"]["completed"] == 5 and done["counts"]["failed"] == 7
        assert done["cost"]["amount"] <= 2.0
        lines = await results(app, key, batch_id)
        assert Counter(x["status"] for x in lines) == {"completed": 5, "failed": 7}
        stopped = [x for x in lines if x["status"] == "failed"]
        assert all(x["generation_id"] is None for x in stopped)
        assert {x["error"]["code"] for x in stopped} == {"budget_exceeded"}


async def test_cancel_ends_the_lines_not_started_as_canceled(
    tmp_path: Path, database_url: str
) -> None:
    stuck = _stuck_batch(tmp_path, database_url, 10, 3, batch_concurrency=3)
    async with stuck as (app, key, batch_id, _):
        r = await app.client.post(f"/v1/batches/{batch_id}/cancel", headers=app.auth(key))
        assert r.status_code == 200, r.text
        done = await wait_batch(app, key, batch_id)
        assert done["status"] == "canceled"
        assert done["counts"]["canceled"] == 10, done["counts"]
        lines = await results(app, key, batch_id)
        assert {x["status"] for x in lines} == {"canceled"}
        assert sum(x["generation_id"] is None for x in lines) == 7
        again = await app.client.post(f"/v1/batches/{batch_id}/cancel", headers=app.auth(key))
        assert_error(again, 409, "batch_not_cancelable")


async def test_a_batch_leaves_a_quarter_of_the_keys_concurrency_to_interactive_creates(
    tmp_path: Path, database_url: str
) -> None:
    stuck = _stuck_batch(tmp_path, database_url, 50, 6, max_concurrent_generations=8)
    async with stuck as (app, key, _, fake):
        for _ in range(5):
            await _tick()
        assert len(fake.accepted) == 6  # 8 less a quarter
        for _ in range(2):  # the interactive creates still fit
            r = await app.create(key, model=MODEL, prompt="now")
            assert r.status_code == 202, r.text


async def _tick() -> None:
    await asyncio.sleep(0.05)


@contextlib.asynccontextmanager
async def _stuck_batch(
    tmp_path: Path, database_url: str, lines: int, started: int, **settings: Any
) -> AsyncIterator[tuple[Harness, NewKey, str, ChaosProvider]]:
    """A batch of `lines` whose jobs never finish, once `started` of them were submitted."""
    fake = ChaosProvider(job_seconds=3600)
    async with chaos_service(tmp_path, database_url, {"a": fake}, **{**FAST, **settings}) as app:
        key = await app.new_key()
        batch_id = await submit(app, key, lines_of(lines, MODEL))
        while len(fake.accepted) < started:
            await _tick()
        yield app, key, batch_id, fake


async def test_a_lines_previews_are_made_on_request_not_before_it_completes(
    tmp_path: Path, database_url: str
) -> None:
    # A line's completion waits on no preview (nor does an interactive one's): its
    # thumbnail_url makes the poster when first fetched.
    async with chaos_service(tmp_path, database_url, {"a": ChaosProvider()}, **FAST) as app:
        key = await app.new_key()
        batch_id = await submit(app, key, lines_of(2, MODEL))
        assert (await wait_batch(app, key, batch_id))["status"] == "completed"
        storage = app.service.storage
        for line in await results(app, key, batch_id):
            video_key = f"videos/{line['generation_id']}.mp4"
            assert await storage.stat(video_key) is not None
            assert await storage.stat(preview_key(video_key, "thumbnail")) is None
            done = (await app.get(key, line["generation_id"])).json()
            poster = await app.client.get(done["thumbnail_url"].split("127.0.0.1:8000")[-1])
            assert poster.status_code == 200 and poster.headers["content-type"] == "image/webp"
            assert await storage.stat(preview_key(video_key, "thumbnail")) is not None
