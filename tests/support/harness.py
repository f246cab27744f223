"""The service under test: the real app over a real database, driven through HTTP."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterable, Mapping
from pathlib import Path
from typing import Any, Literal, TypedDict, Unpack

import httpx

from tests.support.db_templates import seed_sqlite
from vidrouter.composition import Composition, create_app
from vidrouter.settings import Settings, load_settings
from vidrouter.store.keys import NewKey

TERMINAL = ("completed", "failed", "canceled")


class CreateBody(TypedDict, total=False):
    """Fields of a create (POST /v1/generations) that tests keep in a dict and spread into a
    helper's `**body`: typed, so that none is taken for the helper's own parameters."""

    model: str
    prompt: str
    type: str
    duration: float
    aspect_ratio: str


class SettingsOverrides(TypedDict, total=False):
    """The fields of `Settings` but test_settings' own two, each optional: what a test may
    set, type-checked at each call (tests/test_settings_overrides.py keeps them in step)."""

    public_url: str | None
    host: str
    port: int
    allow_private_webhook_urls: bool
    webhook_retry_schedule: tuple[float, ...]
    webhook_timeout_seconds: float
    workers: int
    render_processes: int
    lease_seconds: float
    idle_poll_seconds: float
    claim_ahead_seconds: float
    provider_delay_scale: float
    circuit_failure_threshold: int
    circuit_window_seconds: float
    circuit_cooldown_seconds: float
    route_stats_window_seconds: float
    route_hang_p95_multiple: float
    route_hang_min_seconds: float
    route_hang_min_samples: int
    generation_deadline_seconds: float
    provider_callbacks: Literal["auto", "on", "off"]
    catalog: Path | None
    storage_url: str | None
    content_delivery: Literal["proxy", "redirect"]
    content_cache_bytes: int
    role: Literal["all", "api", "worker"]
    signing_secret: str | None
    content_url_ttl_seconds: int
    key_cache_seconds: float
    rate_limit_rpm: int
    max_concurrent_generations: int
    redis_url: str | None
    rate_limit_sync_seconds: float
    poll_cache_seconds: float
    cache_ttl_seconds: float
    cache_shared: bool
    batch_concurrency: int
    batch_max_lines: int
    batch_poll_seconds: float
    max_prompt_chars: int
    max_body_bytes: int
    max_upload_bytes: int
    header_timeout_seconds: float
    max_header_bytes: int
    max_connections: int
    keep_alive_seconds: float
    cors_origins: tuple[str, ...]
    log_level: str
    log_format: Literal["text", "json"]
    metrics: bool


def test_settings(
    data_dir: Path,
    database_url: str | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    **overrides: Unpack[SettingsOverrides],
) -> Settings:
    """Settings for a test: `environ` is the whole environment (none: an empty one, never
    the process's)."""
    values: dict[str, Any] = {
        "data_dir": data_dir,
        "allow_private_webhook_urls": True,
        "webhook_retry_schedule": (0.2, 0.5, 1.0),
        "lease_seconds": 5.0,
        "idle_poll_seconds": 0.2,
        "render_processes": 2,
    }
    if database_url is not None:
        values["database_url"] = database_url
    values.update(overrides)
    return load_settings(environ or {}, **values)


test_settings.__test__ = False  # type: ignore[attr-defined]  # a helper, not a test


class Harness:
    def __init__(self, service: Composition, client: httpx.AsyncClient) -> None:
        self.service = service
        self.client = client

    async def new_key(self, name: str = "test", account: str | None = None) -> NewKey:
        return await self.service.keys.create(name, account_id=account)

    @staticmethod
    def auth(key: NewKey | str) -> dict[str, str]:
        token = key if isinstance(key, str) else key.plaintext
        return {"Authorization": f"Bearer {token}"}

    async def create(self, key: NewKey, **body: Any) -> httpx.Response:
        return await self.client.post("/v1/generations", json=body, headers=self.auth(key))

    async def videos(self, key: NewKey, **body: Any) -> httpx.Response:
        """A create on the OpenAI-style `POST /v1/videos`."""
        return await self.client.post("/v1/videos", json=body, headers=self.auth(key))

    async def create_preview(self, key: NewKey, **body: Any) -> str:
        """Create a half-second `local-preview` generation (`body` adds or changes fields);
        its id."""
        body = {"model": "local-preview", "prompt": "p", "duration": 0.5, **body}
        created = await self.create(key, **body)
        assert created.status_code == 202, created.text
        return str(created.json()["id"])

    async def get(self, key: NewKey, generation_id: str) -> httpx.Response:
        return await self.client.get(f"/v1/generations/{generation_id}", headers=self.auth(key))

    async def generate(
        self, key: NewKey | None = None, timeout: float = 40.0, **body: Any
    ) -> dict[str, Any]:
        """Create a generation (with a new key unless one is given) and wait for its end."""
        key = key or await self.new_key()
        created = await self.create(key, **body)
        assert created.status_code == 202, created.text
        return await self.wait_for(key, created.json()["id"], timeout=timeout)

    async def video(self, done: dict[str, Any]) -> bytes:
        """The MP4 of a completed generation, from its signed `video_url`."""
        assert done["status"] == "completed", done
        got = await self.client.get(done["video_url"])
        assert got.status_code == 200, got.text
        return got.content

    async def wait_for(
        self,
        key: NewKey,
        generation_id: str,
        statuses: Iterable[str] = TERMINAL,
        timeout: float = 60.0,
    ) -> dict[str, Any]:
        wanted = set(statuses)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            response = await self.get(key, generation_id)
            assert response.status_code == 200, response.text
            body: dict[str, Any] = response.json()
            if body["status"] in wanted:
                return body
            if loop.time() > deadline:
                raise TimeoutError(f"{generation_id} still {body['status']} after {timeout}s")
            await asyncio.sleep(0.1)


@contextlib.asynccontextmanager
async def running(settings: Settings, *, workers: bool = True) -> AsyncIterator[Harness]:
    """The app over `settings`; a SQLite database that does not exist yet starts as a copy of
    a migrated one (tests/support/db_templates.py), which the app's own migrate finds at head."""
    await seed_sqlite(settings)
    service = Composition(settings)
    await service.open()
    if workers:
        service.start_workers()
    app = create_app(settings, composition=service)
    transport = httpx.ASGITransport(app=app)
    try:
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            yield Harness(service, client)
    finally:
        await service.close(grace=5)


@contextlib.asynccontextmanager
async def idle_with(
    tmp_path: Path, database_url: str, catalog: str, **overrides: Any
) -> AsyncIterator[Harness]:
    """The service with the operator `catalog` and no workers: what is accepted stays queued
    (and no provider is ever called)."""
    path = tmp_path / "catalog.toml"
    path.write_text(catalog)
    settings = test_settings(tmp_path / "data", database_url, catalog=path, **overrides)
    async with running(settings, workers=False) as harness:
        yield harness


async def extension_refused(
    app: Harness, key: NewKey, model: str, source: str, seconds: float
) -> dict[str, Any]:
    """The error of a create extending the generation `source` by `seconds` with `model`,
    which must be a 400 naming `video`."""
    refused = await app.create(
        key,
        model=model,
        prompt="it keeps going",
        type="video-extend",
        video={"generation_id": source},
        duration=seconds,
    )
    assert refused.status_code == 400, refused.text
    error: dict[str, Any] = refused.json()["error"]
    assert error["param"] == "video", error
    return error


def assert_failed(done: dict[str, Any], code: str, says: str = "") -> None:
    """The generation ended failed with our error `code` (its message containing `says`),
    and without a video."""
    assert done["status"] == "failed", done
    assert done["error"]["code"] == code, done
    assert says in done["error"]["message"], done
    assert done["video_url"] is None, done


def assert_error(response: httpx.Response, status: int, code: str | None = None) -> dict[str, Any]:
    """The response is our error of that status (and `code`), in its four fields; the error."""
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert set(error) == {"type", "code", "message", "param"}, error
    assert isinstance(error["message"], str) and error["message"]
    if code is not None:
        assert error["code"] == code, error
    return dict(error)
