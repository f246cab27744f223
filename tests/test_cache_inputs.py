"""The cache compares every input by its content, never by its URL (docs/api.md, The
cache): references of each kind and the source video, by URL, data: URI or (the source) by
generation id. The same content at another address hits; another content, or the same URL
whose content changed, misses; never across accounts unless the operator shares the cache;
never from a deleted source; never after the TTL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.cache import (
    BODY,
    assert_forgotten_after_ttl,
    assert_hit,
    assert_miss,
    media_host,
    mp4_head,
    serving,
    video,
    wav,
)
from tests.support.harness import Harness
from tests.support.images import data_uri, png
from vidrouter.store.keys import NewKey

PICTURE, OTHER_PICTURE = png(8, 8), png(9, 8)
CLIP, OTHER_CLIP = mp4_head(b"clip"), mp4_head(b"other")
VOICE, OTHER_VOICE = wav(b"voice"), wav(b"other")


def refs(image: str, clip: str, voice: str) -> dict[str, Any]:
    return {
        **BODY,
        "references": [
            {"type": "image", "url": image},
            {"type": "video", "url": clip},
            {"type": "audio", "url": voice},
        ],
    }


async def delete(app: Harness, key: NewKey, generation_id: str) -> None:
    r = await app.client.delete(f"/v1/videos/{generation_id}", headers=app.auth(key))
    assert r.status_code == 200, r.text


async def test_references_of_each_kind_count_by_their_content(
    tmp_path: Path, database_url: str
) -> None:
    files = {"a.png": PICTURE, "clip.mp4": CLIP, "voice.wav": VOICE, "copy.mp4": CLIP}
    async with media_host(files) as host, serving(tmp_path, database_url) as app:
        key, stranger = await app.new_key(), await app.new_key()
        asked = refs(f"{host}/a.png", f"{host}/clip.mp4", f"{host}/voice.wav")
        # References are kept at accept, so a request with them is a source even when it
        # did not ask for the cache.
        source = await app.generate(key, **asked)
        assert source["status"] == "completed" and source["cached_from"] is None, source
        # The same content, each at another address or as a data: URI: the same request.
        same = refs(data_uri(PICTURE), f"{host}/copy.mp4", data_uri(VOICE, "audio/wav"))
        await assert_hit(app, key, source, **same)
        # Another content of each kind, the references in another order, one fewer: misses.
        for changed in (
            refs(data_uri(OTHER_PICTURE), f"{host}/clip.mp4", f"{host}/voice.wav"),
            refs(f"{host}/a.png", data_uri(OTHER_CLIP, "video/mp4"), f"{host}/voice.wav"),
            refs(f"{host}/a.png", f"{host}/clip.mp4", data_uri(OTHER_VOICE, "audio/wav")),
            {**asked, "references": list(reversed(asked["references"]))},
            {**asked, "references": asked["references"][:2]},
        ):
            await assert_miss(app, key, **changed)
        await assert_miss(app, stranger, **asked)  # never across accounts
        # The same URLs whose content changed: another request; changed back, the same.
        files["a.png"], files["clip.mp4"] = OTHER_PICTURE, OTHER_CLIP
        await assert_miss(app, key, **asked)
        files["a.png"], files["clip.mp4"] = PICTURE, CLIP
        await assert_hit(app, key, source, **asked)
        # A deleted source is never served.
        await delete(app, key, source["id"])
        await assert_miss(app, key, **asked)


async def test_a_source_video_counts_by_its_content_by_url_or_by_generation(
    tmp_path: Path, database_url: str
) -> None:
    async with serving(tmp_path, database_url) as app:
        key, stranger = await app.new_key(), await app.new_key()
        base = await app.generate(key, **BODY)
        assert base["status"] == "completed", base
        base_bytes = (await video(app, base["video_url"])).content
        host_files = {"clip.mp4": base_bytes, "copy.mp4": base_bytes}
        async with media_host(host_files) as clips:
            edit = {**BODY, "type": "video-to-video", "prompt": "in watercolour"}
            by_url = {**edit, "video": {"url": f"{clips}/clip.mp4"}}
            source = await app.generate(key, **by_url)
            assert source["status"] == "completed", source
            # The same video by another URL, or named by the generation that made it.
            await assert_hit(app, key, source, **{**edit, "video": {"url": f"{clips}/copy.mp4"}})
            by_id = {**edit, "video": {"generation_id": base["id"]}}
            await assert_hit(app, key, source, **by_id)
            # A cache hit of `base` shares its stored video: naming it is the same request.
            twin = await assert_hit(app, key, base, **BODY)
            await assert_hit(app, key, source, **{**edit, "video": {"generation_id": twin["id"]}})
            # Another video (by id or by URL), another type on the same video: misses.
            await assert_miss(app, key, **{**edit, "video": {"generation_id": source["id"]}})
            await assert_miss(app, key, **{**by_url, "type": "video-extend"})
            edited = (await video(app, source["video_url"])).content
            host_files["clip.mp4"] = edited  # the same URL, another content
            await assert_miss(app, key, **by_url)
            host_files["clip.mp4"] = base_bytes
            await assert_hit(app, key, source, **by_url)
            await assert_miss(app, stranger, **by_url)  # never across accounts
            # A deleted source is never served, by URL or by generation id.
            await delete(app, key, source["id"])
            await assert_miss(app, key, **by_url)
            await assert_miss(app, key, **by_id)


async def test_inputs_are_shared_across_accounts_only_by_the_operators_choice(
    tmp_path: Path,
) -> None:
    asked = refs(data_uri(PICTURE), data_uri(CLIP, "video/mp4"), data_uri(VOICE, "audio/wav"))
    async with serving(tmp_path, cache_shared=True) as app:
        key, stranger = await app.new_key(), await app.new_key()
        source = await app.generate(key, **asked)
        assert source["status"] == "completed", source
        await assert_hit(app, stranger, source, **asked)
        # The stranger's hit shares the video: extending it is the same as extending the
        # source's, whoever asks.
        hit = await assert_hit(app, stranger, source, **asked)
        extend = {**BODY, "type": "video-extend", "duration": 0.5}
        original = await app.generate(key, **extend, video={"generation_id": source["id"]})
        assert original["status"] == "completed", original
        await assert_hit(app, stranger, original, **extend, video={"generation_id": hit["id"]})


async def test_inputs_older_than_the_ttl_answer_no_more(tmp_path: Path) -> None:
    asked = refs(data_uri(PICTURE), data_uri(CLIP, "video/mp4"), data_uri(VOICE, "audio/wav"))
    await assert_forgotten_after_ttl(tmp_path, **asked)
