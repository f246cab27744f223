"""The content host over each store: local disk and S3 (moto over HTTP), `proxy` and
`redirect`; ranges handled the RFC 9110 way (issue 15 item 4) on every path."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.harness import Harness, running, test_settings
from tests.support.process import cli_env, run_cli
from tests.support.scaleout import S3Server, s3_server
from tests.support.video import decode


@pytest.fixture(scope="module")
def moto() -> Iterator[S3Server]:
    with s3_server() as server:
        yield server


@pytest.fixture(params=["local", "s3"])
async def served(
    request: pytest.FixtureRequest, tmp_path: Path, moto: S3Server
) -> AsyncIterator[tuple[Harness, str]]:
    """The app on one store, and the signed URL of one finished video."""
    storage_url: str | None = None  # local: the data dir's blobs/
    environ: dict[str, str] = {}
    if request.param == "s3":
        bucket = moto.new_bucket()
        storage_url, environ = f"s3://{bucket}/videos-here", moto.env()
    settings = test_settings(tmp_path / "data", environ=environ, storage_url=storage_url)
    async with running(settings) as app:
        key = await app.new_key()
        created = await app.create(key, model="local-preview", prompt="ranges", duration=1)
        done = await app.wait_for(key, created.json()["id"])
        assert done["status"] == "completed", done
        if request.param == "s3":
            assert f"videos-here/videos/{done['id']}.mp4" in moto.object_keys(bucket)
        yield app, str(done["video_url"])


async def test_full_ranges_head_and_conditionals(
    served: tuple[Harness, str], tmp_path: Path
) -> None:
    app, url = served
    full = await app.client.get(url)
    assert full.status_code == 200, full.text
    assert full.headers["content-type"] == "video/mp4"
    assert full.headers["accept-ranges"] == "bytes"
    size = len(full.content)
    assert int(full.headers["content-length"]) == size
    assert decode(full.content, tmp_path).frames > 0
    etag = full.headers["etag"]

    part = await app.client.get(url, headers={"Range": "bytes=100-199"})
    assert part.status_code == 206
    assert part.headers["content-range"] == f"bytes 100-199/{size}"
    assert part.content == full.content[100:200]
    open_ended = await app.client.get(url, headers={"Range": f"bytes={size - 10}-"})
    assert open_ended.status_code == 206 and open_ended.content == full.content[-10:]
    past_end = await app.client.get(url, headers={"Range": f"bytes=0-{size * 2}"})
    assert past_end.status_code == 206 and past_end.content == full.content
    suffix = await app.client.get(url, headers={"Range": "bytes=-50"})
    assert suffix.status_code == 206 and suffix.content == full.content[-50:]

    head = await app.client.head(url)
    assert head.status_code == 200 and head.content == b""
    assert int(head.headers["content-length"]) == size and head.headers["etag"] == etag
    head_part = await app.client.head(url, headers={"Range": "bytes=0-9"})
    assert head_part.status_code == 206 and head_part.headers["content-length"] == "10"

    for match in (etag, "*", f'"other", {etag}', f"W/{etag}"):
        again = await app.client.get(url, headers={"If-None-Match": match})
        assert again.status_code == 304, match
    assert (await app.client.get(url, headers={"If-None-Match": '"other"'})).status_code == 200
    # A stale If-Range: the whole (new) video, not a piece of it.
    stale = await app.client.get(url, headers={"Range": "bytes=0-9", "If-Range": '"old"'})
    assert stale.status_code == 200 and stale.content == full.content
    fresh = await app.client.get(url, headers={"Range": "bytes=0-9", "If-Range": etag})
    assert fresh.status_code == 206 and fresh.content == full.content[:10]


INVALID = [
    "bytes=10-5",
    "bytes=abc",
    "items=0-5",
    "bytes=",
    "bytes=-",
    "bytes=0-1,5-6",
    "bytes=1-2-3",
    "bytes=" + "9" * 5000 + "-",
]
UNSATISFIABLE = ["bytes=999999999-", "bytes=-0", "bytes=999999999-1000000000"]


async def test_invalid_ranges_are_ignored_and_unsatisfiable_ones_are_416(
    served: tuple[Harness, str],
) -> None:
    app, url = served
    full = await app.client.get(url)
    size = len(full.content)
    for header in INVALID:  # RFC 9110: an invalid range is ignored, the whole video sent
        response = await app.client.get(url, headers={"Range": header})
        assert response.status_code == 200, (header, response.status_code, response.text[:200])
        assert response.content == full.content
    for header in UNSATISFIABLE:
        response = await app.client.get(url, headers={"Range": header})
        assert response.status_code == 416, header
        assert response.headers["content-range"] == f"bytes */{size}"
        error = response.json()["error"]
        assert error["code"] == "range_not_satisfiable" and error["type"] == "invalid_request_error"


async def test_redirect_delivery_sends_a_presigned_url_of_the_store(
    tmp_path: Path, moto: S3Server
) -> None:
    bucket = moto.new_bucket()
    settings = test_settings(
        tmp_path / "data",
        storage_url=f"s3://{bucket}",
        content_delivery="redirect",
        environ=moto.env(),
    )
    async with running(settings) as app:
        key = await app.new_key()
        created = await app.create(key, model="local-preview", prompt="cdn", duration=1)
        done = await app.wait_for(key, created.json()["id"])
        video_url = str(done["video_url"])
        assert video_url.startswith("http://127.0.0.1:8000/content/")  # still ours, signed
        response = await app.client.get(video_url)
        assert response.status_code == 302
        location = response.headers["location"]
        assert location.startswith(moto.endpoint) and "X-Amz-Signature" in location
        async with httpx.AsyncClient() as outside:
            video = await outside.get(location)
        assert video.status_code == 200 and decode(video.content, tmp_path).frames > 0
        # The signature is still checked before any redirect.
        tampered = video_url.replace("signature=", "signature=0")
        assert (await app.client.get(tampered)).status_code == 403


async def test_openai_content_endpoint_serves_from_s3(tmp_path: Path, moto: S3Server) -> None:
    bucket = moto.new_bucket()
    settings = test_settings(tmp_path / "data", storage_url=f"s3://{bucket}", environ=moto.env())
    async with running(settings) as app:
        key = await app.new_key()
        created = await app.create(key, model="local-preview", prompt="openai", duration=1)
        done = await app.wait_for(key, created.json()["id"])
        response = await app.client.get(f"/v1/videos/{done['id']}/content", headers=app.auth(key))
        assert response.status_code == 200 and decode(response.content, tmp_path).frames > 0
        ranged = await app.client.get(
            f"/v1/videos/{done['id']}/content", headers={**app.auth(key), "Range": "bytes=10-5"}
        )
        assert ranged.status_code == 200 and ranged.content == response.content
        # No video stays on this machine's disk once it is in the store.
        assert [p for p in (tmp_path / "data").rglob("*.mp4")] == []


def test_redirect_on_local_storage_is_refused_at_start_up(tmp_path: Path) -> None:
    """Local disk has no presigned URLs: `redirect` there would stream (200) where a 302 is
    promised, so `vidrouter serve` refuses the combination, in one line, before it listens."""
    with pytest.raises(ValueError, match="needs object storage"):
        test_settings(tmp_path / "data", content_delivery="redirect")
    with pytest.raises(ValueError, match="needs object storage"):
        test_settings(tmp_path / "data", content_delivery="redirect", storage_url="file:///x")
    env = cli_env(tmp_path / "data", VIDROUTER_CONTENT_DELIVERY="redirect")
    result = run_cli(env, "serve")
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert lines[0].startswith("Invalid settings: VIDROUTER_CONTENT_DELIVERY=redirect needs")
