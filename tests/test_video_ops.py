"""OpenAI's video operations on /v1/videos (remix, edits, extensions) at the HTTP boundary,
on both databases: each end to end on `local-preview` to a completed video; the source is
the account's (another's: 404) and completed (else 409); every refusal is a 4xx naming the
param with no generation made; uploads are MP4s within the limits, read as they arrive."""

from __future__ import annotations

import tracemalloc
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.catalogs import TEXT_ONLY, TEXT_ONLY_MODEL, local_model
from tests.support.clips import solid_mp4
from tests.support.harness import Harness, assert_error, idle_with, running, test_settings
from tests.support.video import decode
from vidrouter.store.keys import NewKey

CATALOG = TEXT_ONLY  # a model that makes no video-to-video
# The local renderer with a 1 MiB, 2 s source limit.
CATALOG += local_model(
    "small-v2v",
    0.0,
    name="Small",
    description="Small sources only.",
    default_duration=1,
    type="text-to-video",
    capabilities=["text-to-video", "video-to-video", "video-extend"],
    max_duration=8,
    min_duration=0.5,
    aspect_ratios=["16:9"],
    max_source_mb=1,
    max_source_seconds=2,
)


@pytest.fixture
async def idle(tmp_path: Path, database_url: str) -> AsyncIterator[Harness]:
    async with idle_with(tmp_path, database_url, CATALOG, max_upload_bytes=8 << 20) as harness:
        yield harness


async def post(app: Harness, key: NewKey, path: str, **kwargs: Any) -> Any:
    headers = {**app.auth(key), **kwargs.pop("headers", {})}
    return await app.client.post(f"/v1/videos{path}", headers=headers, **kwargs)


async def until_done(app: Harness, key: NewKey, video_id: str) -> dict[str, Any]:
    done = await app.wait_for(key, video_id)
    assert done["status"] == "completed", done
    got = await app.client.get(f"/v1/videos/{video_id}", headers=app.auth(key))
    return dict(got.json())


async def content(app: Harness, key: NewKey, video_id: str) -> bytes:
    got = await app.client.get(f"/v1/videos/{video_id}/content", headers=app.auth(key))
    assert got.status_code == 200, got.text
    return got.content


def upload(data: bytes, **fields: str) -> dict[str, Any]:
    return {"data": fields, "files": {"video": ("clip.mp4", data, "video/mp4")}}


async def test_remix_edit_and_extend_end_to_end(app_any_db: Harness, tmp_path: Path) -> None:
    app = app_any_db
    key = await app.new_key()
    source = await app.generate(key, model="local-preview", prompt="a fox", duration=1)
    frames = decode(await content(app, key, source["id"]), tmp_path).frames

    # Remix: the same model, the source re-rendered; remixed_from_video_id is the source.
    remix = await post(app, key, f"/{source['id']}/remix", json={"prompt": "at night"})
    assert remix.status_code == 200, remix.text
    video = remix.json()
    assert video["object"] == "video" and video["model"] == "local-preview"
    assert video["remixed_from_video_id"] == source["id"]
    assert video["seconds"] == "1" and video["size"] == "1280x720"  # the source's
    done = await until_done(app, key, video["id"])
    assert done["remixed_from_video_id"] == source["id"]
    assert decode(await content(app, key, video["id"]), tmp_path).frames == frames
    as_generation = (await app.get(key, video["id"])).json()
    assert as_generation["type"] == "video-to-video"
    assert as_generation["video"] == {"generation_id": source["id"]}

    # Edit by id (JSON), and of an uploaded MP4 (multipart): not remixes.
    edit = await post(app, key, "/edits", json={"prompt": "snow", "video": {"id": source["id"]}})
    assert edit.status_code == 200, edit.text
    assert edit.json()["remixed_from_video_id"] is None
    await until_done(app, key, edit.json()["id"])
    clip = solid_mp4(seconds=0.5)
    uploaded = await post(app, key, "/edits", **upload(clip, prompt="rain", seconds="1"))
    assert uploaded.status_code == 200, uploaded.text
    await until_done(app, key, uploaded.json()["id"])
    assert decode(await content(app, key, uploaded.json()["id"]), tmp_path).frames == 12
    shown = (await app.get(key, uploaded.json()["id"])).json()
    assert shown["type"] == "video-to-video" and shown["video"] == {"file": "clip.mp4"}

    # Extension: `seconds` added; the result's `seconds` is the whole video's.
    extended = await post(
        app,
        key,
        "/extensions",
        json={"prompt": "it runs on", "seconds": "0.5", "video": {"id": source["id"]}},
    )
    assert extended.status_code == 200, extended.text
    assert extended.json()["seconds"] == "1.5"
    await until_done(app, key, extended.json()["id"])
    assert decode(await content(app, key, extended.json()["id"]), tmp_path).frames == frames + 12
    more = await post(app, key, "/extensions", **upload(clip, prompt="on", seconds="0.5"))
    assert more.status_code == 200, more.text
    assert more.json()["seconds"] == "1"
    await until_done(app, key, more.json()["id"])
    assert decode(await content(app, key, more.json()["id"]), tmp_path).frames == 24


