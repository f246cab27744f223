"""`VIDROUTER_LOG_FORMAT=json` on a real `vidrouter serve`: every line on stderr is one JSON
object, and the lines about a generation carry its id, its route and the request's id."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
from pathlib import Path
from typing import Any

import httpx

from tests.support.process import VIDROUTER, cli_env, create_key
from tests.support.servers import free_port


async def test_json_logs_carry_generation_route_and_request_ids(tmp_path: Path) -> None:
    port = free_port()
    env = cli_env(
        tmp_path / "data",
        VIDROUTER_LOG_FORMAT="json",
        VIDROUTER_LOG_LEVEL="INFO",
        VIDROUTER_PORT=str(port),
    )
    key = create_key(env)["key"]
    base = f"http://127.0.0.1:{port}"
    stderr_path = tmp_path / "stderr.log"
    with stderr_path.open("wb") as stderr:
        proc = subprocess.Popen(
            [*VIDROUTER, "serve"], env=env, stdout=subprocess.DEVNULL, stderr=stderr
        )
        try:
            async with httpx.AsyncClient(base_url=base) as client:
                await _ready(client, proc)
                auth = {"Authorization": f"Bearer {key}", "X-Request-Id": "req-json-logs-1"}
                created = await client.post(
                    "/v1/generations",
                    json={"model": "local-preview", "prompt": "a fox in the logs"},
                    headers=auth,
                )
                assert created.status_code == 202, created.text
                generation_id = created.json()["id"]
                for _ in range(600):
                    body = (
                        await client.get(f"/v1/generations/{generation_id}", headers=auth)
                    ).json()
                    if body["status"] in ("completed", "failed"):
                        break
                    await asyncio.sleep(0.1)
                assert body["status"] == "completed", body
        finally:
            proc.send_signal(signal.SIGTERM)
            await asyncio.to_thread(proc.wait, 30)

    lines = [line for line in stderr_path.read_text().splitlines() if line.strip()]
    records: list[dict[str, Any]] = [json.loads(line) for line in lines]  # every line is JSON
    for record in records:
        assert {"timestamp", "level", "logger", "message"} <= record.keys(), record
        assert record["timestamp"].endswith("Z")
    assert any(r["logger"].startswith("uvicorn") for r in records)  # uvicorn's lines too

    [created_line] = [r for r in records if r["message"] == "generation_created"]
    assert created_line["request_id"] == "req-json-logs-1"
    assert created_line["generation_id"] == generation_id
    [completed_line] = [r for r in records if r["message"] == "generation_completed"]
    assert completed_line["generation_id"] == generation_id
    assert completed_line["route"].startswith("local:")
    assert "request_id" not in completed_line  # a worker's line, not a request's
    assert not any("a fox in the logs" in line for line in lines)  # prompts are not logged


async def _ready(client: httpx.AsyncClient, proc: subprocess.Popen[bytes]) -> None:
    for _ in range(300):
        if proc.poll() is not None:
            raise RuntimeError("serve exited")
        try:
            if (await client.get("/readyz")).status_code == 200:
                return
        except httpx.TransportError:
            pass
        await asyncio.sleep(0.1)
    raise TimeoutError("serve did not become ready")
