"""A batch survives kill -9 of a real `vidrouter serve`: each line makes one generation."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx

from tests.fakes.chaos import ChaosProvider
from tests.support.batches import lines_of
from tests.support.chaos import KEY, KEY_ENV, MODEL, chaos_catalog
from tests.support.process import ServeProcess, cli_env, create_key
from tests.support.servers import serve_app

LINES = 120


async def test_kill9_in_the_middle_of_a_batch_loses_and_duplicates_no_line(
    tmp_path: Path, database_url: str
) -> None:
    fake = ChaosProvider(api_key=KEY)
    async with serve_app(fake.app()) as fake_url, httpx.AsyncClient(timeout=15) as http:
        env = cli_env(
            tmp_path / "data",
            database_url,
            **{KEY_ENV: KEY},
            VIDROUTER_CATALOG=str(
                chaos_catalog(tmp_path / "c.toml", [{"id": "a", "url": fake_url}])
            ),
            VIDROUTER_LEASE_SECONDS="2",
            VIDROUTER_IDLE_POLL_SECONDS="0.2",
            VIDROUTER_PROVIDER_DELAY_SCALE="0.001",
            VIDROUTER_BATCH_POLL_SECONDS="0.05",
            VIDROUTER_BATCH_CONCURRENCY="32",
            VIDROUTER_MAX_CONCURRENT_GENERATIONS="100",
            VIDROUTER_RATE_LIMIT_RPM="1000000",
        )
        headers = {"Authorization": f"Bearer {create_key(env)['key']}"}
        servers = [ServeProcess(env)]
        try:
            await servers[-1].start()
            created = await http.post(
                servers[-1].base_url + "/v1/batches",
                json={"lines": lines_of(LINES, MODEL)},
                headers=headers,
            )
            assert created.status_code == 202, created.text
            batch_id = created.json()["id"]
            # Killed twice while lines are being started and generations are in flight.
            for started in (LINES // 4, LINES // 2):
                await _wait(
                    http, servers[-1], batch_id, headers, lambda b, n=started: _begun(b) >= n
                )
                servers[-1].kill9()
                servers.append(ServeProcess(env))
                await servers[-1].start()
            done = await _wait(
                http, servers[-1], batch_id, headers, lambda b: b["status"] != "in_progress", 180
            )
            assert done["status"] == "completed", done
            assert done["counts"]["completed"] == LINES, done["counts"]
            r = await http.get(
                servers[-1].base_url + f"/v1/batches/{batch_id}/results", headers=headers
            )
            lines = [json.loads(x) for x in r.text.splitlines()]
        finally:
            for server in servers:
                server.stop()
    assert [x["custom_id"] for x in lines] == [f"line-{i}" for i in range(1, LINES + 1)]
    assert {x["status"] for x in lines} == {"completed"}
    generation_ids = {x["generation_id"] for x in lines}
    assert len(generation_ids) == LINES
    # No line made a second generation: the provider saw exactly these generations.
    assert {a.client_request_id for a in fake.accepted} == generation_ids


def _begun(b: dict[str, Any]) -> int:
    return int(b["total"] - b["counts"]["pending"])


async def _wait(
    http: httpx.AsyncClient,
    server: ServeProcess,
    batch_id: str,
    headers: dict[str, str],
    done: Any,
    timeout: float = 60.0,
) -> dict[str, Any]:
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        r = await http.get(server.base_url + f"/v1/batches/{batch_id}", headers=headers)
        assert r.status_code == 200, r.text
        if done(r.json()):
            return dict(r.json())
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError(r.text)
        await asyncio.sleep(0.05)