async def nothing_made(app: Harness, key: NewKey, before: int) -> None:
    listed = await app.client.get("/v1/videos", headers=app.auth(key))
    assert len(listed.json()["data"]) == before


async def test_sources_of_another_account_or_unfinished_are_refused(idle: Harness) -> None:
    key, stranger = await idle.new_key(), await idle.new_key("other", account="acct_other")
    theirs = await idle.create_preview(stranger)
    mine = await idle.create_preview(key)  # queued: no workers here
    for video_id, status, code in (
        (theirs, 404, "video_not_found"),
        (mine, 409, "video_not_ready"),
    ):
        error = assert_error(
            await post(idle, key, f"/{video_id}/remix", json={"prompt": "p"}), status, code
        )
        assert error["param"] == "video_id"
        for path, extra in (("/edits", {}), ("/extensions", {"seconds": "1"})):
            body = {"prompt": "p", "video": {"id": video_id}, **extra}
            error = assert_error(await post(idle, key, path, json=body), status, code)
            assert error["param"] == "video.id", error
    error = assert_error(await post(idle, key, "/gen_nope/remix", json={"prompt": "p"}), 404)
    assert error["param"] == "video_id"
    await nothing_made(idle, key, before=1)


async def test_a_model_without_video_to_video_is_refused_naming_type(
    tmp_path: Path, database_url: str
) -> None:
    catalog = tmp_path / "catalog.toml"
    catalog.write_text(CATALOG)
    async with running(test_settings(tmp_path / "data", database_url, catalog=catalog)) as app:
        key = await app.new_key()
        source = await app.generate(key, model=TEXT_ONLY_MODEL, prompt="a fox", duration=1)
        remix = await post(app, key, f"/{source['id']}/remix", json={"prompt": "again"})
        error = assert_error(remix, 400, "type_unsupported")
        assert error["param"] == "type" and TEXT_ONLY_MODEL in error["message"], error
        edit = await post(app, key, "/edits", json={"prompt": "p", "video": {"id": source["id"]}})
        assert assert_error(edit, 400, "type_unsupported")["param"] == "type"
        await nothing_made(app, key, before=1)


# (path, request kwargs, status, code, param): each refused, nothing made.
MALFORMED: list[tuple[str, dict[str, Any], int, str, str | None]] = [
    ("/edits", {"json": {"prompt": "p"}}, 400, "parameter_missing", "video"),
    ("/edits", {"json": {"prompt": "p", "video": "gen_x"}}, 400, "parameter_invalid_type", "video"),
    (
        "/edits",
        {"json": {"prompt": "p", "video": {"url": "x"}}},
        400,
        "parameter_invalid_type",
        "video",
    ),
    (
        "/edits",
        {"json": {"prompt": "p", "video": {"id": "x"}, "n": 1}},
        400,
        "parameter_unknown",
        "n",
    ),
    (
        "/extensions",
        {"json": {"prompt": "p", "video": {"id": "gen_x"}}},
        404,
        "video_not_found",
        "video.id",
    ),
    (
        "/edits",
        {"content": b"prompt=p", "headers": {"content-type": "text/plain"}},
        415,
        "unsupported_media_type",
        None,
    ),
    (
        "/edits",
        {"data": {"prompt": "p"}, "files": {"other": ("a", b"x")}},
        400,
        "parameter_unknown",
        "other",
    ),
    (
        "/edits",
        {"data": {"prompt": "p", "x": "1"}, "files": {"video": ("a", b"x")}},
        400,
        "parameter_unknown",
        "x",
    ),
    (
        "/edits",
        {"data": {"prompt": "p"}, "files": {"video": (None, b"gen_x")}},
        400,
        "parameter_invalid_type",
        "video",
    ),
    (
        "/edits",
        {"data": {"prompt": "p"}, "files": {"a": ("a", b"x"), "b": ("b", b"y")}},
        400,
        "invalid_body",
        None,
    ),
]


