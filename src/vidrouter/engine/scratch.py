"""What a killed process left in the scratch directory, swept when a worker starts.

A process killed mid-run cannot clean up: its downloads being checked, its local renders
(finished ones too, whose generations other workers then finished) and the copies of kept
inputs it made for them on object storage (`inputs/`, engine/inputs.py) stay in its work
directory. Every scratch file is named for its generation, so the store says who may still
need it: nothing of a finished, canceled or deleted generation is. Every file of an
unfinished one is kept (a render in progress in another process sharing the directory, a
finished render the next poll takes), except a download nobody holds the lease for and
nobody wrote to for a while: downloads happen only inside a leased step. Several processes
may share the directory, so a live job's files are never touched.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from vidrouter.store.database import StoreError
from vidrouter.store.generations import GenerationStore

log = logging.getLogger(__name__)

_GENERATION = re.compile(r"gen_[A-Za-z0-9]+")
# An unleased download untouched for this long (or two leases) has no writer left: a live
# download streams, and its step renews the lease.
_QUIET_FLOOR_SECONDS = 60.0
DOWNLOADS = "downloads"  # under the work directory: every file there is a step's download


@dataclass(frozen=True)
class _Leftover:
    path: Path
    generation_id: str | None
    download: bool
    idle_seconds: float  # since it was last written


async def sweep_work_dir(
    work_dir: Path, generations: GenerationStore, now: datetime, lease_seconds: float
) -> None:
    """Remove the scratch files under `work_dir` that no live job needs."""
    quiet_seconds = max(_QUIET_FLOOR_SECONDS, 2 * lease_seconds)
    try:
        files = await asyncio.to_thread(_leftovers, work_dir)
        named = sorted({f.generation_id for f in files if f.generation_id is not None})
        unfinished = await generations.unfinished_leases(named, now=now)
        doomed = [f.path for f in files if _unneeded(f, unfinished, quiet_seconds)]
        await asyncio.to_thread(_remove, doomed)
    except (OSError, StoreError):
        # The next start tries again; nothing depends on it meanwhile.
        log.warning("scratch_sweep_failed", exc_info=True)
        return
    if doomed:
        log.info("scratch_swept", extra={"removed": len(doomed), "work_dir": str(work_dir)})


def _unneeded(f: _Leftover, unfinished: dict[str, bool], quiet_seconds: float) -> bool:
    quiet = f.download and f.idle_seconds > quiet_seconds
    if f.generation_id is None:
        return quiet  # a download named by an older version: only its age tells
    if f.generation_id not in unfinished:
        return True  # finished, canceled or deleted: nothing will read it again
    if unfinished[f.generation_id]:
        return False  # leased: a process may be writing or reading it right now
    return quiet  # unleased: only a download is known to be nobody's


def _leftovers(work_dir: Path) -> list[_Leftover]:
    if not work_dir.is_dir():
        return []
    downloads = work_dir / DOWNLOADS
    wall = time.time()
    found: list[_Leftover] = []
    for path in work_dir.rglob("*"):
        try:
            stat = path.stat()
        except FileNotFoundError:
            continue  # removed meanwhile by its owner
        if not path.is_file():
            continue
        match = _GENERATION.search(path.name)
        found.append(
            _Leftover(
                path=path,
                generation_id=match.group(0) if match else None,
                download=path.parent == downloads,
                idle_seconds=wall - stat.st_mtime,
            )
        )
    return [f for f in found if f.generation_id is not None or f.path.parent == downloads]


def _remove(paths: list[Path]) -> None:
    for path in paths:
        path.unlink(missing_ok=True)
