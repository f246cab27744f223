"""Every refusal of a generation's type and inputs is a 400/404/409 naming the field, at
create, with no generation made (so no provider is ever called), on both databases; and a
hostile pass over the new fields: thousands of references, broken data URLs, sources at
loopback or metadata addresses, a huge or non-MP4 source."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.catalogs import TEXT_ONLY_MODEL as TEXT
from tests.support.catalogs import text_only_catalog
from tests.support.harness import Harness, assert_error, running, test_settings
from tests.support.images import data_uri, png
from tests.support.outbound import answer, endless, raw_server
from vidrouter.store.keys import NewKey

IMAGE = data_uri(png(8, 8))


@pytest.fixture
async def idle(tmp_path: Path, database_url: str) -> AsyncIterator[Harness]:
    """No workers (an accepted generation stays queued), private addresses refused."""
    settings = test_settings(
        tmp_path / "data",
        database_url,
        allow_private_webhook_urls=False,
        catalog=text_only_catalog(tmp_path),
    )
    async with running(settings, workers=False) as harness:
        yield harness


async def refused(
    app: Harness, key: NewKey, status: int, code: str, param: str, **body: Any
) -> None:
    body = {"model": "local-preview", "prompt": "p", "duration": 1, **body}
    error = assert_error(await app.create(key, **body), status, code)
    assert error["param"] == param, error


async def nothing_made(app: Harness, key: NewKey, before: int = 0) -> None:
    listed = await app.client.get("/v1/generations", headers=app.auth(key))
    assert len(listed.json()["data"]) == before


ONE = {"type": "image", "url": IMAGE}
SOURCE = {"generation_id": "gen_" + "a" * 24}
# (code, param, body): each refused.
TYPE_REFUSALS: list[tuple[str, str, dict[str, object]]] = [
    ("type_invalid", "type", {"type": "sound-to-video"}),
    ("parameter_invalid_type", "type", {"type": 5}),
    # A model that makes text-to-video only.
    ("type_unsupported", "type", {"model": TEXT, "type": "image-to-video", "image_url": IMAGE}),
    ("image_not_supported", "image_url", {"model": TEXT, "image_url": IMAGE}),
    ("type_unsupported", "type", {"model": TEXT, "references": [{"type": "image", "url": IMAGE}]}),
    ("video_required", "video", {"type": "video-extend"}),
    ("references_required", "references", {"type": "reference-to-video"}),
    ("type_mismatch", "type", {"type": "text-to-video", "references": [ONE]}),
    ("type_required", "type", {"video": SOURCE}),
    ("type_mismatch", "type", {"type": "reference-to-video", "video": SOURCE, "references": [ONE]}),
]
# (code, param, references): each refused.
REFERENCE_REFUSALS: list[tuple[str, str, object]] = [
    ("references_too_many", "references", [ONE] * 4),
    ("references_too_many", "references", [ONE] * 5000),
    (
        "references_unsupported",
        "references",
        [{"type": "audio", "url": "data:audio/wav;base64,UklGRg=="}],
    ),
    ("reference_invalid", "references[0]", ["x"]),
    ("reference_invalid", "references[0].type", [{"type": "smell", "url": IMAGE}]),
    ("reference_invalid", "references[0]", [{**ONE, "extra": 1}]),
    ("parameter_invalid_type", "references", "x"),
    # Broken data URLs: not base64, not the kind, not an image at all.
    ("input_invalid", "references[0].url", [{**ONE, "url": "data:image/png;base64,!!!notb64"}]),
    ("reference_invalid", "references[0].url", [{**ONE, "url": "data:text/html;base64,PGgxPg=="}]),
    ("input_invalid", "references[0].url", [{**ONE, "url": "data:image/png;base64,R0lGODlhAQ=="}]),
    # Addresses the guard refuses: loopback, the cloud metadata service.
    ("url_forbidden", "references[0].url", [{**ONE, "url": "http://127.0.0.1:9/x.png"}]),
    ("url_forbidden", "references[0].url", [{**ONE, "url": "http://169.254.169.254/latest/"}]),
]


async def test_type_refusals(idle: Harness) -> None:
    key = await idle.new_key()
    for code, param, body in TYPE_REFUSALS:
        await refused(idle, key, 400, code, param, **body)
    await nothing_made(idle, key)


async def test_reference_refusals(idle: Harness) -> None:
    key = await idle.new_key()
    for code, param, references in REFERENCE_REFUSALS:
        await refused(idle, key, 400, code, param, references=references)
    await nothing_made(idle, key)


async def test_source_refusals(idle: Harness) -> None:
    key, stranger = await idle.new_key(), await idle.new_key("other", account="acct_other")
    theirs = (await idle.create(stranger, model="local-preview", prompt="p", duration=1)).json()
    mine = await idle.create_preview(key)  # queued: no workers here
    extend = {"type": "video-extend"}
    await refused(
        idle,
        key,
        404,
        "generation_not_found",
        "video.generation_id",
        video={"generation_id": theirs["id"]},
        **extend,
    )
    await refused(
        idle,
        key,
        409,
        "video_not_ready",
        "video.generation_id",
        video={"generation_id": mine},
        **extend,
    )
    await refused(idle, key, 400, "video_invalid", "video", video={"id": mine}, **extend)
    await refused(
        idle,
        key,
        400,
        "video_invalid",
        "video",
        video={"generation_id": mine, "url": "x"},
        **extend,
    )
    await refused(
        idle,
        key,
        400,
        "video_invalid",
        "video.generation_id",
        video={"generation_id": "x"},
        **extend,
    )
    for url in ("http://127.0.0.1:9/a.mp4", "http://169.254.169.254/a.mp4", "http://[::1]/a"):
        await refused(idle, key, 400, "url_forbidden", "video.url", video={"url": url}, **extend)
    await refused(idle, key, 400, "url_invalid", "video.url", video={"url": "ftp://x"}, **extend)
    await nothing_made(idle, key, before=1)


async def test_unreachable_huge_and_non_mp4_sources(tmp_path: Path) -> None:
    # Private addresses allowed here, so that the test's own servers can be reached.
    async with running(test_settings(tmp_path / "data"), workers=False) as app:
        key = await app.new_key()

        async def source_refused(code: str, url: str) -> None:
            """An extension of the video at `url` is refused with `code`, on `video.url`."""
            await refused(app, key, 400, code, "video.url", video={"url": url}, type="video-extend")

        huge = endless(declare=10 * 1024**3)
        async with raw_server(huge) as (raw, port):
            await source_refused("input_too_large", f"http://127.0.0.1:{port}/big.mp4")
            assert raw.sent < 64 * 1024**2  # refused on its declared length, not read
        page = answer(200, b"<html>not a video</html>" * 10, content_type="text/html")
        async with raw_server(page) as (_, port):
            await source_refused("input_invalid", f"http://127.0.0.1:{port}/page.mp4")
        # An MP4 signature over nothing playable.
        fake = answer(200, b"\0\0\0\x18ftypisom" + b"\0" * 4000)
        async with raw_server(fake) as (_, port):
            await source_refused("video_invalid", f"http://127.0.0.1:{port}/fake.mp4")
        async with raw_server(answer(404, b"gone")) as (_, port):
            await source_refused("input_unreachable", f"http://127.0.0.1:{port}/gone.mp4")
        # Nothing listens there.
        await source_refused("input_unreachable", "http://127.0.0.1:9/closed.mp4")
        await nothing_made(app, key)
        # Nothing kept either: every fetched input of a refused create was removed.
        inputs = tmp_path / "data" / "blobs" / "inputs"
        assert not inputs.exists() or not any(inputs.iterdir())


def _nested(depth: int) -> object:
    value: object = "x"
    for _ in range(depth):
        value = {"url": value}
    return value


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


GEN = "gen_" + "a" * 24
EXTEND = {"type": "video-extend"}
# (fields, code, param): each refused alike by both create APIs, naming the field.
HOSTILE: list[tuple[dict[str, object], str, str | None]] = [
    # Wrong types and nested junk in `references`.
    ({"references": [5]}, "reference_invalid", "references[0]"),
    ({"references": [None]}, "reference_invalid", "references[0]"),
    ({"references": [[ONE]]}, "reference_invalid", "references[0]"),
    ({"references": ONE}, "parameter_invalid_type", "references"),
    ({"references": [{**ONE, "url": 5}]}, "parameter_invalid_type", "references[0].url"),
    (
        {"references": [{**ONE, "url": {"a": {"b": [1]}}}]},
        "parameter_invalid_type",
        "references[0].url",
    ),
    ({"references": [{**ONE, "type": ["image"]}]}, "reference_invalid", "references[0].type"),
    ({"references": [ONE] * 3000}, "references_too_many", "references"),
    # Broken data: URLs.
    ({"references": [{**ONE, "url": "data:,"}]}, "reference_invalid", "references[0].url"),
    (
        {"references": [{**ONE, "url": "data:image/png,raw"}]},
        "reference_invalid",
        "references[0].url",
    ),
    (
        {"references": [{**ONE, "url": "data:image/png;base64,"}]},
        "input_invalid",
        "references[0].url",
    ),
    (
        {"references": [{**ONE, "url": "data:image/png;base64,AAAAA"}]},
        "input_invalid",
        "references[0].url",
    ),
    # Addresses the outbound guard refuses, however spelled; URLs that are no http(s).
    (
        {"references": [{**ONE, "url": "http://localhost/x.png"}]},
        "url_forbidden",
        "references[0].url",
    ),
    ({"references": [{**ONE, "url": "http://0x7f.1/x.png"}]}, "url_forbidden", "references[0].url"),
    (
        {"references": [{**ONE, "url": "http://[::ffff:127.0.0.1]/x"}]},
        "url_forbidden",
        "references[0].url",
    ),
    (
        {"references": [{**ONE, "url": "http://[fd00:ec2::254]/x"}]},
        "url_forbidden",
        "references[0].url",
    ),
    ({"references": [{**ONE, "url": "file:///etc/passwd"}]}, "url_invalid", "references[0].url"),
    ({"references": [{**ONE, "url": "x" * 5000}]}, "url_invalid", "references[0].url"),
    # Nested junk and wrong types in `video`.
    ({**EXTEND, "video": "gen_x"}, "video_invalid", "video"),
    ({**EXTEND, "video": 5}, "video_invalid", "video"),
    ({**EXTEND, "video": []}, "video_invalid", "video"),
    ({**EXTEND, "video": {}}, "video_invalid", "video"),
    ({**EXTEND, "video": [{"url": "x"}]}, "video_invalid", "video"),
    ({**EXTEND, "video": {"url": {"a": [1]}}}, "parameter_invalid_type", "video.url"),
    ({**EXTEND, "video": {"generation_id": 5}}, "parameter_invalid_type", "video.generation_id"),
    (
        {**EXTEND, "video": {"generation_id": [GEN]}},
        "parameter_invalid_type",
        "video.generation_id",
    ),
    (
        {**EXTEND, "video": {"generation_id": {"$ne": None}}},
        "parameter_invalid_type",
        "video.generation_id",
    ),
    ({**EXTEND, "video": {"generation_id": GEN + "\x00"}}, "string_invalid", "video.generation_id"),
    ({**EXTEND, "video": _nested(60)}, "invalid_json", None),  # deeper than JSON may nest
    # Sources that are no MP4, as data: URLs, and at refused addresses.
    ({**EXTEND, "video": {"url": "data:video/mp4;base64,!!!"}}, "input_invalid", "video.url"),
    ({**EXTEND, "video": {"url": "data:text/html;base64,PGgxPg=="}}, "video_invalid", "video.url"),
    (
        {**EXTEND, "video": {"url": "data:video/mp4;base64," + _b64(b"<html>" * 100)}},
        "input_invalid",
        "video.url",
    ),
    (
        {
            **EXTEND,
            "video": {"url": "data:video/mp4;base64," + _b64(b"\0\0\0\x18ftypisom" + bytes(400))},
        },
        "video_invalid",
        "video.url",
    ),
    ({**EXTEND, "video": {"url": "http://localhost:1/a.mp4"}}, "url_forbidden", "video.url"),
    (
        {**EXTEND, "video": {"url": "http://169.254.169.254/latest/meta-data/"}},
        "url_forbidden",
        "video.url",
    ),
    ({**EXTEND, "video": {"url": "http://[fd00:ec2::254]/a.mp4"}}, "url_forbidden", "video.url"),
    ({**EXTEND, "video": {"url": "file:///etc/passwd"}}, "url_invalid", "video.url"),
    (
        {**EXTEND, "video": {"url": "https://" + "a" * 5000 + ".com/a.mp4"}},
        "url_invalid",
        "video.url",
    ),
    # Wrong types in `type`.
    ({"type": 5, "video": {"generation_id": GEN}}, "parameter_invalid_type", "type"),
    ({"type": ["video-extend"], "video": {"generation_id": GEN}}, "parameter_invalid_type", "type"),
    ({"type": {"a": 1}}, "parameter_invalid_type", "type"),
    ({"type": ""}, "type_invalid", "type"),
    ({"type": "VIDEO-EXTEND", "video": {"generation_id": GEN}}, "type_invalid", "type"),
    ({"type": "x" * 10000}, "type_invalid", "type"),
    ({"type": "video-extend\x00", "video": {"generation_id": GEN}}, "string_invalid", "type"),
]
BOTH_APIS = (
    ("/v1/generations", {"model": "local-preview", "prompt": "p", "duration": 1}),
    ("/v1/videos", {"model": "local-preview", "prompt": "p", "seconds": "1"}),
)


async def test_hostile_inputs_are_refused_alike_by_both_apis(idle: Harness) -> None:
    """Every one a 400 in the error shape naming the field, on both create APIs, and
    nothing made (so no provider called) nor kept."""
    key = await idle.new_key()
    for fields, code, param in HOSTILE:
        for path, base in BOTH_APIS:
            answer = await idle.client.post(path, json={**base, **fields}, headers=idle.auth(key))
            error = assert_error(answer, 400, code)
            assert error["param"] == param, (path, fields, error)
            assert "Errno" not in error["message"] and " a image" not in error["message"], error
    # A source too large for a request body: 413, before anything is read into a create.
    big = {**EXTEND, "video": {"url": "data:video/mp4;base64," + "A" * 2_000_000}}
    for path, base in BOTH_APIS:
        assert_error(
            await idle.client.post(path, json={**base, **big}, headers=idle.auth(key)), 413
        )
    await nothing_made(idle, key)
    inputs = idle.service.settings.data_dir / "blobs" / "inputs"
    assert not inputs.exists() or not any(inputs.iterdir())
