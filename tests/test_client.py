"""`vidrouter.client` against a real `vidrouter serve`: typed results, waiting, paging,
downloading, typed errors, webhook verification, and retries that never make a second video."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path

import httpx
import pytest

from tests.support.live_server import LiveServer, live_server, module_server
from tests.support.lossy_proxy import LossyProxy, lossy_proxy
from tests.support.receiver import WebhookReceiver
from tests.support.servers import free_port, serve_app_in_thread
from tests.support.video import clear_rgb, decode, frame_rgb
from vidrouter.client import (
    APIConnectionError,
    AsyncClient,
    AuthenticationError,
    BadRequestError,
    Client,
    ClientError,
    ConflictError,
    Generation,
    GenerationFailedError,
    NotFoundError,
    RetryPolicy,
    WaitTimeoutError,
    WebhookVerificationError,
    verify_webhook,
)
from vidrouter.client.images import image_url
from vidrouter.client.retry import retry_after

server = module_server("client")


def test_models_are_typed(server: LiveServer) -> None:
    with Client(server.key, base_url=server.base_url) as client:
        models = client.models()
        preview = next(m for m in models if m.id == "local-preview")
        assert preview.pricing.per_second == 0.0 and preview.pricing.currency == "USD"
        assert preview.max_duration >= preview.default_duration > 0
        assert "16:9" in preview.aspect_ratios
        single = client.model("local-preview")
        assert single.object == "model" and single.routes
        assert single.routes[0].provider == "local"
        # The item is the list's entry plus `object` and the live `routes`.
        assert single.model_copy(update={"object": None, "routes": None}) == preview


def test_generate_waits_and_downloads_a_playable_video(server: LiveServer, tmp_path: Path) -> None:
    seen: list[Generation] = []
    with Client(server.key, base_url=server.base_url, poll_interval=0.1) as client:
        video = client.generate(
            "local-preview", "a red fox", duration=2, aspect_ratio="1:1", on_progress=seen.append
        )
        assert video.status == "completed" and video.video_url and video.cost is not None
        assert seen[-1].status == "completed" and seen[0].status in {"queued", "in_progress"}
        path = client.download(video.id, tmp_path / "out" / "fox.mp4")
    decoded = decode(path.read_bytes(), tmp_path)
    assert decoded.frames > 0 and decoded.width == decoded.height
    assert not [p for p in path.parent.iterdir() if p.name.startswith(".download-")]


def test_list_walks_every_page_newest_first(server: LiveServer) -> None:
    key = server.fresh_key("client-test")
    with Client(key, base_url=server.base_url) as client:
        made = [client.create("local-preview", f"clip {i}", duration=1).id for i in range(5)]
        listed = [g.id for g in client.list(page_size=2)]
    assert listed == list(reversed(made))


async def test_async_client_generates_lists_and_downloads(
    server: LiveServer, tmp_path: Path
) -> None:
    key = server.fresh_key("client-test")
    statuses: list[str] = []

    async def on_progress(generation: Generation) -> None:
        statuses.append(generation.status)

    async with AsyncClient(key, base_url=server.base_url, poll_interval=0.1) as client:
        video = await client.generate(
            "local-preview", "an owl", duration=1, on_progress=on_progress
        )
        assert statuses[-1] == "completed"
        assert [g.id async for g in client.list(page_size=1)] == [video.id]
        assert (await client.get(video.id)).id == video.id
        path = await client.download(video.id, tmp_path / "owl.mp4")
        usage = await client.usage(group_by="model")
    assert decode(path.read_bytes(), tmp_path).frames > 0
    assert usage.total.generations == 1 and usage.data[0].model == "local-preview"


def test_errors_carry_the_api_error_object(server: LiveServer) -> None:
    bad = Client("vr_" + "x" * 40, base_url=server.base_url)
    with bad, pytest.raises(AuthenticationError) as refused:
        bad.models()
    assert refused.value.status_code == 401 and refused.value.code == "invalid_api_key"
    assert refused.value.request_id

    with Client(server.key, base_url=server.base_url) as client:
        with pytest.raises(BadRequestError) as invalid:
            client.create("local-preview", "too long", duration=999)
        assert invalid.value.error.param == "duration"
        assert invalid.value.code == "duration_too_long"
        with pytest.raises(NotFoundError) as missing:
            client.get("gen_doesnotexist0000000000")
        assert missing.value.code == "generation_not_found"
        with pytest.raises(NotFoundError):
            client.get("../models")  # escaped into one path segment, never another route

        done = client.generate("local-preview", "short", duration=1)
        with pytest.raises(ConflictError) as conflict:
            client.cancel(done.id)
        assert conflict.value.code == "generation_not_cancelable"


def test_generate_raises_when_the_generation_is_canceled(server: LiveServer) -> None:
    with Client(server.key, base_url=server.base_url, poll_interval=0.05) as client:
        first = client.create("local-preview", "a long one", duration=20, idempotency_key="k1")
        try:
            canceled = client.cancel(first.id)
        except ConflictError:
            pytest.skip("the renderer finished a 20 s video before the cancel arrived")
        assert canceled.status == "canceled"
        assert client.wait(first.id).status == "canceled"
        # The same key and body: the same (canceled) generation, which generate reports.
        with pytest.raises(GenerationFailedError) as failed:
            client.generate("local-preview", "a long one", duration=20, idempotency_key="k1")
    assert failed.value.generation.id == first.id


def test_unreachable_server_is_a_connection_error() -> None:
    url = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    client = Client("vr_x", base_url=url, max_retries=1)
    with client, pytest.raises(APIConnectionError):
        client.models()


@pytest.mark.parametrize("fault", ["drop", "502", "429"])
def test_a_lost_create_answer_is_retried_into_one_generation(
    server: LiveServer, fault: str
) -> None:
    """The server made the generation but its answer never arrived: the retry carries the
    same Idempotency-Key and gets the same generation back, so exactly one exists."""
    key = server.fresh_key("client-test")
    proxy = LossyProxy(
        server.base_url,
        faults=[fault, fault],
        matches=lambda method, path: method == "POST" and path == "/v1/generations",
    )
    with lossy_proxy(proxy) as url, Client(key, base_url=url) as client:
        made = client.create("local-preview", f"only once ({fault})", duration=1)
    creates = [s for s in proxy.seen if s.method == "POST"]
    assert len(creates) == 3 and [s.fault for s in creates] == [fault, fault, None]
    assert all(s.status == 202 for s in creates)  # the server handled every one of them
    assert len({s.idempotency_key for s in creates}) == 1 and creates[0].idempotency_key
    with Client(key, base_url=server.base_url) as direct:
        assert [g.id for g in direct.list()] == [made.id]


async def test_async_create_retries_the_same_way(server: LiveServer) -> None:
    key = server.fresh_key("client-test")
    proxy = LossyProxy(
        server.base_url,
        faults=["drop"],
        matches=lambda method, path: method == "POST" and path == "/v1/generations",
    )
    with lossy_proxy(proxy) as url:
        async with AsyncClient(key, base_url=url) as client:
            made = await client.create("local-preview", "async once", duration=1)
    keys = {s.idempotency_key for s in proxy.seen if s.method == "POST"}
    assert len(keys) == 1 and len([s for s in proxy.seen if s.method == "POST"]) == 2
    async with AsyncClient(key, base_url=server.base_url) as direct:
        assert [g.id async for g in direct.list()] == [made.id]


def test_a_cancel_is_not_repeated_once_sent(server: LiveServer) -> None:
    """Unlike a create, a cancel has no idempotency key: a lost answer is reported."""
    proxy = LossyProxy(
        server.base_url,
        faults=["drop"],
        matches=lambda method, path: path.endswith("/cancel"),
    )
    with Client(server.key, base_url=server.base_url) as direct:
        done = direct.generate("local-preview", "cancel me", duration=1)
    with (
        lossy_proxy(proxy) as url,
        Client(server.key, base_url=url) as client,
        pytest.raises(APIConnectionError),
    ):
        client.cancel(done.id)
    assert len([s for s in proxy.seen if s.path.endswith("/cancel")]) == 1


def test_verify_webhook_returns_the_typed_event(server: LiveServer) -> None:
    receiver = WebhookReceiver()
    with serve_app_in_thread(receiver) as hook_url:
        with Client(server.key, base_url=server.base_url) as client:
            made = client.generate("local-preview", "signed", duration=1, webhook_url=hook_url)
        for _ in range(300):  # bounded: the delivery is written with the terminal state
            if receiver.received:
                break
            time.sleep(0.1)
    delivery = receiver.received[0]
    event = verify_webhook(delivery.body, delivery.headers, server.webhook_secret)
    assert event.generation.id == made.id and event.type == "completed"
    assert event.id == delivery.headers["webhook-id"]

    with pytest.raises(WebhookVerificationError):
        verify_webhook(
            delivery.body.replace(b"completed", b"failed"), delivery.headers, server.webhook_secret
        )
    with pytest.raises(WebhookVerificationError):
        verify_webhook(delivery.body, delivery.headers, "whsec_" + "QUFBQUFBQUFBQUFBQUFBQQ==")
    with pytest.raises(WebhookVerificationError):
        verify_webhook(delivery.body, {}, server.webhook_secret)


def test_image_path_is_sent_as_a_data_uri(server: LiveServer, tmp_path: Path) -> None:
    """A local PNG reaches the server intact (a data URI): local-preview starts the video on
    it; a file that is no image never leaves."""
    from PIL import Image

    png = tmp_path / "first.png"
    Image.new("RGB", (8, 8), (230, 20, 20)).save(png)
    with Client(server.key, base_url=server.base_url) as client:
        done = client.generate("local-preview", "from an image", image=png, duration=0.5)
        assert done.type == "image-to-video"
        client.download(done.id, tmp_path / "from.mp4")
    r, g, b = clear_rgb(frame_rgb((tmp_path / "from.mp4").read_bytes(), tmp_path))
    assert r > 180 and g < 70 and b < 70, (r, g, b)  # the red image is the first frame
    with pytest.raises(ClientError, match="not a PNG or JPEG"):
        image_url(Path(__file__))


def test_every_type_from_the_client(server: LiveServer, tmp_path: Path) -> None:
    """References (a local image as a data URI), an edit and an extension of a generation,
    each made on local-preview through the client."""
    from PIL import Image

    png = tmp_path / "ball.png"
    Image.new("RGB", (16, 16), (20, 200, 20)).save(png)
    with Client(server.key, base_url=server.base_url) as client:
        ref = client.generate(
            "local-preview",
            "a ball",
            duration=0.5,
            references=[{"type": "image", "url": image_url(png)}],
        )
        assert ref.type == "reference-to-video" and ref.references[0]["type"] == "image"
        source = {"generation_id": ref.id}
        edit = client.generate("local-preview", "at night", type="video-to-video", video=source)
        more = client.generate(
            "local-preview", "on", type="video-extend", video=source, duration=0.5
        )
        assert (edit.type, edit.video) == ("video-to-video", source)
        assert (more.type, more.video) == ("video-extend", source)
        client.download(more.id, tmp_path / "more.mp4")
    assert decode((tmp_path / "more.mp4").read_bytes(), tmp_path).frames == 24  # 12 + 12


def test_the_docs_example_runs(server: LiveServer, tmp_path: Path) -> None:
    """docs/client.md's first example, run as it is written, against the live server."""
    text = (Path(__file__).parent.parent / "docs" / "client.md").read_text()
    example = text.split("```python\n", 1)[1].split("```", 1)[0]
    (tmp_path / "example.py").write_text(example)
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIDROUTER_")}
    env.update(VIDROUTER_API_KEY=server.key, VIDROUTER_BASE_URL=server.base_url)
    ran = subprocess.run(
        [sys.executable, "example.py"], cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert "completed 100%" in ran.stdout and "saved fox.mp4, cost 0.0 USD" in ran.stdout
    assert decode((tmp_path / "fox.mp4").read_bytes(), tmp_path).frames > 0


def test_retry_after_is_honoured_and_bounded() -> None:
    policy = RetryPolicy(max_retries=3, backoff_base=0.5, backoff_cap=8.0, retry_after_cap=60.0)
    assert policy.delay(0, 2.5) == 2.5  # the server's word wins over the backoff
    assert policy.delay(0, 3600.0) == 60.0  # within reason
    assert 0.0 <= policy.delay(10, None) <= 8.0  # exponential, capped, jittered
    assert retry_after(httpx.Response(429, headers={"Retry-After": "7"})) == 7.0
    later = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    from_date = retry_after(httpx.Response(503, headers={"Retry-After": later}))
    assert from_date is not None and 25 <= from_date <= 30
    assert retry_after(httpx.Response(503, headers={"Retry-After": "soon"})) is None
    assert retry_after(httpx.Response(503)) is None


def test_wait_gives_up_with_the_last_state(tmp_path: Path) -> None:
    with live_server(tmp_path, VIDROUTER_WORKERS="0") as idle:  # nothing ever advances
        client = Client(idle.key, base_url=idle.base_url, poll_interval=0.05)
        with client:
            made = client.create("local-preview", "forever queued", duration=1)
            with pytest.raises(WaitTimeoutError) as gave_up:
                client.wait(made.id, timeout=0.3)
    assert gave_up.value.generation.id == made.id
    assert gave_up.value.generation.status == "queued"
