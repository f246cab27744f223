"""Idempotency-Key on POST /v1/generations: same key and body -> the same generation; another
body -> 409; 20 concurrent identical requests -> one generation. On each database."""

from __future__ import annotations

import asyncio

from tests.support.harness import Harness

BODY = {"model": "local-preview", "prompt": "once only", "duration": 0.5}


async def test_same_key_same_body_returns_the_original(app_any_db: Harness) -> None:
    app = app_any_db
    key = await app.new_key()
    headers = {**app.auth(key), "Idempotency-Key": "order-42"}
    first = await app.client.post("/v1/generations", json=BODY, headers=headers)
    # Key order and spacing do not make another request.
    again = await app.client.post(
        "/v1/generations",
        content=b'{"duration": 0.5, "prompt": "once only",   "model": "local-preview"}',
        headers={**headers, "content-type": "application/json"},
    )
    assert first.status_code == again.status_code == 202
    assert first.json()["id"] == again.json()["id"]
    assert again.headers["location"] == f"/v1/generations/{first.json()['id']}"
    listing = await app.client.get("/v1/generations", headers=app.auth(key))
    assert len(listing.json()["data"]) == 1


async def test_same_key_other_body_is_409(app: Harness) -> None:
    key = await app.new_key()
    headers = {**app.auth(key), "Idempotency-Key": "k1"}
    assert (await app.client.post("/v1/generations", json=BODY, headers=headers)).status_code == 202
    other = await app.client.post(
        "/v1/generations", json={**BODY, "prompt": "something else"}, headers=headers
    )
    assert other.status_code == 409
    assert other.json()["error"]["type"] == "conflict_error"
    assert other.json()["error"]["code"] == "idempotency_key_reused"


async def test_keys_are_per_account(app: Harness) -> None:
    alice, bob = await app.new_key("a"), await app.new_key("b")
    made = []
    for k in (alice, bob):
        r = await app.client.post(
            "/v1/generations", json=BODY, headers={**app.auth(k), "Idempotency-Key": "same"}
        )
        made.append(r.json()["id"])
    assert made[0] != made[1]


async def test_twenty_concurrent_identical_requests_make_one_generation(
    app_any_db: Harness,
) -> None:
    app = app_any_db
    key = await app.new_key()
    headers = {**app.auth(key), "Idempotency-Key": "burst"}
    responses = await asyncio.gather(
        *(app.client.post("/v1/generations", json=BODY, headers=headers) for _ in range(20))
    )
    assert {r.status_code for r in responses} == {202}
    assert len({r.json()["id"] for r in responses}) == 1
    listing = await app.client.get("/v1/generations", headers=app.auth(key))
    assert len(listing.json()["data"]) == 1


async def test_invalid_idempotency_keys_are_400(app: Harness) -> None:
    key = await app.new_key()
    for bad in ["x" * 256, "tab\there"]:
        r = await app.client.post(
            "/v1/generations", json=BODY, headers={**app.auth(key), "Idempotency-Key": bad}
        )
        assert r.status_code == 400
        assert r.json()["error"]["code"] == "idempotency_key_invalid"


async def test_a_repeat_that_means_the_same_replays_and_one_that_differs_conflicts(
    app: Harness,
) -> None:
    """The comparison is of the parsed, normalised request, not of its text."""
    key = await app.new_key()
    headers = {**app.auth(key), "Idempotency-Key": "meaning"}
    base = {"model": "local-preview", "prompt": "once only", "duration": 1}
    first = await app.client.post("/v1/generations", json=base, headers=headers)
    assert first.status_code == 202, first.text
    same_meaning = [
        {**base, "duration": 1.0},
        {**base, "metadata": None},
        {**base, "metadata": {}},
        {**base, "routing": {}},
        {**base, "webhook_url": None, "image_url": None},
        {**base, "aspect_ratio": "16:9"},  # the model's default, written out
    ]
    for body in same_meaning:
        again = await app.client.post("/v1/generations", json=body, headers=headers)
        assert again.status_code == 202, (body, again.text)
        assert again.json()["id"] == first.json()["id"], body
    other_meaning = [
        {**base, "duration": 1.5},
        {**base, "metadata": {"a": "b"}},
        {**base, "aspect_ratio": "9:16"},
        {**base, "routing": {"sort": "speed"}},
        {**base, "prompt": "once only "},
    ]
    for body in other_meaning:
        other = await app.client.post("/v1/generations", json=body, headers=headers)
        assert other.status_code == 409, (body, other.text)
        assert other.json()["error"]["code"] == "idempotency_key_reused"
    listing = await app.client.get("/v1/generations", headers=app.auth(key))
    assert len(listing.json()["data"]) == 1
