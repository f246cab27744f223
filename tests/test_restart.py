"""Nothing is lost: a `serve` process killed with SIGKILL mid-generation (with its render
processes) is replaced by a new one, which finishes the job and delivers the webhook."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
from standardwebhooks.webhooks import Webhook

from tests.support.process import ServeProcess, cli_env, create_key
from tests.support.receiver import WebhookReceiver
from tests.support.servers import serve_app


async def _status(client: httpx.AsyncClient, base: str, key: str, gid: str) -> dict[str, Any]:
    r = await client.get(f"{base}/v1/generations/{gid}", headers={"Authorization": f"Bearer {key}"})
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


async def test_kill9_mid_render_then_restart_finishes(tmp_path: Path, database_url: str) -> None:
    env = cli_env(tmp_path / "data", database_url, VIDROUTER_LEASE_SECONDS="2")
    key = create_key(env)
    receiver = WebhookReceiver()
    first = ServeProcess(env)
    second = ServeProcess(env)
    try:
        async with serve_app(receiver) as hook_url, httpx.AsyncClient(timeout=10) as client:
            await first.start()
            r = await client.post(
                f"{first.base_url}/v1/generations",
                headers={"Authorization": f"Bearer {key['key']}"},
                json={
                    "model": "local-preview",
                    "prompt": "survive",
                    "duration": 12,
                    "webhook_url": hook_url,
                },
            )
            assert r.status_code == 202, r.text
            gid = r.json()["id"]
            for _ in range(300):
                body = await _status(client, first.base_url, key["key"], gid)
                if body["status"] == "in_progress":
                    break
                await asyncio.sleep(0.05)
            assert body["status"] == "in_progress", body
            first.kill9()

            await second.start()
            for _ in range(900):
                body = await _status(client, second.base_url, key["key"], gid)
                if body["status"] in ("completed", "failed", "canceled"):
                    break
                await asyncio.sleep(0.1)
            assert body["status"] == "completed", body
            video = await client.get(body["video_url"])
            assert video.status_code == 200 and len(video.content) > 1000
            [hook] = await receiver.wait_for(1, timeout=30)
        payload = Webhook(key["webhook_secret"]).verify(hook.body, hook.headers)
        assert payload["id"] == gid and payload["status"] == "completed"
    finally:
        first.stop()
        second.stop()


async def test_sigterm_drains_and_exits(tmp_path: Path) -> None:
    env = cli_env(tmp_path / "data")
    key = create_key(env)
    server = ServeProcess(env)
    try:
        await server.start()
        async with httpx.AsyncClient(timeout=10) as client:
            r = await client.post(
                f"{server.base_url}/v1/generations",
                headers={"Authorization": f"Bearer {key['key']}"},
                json={"model": "local-preview", "prompt": "drain", "duration": 1},
            )
            assert r.status_code == 202
        code = await server.terminate(timeout=30)
        assert code == 0, server.log.read_text()[-2000:]
    finally:
        server.stop()
