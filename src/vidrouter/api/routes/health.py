"""Liveness and readiness probes (no API key)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from vidrouter.api.deps import ReadinessDep

router = APIRouter(tags=["health"])


@router.get("/healthz", response_model=None)
async def healthz() -> JSONResponse:
    return JSONResponse({"status": "ok"})


@router.get("/readyz", response_model=None)
async def readyz(process: ReadinessDep) -> JSONResponse:
    database = await process.database_ok()
    workers = process.workers_running
    ready = database and workers
    return JSONResponse(
        {"status": "ready" if ready else "not_ready", "database": database, "workers": workers},
        status_code=200 if ready else 503,
    )
