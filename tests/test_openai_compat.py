"""The OpenAI-compatible Videos API (/v1/videos), driven by the official `openai` SDK against a
real server over real HTTP: what a client written for OpenAI's `client.videos.*` sees after
changing only its base URL and key."""

from __future__ import annotations

import base64
import contextlib
import io
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from openai.types import Video
from PIL import Image

from tests.support.catalogs import local_model
from tests.support.harness import running, test_settings
from tests.support.servers import serve_app
from tests.support.video import decode
from vidrouter.composition import Composition, create_app
from vidrouter.domain.controls import CONTROL_FIELDS
from vidrouter.domain.representation import shown_image_url
from vidrouter.store.keys import NewKey

# Every `videos.*` method of the SDK warns that OpenAI's own Sora API is retired.
pytestmark = pytest.mark.filterwarnings("ignore:The Sora API:DeprecationWarning")

# An image-to-video model served by the local renderer (which starts on the image).
CATALOG = local_model(
    "house-i2v",
    0.01,
    type="image-to-video",
    max_duration=8,
    default_duration=4,
    name="House image-to-video",
    description="The local renderer behind an image-to-video model.",
    aspect_ratios=["1:1", "16:9"],
)
# A model that takes no image (local-preview takes every input).
TEXT_ONLY = local_model(
    "house-text",
    0.01,
    type="text-to-video",
    capabilities=["text-to-video"],
    max_duration=8,
    name="House text-to-video",
    aspect_ratios=["16:9"],
)

ERROR_KEYS = {"message", "type", "param", "code"}


@dataclass
class Server:
    service: Composition
    url: str
    http: httpx.AsyncClient
    clients: list[openai.AsyncOpenAI] = field(default_factory=list)

    async def key(self, account: str | None = None) -> NewKey:
        return await self.service.keys.create("openai-compat", account_id=account)

    def sdk(self, key: NewKey | str) -> openai.AsyncOpenAI:
        token = key if isinstance(key, str) else key.plaintext
        # No retries: a 409 or 5xx must surface at once, not after the SDK's backoff.
        client = openai.AsyncOpenAI(base_url=f"{self.url}/v1", api_key=token, max_retries=0)
        self.clients.append(client)
        return client

    @staticmethod
    def auth(key: NewKey) -> dict[str, str]:
        return {"Authorization": f"Bearer {key.plaintext}"}


@contextlib.asynccontextmanager
async def vidrouter(tmp_path: Path, *, workers: bool) -> AsyncIterator[Server]:
    catalog = tmp_path / "catalog.toml"
    catalog.write_text(CATALOG + TEXT_ONLY)
    settings = test_settings(tmp_path / "data", catalog=catalog)
    service = Composition(settings)
    await service.open()
    if workers:
        service.start_workers()
    app = create_app(settings, composition=service)
    try:
        async with serve_app(app) as url, httpx.AsyncClient(base_url=url) as http:
            server = Server(service, url, http)
            try:
                yield server
            finally:
                for client in server.clients:
                    await client.close()
    finally:
        await service.close(grace=5)


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[Server]:
    """With workers: videos render."""
    async with vidrouter(tmp_path, workers=True) as s:
        yield s


@pytest.fixture
async def idle(tmp_path: Path) -> AsyncIterator[Server]:
    """Without workers: videos stay queued (fast, and deterministic for 'not ready')."""
    async with vidrouter(tmp_path, workers=False) as s:
        yield s


def image(fmt: str, size: tuple[int, int] = (64, 64)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (200, 40, 40)).save(out, fmt)
    return out.getvalue()


def error_keys(exc: openai.APIStatusError) -> set[str]:
    assert isinstance(exc.body, dict)
    return set(exc.body)


async def assert_not_found(client: openai.AsyncOpenAI, video_id: str) -> None:
    """The video does not exist for this client: to read, to download, to delete."""
    with pytest.raises(openai.NotFoundError):
        await client.videos.retrieve(video_id)
    with pytest.raises(openai.NotFoundError):
        await client.videos.download_content(video_id)
    with pytest.raises(openai.NotFoundError):
        await client.videos.delete(video_id)


def data_url(data: bytes, mime: str) -> str:
    return f"data:{mime};base64,{base64.b64encode(data).decode()}"


