"""Webhooks: signed, retried on the schedule while the receiver is down, sent on failure and
cancel too, and never lost."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from standardwebhooks.webhooks import Webhook

from tests.support.harness import Harness, running, test_settings
from tests.support.receiver import WebhookReceiver
from tests.support.servers import serve_app
from vidrouter.store.deliveries import Delivery
from vidrouter.store.keys import NewKey


@asynccontextmanager
async def hooked(
    tmp_path: Path, schedule: tuple[float, ...], status: int, prompt: str
) -> AsyncIterator[tuple[Harness, NewKey, WebhookReceiver, str]]:
    """The app retrying webhooks on `schedule`, a receiver answering `status`, and a finished
    generation (its id) whose webhook goes to it."""
    async with running(test_settings(tmp_path / "d", webhook_retry_schedule=schedule)) as app:
        key = await app.new_key()
        receiver = WebhookReceiver(status=status)
        async with serve_app(receiver) as url:
            gid = await app.create_preview(key, prompt=prompt, webhook_url=url)
            await app.wait_for(key, gid)
            yield app, key, receiver, gid


async def settled(app: Harness, gid: str) -> Delivery:
    """The generation's one delivery, once it is no longer pending."""
    for _ in range(200):
        [delivery] = await app.service.deliveries.for_generation(gid)
        if delivery.status != "pending":
            break
        await asyncio.sleep(0.05)
    return delivery


async def test_receiver_down_then_up_gets_it_on_the_schedule(tmp_path: Path) -> None:
    # Schedule 0.5 s, 1 s, 30 s: the receiver fails twice, then the third try succeeds.
    async with hooked(tmp_path, (0.5, 1.0, 30.0), 503, "retry me") as (app, key, receiver, gid):
        while receiver.attempts < 2:
            await asyncio.sleep(0.05)
        receiver.status = 200
        [hook] = await receiver.wait_for(1, timeout=20)
        delivery = await settled(app, gid)
    assert receiver.attempts == 3
    assert delivery.status == "delivered" and delivery.tries == 3
    assert hook.headers["webhook-id"] == delivery.id
    Webhook(key.key.webhook_secret).verify(hook.body, hook.headers)


async def test_gives_up_after_the_last_try_and_records_it(tmp_path: Path) -> None:
    async with hooked(tmp_path, (0.1, 0.1), 500, "x") as (app, _key, receiver, gid):
        delivery = await settled(app, gid)
    assert delivery.status == "failed"
    assert delivery.tries == 3 and receiver.attempts == 3
    assert delivery.last_status_code == 500


async def test_the_signature_is_the_standard_webhooks_one_and_ids_are_stable(
    tmp_path: Path,
) -> None:
    async with hooked(tmp_path, (0.2,), 500, "sig") as (_app, key, receiver, _gid):
        while receiver.attempts < 1:
            await asyncio.sleep(0.05)
        receiver.status = 200
        [hook] = await receiver.wait_for(1)
    assert hook.headers["webhook-signature"].startswith("v1,")
    assert abs(int(hook.headers["webhook-timestamp"]) - time.time()) < 60
    payload = Webhook(key.key.webhook_secret).verify(hook.body, hook.headers)
    assert payload["status"] == "completed"
    tampered = hook.body.replace(b"completed", b"failed___")
    try:
        Webhook(key.key.webhook_secret).verify(tampered, hook.headers)
    except Exception as exc:  # the receiver's library refuses a changed body
        assert "signature" in str(exc).lower()
    else:
        raise AssertionError("a tampered body verified")


async def test_cancel_sends_a_canceled_webhook_and_finished_ones_are_409(app: Harness) -> None:
    key = await app.new_key()
    receiver = WebhookReceiver()
    async with serve_app(receiver) as url:
        gid = await app.create_preview(key, prompt="cancel me", duration=20, webhook_url=url)
        canceled = await app.client.post(f"/v1/generations/{gid}/cancel", headers=app.auth(key))
        assert canceled.status_code == 200, canceled.text
        assert canceled.json()["status"] == "canceled"
        assert canceled.json()["completed_at"] is not None
        [hook] = await receiver.wait_for(1)
        assert json.loads(hook.body)["status"] == "canceled"
        again = await app.client.post(f"/v1/generations/{gid}/cancel", headers=app.auth(key))
        assert again.status_code == 409
        assert again.json()["error"] == {
            "type": "conflict_error",
            "code": "generation_not_cancelable",
            "message": f"generation {gid} has already finished (canceled)",
            "param": None,
        }
        # A canceled generation stays canceled: the worker's later save does not revive it.
        await asyncio.sleep(1.5)
        assert (await app.get(key, gid)).json()["status"] == "canceled"
