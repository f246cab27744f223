"""The process pool of local renders, whose processes never outlive the service.

`kill -9` of `vidrouter serve` (what the OOM killer does) gives its children no chance to be
told; adopted by init they would render on, ~140 MB each. Two guards, in each render process:

- Linux's parent-death signal (`prctl(PR_SET_PDEATHSIG, SIGKILL)`): the kernel kills the
  process the moment the thread that started it dies. The pool starts its processes from
  the event loop's thread, which lives as long as the service.
- a watcher thread that exits the process once its parent is no longer the one that
  started it (for systems without prctl, and the moment between start-up and prctl).
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import multiprocessing
import os
import signal
import threading
import time
from concurrent.futures import Executor, ProcessPoolExecutor

PR_SET_PDEATHSIG = 1
WATCH_SECONDS = 0.5


def make_render_pool(processes: int) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(
        max_workers=processes,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=init_render_process,
        initargs=(os.getpid(),),
    )


def init_render_process(parent_pid: int) -> None:
    _die_with_parent()
    if os.getppid() != parent_pid:
        os._exit(1)  # the parent died before the guard was in place
    threading.Thread(target=_watch_parent, args=(parent_pid,), daemon=True).start()
    # Renders are batch work: the API in the parent process must stay responsive.
    with contextlib.suppress(OSError):
        os.nice(10)


def _die_with_parent() -> None:
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)


def _watch_parent(parent_pid: int) -> None:
    while True:
        time.sleep(WATCH_SECONDS)
        if os.getppid() != parent_pid:
            os._exit(1)


def stop_render_pool(pool: Executor) -> None:
    """Stop the render processes now: a render cut short is started again by whichever
    worker next polls it, and waiting for it would hold up the exit."""
    # Taken before shutdown(), which forgets them (and interpreter exit would then wait for
    # every render in progress to finish).
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        with contextlib.suppress(OSError, AttributeError):
            process.terminate()
