"""Many machines, played by processes: 2 `--role api` + 2 `--role worker` on PostgreSQL and an
S3-compatible store (moto over HTTP), a fast fake upstream in its own process.

200 generations are created through one API node and read through the other; a worker is
`kill -9`'d and restarted mid-run. Every generation completes once (one terminal state, one
webhook id), every webhook arrives, every `video_url` plays from either API node, no video
stays on any process's local disk, and no process is left behind.

Also: the render processes of a `vidrouter serve` killed with SIGKILL (alone, as the OOM
killer does, not its process group) exit by themselves.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from tests.support.chaos import MODEL
from tests.support.process import ServeProcess, cli_env, create_key
from tests.support.receiver import WebhookReceiver
from tests.support.scaleout import (
    UPSTREAM_KEY,
    UPSTREAM_KEY_ENV,
    local_videos,
    s3_server,
    upstream_catalog,
)
from tests.support.servers import free_port, serve_app
from tests.support.video import decode

GENERATIONS = 200
TERMINAL = ("completed", "failed", "canceled")


def _descendants_alive(pids: set[int]) -> set[int]:
    """Processes still running whose session or parent chain started at one of `pids`."""
    alive: set[int] = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        state, ppid, sid = fields[0], int(fields[1]), int(fields[3])
        if state == "Z":
            continue
        if int(entry) in pids or sid in pids or ppid in pids:
            alive.add(int(entry))
    return alive


async def _wait_gone(pids: set[int], timeout: float = 20.0) -> set[int]:
    deadline = time.monotonic() + timeout
    while (alive := _descendants_alive(pids)) and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    return alive


class Upstream:
    """The chaos fake (OpenAI-style /v1/videos) in its own process: fast and fault-free."""

    def __init__(self, report: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.report = report
        self.proc: subprocess.Popen[bytes] | None = None

    async def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.fakes.chaos",
                "--port",
                str(self.port),
                "--api-key",
                UPSTREAM_KEY,
                "--report",
                str(self.report),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        async with httpx.AsyncClient() as client:
            for _ in range(300):
                try:
                    await client.get(self.url + "/v1/videos/none")
                    return
                except httpx.TransportError:
                    await asyncio.sleep(0.1)
        raise RuntimeError("the fake upstream did not start")

    def stop(self) -> dict[str, Any]:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGINT)
        self.proc.wait(20)
        return json.loads(self.report.read_text())  # type: ignore[no-any-return]


def _on(base_url: str, url: str) -> str:
    """The same signed URL, asked of another API node."""
    target = urlsplit(base_url)
    parts = urlsplit(url)
    return urlunsplit((target.scheme, target.netloc, parts.path, parts.query, ""))


async def test_two_api_and_two_worker_processes_on_postgres_and_s3(
    tmp_path: Path, postgres_url: str
) -> None:
    upstream = Upstream(tmp_path / "upstream.json")
    await upstream.start()
    processes: list[ServeProcess] = []
    receiver = WebhookReceiver()
    try:
        with s3_server() as s3:
            bucket = s3.new_bucket()
            catalog = upstream_catalog(tmp_path / "catalog.toml", upstream.url)

            def env(role: str, n: int) -> dict[str, str]:
                return cli_env(
                    tmp_path / f"{role}{n}" / "data",
                    postgres_url,
                    VIDROUTER_ROLE=role,
                    VIDROUTER_STORAGE_URL=f"s3://{bucket}/deploy",
                    VIDROUTER_CATALOG=str(catalog),
                    VIDROUTER_PROVIDER_DELAY_SCALE="0.02",
                    VIDROUTER_LEASE_SECONDS="2",
                    VIDROUTER_WORKERS="16",
                    VIDROUTER_WEBHOOK_RETRY_SCHEDULE="0.2,0.5,1,1,1,1,1",
                    VIDROUTER_RATE_LIMIT_RPM="1000000",
                    VIDROUTER_MAX_CONCURRENT_GENERATIONS="1000",
                    VIDROUTER_POLL_CACHE_SECONDS="0",
                    **{UPSTREAM_KEY_ENV: UPSTREAM_KEY},
                    **s3.env(),
                )

            for n in (1, 2):
                (tmp_path / f"api{n}").mkdir()
                (tmp_path / f"worker{n}").mkdir()
            key = create_key(env("api", 1))["key"]
            api = [ServeProcess(env("api", n)) for n in (1, 2)]
            workers = [ServeProcess(env("worker", n)) for n in (1, 2)]
            processes += [*api, *workers]
            t0 = time.monotonic()
            await asyncio.gather(*(p.start() for p in processes))
            print(f"started: {time.monotonic() - t0:.1f}s", flush=True)
            all_pids = {p.proc.pid for p in processes if p.proc is not None}

            headers = {"Authorization": f"Bearer {key}"}
            async with serve_app(receiver) as hook_url, httpx.AsyncClient(timeout=30) as http:
                # The worker's port serves health only: no API there.
                assert (
                    await http.get(workers[0].base_url + "/v1/models", headers=headers)
                ).status_code == 404
                ids: list[str] = []
                for n in range(GENERATIONS):
                    r = await http.post(
                        api[0].base_url + "/v1/generations",
                        headers=headers,
                        json={"model": MODEL, "prompt": f"fox {n}", "webhook_url": hook_url},
                    )
                    assert r.status_code == 202, r.text
                    ids.append(r.json()["id"])
                    if n == GENERATIONS // 3:
                        workers[0].kill9()  # mid-run: it holds leases, renders, uploads
                    if n == GENERATIONS // 2:
                        restarted = ServeProcess(workers[0].env)
                        processes.append(restarted)
                        await restarted.start()
                        assert restarted.proc is not None
                        all_pids.add(restarted.proc.pid)

                print(f"created: {time.monotonic() - t0:.1f}s", flush=True)
                done: dict[str, dict[str, Any]] = {}
                deadline = time.monotonic() + 90
                while len(done) < len(ids):
                    for gen_id in ids:
                        if gen_id in done:
                            continue
                        r = await http.get(
                            f"{api[1].base_url}/v1/generations/{gen_id}", headers=headers
                        )
                        assert r.status_code == 200, r.text
                        if r.json()["status"] in TERMINAL:
                            done[gen_id] = r.json()
                    assert time.monotonic() < deadline, f"{len(ids) - len(done)} unfinished"
                    await asyncio.sleep(0.2)
                assert {g["status"] for g in done.values()} == {"completed"}, [
                    g for g in done.values() if g["status"] != "completed"
                ][:3]
                # Each finished once: the completed attempt appears once.
                for g in done.values():
                    assert [a["outcome"] for a in g["attempts"]].count("completed") == 1, g

                print(f"finished: {time.monotonic() - t0:.1f}s", flush=True)
                await receiver.wait_for(GENERATIONS, timeout=60)
                print(f"webhooks: {time.monotonic() - t0:.1f}s", flush=True)
                hook_ids: defaultdict[str, set[str]] = defaultdict(set)
                for hook in receiver.received:
                    body = json.loads(hook.body)
                    assert body["status"] == "completed"
                    hook_ids[body["id"]].add(hook.headers["webhook-id"])
                assert set(hook_ids) == set(ids)
                assert all(len(v) == 1 for v in hook_ids.values())  # one event each

                for n, gen_id in enumerate(ids):
                    url = done[gen_id]["video_url"]
                    first = await http.get(_on(api[n % 2].base_url, url))
                    second = await http.get(_on(api[(n + 1) % 2].base_url, url))
                    assert first.status_code == second.status_code == 200
                    assert first.content == second.content
                    if n % 10 == 0:
                        assert decode(first.content, tmp_path).frames > 0
                    else:
                        assert first.content[4:8] == b"ftyp"

            print(f"read: {time.monotonic() - t0:.1f}s", flush=True)
            videos = [k for k in s3.object_keys(bucket) if k.endswith(".mp4")]
            assert len(videos) == GENERATIONS  # each beside its poster and sprite sheet
            for n in (1, 2):
                for role in ("api", "worker"):
                    assert local_videos(tmp_path / f"{role}{n}") == []
            for p in processes:
                if p.proc is not None and p.proc.poll() is None:
                    assert await p.terminate() == 0
            assert await _wait_gone(all_pids) == set()
    finally:
        for p in processes:
            p.stop()
        report = upstream.stop()
    accepted: defaultdict[str, int] = defaultdict(int)
    for job in report["accepted"]:
        accepted[job["client_request_id"]] += 1
    assert set(accepted) == set(ids)


async def test_kill9_of_serve_alone_leaves_no_render_process(tmp_path: Path) -> None:
    env = cli_env(tmp_path / "data", VIDROUTER_RENDER_PROCESSES="2")
    key = create_key(env)["key"]
    server = ServeProcess(env)
    await server.start()
    try:
        assert server.proc is not None
        pid = server.proc.pid
        async with httpx.AsyncClient(timeout=30) as http:
            for n in range(4):
                r = await http.post(
                    server.base_url + "/v1/generations",
                    headers={"Authorization": f"Bearer {key}"},
                    json={"model": "local-preview", "prompt": f"orphan {n}", "duration": 20},
                )
                assert r.status_code == 202
        children: set[int] = set()
        for _ in range(100):
            children = _descendants_alive({pid}) - {pid}
            if len(children) >= 2:
                break
            await asyncio.sleep(0.1)
        assert len(children) >= 2, "the render processes did not start"
        renders = tmp_path / "data" / "work" / "local"
        for _ in range(200):  # until a render is under way (its progress past 0)
            if any(p.read_text().strip() not in ("", "0") for p in renders.glob("*.progress")):
                break
            await asyncio.sleep(0.05)
        os.kill(pid, signal.SIGKILL)  # the server alone: its children are not signalled
        server.proc.wait(10)
        assert await _wait_gone(children) == set()
        # They died with it, mid-render: an orphan would have rendered on to the end (and
        # only then found its parent gone), leaving a finished video behind.
        assert sorted(renders.glob("local_*.mp4")) == []
    finally:
        server.stop()


def test_an_unknown_role_is_refused(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "vidrouter.cli", "serve", "--role", "everything"],
        env=cli_env(tmp_path / "data"),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2
    assert "--role must be one of all, api, worker" in result.stderr