async def test_sdk_creates_polls_and_downloads_a_video(server: Server, tmp_path: Path) -> None:
    key = await server.key()
    client = server.sdk(key)
    video = await client.videos.create(
        model="local-preview", prompt="a red fox in the snow", seconds="4", size="1280x720"
    )
    assert video.id.startswith("gen_") and video.object == "video"
    assert (video.model, video.status, video.progress) == ("local-preview", "queued", 0)
    assert (video.seconds, video.size, video.prompt) == ("4", "1280x720", "a red fox in the snow")
    assert isinstance(video.created_at, int) and video.completed_at is None
    assert video.error is None and video.expires_at is None
    assert video.remixed_from_video_id is None

    done = await client.videos.poll(video.id, poll_interval_ms=100)
    assert done.status == "completed" and done.progress == 100 and done.error is None
    assert done.completed_at is not None and done.completed_at >= done.created_at

    # The SDK's model holds exactly the fields we send, with nothing lost; our only
    # extensions are the prices, the controls and the cache's source, which it keeps as extra
    # fields.
    raw = await client.videos.with_raw_response.retrieve(video.id)
    body = json.loads(raw.text)
    ours = {"estimated_cost", "cost", "cached_from", *CONTROL_FIELDS}
    assert set(body) == set(Video.model_fields) | ours
    assert raw.parse().to_dict() == body
    extra = raw.parse().model_extra
    assert extra is not None and set(extra) == ours
    assert extra["estimated_cost"] == {"amount": 0.0, "currency": "USD"}  # a free model
    assert Video.model_validate(body).to_dict() == body  # strict validation passes too

    content = await client.videos.download_content(video.id)
    assert content.response.headers["content-type"] == "video/mp4"
    info = decode(content.content, tmp_path)
    assert (info.codec, info.width, info.height) == ("h264", 1280, 720)
    assert abs(info.duration - 4.0) <= 0.1

    # The same object through our own API.
    ours = (await server.http.get(f"/v1/generations/{video.id}", headers=server.auth(key))).json()
    assert (ours["status"], ours["duration"], ours["aspect_ratio"]) == ("completed", 4, "16:9")
    assert ours["image_url"] is None

    # ... and a generation made through our API, seen as a video.
    made = await server.http.post(
        "/v1/generations",
        json={"model": "local-preview", "prompt": "p", "duration": 1.5, "aspect_ratio": "9:16"},
        headers=server.auth(key),
    )
    seen = await client.videos.retrieve(made.json()["id"])
    assert (seen.seconds, seen.size, seen.model) == ("1.5", "720x1280", "local-preview")


async def test_reference_image_video_from_create_to_delete(server: Server, tmp_path: Path) -> None:
    key = await server.key()
    client = server.sdk(key)
    png = image("PNG")
    video = await client.videos.create_and_poll(
        model="house-i2v",
        prompt="the logo spins",
        input_reference=("logo.png", png, "image/png"),
        seconds="4",
        size="720x720",  # type: ignore[arg-type]  # not in the SDK's enum, taken here
        poll_interval_ms=100,
    )
    assert (video.status, video.model, video.size, video.seconds) == (
        "completed",
        "house-i2v",
        "720x720",
        "4",
    )
    ours = (await server.http.get(f"/v1/generations/{video.id}", headers=server.auth(key))).json()
    assert ours["image_url"] == shown_image_url(data_url(png, "image/png"))  # cut short
    assert ours["aspect_ratio"] == "1:1"
    info = decode(
        (await client.videos.download_content(video.id, variant="video")).content, tmp_path
    )
    assert (info.codec, info.width, info.height) == ("h264", 720, 720)

    # Delete: the video, its stored MP4, and the generation behind it are gone.
    stored = await server.service.generation_store.get(video.id)
    assert stored is not None and stored.video_key is not None
    blob = server.service.storage.local_path(stored.video_key)
    assert blob is not None and blob.is_file()
    deleted = await client.videos.delete(video.id)
    assert (deleted.id, deleted.object, deleted.deleted) == (video.id, "video.deleted", True)
    assert not blob.exists()
    await assert_not_found(client, video.id)
    gone = await server.http.get(f"/v1/generations/{video.id}", headers=server.auth(key))
    assert gone.status_code == 404


