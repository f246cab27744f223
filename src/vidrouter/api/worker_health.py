"""What a `--role worker` process serves on its port: liveness and readiness, nothing else."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from vidrouter.api.deps import Readiness


def worker_health_app(readiness: Readiness) -> Starlette:
    async def healthz(_: Request) -> JSONResponse:
        return JSONResponse({"status": "ok"})

    async def readyz(_: Request) -> JSONResponse:
        ready, body = await readiness.check()
        return JSONResponse(body, status_code=200 if ready else 503)

    return Starlette(routes=[Route("/healthz", healthz), Route("/readyz", readyz)])