@pytest.mark.parametrize(("path", "kwargs", "status", "code", "param"), MALFORMED)
async def test_malformed_requests_are_refused(
    idle: Harness, path: str, kwargs: dict[str, Any], status: int, code: str, param: str | None
) -> None:
    key = await idle.new_key()
    error = assert_error(await post(idle, key, path, **kwargs), status, code)
    assert error["param"] == param, error
    await nothing_made(idle, key, before=0)


async def test_hostile_uploads(idle: Harness) -> None:
    key = await idle.new_key()
    clip = solid_mp4(seconds=0.5)
    cases: list[tuple[dict[str, Any], str, str]] = [
        # Not an MP4: a PNG's bytes, HTML, nothing at all.
        (upload(b"\x89PNG\r\n\x1a\n" + b"0" * 64, prompt="p"), "input_invalid", "video"),
        (upload(b"<html>no</html>" * 10, prompt="p"), "input_invalid", "video"),
        (upload(b"", prompt="p"), "input_invalid", "video"),
        # An MP4's header over bytes that do not play.
        (upload(clip[:40] + b"\0" * 4096, prompt="p"), "video_invalid", "video"),
        # Over the model's limits: 1 MiB, 2 s.
        (
            upload(clip + b"\0" * (1 << 20), prompt="p", model="small-v2v"),
            "input_too_large",
            "video",
        ),
        (upload(solid_mp4(seconds=3), prompt="p", model="small-v2v"), "video_too_long", "video"),
        # Both a file and an id; a model that makes no video-to-video.
        (upload(clip, prompt="p", **{"video[id]": "gen_x"}), "parameter_duplicated", "video"),
        (upload(clip, prompt="p", model=TEXT_ONLY_MODEL), "type_unsupported", "type"),
        (upload(clip, prompt="p", seconds="abc"), "seconds_invalid", "seconds"),
    ]
    for kwargs, code, param in cases:
        error = assert_error(await post(idle, key, "/edits", **kwargs), 400, code)
        assert error["param"] == param, (code, error)
    error = assert_error(await post(idle, key, "/extensions", **upload(clip, prompt="p")), 400)
    assert error["param"] == "seconds", error
    await nothing_made(idle, key, before=0)
    # Nothing is left in the storage by the refusals.
    inputs = idle.service.data_dir / "videos" / "inputs"
    assert not inputs.exists() or not any(inputs.iterdir())


async def test_a_huge_upload_is_read_as_it_arrives_and_refused(idle: Harness) -> None:
    """Over the server's upload limit: a 413 once the limit is passed; under it but over
    the model's: a 400. Memory stays far below the upload's size either way."""
    key = await idle.new_key()
    chunk = b"\0" * (256 * 1024)
    boundary = "b0undary"

    def body(megabytes: int) -> Any:
        async def stream() -> AsyncIterator[bytes]:
            yield (
                f'--{boundary}\r\nContent-Disposition: form-data; name="prompt"\r\n\r\np\r\n'
                f'--{boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\n'
                f"small-v2v\r\n--{boundary}\r\nContent-Disposition: form-data; "
                f'name="video"; filename="big.mp4"\r\nContent-Type: video/mp4\r\n\r\n'
            ).encode()
            yield b"\x00\x00\x00\x18ftypmp42"
            for _ in range(megabytes * 4):
                yield chunk
            yield f"\r\n--{boundary}--\r\n".encode()

        return stream()

    headers = {**idle.auth(key), "content-type": f"multipart/form-data; boundary={boundary}"}
    tracemalloc.start()
    try:
        over = await idle.client.post("/v1/videos/edits", content=body(64), headers=headers)
        assert_error(over, 413, "body_too_large")
        under = await idle.client.post("/v1/videos/edits", content=body(6), headers=headers)
        assert assert_error(under, 400, "input_too_large")["param"] == "video"
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * 1024 * 1024, peak  # not the 6 MiB upload, nor the 64 MiB one
    await nothing_made(idle, key, before=0)
