"""The Python client against a hostile loopback server: whatever comes back (HTML, another
shape, an unknown status, a drip-fed answer, no answer, ids that are paths), the client
raises a `ClientError` subclass with the response attached, and within its `timeout`."""

from __future__ import annotations

import asyncio
import socket
import ssl
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.hostile import (
    GENERATION_ID,
    Exchange,
    HostileServer,
    Script,
    answer,
    drip,
    generation_body,
    hostile_server,
)
from vidrouter.client import (
    APIConnectionError,
    APIError,
    APITimeoutError,
    AsyncClient,
    BadRequestError,
    Client,
    ClientError,
    ServerError,
    UnexpectedResponseError,
)

HTML = "<html><body><h1>Sign in</h1><form>...</form></body></html>"
GEN = GENERATION_ID
FAST = 0.5  # the deadline of every call here: nothing waits more than a few seconds
generation = generation_body


def always(status: int, body: object, content_type: str = "application/json") -> Script:
    def script(exchange: Exchange, sock: socket.socket, stopping: threading.Event) -> None:
        answer(sock, status, body, content_type)

    return script


# httpx builds a TLS context per client (a quarter of a second): one for every client here.
TLS = ssl.create_default_context()


def sync_client(server: HostileServer, **options: Any) -> Client:
    options = {"max_retries": 0, "timeout": FAST, **options}
    http = httpx.Client(verify=TLS)
    return Client("vr_test", base_url=server.base_url, http_client=http, **options)


def async_client(server: HostileServer, **options: Any) -> AsyncClient:
    options = {"max_retries": 0, "timeout": FAST, **options}
    http = httpx.AsyncClient(verify=TLS)
    return AsyncClient("vr_test", base_url=server.base_url, http_client=http, **options)


def run_both(server: HostileServer, call: Callable[[Any], Any]) -> list[BaseException]:
    """`call(client)` with the sync and the async client; the exception each raised."""
    raised: list[BaseException] = []
    with sync_client(server) as client, pytest.raises(ClientError) as sync_info:
        call(client)
    raised.append(sync_info.value)

    async def run_async() -> None:
        async with async_client(server) as client:
            with pytest.raises(ClientError) as async_info:
                await call(client)
            raised.append(async_info.value)

    asyncio.run(run_async())
    return raised


# --- bodies that are not the API's --------------------------------------------------------

WRONG_BODIES = [
    pytest.param(HTML, "text/html", id="html-login-page"),
    pytest.param({"data": 5}, "application/json", id="wrong-shape"),
    pytest.param([1, 2], "application/json", id="a-list"),
    pytest.param("", "application/json", id="empty"),
    pytest.param("[" * 5000 + "]" * 5000, "application/json", id="deep"),
    pytest.param(b"\xff\xfe\x00garbage", "application/json", id="not-utf8"),
]


@pytest.mark.parametrize(("body", "content_type"), WRONG_BODIES)
@pytest.mark.parametrize("operation", ["models", "get", "page", "usage", "create"])
def test_a_2xx_body_of_another_shape_is_an_unexpected_response(
    body: object, content_type: str, operation: str
) -> None:
    calls: dict[str, Callable[[Any], Any]] = {
        "models": lambda c: c.models(),
        "get": lambda c: c.get(GEN),
        "page": lambda c: c.page(),
        "usage": lambda c: c.usage(),
        "create": lambda c: c.create("local-preview", "a fox"),
    }
    with hostile_server(always(200, body, content_type)) as server:
        for exc in run_both(server, calls[operation]):
            assert isinstance(exc, UnexpectedResponseError), repr(exc)
            assert exc.response.status_code == 200 and exc.status_code == 200
            assert "\n" not in str(exc) and "vidrouter" in str(exc)


def test_an_unknown_generation_status_is_an_unexpected_response() -> None:
    with hostile_server(always(200, generation(status="exploded"))) as server:
        for exc in run_both(server, lambda c: c.get(GEN)):
            assert isinstance(exc, UnexpectedResponseError)
            assert "status" in str(exc) and exc.response.json()["status"] == "exploded"


