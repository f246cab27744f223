"""Runway's error body `{"error": "...", "issues": [...]}` and its task `failureCode`s.

Runway's HTTP errors carry words, not codes (docs.dev.runwayml.com/errors/errors): a 400 is
bad input unless it says the account has no credits left; 401 is the key; 429 is the rate or
the tier's limit (retried). Task failures carry a `failureCode`
(docs.dev.runwayml.com/errors/task-failures). The table is in docs/providers/runway.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx

from vidrouter.providers import base, http

NO_CREDITS = ("enough credits", "insufficient credits", "out of credits")


def parse(response: httpx.Response) -> tuple[str, list[str]]:
    """The `error` text and the validation `issues` ("path: message") of an error answer."""
    body = http.error_json(response)
    if not isinstance(body, dict):
        return (str(body)[:300] if body is not None else response.text[:300]), []
    issues = body.get("issues")
    messages = []
    for issue in issues[:5] if isinstance(issues, list) else []:
        if isinstance(issue, dict):
            path = ".".join(str(p) for p in issue.get("path", []) or [])
            text = str(issue.get("message", ""))
            messages.append(f"{path}: {text}" if path else text)
    error = body.get("error")
    return (str(error) if error else "bad request"), messages


def refine(exc: base.ProviderError) -> base.ProviderError:
    """Runway answers 400 both for bad input and for an empty credit balance."""
    if exc.response is None or exc.status_code != 400:
        return exc
    error, issues = parse(exc.response)
    if any(words in error.lower() for words in NO_CREDITS):
        text = f"Runway: {error} (the account needs credits)"
        return http.reclassify(exc, base.AccountRefused, text, provider_code="insufficient_credits")
    detail = "; ".join(issues)
    text = f"Runway rejected the request: {error}" + (f": {detail}" if detail else "")
    return http.reclassify(exc, base.InvalidInput, text, provider_code="bad_request")


def job_failure(task: Mapping[str, Any]) -> base.ProviderError:
    """A FAILED task's `failureCode` as our error."""
    raw_code = task.get("failureCode")
    code = raw_code if isinstance(raw_code, str) and raw_code else None
    reason = task.get("failure")
    message = f"Runway: {reason if isinstance(reason, str) and reason else 'the task failed'}"
    if code is None:
        return base.JobFailed(message, retryable=True)
    message += f" ({code})"
    if code.startswith("SAFETY.") or code.startswith("INPUT_PREPROCESSING.SAFETY"):
        return base.ContentRejected(message, provider_code=code)
    if code.startswith("ASSET."):
        return base.InvalidInput(message, provider_code=code)
    if code.startswith("INTERNAL.BAD_OUTPUT"):  # the same input tends to fail the same way
        return base.JobFailed(message, retryable=False, provider_code=code)
    retryable = code.startswith(("INTERNAL", "INPUT_PREPROCESSING.", "THIRD_PARTY."))
    return base.JobFailed(message, retryable=retryable, provider_code=code)
