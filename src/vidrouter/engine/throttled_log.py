"""Logging a failure that repeats: at most one line per interval per kind of failure.

A full disk or a database that refuses writes makes every claim, renewal and save fail the
same way, many times a second. The first failure of a run is logged with its traceback;
while it goes on, one line per interval says how often it happened meanwhile.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping


class ThrottledLog:
    def __init__(
        self,
        logger: logging.Logger,
        *,
        interval: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._logger = logger
        self._interval = interval
        self._clock = clock
        self._last: dict[str, float] = {}
        self._suppressed: dict[str, int] = {}
        self._failing: set[str] = set()  # kinds in a run of failures

    def failure(self, kind: str, exc: BaseException, extra: Mapping[str, object]) -> None:
        """Log `exc` under `kind` unless a line of that kind was written within the interval."""
        now = self._clock()
        last = self._last.get(kind)
        if last is not None and now - last < self._interval:
            self._suppressed[kind] = self._suppressed.get(kind, 0) + 1
            return
        repeated = self._suppressed.pop(kind, 0)
        self._last[kind] = now
        fields = {**extra, "failure": kind, "repeated": repeated}
        if kind not in self._failing:  # the first of a run: the whole traceback, once
            self._failing.add(kind)
            self._logger.error(kind, extra=fields, exc_info=exc)
        else:
            self._logger.error(
                "%s (again: %s: %s; %d more since the last line)",
                kind,
                type(exc).__name__,
                str(exc)[:200],
                repeated,
                extra=fields,
            )

    def recovered(self, kind: str) -> None:
        """The operation of `kind` worked again: the next failure starts a new run (its
        line still waits for the interval, so a flapping failure stays at one a second)."""
        if kind in self._failing:
            self._failing.discard(kind)
            repeated = self._suppressed.pop(kind, 0)
            self._logger.warning(
                "%s_recovered",
                kind,
                extra={"failure": kind, "recovered": True, "repeated": repeated},
            )
