"""The cache of identical requests (docs/api.md): a create with `"cache": true` equal to a
completed generation of the account within the TTL is answered at once by a new completed
generation sharing its video, at no cost, naming it in `cached_from`.

The models are an operator's, served by the local renderer at 480p for half a second: one
render per test makes the source; the misses are canceled at once (they would render).
"""

from __future__ import annotations

from pathlib import Path

from tests.support.cache import (
    BODY,
    assert_forgotten_after_ttl,
    assert_hit,
    assert_miss,
    keyed_source,
    made,
    serving,
    video,
)
from tests.support.images import data_uri, image_host, png


async def test_an_identical_request_shares_the_video_at_no_cost(
    tmp_path: Path, database_url: str
) -> None:
    async with serving(tmp_path, database_url) as app:
        key, source = await keyed_source(app)
        assert source["status"] == "completed", source
        # Key order, 1 and 1.0, metadata and the webhook do not change the video asked for.
        same = {**dict(reversed(BODY.items())), "duration": 1.0, "metadata": {"run": "2"}}
        hit = await assert_hit(app, key, source, **same)
        assert (await app.get(key, hit["id"])).json()["cached_from"] == source["id"]
        original, shared = await video(app, source["video_url"]), await video(app, hit["video_url"])
        assert shared.status_code == 200 and shared.content == original.content
        # Without asking for the cache, the same request is made again.
        again = await made(app, key, **BODY)
        assert again["status"] == "queued" and again["cached_from"] is None
        await app.client.post(f"/v1/generations/{again['id']}/cancel", headers=app.auth(key))
        # A key whose setting turns the cache on answers from it unless told not to.
        await app.service.keys.set_cache(key.key.id, True)
        by_key = await made(app, key, **BODY)
        assert by_key["cached_from"] == source["id"]
        told_not = await made(app, key, **BODY, cache=False)
        assert told_not["cached_from"] is None
        await app.client.post(f"/v1/generations/{told_not['id']}/cancel", headers=app.auth(key))
        # Usage shows the cache hits apart.
        usage = (await app.client.get("/v1/usage", headers=app.auth(key))).json()
        assert usage["total"]["cached"] == 2


async def test_each_field_of_the_request_makes_a_miss(tmp_path: Path) -> None:
    async with serving(tmp_path) as app:
        key = await app.new_key()
        source = await app.generate(key, **BODY, negative_prompt="blur")
        assert source["status"] == "completed", source
        for change in (
            {"model": "cache-other"},
            {"prompt": "a lighthouse at dawn"},
            {"duration": 2},
            {"aspect_ratio": "9:16"},
            {"resolution": "720p"},
            {"seed": 8},
            {"negative_prompt": "noise"},
            {"enhance_prompt": True},
        ):
            await assert_miss(app, key, **{**BODY, "negative_prompt": "blur", **change})
        await assert_miss(app, key, **{k: v for k, v in BODY.items() if k != "seed"})
        await assert_hit(app, key, source, **BODY, negative_prompt="blur")


async def test_input_images_count_by_their_content(tmp_path: Path) -> None:
    picture, other = png(8, 8), png(9, 8)
    async with image_host(picture) as host, serving(tmp_path) as app:
        key = await app.new_key()
        # A request with images is a source only if it asked for the cache (its images are
        # then fetched and hashed at accept).
        source = await app.generate(key, **BODY, image_url=data_uri(picture), cache=True)
        assert source["status"] == "completed" and source["cached_from"] is None, source
        # The same picture at an address is the same request; another picture is not.
        await assert_hit(app, key, source, **BODY, image_url=f"{host}/frame.png")
        await assert_miss(app, key, **BODY, image_url=data_uri(other))
        await assert_miss(
            app, key, **BODY, image_url=data_uri(picture), end_image_url=data_uri(other)
        )
        bad = await app.create(key, **BODY, image_url=f"{host}/page.png", cache=True)
        assert bad.status_code == 400 and bad.json()["error"]["param"] == "image_url", bad.text


async def test_never_across_accounts_unless_the_operator_shares_the_cache(
    tmp_path: Path, database_url: str
) -> None:
    async with serving(tmp_path / "own", database_url) as app:
        key, stranger = await app.new_key(), await app.new_key()
        source = await app.generate(key, **BODY)
        await assert_miss(app, stranger, **BODY)
        same_account = await app.new_key(account=key.key.account_id)
        await assert_hit(app, same_account, source, **BODY)
    async with serving(tmp_path / "shared", cache_shared=True) as app:
        key, stranger = await app.new_key(), await app.new_key()
        source = await app.generate(key, **BODY)
        await assert_hit(app, stranger, source, **BODY)


async def test_deleting_either_leaves_the_other_and_a_deleted_source_is_never_served(
    tmp_path: Path, database_url: str
) -> None:
    async with serving(tmp_path, database_url) as app:
        key, source = await keyed_source(app)
        first = await assert_hit(app, key, source, **BODY)
        second = await assert_hit(app, key, source, **BODY)
        assert (
            await app.client.delete(f"/v1/videos/{first['id']}", headers=app.auth(key))
        ).status_code == 200
        assert (await video(app, source["video_url"])).status_code == 200
        assert (
            await app.client.delete(f"/v1/videos/{source['id']}", headers=app.auth(key))
        ).status_code == 200
        assert (await video(app, second["video_url"])).status_code == 200  # still shared
        await assert_miss(app, key, **BODY)  # the deleted source answers no more
        assert (
            await app.client.delete(f"/v1/videos/{second['id']}", headers=app.auth(key))
        ).status_code == 200
        assert (await video(app, second["video_url"])).status_code == 404  # the last one took it


async def test_a_generation_older_than_the_ttl_answers_no_more(tmp_path: Path) -> None:
    await assert_forgotten_after_ttl(tmp_path, **BODY)


async def test_the_openai_compatible_create_takes_the_cache_too(tmp_path: Path) -> None:
    async with serving(tmp_path) as app:
        key, source = await keyed_source(app)
        r = await app.client.post(
            "/v1/videos",
            json={
                "model": "cache-clip",
                "prompt": BODY["prompt"],
                "seconds": "1",
                "size": "854x480",
                "seed": 7,
                "cache": True,
            },
            headers=app.auth(key),
        )
        assert r.status_code == 200, r.text
        assert r.json()["status"] == "completed" and r.json()["cached_from"] == source["id"]
