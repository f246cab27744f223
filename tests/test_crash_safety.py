"""Crash safety of a real `vidrouter serve`: kill -9 again and again, and SIGTERM mid-render.

Every generation is a row and every piece of work a lease on it, so a process killed at any
moment loses nothing: its leases run out (2 s here) and the next process goes on, renders
cut short are started again, and webhooks whose sending was cut short are sent again.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from pathlib import Path
from typing import Any

import httpx
from standardwebhooks.webhooks import Webhook

from tests.support.process import ServeProcess, cli_env, create_key
from tests.support.receiver import WebhookReceiver
from tests.support.servers import serve_app
from vidrouter.cli.serve import SHUTDOWN_GRACE_SECONDS

GENERATIONS = 24
KILLS = 3
HTTP_SHUTDOWN_SECONDS = 5  # uvicorn's timeout_graceful_shutdown in `serve`
TERMINAL = ("completed", "failed", "canceled")


class Client:
    def __init__(self, http: httpx.AsyncClient, key: str) -> None:
        self.http = http
        self.headers = {"Authorization": f"Bearer {key}"}

    async def create(self, server: ServeProcess, **body: Any) -> str:
        r = await self.http.post(
            f"{server.base_url}/v1/generations", headers=self.headers, json=body
        )
        assert r.status_code == 202, r.text
        return str(r.json()["id"])

    async def get(self, server: ServeProcess, gen_id: str) -> dict[str, Any]:
        r = await self.http.get(f"{server.base_url}/v1/generations/{gen_id}", headers=self.headers)
        assert r.status_code == 200, r.text
        return r.json()  # type: ignore[no-any-return]

    async def completed(self, server: ServeProcess) -> int:
        r = await self.http.get(
            f"{server.base_url}/v1/generations",
            headers=self.headers,
            params={"status": "completed", "limit": 100},
        )
        assert r.status_code == 200, r.text
        return len(r.json()["data"])

    async def wait_completed(self, server: ServeProcess, count: int, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while await self.completed(server) < count:
            assert time.monotonic() < deadline, f"fewer than {count} completed in {timeout}s"
            await asyncio.sleep(0.05)

    async def wait_all(
        self, server: ServeProcess, ids: list[str], timeout: float
    ) -> dict[str, dict[str, Any]]:
        done: dict[str, dict[str, Any]] = {}
        deadline = time.monotonic() + timeout
        while len(done) < len(ids):
            for gen_id in ids:
                if gen_id not in done:
                    body = await self.get(server, gen_id)
                    if body["status"] in TERMINAL:
                        done[gen_id] = body
            if time.monotonic() > deadline:
                missing = {g: (await self.get(server, g))["status"] for g in ids if g not in done}
                raise TimeoutError(f"unfinished after {timeout}s: {missing}")
            await asyncio.sleep(0.25)
        return done


async def webhooks_for(receiver: WebhookReceiver, ids: set[str], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not ids <= {json.loads(hook.body)["id"] for hook in receiver.received}:
        if time.monotonic() > deadline:
            got = {json.loads(hook.body)["id"] for hook in receiver.received}
            raise TimeoutError(f"no webhook after {timeout}s for {sorted(ids - got)}")
        await asyncio.sleep(0.2)


async def test_kill9_three_times_during_24_generations_loses_nothing(
    tmp_path: Path, database_url: str
) -> None:
    env = cli_env(
        tmp_path / "data",
        database_url,
        VIDROUTER_LEASE_SECONDS="2",
        VIDROUTER_IDLE_POLL_SECONDS="0.2",
        VIDROUTER_WEBHOOK_RETRY_SCHEDULE="0.2,0.5,1,1,1,1,1,1",
        VIDROUTER_RATE_LIMIT_RPM="100000",  # the test polls far faster than a client should
    )
    key = create_key(env)
    receiver = WebhookReceiver()
    rng = random.Random(40)
    servers = [ServeProcess(env)]
    ids: list[str] = []
    unfinished_at_kills: list[int] = []
    try:
        async with serve_app(receiver) as hook_url, httpx.AsyncClient(timeout=15) as http:
            client = Client(http, key["key"])
            await servers[-1].start()
            # Three waves of 8 short renders, each cut by a kill -9 and a restart: the last
            # 3 to 6 of a wave are created once all but one of the others are done, and the
            # kill follows at once (webhooks are going out then, the last ones are being
            # submitted, rendered or queued). Waiting for a share of a wave instead let a
            # loaded machine finish the whole wave before the kill.
            for _ in range(KILLS):
                late = GENERATIONS // KILLS - rng.randint(3, 6)
                for n in range(GENERATIONS // KILLS):
                    if n == late:
                        await client.wait_completed(servers[-1], len(ids) - 1, timeout=120)
                    ids.append(
                        await client.create(
                            servers[-1],
                            model="local-preview",
                            prompt=f"crash {len(ids)}",
                            duration=rng.choice((0.5, 1, 2)),
                            aspect_ratio="1:1",
                            webhook_url=hook_url,
                            metadata={"n": str(len(ids))},
                        )
                    )
                unfinished_at_kills.append(len(ids) - await client.completed(servers[-1]))
                servers[-1].kill9()
                servers.append(ServeProcess(env))
                await servers[-1].start()

            assert all(unfinished_at_kills), unfinished_at_kills  # every kill cut work short
            done = await client.wait_all(servers[-1], ids, timeout=120)
            assert [done[g]["status"] for g in ids] == ["completed"] * GENERATIONS, [
                (g, done[g]["status"], done[g]["error"]) for g in ids
            ]
            # A delivery claimed by a killed process waits for its lease to run out.
            await webhooks_for(receiver, set(ids), timeout=100)
            video = await http.get(done[ids[0]]["video_url"])
            assert video.status_code == 200 and video.content[4:8] == b"ftyp"
    finally:
        for server in servers:
            server.stop()

    verifier = Webhook(key["webhook_secret"])
    hooks: dict[str, set[str]] = {}
    for hook in receiver.received:
        payload = verifier.verify(hook.body, hook.headers)
        assert payload["status"] == "completed"
        hooks.setdefault(payload["id"], set()).add(hook.headers["webhook-id"])
    assert set(hooks) == set(ids)
    # A webhook sent and not yet recorded when its process died is sent again, under the
    # same webhook-id (so receivers can drop it): at most a few, never one per generation.
    assert all(len(message_ids) == 1 for message_ids in hooks.values()), hooks
    duplicates = len(receiver.received) - len(ids)
    assert duplicates <= KILLS, f"{duplicates} duplicate webhooks for {KILLS} kills"


async def test_sigterm_mid_render_exits_within_the_grace_period_and_the_work_resumes(
    tmp_path: Path,
) -> None:
    env = cli_env(tmp_path / "data", VIDROUTER_LEASE_SECONDS="2")
    key = create_key(env)
    first, second = ServeProcess(env), ServeProcess(env)
    try:
        async with httpx.AsyncClient(timeout=15) as http:
            client = Client(http, key["key"])
            await first.start()
            # A long render (tens of seconds on 2 cores): waiting for it would overrun.
            gen_id = await client.create(
                first, model="local-preview", prompt="drain me", duration=20, aspect_ratio="16:9"
            )
            deadline = time.monotonic() + 60
            body = await client.get(first, gen_id)
            while not (body["status"] == "in_progress" and body["progress"] > 0):
                assert time.monotonic() < deadline, body
                await asyncio.sleep(0.1)
                body = await client.get(first, gen_id)

            started = time.monotonic()
            code = await first.terminate(timeout=60)
            elapsed = time.monotonic() - started
            assert code == 0, first.log.read_text()[-2000:]
            assert elapsed < SHUTDOWN_GRACE_SECONDS + HTTP_SHUTDOWN_SECONDS, elapsed
            assert first.proc is not None
            # The render was stopped, not waited for: it wrote no video (renders write
            # theirs at the end, in one rename).
            assert not (tmp_path / "data" / "work" / "local" / f"local_{gen_id}.mp4").exists()

            await second.start()
            done = await client.wait_all(second, [gen_id], timeout=120)
            assert done[gen_id]["status"] == "completed", done[gen_id]
            assert done[gen_id]["duration"] == 20
    finally:
        first.stop()
        second.stop()
