"""Readiness of one process: which of its dependencies works, checked for real.

- database: a read AND a small write (a full disk or a read-only replica still answers
  `SELECT 1`, yet every create would fail);
- storage: a small blob written and removed (a full disk, a store that is down or refuses
  our credentials);
- workers: the engine's loops run (only in the roles that run them).

Each check has a time limit: a dependency that hangs is as down as one that refuses.
Also the small HTTP app a `--role worker` process serves: `/healthz` and `/readyz`.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import insert, update
from sqlalchemy.exc import IntegrityError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from vidrouter.service import Service
from vidrouter.store.tables import service_values

log = logging.getLogger(__name__)

CHECK_SECONDS = 3.0
_PROBE = "readiness_probe"


async def readiness(service: Service) -> tuple[bool, dict[str, Any]]:
    """(ready, the body /readyz answers)."""
    database, storage = await asyncio.gather(_database(service), _storage(service))
    body: dict[str, Any] = {"database": database is None, "storage": storage is None}
    problems = {k: v for k, v in (("database", database), ("storage", storage)) if v}
    if service.settings.role != "api":
        body["workers"] = service.workers_running
        if not body["workers"]:
            problems["workers"] = "the work loops are not running"
    ready = not problems
    body = {"status": "ready" if ready else "not_ready", **body}
    if problems:
        body["problems"] = problems
    return ready, body


async def _database(service: Service) -> str | None:
    try:
        async with asyncio.timeout(CHECK_SECONDS):
            if not await service.db.ping():
                return "the database does not answer"
            await _write_probe(service)
    except TimeoutError:
        return f"the database did not answer within {CHECK_SECONDS:g} s"
    except Exception as exc:
        log.warning("readiness_write_failed", exc_info=True)
        return f"the database refuses writes: {type(exc).__name__}"
    return None


async def _write_probe(service: Service) -> None:
    now = datetime.now(UTC).isoformat()
    async with service.db.write() as conn:
        result = await conn.execute(
            update(service_values).where(service_values.c.name == _PROBE).values(value=now)
        )
        if result.rowcount:
            return
    try:
        async with service.db.write() as conn:
            await conn.execute(insert(service_values).values(name=_PROBE, value=now))
    except IntegrityError:
        pass  # another process wrote it first: the write path works


async def _storage(service: Service) -> str | None:
    try:
        async with asyncio.timeout(CHECK_SECONDS):
            await service.storage.check()
    except TimeoutError:
        return f"the video storage did not answer within {CHECK_SECONDS:g} s"
    except Exception as exc:
        return str(exc)[:300]
    return None


def health_app(service: Service) -> Starlette:
    """What a `--role worker` process serves: liveness and readiness, nothing else."""

    async def healthz(_: Request) -> JSONResponse:
        return JSONResponse({"status": "ok"})

    async def readyz(_: Request) -> JSONResponse:
        ready, body = await readiness(service)
        return JSONResponse(body, status_code=200 if ready else 503)

    return Starlette(routes=[Route("/healthz", healthz), Route("/readyz", readyz)])
