"""The fast paths answer exactly as the routed endpoints would, only sooner.

A request the fast path declines (here: one with an `Origin` header, or a conditional one)
goes the routed way, so each answer is compared with its routed twin.
"""

from __future__ import annotations

from tests.support.harness import Harness

# Headers both answers must carry alike (the request id differs by design).
SAME = ("content-type", "content-length", "cache-control", "etag", "accept-ranges")


async def _finished(app: Harness) -> tuple[dict[str, str], dict[str, object]]:
    key = await app.new_key()
    created = await app.create(key, model="local-preview", prompt="fast", duration=0.5)
    done = await app.wait_for(key, created.json()["id"])
    assert done["status"] == "completed"
    return app.auth(key), done


async def test_a_small_local_video_is_sent_as_the_routed_content_host_sends_it(
    app: Harness,
) -> None:
    _, done = await _finished(app)
    url = str(done["video_url"])
    fast = await app.client.get(url)
    # An If-None-Match that matches nothing: the routed endpoint, which answers 200 too.
    routed = await app.client.get(url, headers={"If-None-Match": '"no-such-tag"'})
    assert fast.status_code == routed.status_code == 200
    assert fast.content == routed.content and len(fast.content) > 1000
    for name in (*SAME, "last-modified"):
        assert fast.headers[name] == routed.headers[name], name
    assert fast.headers["x-request-id"]


async def test_a_bad_signature_is_still_refused_by_the_routed_content_host(app: Harness) -> None:
    _, done = await _finished(app)
    url = str(done["video_url"])
    tampered = url[:-4] + ("0000" if not url.endswith("0000") else "1111")
    response = await app.client.get(tampered)
    assert response.status_code == 403
    assert response.json()["error"]["type"] == "permission_error"


async def test_the_video_object_is_the_routed_one(app: Harness) -> None:
    auth, done = await _finished(app)
    path = f"/v1/videos/{done['id']}"
    fast = await app.client.get(path, headers=auth)
    routed = await app.client.get(path, headers={**auth, "Origin": "https://example.com"})
    assert fast.status_code == routed.status_code == 200
    assert fast.json() == routed.json()
    assert fast.json()["status"] == "completed" and fast.json()["object"] == "video"
    # Another account's key gets the routed 404, not the video.
    other = app.auth(await app.new_key(name="other"))
    assert (await app.client.get(path, headers=other)).status_code == 404


async def test_the_poll_answers_are_the_routed_bytes(app: Harness) -> None:
    # One read and one presenter: the same bytes, a prompt beyond ASCII included (a second
    # JSON encoder would escape it).
    key = await app.new_key()
    created = await app.create(key, model="local-preview", prompt="un renard 狐", duration=0.5)
    done = await app.wait_for(key, created.json()["id"])
    auth = app.auth(key)
    for path in (f"/v1/generations/{done['id']}", f"/v1/videos/{done['id']}"):
        fast = await app.client.get(path, headers=auth)
        routed = await app.client.get(path, headers={**auth, "Origin": "https://example.com"})
        assert fast.status_code == routed.status_code == 200
        assert fast.content == routed.content, path
        assert "狐".encode() in fast.content
        for name in ("content-type", "content-length"):
            assert fast.headers[name] == routed.headers[name], (path, name)