async def test_request_forms_the_sdk_and_other_clients_send(idle: Server, tmp_path: Path) -> None:
    key = await idle.key()
    client = idle.sdk(key)
    jpeg = image("JPEG")
    path = tmp_path / "ref.jpg"
    path.write_bytes(jpeg)

    # No model: the first listed model that can take the request (local-preview takes an
    # image too; test_a_default_model_takes_the_request skips one that cannot).
    text = await client.videos.create(prompt="defaults")
    assert (text.model, text.seconds, text.size) == ("local-preview", "5", "1280x720")
    from_image = await client.videos.create(prompt="from a file path", input_reference=path)
    assert from_image.model == "local-preview"
    raw_bytes = await client.videos.create(
        model="house-i2v", prompt="raw bytes", input_reference=jpeg, size="1792x1024"
    )
    assert (raw_bytes.model, raw_bytes.size) == ("house-i2v", "1280x720")  # 1792x1024 is 16:9
    # The reference as an object, in a form: `input_reference[image_url]` (the SDK's
    # flattening; its `create` itself refuses a dict before sending it).
    as_object = await idle.http.post(
        "/v1/videos",
        files={
            "prompt": (None, b"object form"),
            "input_reference[image_url]": (None, data_url(jpeg, "image/jpeg").encode()),
        },
        headers=idle.auth(key),
    )
    assert as_object.status_code == 200, as_object.text
    for video_id in (from_image.id, raw_bytes.id, as_object.json()["id"]):
        ours = (await idle.http.get(f"/v1/generations/{video_id}", headers=idle.auth(key))).json()
        assert ours["image_url"] == shown_image_url(data_url(jpeg, "image/jpeg"))

    # A JSON body (seconds as a number is taken too), through the SDK's generic post.
    posted = await client.post(
        "/videos",
        body={"model": "local-preview", "prompt": "json", "seconds": 2, "size": "720x720"},
        cast_to=Video,
    )
    assert (posted.seconds, posted.size, posted.status) == ("2", "720x720", "queued")
    posted = await client.post(
        "/videos",
        body={
            "prompt": "json image",
            "input_reference": {"image_url": data_url(jpeg, "image/jpeg")},
        },
        cast_to=Video,
    )
    assert posted.model == "local-preview"

    # A url-encoded form (curl -d) and a multipart one (curl -F) without the SDK.
    form = await idle.http.post(
        "/v1/videos", data={"prompt": "form", "seconds": "1"}, headers=idle.auth(key)
    )
    assert form.status_code == 200 and form.json()["seconds"] == "1"
    multipart = await idle.http.post(
        "/v1/videos",
        data={"prompt": "multipart", "model": "house-i2v"},
        files={"input_reference": ("ref.jpg", jpeg, "image/jpeg")},
        headers=idle.auth(key),
    )
    assert multipart.status_code == 200 and multipart.json()["model"] == "house-i2v"

    # Unknown parameters are refused, not dropped (extra_body lands in the form).
    with pytest.raises(openai.BadRequestError) as bad:
        await client.videos.create(prompt="x", extra_body={"quality": "hd"})
    assert (bad.value.param, bad.value.code) == ("quality", "parameter_unknown")
    plain = await idle.http.post(
        "/v1/videos", content=b"prompt", headers={**idle.auth(key), "content-type": "text/plain"}
    )
    assert plain.status_code == 415 and set(plain.json()["error"]) == ERROR_KEYS


async def test_a_default_model_takes_the_request(tmp_path: Path) -> None:
    """Without `model`, the first listed model that can take the request: one that takes no
    image is passed over for a request with an image."""
    catalog = tmp_path / "catalog.toml"
    catalog.write_text("replace = true\n" + TEXT_ONLY + CATALOG)
    async with running(test_settings(tmp_path / "data", catalog=catalog), workers=False) as app:
        key = await app.new_key()
        png = data_url(image("PNG"), "image/png")
        for body, model in (
            ({"input_reference": {"image_url": png}}, "house-i2v"),
            ({}, "house-text"),
        ):
            made = await app.client.post(
                "/v1/videos", json={"prompt": "p", **body}, headers=app.auth(key)
            )
            assert made.status_code == 200 and made.json()["model"] == model, made.text


