"""The content host: signed URLs without a key, Range/206, HEAD, ETag; bad signatures 403."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from starlette.types import Message

from tests.support.harness import Harness
from vidrouter.api.routes.content import _LocalFile


async def _finished_video_url(app: Harness) -> str:
    key = await app.new_key()
    created = await app.create(key, model="local-preview", prompt="content", duration=1)
    done = await app.wait_for(key, created.json()["id"])
    assert done["status"] == "completed"
    return str(done["video_url"])


async def test_ranges_head_and_etag(app: Harness) -> None:
    url = await _finished_video_url(app)
    full = await app.client.get(url)
    assert full.status_code == 200
    assert full.headers["accept-ranges"] == "bytes"
    assert full.headers["content-type"] == "video/mp4"
    etag = full.headers["etag"]
    size = len(full.content)
    assert int(full.headers["content-length"]) == size

    part = await app.client.get(url, headers={"Range": "bytes=100-199"})
    assert part.status_code == 206
    assert part.headers["content-range"] == f"bytes 100-199/{size}"
    assert part.content == full.content[100:200]

    tail = await app.client.get(url, headers={"Range": "bytes=-50"})
    assert tail.status_code == 206 and tail.content == full.content[-50:]

    head = await app.client.head(url)
    assert head.status_code == 200
    assert head.content == b""
    assert int(head.headers["content-length"]) == size
    assert head.headers["etag"] == etag

    again = await app.client.get(url, headers={"If-None-Match": etag})
    assert again.status_code == 304


async def test_tampered_or_expired_signatures_are_403(app: Harness) -> None:
    url = await _finished_video_url(app)
    parts = urlsplit(url)
    query = parse_qs(parts.query)
    expires, signature = query["expires"][0], query["signature"][0]
    base = f"{parts.scheme}://{parts.netloc}{parts.path}"

    bad_sig = "0" * len(signature)
    other_path = base.replace(".mp4", "x.mp4")
    later = str(int(expires) + 3600)
    for candidate in [
        f"{base}?expires={expires}&signature={bad_sig}",
        f"{base}?expires={later}&signature={signature}",
        f"{other_path}?expires={expires}&signature={signature}",
        f"{base}?expires={expires}",
        base,
        f"{base}?expires=abc&signature={signature}",
    ]:
        response = await app.client.get(candidate)
        assert response.status_code == 403, candidate
        assert response.json()["error"]["type"] == "permission_error"

    # A correctly signed URL whose time is up.
    assert app.service.signer is not None
    past = datetime.now(UTC) - timedelta(days=30)
    key = parts.path.removeprefix("/content/")
    expired = app.service.signer.sign(key, past)
    response = await app.client.get(expired)
    assert response.status_code == 403


async def test_signed_url_is_stable_within_the_hour(app: Harness) -> None:
    key = await app.new_key()
    created = await app.create(key, model="local-preview", prompt="stable", duration=0.5)
    first = await app.wait_for(key, created.json()["id"])
    second = (await app.get(key, created.json()["id"])).json()
    # Re-signed on every GET, rounded to the hour: the same URL lets browsers cache the video.
    assert first["video_url"] == second["video_url"]
    expires = int(parse_qs(urlsplit(first["video_url"]).query)["expires"][0])
    remaining = expires - datetime.now(UTC).timestamp()
    assert 7 * 86400 - 60 <= remaining <= 7 * 86400 + 3600


async def test_a_hot_small_video_stops_being_served_once_deleted(app: Harness) -> None:
    key = await app.new_key()
    created = await app.create(key, model="local-preview", prompt="gone", duration=0.5)
    done = await app.wait_for(key, created.json()["id"])
    url = str(done["video_url"])
    first, second = await app.client.get(url), await app.client.get(url)  # now held in memory
    assert first.status_code == second.status_code == 200
    assert first.content == second.content and first.headers["etag"] == second.headers["etag"]

    deleted = await app.client.delete(f"/v1/videos/{done['id']}", headers=app.auth(key))
    assert deleted.status_code == 200, deleted.text
    gone = await app.client.get(url)
    assert gone.status_code == 404
    assert gone.json()["error"]["code"] == "content_not_found"


async def _answer_of(response: Any, method: str, extensions: dict[str, Any]) -> list[Message]:
    scope = {"type": "http", "method": method, "headers": [], "extensions": extensions}
    sent: list[Message] = []

    async def receive() -> Message:  # a client that stays till the end
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    async def send(message: Message) -> None:
        sent.append(message)

    await response(scope, receive, send)
    return sent


@pytest.mark.parametrize(
    ("method", "extensions"),
    [("GET", {}), ("HEAD", {}), ("GET", {"http.response.zerocopysend": {}})],
)
async def test_a_video_deleted_between_its_stat_and_its_send_is_a_404(
    tmp_path: Path, method: str, extensions: dict[str, Any]
) -> None:
    """The route stats the blob, then the file response opens it: a delete in between (a
    user deleting the video while a player fetches it) is the route's 404, not a 500."""
    gone = tmp_path / "videos" / "gen_deleted.mp4"  # stat'ed by the route, deleted since
    sent = await _answer_of(_LocalFile(gone, None, media_type="video/mp4"), method, extensions)
    assert sent[0]["type"] == "http.response.start"
    assert sent[0]["status"] == 404
    body = json.loads(b"".join(m.get("body", b"") for m in sent[1:]))
    assert body["error"]["code"] == "content_not_found"
    assert body["error"]["type"] == "not_found_error"


async def test_a_file_that_is_there_is_sent_whole(tmp_path: Path) -> None:
    """The same response object, the file present: its bytes (the 404 above is not a
    blanket answer)."""
    video = tmp_path / "gen_there.mp4"
    video.write_bytes(b"\x00\x00\x00\x18ftypmp42" + bytes(range(256)))
    sent = await _answer_of(_LocalFile(video, None, media_type="video/mp4"), "GET", {})
    assert sent[0]["status"] == 200
    assert b"".join(m.get("body", b"") for m in sent[1:]) == video.read_bytes()