@pytest.mark.parametrize(
    ("status", "body", "content_type", "kind", "code"),
    [
        (502, HTML, "text/html", ServerError, "http_502"),
        (418, "I'm a teapot\n\n\x1b[31mred", "text/plain", APIError, "http_418"),
        (400, "[" * 5000 + "]" * 5000, "application/json", BadRequestError, "http_400"),
        (400, {"error": {"type": 1}}, "application/json", BadRequestError, "http_400"),
        (400, {"error": "nope"}, "application/json", BadRequestError, "http_400"),
    ],
)
def test_an_error_status_of_any_shape_is_an_api_error_on_one_line(
    status: int, body: object, content_type: str, kind: type[APIError], code: str
) -> None:
    with hostile_server(always(status, body, content_type)) as server:
        for exc in run_both(server, lambda c: c.models()):
            assert type(exc) is kind, repr(exc)
            assert isinstance(exc, APIError) and exc.code == code
            assert exc.response is not None and exc.response.status_code == status
            assert "\n" not in exc.message and "\x1b" not in exc.message


def test_a_body_that_cannot_be_decoded_is_a_client_error() -> None:
    def script(exchange: Exchange, sock: socket.socket, stopping: threading.Event) -> None:
        answer(sock, 200, b"not gzip at all", headers={"Content-Encoding": "gzip"})

    with hostile_server(script) as server:
        for exc in run_both(server, lambda c: c.models()):
            assert isinstance(exc, APIConnectionError)


# --- time: drip-fed answers and servers that never answer ---------------------------------


