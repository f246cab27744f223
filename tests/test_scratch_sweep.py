"""Crash leftovers: a worker killed mid-run leaves its scratch files (local renders, their
progress files, downloads being checked); a worker that starts on that directory removes
those of jobs nobody holds, and never a live job's."""

from __future__ import annotations

import asyncio
import os
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from tests.support.process import ServeProcess, cli_env, create_key
from tests.support.rows import generation
from vidrouter.domain.generation import Generation, Status, Step
from vidrouter.engine.scratch import sweep_work_dir
from vidrouter.store.database import Database
from vidrouter.store.generations import GenerationStore
from vidrouter.store.keys import KeyStore

NOW = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
LEASE = 30.0
IDLE = 120.0  # longer than two leases and the one-minute floor


def _file(path: Path, idle_seconds: float = 0.0) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"x")
    when = time.time() - idle_seconds
    os.utime(path, (when, when))
    return path


async def _account(db: Database) -> str:
    created = await KeyStore(db).create("t")
    return created.key.account_id


def _unfinished(
    account: str, owner: str | None = None, until: datetime | None = None
) -> Generation:
    """Waiting on its provider, leased by `owner` until `until` (or by nobody)."""
    return generation(
        account,
        NOW,
        status=Status.IN_PROGRESS,
        step=Step.POLL,
        lease_owner=owner,
        lease_until=until,
    )


async def test_files_of_jobs_nobody_holds_are_removed_and_live_jobs_files_kept(
    db: Database, tmp_path: Path
) -> None:
    store = GenerationStore(db)
    account = await _account(db)
    done = generation(account, NOW, status=Status.COMPLETED, step=Step.DONE)
    waiting = _unfinished(account)
    leased = _unfinished(account, "another-process", NOW + timedelta(seconds=20))
    expired = _unfinished(account, "a-killed-process", NOW - timedelta(seconds=1))
    for g in (done, waiting, leased, expired):
        await store.insert(g)
    work = tmp_path / "work"
    local, downloads, copies = work / "local", work / "downloads", work / "inputs"
    gone = [
        # Input copies (object storage) of a finished generation, whose source was another.
        _file(copies / f"{done.id}-videos-{waiting.id}.mp4"),
        _file(copies / f"{done.id}-inputs-{done.id}-ref0.png.part"),
        # A finished generation's render, progress, partial render and download.
        _file(local / f"local_{done.id}.mp4"),
        _file(local / f"local_{done.id}.progress"),
        _file(local / f".local_{done.id}.mp4.0123456789ab.part"),
        _file(downloads / f"{done.id}.0123456789ab.mp4"),
        # A generation that no longer exists (deleted).
        _file(local / "local_gen_deletedXXXXXXXXXXXXXXXX.mp4"),
        # A download nobody holds the lease for, untouched for long: its writer died.
        _file(downloads / f"{expired.id}.0123456789ab.mp4", idle_seconds=IDLE),
        # A download named by an older version (no generation in its name), long idle.
        _file(downloads / "4242-0123456789abcdef.mp4", idle_seconds=IDLE),
    ]
    kept = [
        # An unfinished generation's input copies, however old: a render started again
        # after a kill reads them (the source named in them is a finished one's).
        _file(copies / f"{waiting.id}-videos-{done.id}.mp4", idle_seconds=IDLE),
        _file(copies / f"{expired.id}-inputs-{expired.id}-ref0.png", idle_seconds=IDLE),
        # A waiting generation's finished render and progress: its next poll takes them.
        _file(local / f"local_{waiting.id}.mp4", idle_seconds=IDLE),
        _file(local / f"local_{waiting.id}.progress", idle_seconds=IDLE),
        # Renders being written by some process sharing the directory, however quiet.
        _file(local / f".local_{waiting.id}.mp4.fedcba987654.part"),
        _file(local / f".local_{waiting.id}.mp4.0123456789ab.part", idle_seconds=IDLE),
        # A recent download of an unleased generation (a lease may have just lapsed).
        _file(downloads / f"{waiting.id}.0123456789ab.mp4"),
        # A leased generation's download, however old: its holder may be checking it.
        _file(downloads / f"{leased.id}.0123456789ab.mp4", idle_seconds=IDLE),
        _file(local / f".local_{leased.id}.mp4.0123456789ab.part", idle_seconds=IDLE),
        # Not a job's file at all.
        _file(work / "notes.txt", idle_seconds=IDLE),
    ]

    await sweep_work_dir(work, store, NOW, LEASE)

    assert [p for p in gone if p.exists()] == []
    assert [p for p in kept if not p.exists()] == []


