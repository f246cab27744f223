"""The engine's state decisions alone (engine/transitions.py): plain rows in, rows and owed
effects out; no database, provider or clock. The same decisions are exercised end to end by
test_failover, test_crash_safety and the provider tests."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tests.support.rows import generation
from vidrouter.domain.generation import Attempt, Generation, Status, Step
from vidrouter.engine import transitions as t
from vidrouter.providers.base import (
    AuthFailed,
    ContentRejected,
    InvalidInput,
    JobFailed,
    ProviderError,
    ProviderUnavailable,
    RateLimited,
)

NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)
ROUTE = "openai_videos:a"


def backoff(tries: int, retry_after: float | None) -> timedelta:
    """Deterministic stand-in for the jittered backoff: Retry-After, else 10 s per try."""
    return timedelta(seconds=retry_after if retry_after is not None else 10 * (tries + 1))


PACED = t.Pacing(backoff=backoff)


def row(**changes: object) -> Generation:
    fields: dict[str, Any] = {
        "id": "gen_test",
        "account_id": "acct",
        "model": "m",
        "prompt": "a fox",
        "duration": 4.0,
        "lease_owner": "worker-1",
        "lease_until": NOW + timedelta(seconds=30),
        **changes,
    }
    return generation(at=NOW - timedelta(minutes=1), **fields)


def polling(**changes: object) -> Generation:
    return row(
        status=Status.IN_PROGRESS,
        step=Step.POLL,
        route=ROUTE,
        provider_job_id="job-1",
        provider_job_data={"k": "v"},
        **changes,
    )


def assert_failed(g: Generation, code: str) -> None:
    assert g.status is Status.FAILED and g.step is Step.DONE
    assert g.error is not None and g.error.code == code
    assert g.completed_at == NOW and g.next_attempt_at is None
    assert g.lease_owner is None and g.lease_until is None


# --- after a provider error ---------------------------------------------------------------


def test_a_users_error_fails_at_once_and_spares_the_route() -> None:
    decision = t.after_error(
        row(), ContentRejected("nope", provider_code="SAFETY"), NOW, untried=True, pacing=PACED
    )
    assert decision.circuit is t.CircuitEffect.NONE
    assert_failed(decision.generation, "content_policy")
    assert decision.generation.provider_error_code == "SAFETY"


def test_a_submit_with_untried_routes_fails_over_at_once() -> None:
    decision = t.after_error(
        row(tries=2), ProviderUnavailable("down"), NOW, untried=True, pacing=PACED
    )
    g = decision.generation
    assert decision.circuit is t.CircuitEffect.FAILURE
    assert (g.status, g.step, g.tries) == (Status.QUEUED, Step.SUBMIT, 3)
    assert g.next_attempt_at == NOW  # the next route, now
    assert g.lease_owner is None


def test_when_every_route_failed_the_provider_retry_after_is_honoured() -> None:
    exc = RateLimited("slow down", retry_after=7, request_id="req-9")
    g = t.after_error(row(), exc, NOW, untried=False, pacing=t.Pacing(2.0, backoff)).generation
    assert g.next_attempt_at == NOW + timedelta(seconds=14)  # Retry-After, scaled
    assert g.provider_request_id == "req-9"


def test_a_poll_error_backs_off_even_with_untried_routes() -> None:
    g = t.after_error(
        polling(tries=1), ProviderUnavailable("flaky"), NOW, untried=True, pacing=PACED
    ).generation
    assert g.step is Step.POLL and g.provider_job_id == "job-1"
    assert g.next_attempt_at == NOW + timedelta(seconds=20)


def test_retryable_errors_fail_the_generation_after_max_tries() -> None:
    decision = t.after_error(
        row(tries=t.MAX_TRIES - 1), ProviderUnavailable("down"), NOW, untried=False
    )
    assert decision.circuit is t.CircuitEffect.FAILURE  # the route still counts it
    assert_failed(decision.generation, "provider_unavailable")


def test_refused_credentials_open_the_circuit_and_fail_over_when_a_route_is_left() -> None:
    over = t.after_error(row(), AuthFailed("bad key"), NOW, untried=True, pacing=PACED)
    assert over.circuit is t.CircuitEffect.FATAL
    assert over.generation.status is Status.QUEUED and over.generation.next_attempt_at == NOW
    stuck = t.after_error(row(), AuthFailed("bad key"), NOW, untried=False, pacing=PACED)
    assert stuck.circuit is t.CircuitEffect.FATAL
    assert_failed(stuck.generation, "provider_unavailable")


# --- a job the provider accepted and then failed ------------------------------------------------


def test_a_retryable_job_failure_is_submitted_again_without_its_job() -> None:
    asked: list[Generation] = []

    def untried(g: Generation) -> bool:
        asked.append(g)
        return True

    error = JobFailed("gpu lost", retryable=True, provider_code="E500")
    decision = t.job_failed(polling(), error, ROUTE, NOW, untried=untried, pacing=PACED)
    g = decision.generation
    assert decision.circuit is t.CircuitEffect.JOB_FAILED  # a lost job of its route
    assert (g.step, g.provider_job_id, g.provider_job_data, g.progress) == (
        Step.SUBMIT,
        None,
        {},
        0,
    )
    assert g.attempts[-1] == Attempt(ROUTE, "job-1", "failed", NOW, "provider_error")
    assert g.next_attempt_at == NOW and g.provider_error_code == "E500"
    assert asked and asked[0].attempts[-1].outcome == "failed"  # asked with this failure


@pytest.mark.parametrize(
    ("error", "code"),
    [(ContentRejected("flagged"), "content_policy"), (InvalidInput("bad prompt"), "invalid_input")],
)
def test_a_job_failure_that_is_the_users_fails_without_counting_against_the_route(
    error: ProviderError, code: str
) -> None:
    decision = t.job_failed(polling(), error, ROUTE, NOW, untried=lambda _: True)
    assert decision.circuit is t.CircuitEffect.NONE
    assert_failed(decision.generation, code)


def test_a_job_the_provider_failed_for_good_fails_and_counts_against_the_route() -> None:
    # Not retryable, but the provider's own failure: the route did not deliver.
    decision = t.job_failed(
        polling(), JobFailed("engine error"), ROUTE, NOW, untried=lambda _: True
    )
    assert decision.circuit is t.CircuitEffect.JOB_FAILED
    assert_failed(decision.generation, "provider_error")


def test_jobs_are_resubmitted_at_most_max_job_failures_times() -> None:
    earlier = tuple(
        Attempt(ROUTE, f"job-{n}", "failed", NOW, "provider_error")
        for n in range(t.MAX_JOB_FAILURES - 1)
    )
    decision = t.job_failed(
        polling(attempts=earlier),
        JobFailed("again", retryable=True),
        ROUTE,
        NOW,
        untried=lambda _: True,
    )
    assert decision.circuit is t.CircuitEffect.JOB_FAILED
    assert_failed(decision.generation, "provider_error")
    assert len(decision.generation.attempts) == t.MAX_JOB_FAILURES


# --- a job that outran its route's limit ------------------------------------------------------


def test_a_hung_job_moves_to_another_route_at_once_without_its_job() -> None:
    submitted = Attempt(ROUTE, "job-1", "submitted", NOW - timedelta(minutes=9))
    decision = t.job_hung(polling(attempts=(submitted,), progress=40), ROUTE, NOW, room=True)
    g = decision.generation
    assert decision.circuit is t.CircuitEffect.JOB_HUNG
    assert g.status is Status.IN_PROGRESS and g.step is Step.SUBMIT
    assert (g.provider_job_id, g.provider_job_data, g.progress, g.tries) == (None, {}, 0, 0)
    assert g.next_attempt_at == NOW and g.lease_owner is None
    assert g.attempts[-1] == Attempt(ROUTE, "job-1", "timed_out", NOW, "timeout")
    assert t.job_started(polling(attempts=(submitted,)), NOW) == submitted.at


def test_a_hung_job_with_no_room_to_move_fails_as_timeout() -> None:
    decision = t.job_hung(polling(), ROUTE, NOW, room=False)
    assert decision.circuit is t.CircuitEffect.JOB_HUNG
    assert_failed(decision.generation, "timeout")


def test_hung_and_failed_jobs_together_are_bounded_by_max_job_failures() -> None:
    earlier = tuple(
        Attempt(ROUTE, f"job-{n}", "failed" if n % 2 else "timed_out", NOW, "provider_error")
        for n in range(t.MAX_JOB_FAILURES - 1)
    )
    decision = t.job_hung(polling(attempts=earlier), ROUTE, NOW, room=True)
    assert_failed(decision.generation, "timeout")


# --- the deadline -------------------------------------------------------------------------


def test_a_job_still_at_its_provider_times_out_and_is_canceled_there() -> None:
    decision = t.timed_out(polling(), NOW)
    assert decision.cancel_at_provider is True
    assert_failed(decision.generation, "timeout")


def test_a_generation_no_provider_accepted_reports_their_last_refusal() -> None:
    refusals = (
        Attempt(ROUTE, None, "submit_failed", NOW, "rate_limited"),
        Attempt("openai_videos:b", None, "submit_failed", NOW, "provider_unavailable"),
    )
    decision = t.timed_out(row(attempts=refusals), NOW)
    assert decision.cancel_at_provider is False
    assert_failed(decision.generation, "provider_unavailable")
    assert decision.generation.error is not None
    assert "2 times" in decision.generation.error.message


def test_a_generation_that_only_waited_times_out() -> None:
    decision = t.timed_out(row(), NOW)
    assert decision.cancel_at_provider is False
    assert_failed(decision.generation, "timeout")


# --- a crashed step -----------------------------------------------------------------------


def test_a_crashed_step_is_due_again_later_with_its_job_kept() -> None:
    g = t.after_crash(polling(tries=1), NOW, t.crash_delay(polling(tries=1)))
    assert g.status is Status.IN_PROGRESS and g.provider_job_id == "job-1"
    assert g.next_attempt_at == NOW + timedelta(seconds=10) and g.tries == 2
    assert g.lease_owner is None


def test_a_step_that_keeps_crashing_fails_as_an_internal_error() -> None:
    g = t.after_crash(row(tries=t.MAX_TRIES - 1), NOW, timedelta(seconds=5))
    assert_failed(g, "internal_error")


@pytest.mark.parametrize("exc", [ProviderError("x"), ContentRejected("x")])
def test_failing_keeps_the_references_support_needs(exc: ProviderError) -> None:
    earlier = row(provider_error_code="OLD", provider_request_id="req-1")
    g = t.failed(earlier, NOW, exc.code, "m" * 5000, exc)
    assert g.provider_error_code == "OLD" and g.provider_request_id == "req-1"
    assert g.error is not None and len(g.error.message) == 2000
