"""Readiness of one process: which of its dependencies works, checked for real.

- database: a read AND a small write (a full disk or a read-only replica still answers
  `SELECT 1`, yet every create would fail);
- storage: a small blob written and removed (a full disk, a store that is down or refuses
  our credentials);
- workers: the engine's loops run (only in the roles that run them).

Each check has a time limit: a dependency that hangs is as down as one that refuses.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import insert, update
from sqlalchemy.exc import IntegrityError

from vidrouter.storage.base import BlobStorage
from vidrouter.store.database import Database
from vidrouter.store.tables import service_values

log = logging.getLogger(__name__)

CHECK_SECONDS = 3.0
_PROBE = "readiness_probe"


class ReadinessCheck:
    def __init__(
        self,
        db: Database,
        storage: BlobStorage,
        *,
        workers_running: Callable[[], bool] | None,
    ) -> None:
        """`workers_running`: None in a process that runs no workers (`--role api`)."""
        self._db = db
        self._storage = storage
        self._workers_running = workers_running

    async def check(self) -> tuple[bool, dict[str, Any]]:
        """(ready, the body /readyz answers)."""
        database, storage = await asyncio.gather(self._database(), self._storage_problem())
        body: dict[str, Any] = {"database": database is None, "storage": storage is None}
        problems = {k: v for k, v in (("database", database), ("storage", storage)) if v}
        if self._workers_running is not None:
            body["workers"] = self._workers_running()
            if not body["workers"]:
                problems["workers"] = "the work loops are not running"
        ready = not problems
        body = {"status": "ready" if ready else "not_ready", **body}
        if problems:
            body["problems"] = problems
        return ready, body

    async def _database(self) -> str | None:
        try:
            async with asyncio.timeout(CHECK_SECONDS):
                if not await self._db.ping():
                    return "the database does not answer"
                await self._write_probe()
        except TimeoutError:
            return f"the database did not answer within {CHECK_SECONDS:g} s"
        except Exception as exc:
            log.warning("readiness_write_failed", exc_info=True)
            return f"the database refuses writes: {type(exc).__name__}"
        return None

    async def _write_probe(self) -> None:
        now = datetime.now(UTC).isoformat()
        async with self._db.write() as conn:
            result = await conn.execute(
                update(service_values).where(service_values.c.name == _PROBE).values(value=now)
            )
            if result.rowcount:
                return
        try:
            async with self._db.write() as conn:
                await conn.execute(insert(service_values).values(name=_PROBE, value=now))
        except IntegrityError:
            pass  # another process wrote it first: the write path works

    async def _storage_problem(self) -> str | None:
        try:
            async with asyncio.timeout(CHECK_SECONDS):
                await self._storage.check()
        except TimeoutError:
            return f"the video storage did not answer within {CHECK_SECONDS:g} s"
        except Exception as exc:
            return str(exc)[:300]
        return None