async def test_a_missing_work_dir_is_nothing_to_sweep(db: Database, tmp_path: Path) -> None:
    await sweep_work_dir(tmp_path / "never", GenerationStore(db), NOW, LEASE)
    assert not (tmp_path / "never").exists()


@pytest.mark.system
async def test_a_restarted_worker_sweeps_the_renders_other_workers_finished(
    tmp_path: Path,
) -> None:
    """The crash of the report: a worker killed mid-run on its own disk, its generations
    finished by another worker, its finished renders and progress files left behind until
    it starts again."""
    shared = {
        "VIDROUTER_STORAGE_URL": f"file://{tmp_path / 'blobs'}",
        "VIDROUTER_LEASE_SECONDS": "2",
        "VIDROUTER_IDLE_POLL_SECONDS": "0.2",
        "VIDROUTER_RATE_LIMIT_RPM": "100000",
    }
    database_url = f"sqlite+aiosqlite:///{tmp_path / 'shared.sqlite3'}"
    killed_env = cli_env(tmp_path / "killed", database_url, **shared)
    other_env = cli_env(tmp_path / "other", database_url, **shared)
    key = create_key(killed_env)["key"]
    local = tmp_path / "killed" / "work" / "local"
    killed, other, restarted = ServeProcess(killed_env), ServeProcess(other_env), None
    try:
        async with httpx.AsyncClient(timeout=15) as http:
            await killed.start()
            ids = [await _create(http, killed.base_url, key, d) for d in (0.5, 1, 1)]
            # Killed once the short ones rendered (their MP4s waiting to be fetched or
            # fetched) while the long ones render.
            await _until(lambda: len(list(local.glob("*.progress"))) >= 2, timeout=30)
            killed.kill9()
            await other.start()
            for gen_id in ids:
                await _until_completed(http, other.base_url, key, gen_id)
            leftovers = {p.name for p in local.iterdir() if any(g in p.name for g in ids)}
            assert leftovers, "the killed worker left nothing behind: the test cut no render"
            restarted = ServeProcess(killed_env)
            await restarted.start()
            await _until(
                lambda: not [p for p in local.iterdir() if any(g in p.name for g in ids)],
                timeout=15,
            )
    finally:
        for server in (killed, other, restarted):
            if server is not None:
                server.stop()


async def _create(http: httpx.AsyncClient, base_url: str, key: str, duration: float) -> str:
    r = await http.post(
        f"{base_url}/v1/generations",
        headers={"Authorization": f"Bearer {key}"},
        json={"model": "local-preview", "prompt": "p", "duration": duration},
    )
    assert r.status_code == 202, r.text
    return str(r.json()["id"])


async def _until_completed(http: httpx.AsyncClient, base_url: str, key: str, gen_id: str) -> None:
    async def status() -> str:
        r = await http.get(
            f"{base_url}/v1/generations/{gen_id}", headers={"Authorization": f"Bearer {key}"}
        )
        return str(r.json()["status"])

    deadline = time.monotonic() + 60
    while (current := await status()) != "completed":
        assert current not in ("failed", "canceled") and time.monotonic() < deadline, current
        await asyncio.sleep(0.2)


async def _until(condition: object, timeout: float) -> None:
    assert callable(condition)
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"not within {timeout}s"
        await asyncio.sleep(0.1)