async def test_list_pages_through_every_video_in_both_orders(idle: Server) -> None:
    key = await idle.key()
    client = idle.sdk(key)
    ids = []
    for i in range(4):
        video = await client.videos.create(prompt=f"video {i}", seconds="1")  # type: ignore[arg-type]
        ids.append(video.id)
    made = await idle.http.post(
        "/v1/generations", json={"model": "local-preview", "prompt": "ours"}, headers=idle.auth(key)
    )
    ids.append(made.json()["id"])

    assert [v.id async for v in client.videos.list(limit=2)] == ids[::-1]
    assert [v.id async for v in client.videos.list(limit=2, order="asc")] == ids
    assert [v.id async for v in client.videos.list(limit=100, order="asc")] == ids

    first = await client.videos.list(limit=2)
    assert [v.id for v in first.data] == ids[:2:-1] and first.has_more is True
    assert first.last_id == ids[3]
    raw = (await idle.http.get("/v1/videos?limit=2", headers=idle.auth(key))).json()
    assert (raw["object"], raw["first_id"], raw["last_id"]) == ("list", ids[4], ids[3])

    older = await client.videos.list(limit=2, after=ids[1])
    assert [v.id for v in older.data] == [ids[0]] and older.has_more is False
    newer = await client.videos.list(limit=2, after=ids[1], order="asc")
    assert [v.id for v in newer.data] == ids[2:4] and newer.has_more is True
    last = await client.videos.list(limit=2, after=ids[3], order="asc")
    assert [v.id for v in last.data] == [ids[4]] and last.has_more is False
    whole = await client.videos.list(limit=5, order="asc")
    assert [v.id for v in whole.data] == ids and whole.has_more is False

    stranger = idle.sdk(await idle.key())
    empty = await stranger.videos.list()
    assert empty.data == [] and empty.has_more is False
    assert [v.id async for v in stranger.videos.list(order="asc", after=ids[0])] == []
    raw = (
        await idle.http.get("/v1/videos", headers={"Authorization": f"Bearer {stranger.api_key}"})
    ).json()
    assert (raw["first_id"], raw["last_id"]) == (None, None)

    with pytest.raises(openai.BadRequestError) as bad:
        await client.videos.list(order="sideways")  # type: ignore[arg-type]
    assert bad.value.param == "order"


async def test_deleting_an_unfinished_video_cancels_it_first(idle: Server) -> None:
    key = await idle.key()
    client = idle.sdk(key)
    video = await client.videos.create(prompt="never rendered")
    assert (await client.videos.delete(video.id)).deleted is True
    with pytest.raises(openai.NotFoundError):
        await client.videos.retrieve(video.id)
    assert await idle.service.generation_store.get(video.id) is None


async def test_both_apis_refuse_a_create_alike_when_every_route_is_failing(idle: Server) -> None:
    """One create use-case behind both APIs: with every route's circuit open, /v1/videos
    answers the 503 that /v1/generations answers, and neither queues a generation."""
    key = await idle.key()
    [route] = idle.service.catalog.get("house-i2v").routes  # type: ignore[union-attr]
    await idle.service.circuits.failure(route.key, fatal=True)  # refused credentials: open
    png = data_url(image("PNG"), "image/png")
    native = await idle.http.post(
        "/v1/generations",
        json={"model": "house-i2v", "prompt": "a fox", "image_url": png},
        headers=idle.auth(key),
    )
    openai_style = await idle.http.post(
        "/v1/videos",
        json={"model": "house-i2v", "prompt": "a fox", "input_reference": {"image_url": png}},
        headers=idle.auth(key),
    )
    for refused in (native, openai_style):
        assert refused.status_code == 503, refused.text
        assert set(refused.json()["error"]) == ERROR_KEYS
        assert int(refused.headers["retry-after"]) >= 1
    assert native.json() == openai_style.json()
    listed = await idle.http.get("/v1/generations", headers=idle.auth(key))
    assert listed.json()["data"] == []
    with pytest.raises(openai.InternalServerError) as caught:  # the SDK's class for a 503
        await idle.sdk(key).videos.create(
            model="house-i2v",
            prompt="a fox",
            input_reference=("logo.png", image("PNG"), "image/png"),
        )
    assert caught.value.status_code == 503


