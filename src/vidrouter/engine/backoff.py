"""When to try again: exponential backoff with full jitter, and the provider's Retry-After."""

from __future__ import annotations

import random
from datetime import timedelta


def full_jitter(
    tries: int, *, base: float = 2.0, cap: float = 300.0, rng: random.Random | None = None
) -> timedelta:
    """A random delay in [0, min(cap, base * 2**tries)] (AWS's "full jitter")."""
    ceiling = min(cap, base * (2 ** min(tries, 30)))
    return timedelta(seconds=(rng or random).uniform(0, ceiling))


def retry_delay(tries: int, retry_after: float | None, *, cap: float = 300.0) -> timedelta:
    """Honour the provider's Retry-After when it gave one, else back off with jitter."""
    if retry_after is not None and retry_after >= 0:
        return timedelta(seconds=min(retry_after, 3600.0))
    return full_jitter(tries, cap=cap)


def poll_delay(interval: timedelta, max_interval: timedelta, polls: int) -> timedelta:
    """Polls slow down geometrically while a job runs, with +-10% jitter to spread load."""
    grown = interval.total_seconds() * (1.25 ** min(polls, 40))
    seconds = min(max_interval.total_seconds(), grown)
    return timedelta(seconds=seconds * random.uniform(0.9, 1.1))
