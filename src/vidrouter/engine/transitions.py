"""The engine's state decisions, without I/O: from a row, the time and what happened, the row
it must become and the effects the caller owes (a circuit to record, a job to cancel at its
provider). `advance.py` calls providers, storage and circuits and applies these decisions;
everything here can be tested with plain values.

Decisions made here:
- after a provider error: fail now, or try again (and whether it counts against the route);
- the failover choice: the next route at once, or the same routes again after a backoff;
- after a job the provider failed: submit again elsewhere, or give up (and whether its
  route is charged: not for the client's own errors);
- after a job outran its route's limit (a hang): move to another route, or give up;
- at the deadline: what the time-out reports and whether a job is to be canceled;
- after a crashed step (a bug, a killed worker's lost work): try again later or fail.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from enum import Enum
from typing import Any

from vidrouter.domain.generation import Attempt, Generation, GenerationError, Status, Step
from vidrouter.engine.backoff import retry_delay
from vidrouter.providers.base import AuthFailed, ProviderError, RateLimited

MAX_TRIES = 8  # consecutive retryable failures of one step before the generation fails
# Jobs a provider accepted and then failed (or that hung): each may have cost money, so few
# are tried.
MAX_JOB_FAILURES = 3
STORAGE_UNAVAILABLE = "storage_unavailable"  # our storage full or unreachable
JOB_LOST_OUTCOMES = frozenset({"failed", "timed_out"})
# A job failed for these reasons is the client's doing: its route delivered what it could.
CLIENT_ERRORS = frozenset({"content_policy", "invalid_input"})

Backoff = Callable[[int, float | None], timedelta]
"""(tries so far, the provider's Retry-After or None) -> the wait before the next try."""


@dataclass(frozen=True)
class Pacing:
    """How long retries wait: `backoff`, times `scale` (the provider delay scale)."""

    scale: float = 1.0
    backoff: Backoff = retry_delay


PACING = Pacing()


class CircuitEffect(Enum):
    """What a provider error means for its route's circuit breaker."""

    NONE = "none"
    FAILURE = "failure"  # one more retryable failure
    FATAL = "fatal"  # our credentials were refused: open the circuit at once
    # Breakers judge delivery (docs/routing.md): a job the route accepted and then failed
    # for its own reasons, or one that outran the route's limit, is a failure of the route
    # and a lost job in its stats.
    JOB_FAILED = "job_failed"
    JOB_HUNG = "job_hung"


@dataclass(frozen=True)
class Decision:
    """The row to save, and what the caller must do about the route."""

    generation: Generation
    circuit: CircuitEffect = CircuitEffect.NONE


@dataclass(frozen=True)
class TimeOut:
    generation: Generation
    cancel_at_provider: bool  # a provider job is still running: stop it there first


def unleased(g: Generation, now: datetime, next_at: datetime | None, **changes: Any) -> Generation:
    """The row with changes, due again at `next_at` (None: never), its lease given back."""
    return replace(
        g, updated_at=now, next_attempt_at=next_at, lease_owner=None, lease_until=None, **changes
    )


def job_started(g: Generation, now: datetime) -> datetime:
    """When the job in hand was submitted: its `submitted` attempt (the last one)."""
    for attempt in reversed(g.attempts):
        if attempt.outcome == "submitted":
            return attempt.at
    return g.started_at or now


def failed(
    g: Generation, now: datetime, code: str, message: str, exc: ProviderError | None = None
) -> Generation:
    """The generation failed with `code`; the provider's references are kept for support."""
    return unleased(
        g,
        now,
        None,
        status=Status.FAILED,
        step=Step.DONE,
        error=GenerationError(code, message[:2000]),
        provider_error_code=(exc.provider_code if exc else None) or g.provider_error_code,
        provider_request_id=(exc.request_id if exc else None) or g.provider_request_id,
        completed_at=now,
    )


def retry_wait(
    g: Generation,
    exc: ProviderError,
    *,
    untried: bool,
    pacing: Pacing = PACING,
) -> timedelta:
    """The failover choice: a submit with routes not yet tried goes to the next one at once;
    otherwise wait (the provider's Retry-After when it gave one, else jittered backoff)."""
    if g.step is Step.SUBMIT and untried:
        return timedelta(0)
    retry_after = exc.retry_after if isinstance(exc, RateLimited) else None
    return pacing.backoff(g.tries, retry_after) * pacing.scale


def again(
    g: Generation,
    exc: ProviderError,
    now: datetime,
    *,
    untried: bool,
    pacing: Pacing = PACING,
) -> Generation:
    """Try the step again (see `retry_wait`), or fail once MAX_TRIES tries in a row failed."""
    if g.tries + 1 >= MAX_TRIES:
        return failed(g, now, exc.code, exc.message, exc)
    delay = retry_wait(g, exc, untried=untried, pacing=pacing)
    return unleased(
        g,
        now,
        now + delay,
        tries=g.tries + 1,
        provider_error_code=exc.provider_code or g.provider_error_code,
        provider_request_id=exc.request_id or g.provider_request_id,
    )


def after_error(
    g: Generation,
    exc: ProviderError,
    now: datetime,
    *,
    untried: bool,
    pacing: Pacing = PACING,
) -> Decision:
    """A provider call raised. The user's errors fail the generation; the provider's
    (retryable, or our credentials refused) count against the route and are tried again."""
    if isinstance(exc, AuthFailed):
        if g.step is Step.SUBMIT and untried:
            row = again(g, exc, now, untried=untried, pacing=pacing)
        else:
            row = failed(g, now, exc.code, exc.message, exc)
        return Decision(row, CircuitEffect.FATAL)
    if not exc.is_retryable:
        return Decision(failed(g, now, exc.code, exc.message, exc))
    row = again(g, exc, now, untried=untried, pacing=pacing)
    return Decision(row, CircuitEffect.FAILURE)


def job_failed(
    g: Generation,
    error: ProviderError,
    route_key: str,
    now: datetime,
    *,
    untried: Callable[[Generation], bool],
    pacing: Pacing = PACING,
) -> Decision:
    """The provider accepted the job and then said it failed: submit again elsewhere when
    the failure is the provider's and retryable, else the generation fails. `untried` is
    asked about the row as resubmitted (its attempts include this failure)."""
    attempt = Attempt(route_key, g.provider_job_id, "failed", now, error.code)
    g = replace(g, attempts=(*g.attempts, attempt))
    charge = CircuitEffect.NONE if error.code in CLIENT_ERRORS else CircuitEffect.JOB_FAILED
    if not error.is_retryable:
        return Decision(failed(g, now, error.code, error.message, error), charge)
    if sum(1 for a in g.attempts if a.outcome in JOB_LOST_OUTCOMES) >= MAX_JOB_FAILURES:
        return Decision(failed(g, now, error.code, error.message, error), charge)
    resubmit = replace(
        g,
        step=Step.SUBMIT,
        provider_job_id=None,
        provider_job_data={},
        provider_error_code=error.provider_code or g.provider_error_code,
        progress=0,
    )
    row = again(resubmit, error, now, untried=untried(resubmit), pacing=pacing)
    return Decision(row, charge)


def job_hung(g: Generation, route_key: str, now: datetime, *, room: bool) -> Decision:
    """The job outran its route's limit (its cancel at the provider is the caller's): the
    route is charged, and the generation moves at once to another route when `room` says
    one may take it in time, else (or after MAX_JOB_FAILURES lost jobs) fails as `timeout`.
    The abandoned job is forgotten, so a late completion of it is never polled or billed."""
    attempt = Attempt(route_key, g.provider_job_id, "timed_out", now, "timeout")
    g = replace(g, attempts=(*g.attempts, attempt))
    lost = sum(1 for a in g.attempts if a.outcome in JOB_LOST_OUTCOMES)
    if lost >= MAX_JOB_FAILURES or not room:
        row = failed(g, now, "timeout", "the provider did not finish in time")
        return Decision(row, CircuitEffect.JOB_HUNG)
    moved = unleased(
        g,
        now,
        now,
        step=Step.SUBMIT,
        provider_job_id=None,
        provider_job_data={},
        provider_request_id=None,
        progress=0,
        tries=0,
    )
    return Decision(moved, CircuitEffect.JOB_HUNG)


def storage_wait(g: Generation, now: datetime) -> Generation:
    """Our own storage (disk full, object store down) stopped the step: not the provider's
    fault, so no route is blamed and no try is spent. The step is repeated, each wait about
    as long as the outage so far (1 s to 60 s), until the deadline; the first such failure
    is recorded as a `storage_failed` attempt."""
    last = g.attempts[-1] if g.attempts else None
    attempts = g.attempts
    if last is not None and last.error_code == STORAGE_UNAVAILABLE:
        since = last.at
    else:
        since = now
        attempt = Attempt(
            g.route or "", g.provider_job_id, "storage_failed", now, STORAGE_UNAVAILABLE
        )
        attempts = (*attempts, attempt)
    delay = timedelta(seconds=min(60.0, max(1.0, (now - since).total_seconds())))
    next_at = now + delay
    if g.deadline_at is not None:
        next_at = min(next_at, g.deadline_at)
    return unleased(g, now, next_at, attempts=attempts)


def timed_out(g: Generation, now: datetime) -> TimeOut:
    """The generation's deadline passed. A job still at a provider is a `timeout` (and is
    canceled there); one never accepted anywhere reports the providers' last refusal; one
    that waited for our storage to its end is `storage_unavailable` (never the provider's)."""
    last_try = g.attempts[-1] if g.attempts else None
    if last_try is not None and last_try.error_code == STORAGE_UNAVAILABLE:
        message = "the video could not be stored in time: storage unavailable"
        return TimeOut(failed(g, now, STORAGE_UNAVAILABLE, message), False)
    if g.provider_job_id is not None:
        return TimeOut(failed(g, now, "timeout", "the provider did not finish in time"), True)
    last = g.attempts[-1] if g.attempts else None
    if last is not None and last.error_code is not None:
        tries = sum(1 for a in g.attempts if a.error_code is not None)
        message = f"the providers failed this generation {tries} times; gave up"
        return TimeOut(failed(g, now, last.error_code, message), False)
    return TimeOut(failed(g, now, "timeout", "the generation did not finish in time"), False)


def after_crash(g: Generation, now: datetime, delay: timedelta) -> Generation:
    """A bug interrupted this step: the row is due again after `delay`, and fails after
    MAX_TRIES such tries (it would only crash again)."""
    if g.tries + 1 >= MAX_TRIES:
        return failed(g, now, "internal_error", "the generation could not be processed")
    return unleased(g, now, now + delay, tries=g.tries + 1)


def crash_delay(g: Generation) -> timedelta:
    """How long a crashed step waits: longer each time, so a bug does not spin."""
    return timedelta(seconds=5 * (g.tries + 1))