async def test_errors_raise_the_sdk_exception_classes(idle: Server) -> None:
    key = await idle.key()
    client = idle.sdk(key)

    with pytest.raises(openai.AuthenticationError) as auth:
        await idle.sdk("vr_not-a-real-key").videos.list()
    assert (auth.value.status_code, auth.value.code) == (401, "invalid_api_key")
    assert auth.value.type == "authentication_error" and error_keys(auth.value) == ERROR_KEYS

    for unknown in ("gen_doesnotexist00000000000", "video_68d2f0a1b2c3"):
        with pytest.raises(openai.NotFoundError) as missing:
            await client.videos.retrieve(unknown)
        assert (missing.value.code, missing.value.param) == ("video_not_found", "video_id")

    cases: list[tuple[dict[str, Any], str, str]] = [
        ({"size": "1024x768"}, "size", "size_unsupported"),
        ({"size": "wide"}, "size", "size_unsupported"),
        (
            {"model": "house-i2v", "size": "720x1280", "input_reference": image("PNG")},
            "size",
            "aspect_ratio_unsupported",
        ),
        ({"seconds": "30"}, "seconds", "duration_too_long"),
        ({"seconds": "abc"}, "seconds", "seconds_invalid"),
        ({"seconds": "0"}, "seconds", "seconds_invalid"),
        ({"model": "no-such-model"}, "model", "model_not_found"),
        ({"model": "sora-2"}, "model", "model_retired"),
        ({"prompt": " "}, "prompt", "prompt_empty"),
        (
            {"model": "house-text", "input_reference": image("PNG")},
            "input_reference",
            "image_not_supported",
        ),
        ({"model": "house-i2v"}, "input_reference", "image_required"),
        (
            {"input_reference": ("notes.txt", b"hello", "text/plain")},
            "input_reference",
            "input_reference_invalid",
        ),
    ]
    for overrides, param, code in cases:
        kwargs: dict[str, Any] = {"prompt": "a prompt", **overrides}
        with pytest.raises(openai.BadRequestError) as bad:
            await client.videos.create(**kwargs)
        assert (bad.value.param, bad.value.code) == (param, code), overrides
        assert bad.value.type == "invalid_request_error" and error_keys(bad.value) == ERROR_KEYS

    with pytest.raises(openai.BadRequestError) as bad:
        await client.post(
            "/videos", body={"prompt": "x", "input_reference": {"file_id": "file_1"}}, cast_to=Video
        )
    assert (bad.value.param, bad.value.code) == ("input_reference.file_id", "parameter_unsupported")

    # Too large a body: the SDK's generic status error, with our message.
    with pytest.raises(openai.APIStatusError) as big:
        await client.videos.create(
            prompt="x", input_reference=b"\x89PNG\r\n\x1a\n" + bytes(1_100_000)
        )
    assert (big.value.status_code, big.value.code) == (413, "body_too_large")

    # Content before the video is ready, and of a canceled one.
    queued = await client.videos.create(prompt="still queued")
    with pytest.raises(openai.ConflictError) as early:
        await client.videos.download_content(queued.id)
    assert early.value.code == "video_not_ready"
    with pytest.raises(openai.ConflictError) as early:
        await client.videos.download_content(queued.id, variant="thumbnail")
    assert early.value.code == "video_not_ready"
    with pytest.raises(openai.BadRequestError) as variant:
        await client.videos.download_content(queued.id, variant="poster")  # type: ignore[arg-type]
    assert variant.value.param == "variant"

    canceled = await idle.http.post(f"/v1/generations/{queued.id}/cancel", headers=idle.auth(key))
    assert canceled.status_code == 200
    failed = await client.videos.retrieve(queued.id)
    assert failed.status == "failed" and failed.error is not None
    assert failed.error.code == "canceled" and failed.completed_at is not None
    with pytest.raises(openai.ConflictError) as none:
        await client.videos.download_content(queued.id)
    assert none.value.code == "video_failed"

    # Another account's key: the video does not exist for it.
    other = idle.sdk(await idle.key())
    await assert_not_found(other, queued.id)
    assert (await client.videos.retrieve(queued.id)).id == queued.id


async def test_a_server_fault_is_the_sdks_internal_server_error(
    idle: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = idle.sdk(await idle.key())

    async def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("database on fire")

    monkeypatch.setattr(idle.service.generation_store, "page", broken)
    with pytest.raises(openai.InternalServerError) as fault:
        await client.videos.list()
    assert (fault.value.status_code, fault.value.code) == (500, "internal_error")
    assert fault.value.type == "api_error" and error_keys(fault.value) == ERROR_KEYS
    assert "fire" not in fault.value.message
