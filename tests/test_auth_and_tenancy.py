"""Authentication on every /v1 endpoint, and one account never sees another's generations."""

from __future__ import annotations

import pytest

from tests.support.harness import Harness

ENDPOINTS = [
    ("GET", "/v1/models"),
    ("GET", "/v1/models/local-preview"),
    ("POST", "/v1/generations"),
    ("GET", "/v1/generations"),
    ("GET", "/v1/generations/gen_abcdefghijklmnopqrstuvwx"),
    ("POST", "/v1/generations/gen_abcdefghijklmnopqrstuvwx/cancel"),
]


@pytest.mark.parametrize(("method", "path"), ENDPOINTS)
@pytest.mark.parametrize(
    ("header", "code"),
    [
        (None, "missing_api_key"),
        ("Basic dXNlcjpwYXNz", "invalid_authorization_header"),
        ("Bearer", "invalid_authorization_header"),
        ("Bearer vr_thisisnotarealkeyatallnotatallnotatall00", "invalid_api_key"),
        ("Bearer " + "x" * 5000, "invalid_api_key"),
    ],
)
async def test_every_endpoint_needs_a_valid_key(
    app: Harness, method: str, path: str, header: str | None, code: str
) -> None:
    headers = {"Authorization": header} if header is not None else {}
    response = await app.client.request(method, path, headers=headers, json={})
    assert response.status_code == 401, response.text
    assert response.headers["www-authenticate"] == "Bearer"
    error = response.json()["error"]
    assert (error["type"], error["code"]) == ("authentication_error", code)
    if header and " " in header:
        assert header.split(" ", 1)[1] not in error["message"]  # never echo a key


async def test_revoked_key_is_refused(app: Harness) -> None:
    key = await app.new_key()
    assert (await app.client.get("/v1/models", headers=app.auth(key))).status_code == 200
    assert await app.service.keys.revoke(key.key.id)
    response = await app.client.get("/v1/models", headers=app.auth(key))
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "invalid_api_key"


async def test_another_account_gets_404_and_never_sees_the_generation(app: Harness) -> None:
    alice = await app.new_key("alice")
    bob = await app.new_key("bob")
    created = await app.create(alice, model="local-preview", prompt="alice's secret", duration=0.5)
    gid = created.json()["id"]

    as_bob = await app.get(bob, gid)
    assert as_bob.status_code == 404
    assert as_bob.json()["error"]["type"] == "not_found_error"
    # The same answer as for an id that never existed: existence is not revealed.
    missing = await app.get(bob, "gen_" + "Z" * 24)
    assert missing.json()["error"]["code"] == as_bob.json()["error"]["code"]

    listed = await app.client.get("/v1/generations", headers=app.auth(bob))
    assert listed.json()["data"] == []
    cancel = await app.client.post(f"/v1/generations/{gid}/cancel", headers=app.auth(bob))
    assert cancel.status_code == 404
    assert (await app.get(alice, gid)).status_code == 200


async def test_keys_of_one_account_share_its_generations(app: Harness) -> None:
    first = await app.new_key("first")
    second = await app.new_key("second", account=first.key.account_id)
    created = await app.create(first, model="local-preview", prompt="shared", duration=0.5)
    assert (await app.get(second, created.json()["id"])).status_code == 200


async def test_unknown_generation_ids_are_404(app: Harness) -> None:
    key = await app.new_key()
    for gid in ["gen_doesnotexist0000000000", "nope", "gen_" + "a" * 100]:
        response = await app.get(key, gid)
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "generation_not_found"


async def test_request_id_is_echoed_or_made(app: Harness) -> None:
    response = await app.client.get("/healthz", headers={"X-Request-Id": "abc-123"})
    assert response.headers["x-request-id"] == "abc-123"
    response = await app.client.get("/v1/models")
    assert response.headers["x-request-id"].startswith("req_")
