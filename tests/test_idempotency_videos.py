"""Idempotency-Key on OpenAI's Videos API (create, remix, edits, extensions), as on
POST /v1/generations: the same key with the same request answers the video it made (one
generation); with another request, 409 `idempotency_key_reused`. An upload is the same
request by its content, not by the copy each try keeps."""

from __future__ import annotations

from typing import Any

import httpx

from tests.support.clips import solid_mp4
from tests.support.harness import Harness, assert_error
from vidrouter.store.keys import NewKey

BLUE = (20, 40, 230)


async def twice(
    app: Harness, key: NewKey, path: str, first: dict[str, Any], second: dict[str, Any]
) -> tuple[httpx.Response, httpx.Response]:
    """`first` then `second` (keyword arguments of the POST) under one Idempotency-Key."""
    headers = {**app.auth(key), "Idempotency-Key": f"k-{path}"}
    one = await app.client.post(f"/v1/videos{path}", headers=headers, **first)
    assert one.status_code == 200, one.text
    return one, await app.client.post(f"/v1/videos{path}", headers=headers, **second)


async def count_videos(app: Harness, key: NewKey) -> int:
    listed = await app.client.get("/v1/videos", headers=app.auth(key), params={"limit": 100})
    return len(listed.json()["data"])


async def test_create_replays_and_conflicts(app: Harness) -> None:
    key = await app.new_key()
    body = {"model": "local-preview", "prompt": "once", "seconds": "1"}
    one, again = await twice(app, key, "", {"json": body}, {"json": {**body}})
    assert again.status_code == 200 and again.json()["id"] == one.json()["id"]
    # The same meaning through the other API replays it too: a key names one create.
    same = await app.client.post(
        "/v1/generations",
        json={"model": "local-preview", "prompt": "once", "duration": 1},
        headers={**app.auth(key), "Idempotency-Key": "k-"},
    )
    assert same.status_code == 202 and same.json()["id"] == one.json()["id"]
    other = await app.client.post(
        "/v1/videos",
        json={**body, "prompt": "twice"},
        headers={**app.auth(key), "Idempotency-Key": "k-"},
    )
    assert_error(other, 409, "idempotency_key_reused")
    assert await count_videos(app, key) == 1
    bad = await app.client.post(
        "/v1/videos", json=body, headers={**app.auth(key), "Idempotency-Key": ""}
    )
    assert assert_error(bad, 400, "idempotency_key_invalid")["param"] == "Idempotency-Key"


async def test_remix_and_extension_of_a_video_replay_and_conflict(app: Harness) -> None:
    key = await app.new_key()
    source = await app.generate(key, model="local-preview", prompt="a fox", duration=0.5)
    remix = {"json": {"prompt": "at night"}}
    one, again = await twice(app, key, f"/{source['id']}/remix", remix, remix)
    assert again.status_code == 200 and again.json()["id"] == one.json()["id"]
    assert again.json()["remixed_from_video_id"] == source["id"]
    _, other = await twice(
        app, key, f"/{source['id']}/remix", remix, {"json": {"prompt": "by day"}}
    )
    assert_error(other, 409, "idempotency_key_reused")

    extend = {"prompt": "on", "seconds": "0.5", "video": {"id": source["id"]}}
    one, again = await twice(app, key, "/extensions", {"json": extend}, {"json": extend})
    assert again.status_code == 200 and again.json()["id"] == one.json()["id"]
    _, other = await twice(
        app, key, "/extensions", {"json": extend}, {"json": {**extend, "seconds": "1"}}
    )
    assert_error(other, 409, "idempotency_key_reused")
    # The source, a remix and an extension: no replay made another.
    assert await count_videos(app, key) == 3


async def test_an_uploaded_edit_replays_by_its_content(app: Harness) -> None:
    key = await app.new_key()
    clip = solid_mp4(seconds=0.5)
    upload = {"data": {"prompt": "at night"}, "files": {"video": ("a.mp4", clip, "video/mp4")}}
    one, again = await twice(app, key, "/edits", upload, upload)
    assert again.status_code == 200 and again.json()["id"] == one.json()["id"]
    kept = app.service.storage.local_path("inputs/x")
    assert kept is not None
    # The replay's own copy of the upload is gone: only the original's is kept.
    assert [p.name for p in kept.parent.glob("*-source.mp4")] == [f"{one.json()['id']}-source.mp4"]
    changed = {**upload, "files": {"video": ("a.mp4", solid_mp4(BLUE, 0.5), "video/mp4")}}
    _, other = await twice(app, key, "/edits", upload, changed)
    assert_error(other, 409, "idempotency_key_reused")
    assert await count_videos(app, key) == 1
