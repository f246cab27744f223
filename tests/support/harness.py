"""The service under test: the real app over a real database, driven through HTTP."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterable
from pathlib import Path
from typing import Any

import httpx

from vidrouter.composition import Composition, create_app
from vidrouter.settings import Settings, load_settings
from vidrouter.store.keys import NewKey

TERMINAL = ("completed", "failed", "canceled")


def test_settings(data_dir: Path, database_url: str | None = None, **overrides: Any) -> Settings:
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
    environ = values.pop("environ", {})
    return load_settings(environ, **values)


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


def assert_failed(done: dict[str, Any], code: str) -> None:
    """The generation ended failed with our error `code`, and without a video."""
    assert done["status"] == "failed", done
    assert done["error"]["code"] == code, done
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
