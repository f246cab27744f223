"""Characters (`/v1/videos/characters`): kept per account on both databases, another
account's is a 404 everywhere; usable as references on both create APIs (`references:
[{"type": "character"}]`, `characters: [{"id"}]`): a frame of it on a model that takes only
image references (`local-preview`, end to end), its video on one that takes video
references; and every refusal a 4xx naming the param, with no generation made."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import av
import pytest

from tests.support.catalogs import TEXT_ONLY, TEXT_ONLY_MODEL, local_model
from tests.support.clips import RED, solid_mp4
from tests.support.harness import Harness, assert_error, idle_with
from vidrouter.store.characters import Character, CharacterStore
from vidrouter.store.database import Database
from vidrouter.store.keys import KeyStore, NewKey

# The local renderer behind a model that takes video references, and one that takes none.
CATALOG = local_model(
    "video-refs",
    0.0,
    {"receives_media": ["file"]},
    name="Video refs",
    description="Takes video references.",
    type="text-to-video",
    capabilities=["text-to-video", "reference-to-video"],
    max_references={"video": 2},
    max_duration=4,
    default_duration=1,
    aspect_ratios=["16:9"],
)
CATALOG += TEXT_ONLY


async def test_the_store_keeps_characters_per_account(db: Database) -> None:
    keys = KeyStore(db, lambda: datetime.now(UTC))
    mine = (await keys.create("a", account_id="acct_mine")).key.account_id
    await keys.create("b", account_id="acct_other")
    store = CharacterStore(db)
    made = Character(
        "char_abc", mine, "Bob", "characters/a.mp4", "characters/a.jpg", 2.0, datetime.now(UTC)
    )
    await store.insert(made)
    got = await store.get("char_abc", account_id=mine)
    assert got is not None and (got.name, got.seconds, got.video_key) == (
        "Bob",
        2.0,
        made.video_key,
    )
    assert await store.get("char_abc", account_id="acct_other") is None
    assert await store.get("char_\x00", account_id=mine) is None  # no query, no error
    assert await store.delete("char_abc", account_id="acct_other") is None
    assert (await store.delete("char_abc", account_id=mine)) is not None
    assert await store.get("char_abc", account_id=mine) is None


async def make(app: Harness, key: NewKey, name: str = "Bob", clip: bytes | None = None) -> Any:
    files = {
        "video": ("bob.mp4", clip if clip is not None else solid_mp4(size=(64, 64)), "video/mp4")
    }
    return await app.client.post(
        "/v1/videos/characters", data={"name": name}, files=files, headers=app.auth(key)
    )


async def test_characters_end_to_end_on_both_apis(app_any_db: Harness, tmp_path: Path) -> None:
    app = app_any_db
    key, stranger = await app.new_key(), await app.new_key("other", account="acct_other")
    made = await make(app, key)
    assert made.status_code == 200, made.text
    character = made.json()
    assert set(character) == {"id", "object", "name", "created_at"}
    assert character["object"] == "character" and character["name"] == "Bob"
    assert character["id"].startswith("char_")
    got = await app.client.get(f"/v1/videos/characters/{character['id']}", headers=app.auth(key))
    assert got.status_code == 200 and got.json() == character

    # On /v1/generations: a reference; local-preview takes images, so a frame of the clip
    # (red) is drawn into the video.
    ref = {"type": "character", "id": character["id"]}
    done = await app.generate(
        key, model="local-preview", prompt="Bob waves", duration=0.5, references=[ref]
    )
    assert done["status"] == "completed", done
    assert done["type"] == "reference-to-video" and done["references"] == [ref]
    video = (await app.client.get(done["video_url"])).content
    assert red_patch(video), "the character's frame is in the video"

    # On /v1/videos: `characters`.
    created = await app.videos(
        key,
        model="local-preview",
        prompt="Bob",
        seconds="0.5",
        characters=[{"id": character["id"]}],
    )
    assert created.status_code == 200, created.text
    assert (await app.wait_for(key, created.json()["id"]))["status"] == "completed"

    # Another account: no such character, to read, to delete, to use.
    for response in (
        await app.client.get(
            f"/v1/videos/characters/{character['id']}", headers=app.auth(stranger)
        ),
        await app.client.delete(
            f"/v1/videos/characters/{character['id']}", headers=app.auth(stranger)
        ),
    ):
        assert assert_error(response, 404, "character_not_found")["param"] == "character_id"
    theirs = await app.create(stranger, model="local-preview", prompt="p", references=[ref])
    assert assert_error(theirs, 404, "character_not_found")["param"] == "references[0].id"

    # Deleted: gone, while what was made with it stays.
    deleted = await app.client.delete(
        f"/v1/videos/characters/{character['id']}", headers=app.auth(key)
    )
    assert deleted.json() == {"id": character["id"], "object": "character.deleted", "deleted": True}
    gone = await app.client.get(f"/v1/videos/characters/{character['id']}", headers=app.auth(key))
    assert_error(gone, 404, "character_not_found")
    assert (await app.client.get(done["video_url"])).status_code == 200


def red_patch(video: bytes) -> bool:
    """The top-left reference tile of local-preview's first frame is red."""
    with av.open(io.BytesIO(video), "r") as container:
        pixels = next(container.decode(container.streams.video[0])).to_ndarray(format="rgb24")
    short = min(pixels.shape[:2])
    gap, side = max(4, short // 40), max(16, short // 4)
    patch = pixels[gap + 4 : gap + side - 4, gap + 4 : gap + side - 4].reshape(-1, 3).mean(axis=0)
    return bool(patch[0] > 170 and patch[1] < 80 and patch[2] < 80)


@pytest.fixture
async def idle(tmp_path: Path, database_url: str) -> AsyncIterator[Harness]:
    async with idle_with(tmp_path, database_url, CATALOG, max_upload_bytes=4 << 20) as harness:
        yield harness


async def test_a_character_is_a_video_where_the_model_takes_video_references(
    idle: Harness,
) -> None:
    key = await idle.new_key()
    character = (await make(idle, key)).json()
    ref = {"type": "character", "id": character["id"]}
    created = await idle.create(key, model="video-refs", prompt="Bob", references=[ref])
    assert created.status_code == 202, created.text
    stored = await idle.service.generation_store.get(created.json()["id"])
    assert stored is not None and stored.references[0].kind == "video"
    assert (stored.references[0].key or "").endswith(".mp4")
    # Counted against the model's limits: two video references, not three.
    third = await idle.create(key, model="video-refs", prompt="Bob", references=[ref] * 3)
    assert assert_error(third, 400, "references_too_many")["param"] == "references"
    none = await idle.create(key, model=TEXT_ONLY_MODEL, prompt="Bob", references=[ref])
    assert assert_error(none, 400, "references_unsupported")["param"] == "references"
    on_videos = await idle.videos(
        key, model=TEXT_ONLY_MODEL, prompt="Bob", characters=[{"id": character["id"]}]
    )
    assert assert_error(on_videos, 400, "references_unsupported")["param"] == "characters"


async def test_refusals_name_the_param(idle: Harness) -> None:
    key = await idle.new_key()
    cases: list[tuple[Any, int, str, str | None]] = [
        (await make(idle, key, name="x" * 81), 400, "name_invalid", "name"),
        (await make(idle, key, name="   "), 400, "name_invalid", "name"),
        (await make(idle, key, name="a\x00b"), 400, "name_invalid", "name"),
        (
            await make(idle, key, clip=b"\x89PNG\r\n\x1a\n" + b"0" * 99),
            400,
            "input_invalid",
            "video",
        ),
        (await make(idle, key, clip=b""), 400, "input_invalid", "video"),
        (await make(idle, key, clip=solid_mp4(seconds=31)), 400, "video_too_long", "video"),
        (await make(idle, key, clip=b"\0" * (5 * 1024 * 1024)), 413, "body_too_large", None),
        (
            await idle.client.post(
                "/v1/videos/characters", data={"name": "Bob"}, headers=idle.auth(key)
            ),
            415,
            "unsupported_media_type",
            None,
        ),
        (
            await idle.client.post(
                "/v1/videos/characters",
                data={"name": "Bob"},
                files={"other": ("a", b"x")},
                headers=idle.auth(key),
            ),
            400,
            "parameter_unknown",
            "other",
        ),
        (
            await idle.client.get("/v1/videos/characters/char_unknown", headers=idle.auth(key)),
            404,
            "character_not_found",
            "character_id",
        ),
    ]
    for response, status, code, param in cases:
        assert assert_error(response, status, code)["param"] == param, response.text
    assert (await make(idle, key, name="x" * 80)).status_code == 200  # 80 is fine
    for refs, status, code, param in [
        (
            [{"type": "character", "id": "char_unknown"}],
            404,
            "character_not_found",
            "references[0].id",
        ),
        ([{"type": "character", "id": "gen_x"}], 400, "reference_invalid", "references[0].id"),
        ([{"type": "character", "id": 5}], 400, "reference_invalid", "references[0].id"),
        (
            [{"type": "character", "id": "char_x", "url": "x"}],
            400,
            "reference_invalid",
            "references[0]",
        ),
    ]:
        error = assert_error(
            await idle.create(key, model="local-preview", prompt="p", references=refs), status, code
        )
        assert error["param"] == param, error
    for characters, code, param in [
        ([{"id": "char_unknown"}], "character_not_found", "characters[0].id"),
        ("x", "parameter_invalid_type", "characters"),
        ([{"name": "Bob"}], "parameter_invalid_type", "characters[0]"),
    ]:
        response = await idle.videos(key, model="local-preview", prompt="p", characters=characters)
        assert assert_error(response, 404 if "found" in code else 400, code)["param"] == param
    listed = await idle.client.get("/v1/generations", headers=idle.auth(key))
    assert listed.json()["data"] == []
    assert RED  # the clips' colour (tests/support/clips.py)
