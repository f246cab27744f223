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
    ready, body = await process.check()
    return JSONResponse(body, status_code=200 if ready else 503)
