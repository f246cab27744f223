"""The container image, as a self-hoster runs it: built from the repository's Dockerfile,
the embedded default serving a generation and keeping it across a restart (the volume),
`docker stop` ending it cleanly, and an api and a worker container completing a generation
on PostgreSQL and an S3 server.

System tests: they need docker (and, the first time, debootstrap to build the base; see
tests/support/docker.py). Without docker they skip with the reason; in CI they must run.
"""

from __future__ import annotations

import contextlib
import json
import os
import ssl
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support import docker
from tests.support.databases import pg_url
from tests.support.scaleout import s3_server
from tests.support.servers import free_port
from tests.support.tls import self_signed

pytestmark = pytest.mark.system

MAX_ADDED_BYTES = 400 * 1000 * 1000


@pytest.fixture(scope="module")
def image(tmp_path_factory: pytest.TempPathFactory) -> str:
    reason = docker.unavailable()
    if reason is not None:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"CI is set but the container tests cannot run: {reason}")
        pytest.skip(reason)
    certificates = {"test-authority.crt": _test_authority()[0].read_bytes()}
    if docker.HOST_CA_BUNDLE.exists():
        # This machine's authorities: pip reaches PyPI through whatever proxy it trusts.
        certificates["host-bundle.crt"] = docker.HOST_CA_BUNDLE.read_bytes()
    return docker.build_image(tmp_path_factory.mktemp("context"), certificates)


def _test_authority() -> tuple[Path, Path]:
    """A certificate the image must trust because it sits in deploy/ca-certificates/.
    Kept between runs, so that the image's layers stay cached."""
    directory = docker.cache_dir() / "test-authority"
    if not (directory / "cert.pem").exists():
        self_signed(directory, "localhost", ip="127.0.0.1", days=3650)
    return directory / "cert.pem", directory / "key.pem"


def _serving_env(port: int, **extra: str) -> dict[str, str]:
    # Loopback only: the containers share the host's network.
    return {"VIDROUTER_HOST": "127.0.0.1", "VIDROUTER_PORT": str(port), **extra}


def _create_key(image: str, env: dict[str, str], volume: str | None = None) -> str:
    out = docker.run_once(image, "keys", "create", "--name", "t", "--json", env=env, volume=volume)
    return str(json.loads(out)["key"])


def _generate(base_url: str, key: str, duration: float = 1) -> str:
    response = httpx.post(
        base_url + "/v1/generations",
        headers={"Authorization": f"Bearer {key}"},
        json={"model": "local-preview", "prompt": "a red fox", "duration": duration},
        timeout=10,
    )
    assert response.status_code in (200, 201, 202), response.text
    return str(response.json()["id"])


def _get(base_url: str, key: str, generation_id: str) -> dict[str, Any]:
    response = httpx.get(
        f"{base_url}/v1/generations/{generation_id}",
        headers={"Authorization": f"Bearer {key}"},
        timeout=10,
    )
    assert response.status_code == 200, response.text
    return response.json()  # type: ignore[no-any-return]


def _completed(base_url: str, key: str, generation_id: str, timeout: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        body = _get(base_url, key, generation_id)
        assert body["status"] not in ("failed", "canceled"), body
        if body["status"] == "completed":
            return body
        assert time.monotonic() < deadline, body
        time.sleep(0.3)


def _plays(video_url: str) -> None:
    response = httpx.get(video_url, timeout=10)
    assert response.status_code == 200, response.text
    assert response.content[4:8] == b"ftyp", "not an MP4"


def test_the_image_adds_at_most_400_mb_to_its_base(image: str) -> None:
    added = docker.image_size(image) - docker.image_size(docker.base_image())
    assert 0 < added <= MAX_ADDED_BYTES, f"the image adds {added / 1e6:.0f} MB"


def test_the_embedded_default_serves_keeps_its_data_and_stops_cleanly(image: str) -> None:
    with docker.named_volume() as volume:
        port = free_port()
        env = _serving_env(port)
        base_url = f"http://127.0.0.1:{port}"
        key = _create_key(image, env, volume)  # `docker run IMAGE keys create ...`
        first = docker.Container(image, env=env, volume=volume).start()
        try:
            first.wait_ready(base_url)
            done = _completed(base_url, key, _generate(base_url, key))
            _plays(done["video_url"])
            first.wait_healthy()  # the image's HEALTHCHECK (its first run is 15 s in)
            # Stopped with a render in hand: the lease is handed back, nothing is lost.
            in_flight = _generate(base_url, key, duration=4)
            time.sleep(0.5)
            code, took = first.stop()
            assert code == 0, first.logs()
            assert took < 15, f"docker stop took {took:.1f} s"
        finally:
            first.remove()
        second = docker.Container(image, env=env, volume=volume).start()
        try:
            second.wait_ready(base_url)
            again = _get(base_url, key, done["id"])
            assert again["status"] == "completed"
            _plays(again["video_url"])
            _plays(_completed(base_url, key, in_flight)["video_url"])
        finally:
            second.remove()


@pytest.mark.postgres
def test_an_api_and_a_worker_container_complete_a_generation_on_postgres_and_s3(
    image: str, pg_name: str
) -> None:
    with s3_server() as s3:
        bucket = s3.new_bucket()
        api_port, worker_port = free_port(), free_port()
        api_url = f"http://127.0.0.1:{api_port}"
        shared = {
            "VIDROUTER_DATABASE_URL": pg_url(pg_name),  # the host's server: the host network
            "VIDROUTER_STORAGE_URL": f"s3://{bucket}/prod",
            "VIDROUTER_PUBLIC_URL": api_url,
            **s3.env(),
        }
        key = _create_key(image, shared)
        # Read-only root file systems, as deploy/kubernetes/ runs them.
        api = docker.Container(
            image, ("serve", "--role", "api"), _serving_env(api_port, **shared), read_only=True
        )
        worker = docker.Container(
            image,
            ("serve", "--role", "worker"),
            _serving_env(worker_port, **shared),
            read_only=True,
        )
        try:
            api.start().wait_ready(api_url)
            worker.start().wait_ready(f"http://127.0.0.1:{worker_port}")
            done = _completed(api_url, key, _generate(api_url, key))
            video = f"prod/videos/{done['id']}"
            # The video alone: its poster and sprite sheet are made on their first request.
            assert s3.object_keys(bucket) == [f"{video}.mp4"]
            _plays(done["video_url"])
            poster = httpx.get(done["thumbnail_url"], timeout=30)
            assert poster.status_code == 200 and poster.content[8:12] == b"WEBP", poster.text
            assert sorted(s3.object_keys(bucket)) == [
                f"{video}.mp4",
                f"{video}.spritesheet.jpg",
                f"{video}.thumbnail.webp",
            ]
            for container in (worker, api):
                code, _ = container.stop()
                assert code == 0, container.logs()
        finally:
            api.remove()
            worker.remove()


def test_certificates_in_deploy_ca_certificates_are_trusted_at_run_time(image: str) -> None:
    cert, key = _test_authority()
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    with _https_server(context) as port:
        # The service's own client settings: httpx's default bundle, no environment.
        script = f"import httpx; print(httpx.get('https://127.0.0.1:{port}/', trust_env=False).status_code)"
        out = docker.run_once(image, "-c", script, env={}, entrypoint="python")
    assert out == "200"


class _Ok(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        return


@contextlib.contextmanager
def _https_server(context: ssl.SSLContext) -> Iterator[int]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Ok)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
