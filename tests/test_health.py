"""Liveness and readiness."""

from __future__ import annotations

from pathlib import Path

from tests.support.harness import Harness, running, test_settings


async def test_healthz_and_readyz(app: Harness) -> None:
    assert (await app.client.get("/healthz")).json() == {"status": "ok"}
    ready = await app.client.get("/readyz")
    assert ready.status_code == 200
    assert ready.json() == {
        "status": "ready",
        "database": True,
        "storage": True,
        "workers": True,
    }


async def test_not_ready_without_workers(tmp_path: Path) -> None:
    async with running(test_settings(tmp_path / "d"), workers=False) as app:
        ready = await app.client.get("/readyz")
        assert ready.status_code == 503
        assert ready.json()["workers"] is False