def dripping_body(exchange: Exchange, sock: socket.socket, stopping: threading.Event) -> None:
    body = b'{"object": "list", "data": []}' + b" " * 100
    head = (
        f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    sock.sendall(head.encode())
    drip(sock, body, 0.2, stopping)


def dripping_headers(exchange: Exchange, sock: socket.socket, stopping: threading.Event) -> None:
    drip(sock, b"HTTP/1.1 200 OK\r\nX-Slow: " + b"a" * 1000 + b"\r\n\r\n", 0.2, stopping)


def never_answers(exchange: Exchange, sock: socket.socket, stopping: threading.Event) -> None:
    stopping.wait(30)


@pytest.mark.parametrize("script", [dripping_body, dripping_headers, never_answers])
def test_timeout_bounds_the_whole_call(script: Script) -> None:
    with hostile_server(script) as server:
        started = time.monotonic()
        for exc in run_both(server, lambda c: c.models()):
            assert isinstance(exc, APITimeoutError) and isinstance(exc, TimeoutError), repr(exc)
        # Two calls (sync and async), each given FAST seconds whole: never a read's worth more.
        assert time.monotonic() - started < 2 * FAST + 1.0


def test_a_drip_fed_download_is_bounded_and_leaves_no_file(tmp_path: Path) -> None:
    def script(exchange: Exchange, sock: socket.socket, stopping: threading.Event) -> None:
        if exchange.target.startswith("/v1/"):
            answer(sock, 200, generation(video_url=f"http://{exchange.headers['host']}/v.mp4"))
        else:
            sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n")
            drip(sock, b"\x00\x00\x00\x18ftypisom" + b"x" * 988, 0.2, stopping)

    with hostile_server(script) as server:
        client = sync_client(server, download_timeout=FAST)
        started = time.monotonic()
        with client, pytest.raises(APITimeoutError):
            client.download(GEN, tmp_path / "v.mp4")
        assert time.monotonic() - started < FAST + 1.0
    time.sleep(0.3)  # the helper thread stops at its next chunk and removes its part file
    assert list(tmp_path.iterdir()) == []


# --- the video itself ---------------------------------------------------------------------


@pytest.mark.parametrize("video", [HTML.encode(), b"", b"\x00\x00\x00\x18moov"])
def test_a_download_that_is_not_an_mp4_is_refused_and_not_saved(
    tmp_path: Path, video: bytes
) -> None:
    def script(exchange: Exchange, sock: socket.socket, stopping: threading.Event) -> None:
        if exchange.target.startswith("/v1/"):
            answer(sock, 200, generation(video_url=f"http://{exchange.headers['host']}/v.mp4"))
        else:
            answer(sock, 200, video, "video/mp4")

    with hostile_server(script) as server:
        with sync_client(server) as client, pytest.raises(UnexpectedResponseError) as info:
            client.download(GEN, tmp_path / "a.mp4")
        assert "not an MP4" in str(info.value) and info.value.response.status_code == 200

        async def run_async() -> None:
            async with async_client(server) as client:
                with pytest.raises(UnexpectedResponseError):
                    await client.download(GEN, tmp_path / "b.mp4")

        asyncio.run(run_async())
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("url", ["file:///etc/passwd", "http://[::1", "not a url"])
def test_a_video_url_httpx_cannot_fetch_is_a_client_error(tmp_path: Path, url: str) -> None:
    with hostile_server(always(200, generation(video_url=url))) as server:
        for exc in run_both(server, lambda c: c.download(GEN, tmp_path / "v.mp4")):
            assert isinstance(exc, ClientError)
    assert list(tmp_path.iterdir()) == []


# --- ids that are paths, and answers about something else ---------------------------------


@pytest.mark.parametrize("asked", ["../../v1/models", "..", ".", "a/b?c#d", "%2e%2e"])
def test_an_id_is_one_path_segment_whatever_it_holds(asked: str) -> None:
    with hostile_server(always(404, {"error": {"type": "x", "code": "n", "message": "m"}})) as s:
        run_both(s, lambda c: c.get(asked))
        run_both(s, lambda c: c.cancel(asked))
    for exchange in s.seen:
        path = exchange.target.split("?")[0]
        rest = path.removeprefix("/v1/generations/").removesuffix("/cancel")
        assert path.startswith("/v1/generations/") and "/" not in rest, exchange.target
        assert rest not in ("", ".", ".."), exchange.target


def test_waiting_on_a_generation_the_server_swaps_is_refused() -> None:
    swapped = generation(id="../pwned", status="in_progress")
    with hostile_server(always(200, swapped)) as server:
        for exc in run_both(server, lambda c: c.wait(GEN, poll_interval=0.01)):
            assert "../pwned" in str(exc)


def test_a_page_that_never_moves_on_is_refused() -> None:
    page = {"object": "list", "data": [generation()], "has_more": True}
    with hostile_server(always(200, page)) as server, sync_client(server) as client:
        with pytest.raises(ClientError, match="does not move on"):
            list(client.list())
        assert len(server.seen) == 2


def test_a_bad_base_url_is_a_client_error() -> None:
    client = Client("vr_test", base_url="http://[::1", http_client=httpx.Client(verify=TLS))
    with client, pytest.raises(ClientError):
        client.models()


@pytest.mark.parametrize("timeout", [0, -1, float("inf"), float("nan")])
def test_timeout_is_a_positive_number_of_seconds(timeout: float) -> None:
    with pytest.raises(ValueError, match="timeout"):
        Client("vr_test", timeout=timeout, http_client=httpx.Client(verify=TLS))


def test_a_download_follows_the_content_hosts_redirect_to_the_store(tmp_path: Path) -> None:
    """`VIDROUTER_CONTENT_DELIVERY=redirect`: the video URL answers 302 to the store."""
    video = b"\x00\x00\x00\x18ftypisom" + b"\x00" * 32

    def script(exchange: Exchange, sock: socket.socket, stopping: threading.Event) -> None:
        host = exchange.headers["host"]
        if exchange.target.startswith("/v1/"):
            answer(sock, 200, generation(video_url=f"http://{host}/content/v.mp4?sig=x"))
        elif exchange.target.startswith("/content/"):
            answer(sock, 302, b"", headers={"Location": f"http://{host}/store/v.mp4?X-Amz=1"})
        else:
            assert "authorization" not in exchange.headers  # no key ever goes with a video
            answer(sock, 200, video, "video/mp4")

    with hostile_server(script) as server, sync_client(server) as client:
        path = client.download(GEN, tmp_path / "v.mp4")

        async def run_async() -> None:
            async with async_client(server) as aclient:
                await aclient.download(GEN, tmp_path / "a.mp4")

        asyncio.run(run_async())
    assert path.read_bytes() == video and (tmp_path / "a.mp4").read_bytes() == video
