"""The batch operations of the client, as plans of `Core` (see `_plan.py`)."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from typing import Any

from vidrouter.client._core import Core, _segment
from vidrouter.client._plan import Plan, Sleep
from vidrouter.client._responses import parse
from vidrouter.client.errors import BatchWaitTimeoutError
from vidrouter.client.types import Batch, BatchPage, BatchResult


def create_batch(
    core: Core,
    lines: Sequence[Mapping[str, Any]],
    *,
    webhook_url: str | None = None,
    metadata: Mapping[str, str] | None = None,
) -> Plan[Batch]:
    """Submit create bodies, each with a `custom_id`, as one batch. Sent once (no retry
    after the request may have reached the server: a second batch would run too)."""
    body: dict[str, object] = {"lines": [dict(line) for line in lines]}
    if webhook_url is not None:
        body["webhook_url"] = webhook_url
    if metadata is not None:
        body["metadata"] = dict(metadata)
    request = core.request("POST", "/v1/batches", json=body)
    response = yield from core.call(request, when="unsent")
    return parse(Batch, response)


def create_batch_file(core: Core, jsonl: bytes) -> Plan[Batch]:
    """Submit a JSONL file's bytes as one batch: an error names the file's own line
    numbers. Sent once, as `create_batch`."""
    headers = {"Content-Type": "application/jsonl"}
    request = core.request("POST", "/v1/batches", content=jsonl, headers=headers)
    response = yield from core.call(request, when="unsent")
    return parse(Batch, response)


def batch(core: Core, batch_id: str) -> Plan[Batch]:
    response = yield from core.call(core.request("GET", f"/v1/batches/{_segment(batch_id)}"))
    return parse(Batch, response)


def cancel_batch(core: Core, batch_id: str) -> Plan[Batch]:
    path = f"/v1/batches/{_segment(batch_id)}/cancel"
    response = yield from core.call(core.request("POST", path), when="unsent")
    return parse(Batch, response)


def batches(core: Core, *, after: str | None = None, limit: int | None = None) -> Plan[BatchPage]:
    params = {"after": after, "limit": limit}
    response = yield from core.call(core.request("GET", "/v1/batches", params=params))
    return parse(BatchPage, response)


def batch_results(core: Core, batch_id: str) -> Plan[list[BatchResult]]:
    """Every line's result, in file order."""
    path = f"/v1/batches/{_segment(batch_id)}/results"
    response = yield from core.call(core.request("GET", path))
    return [BatchResult.model_validate(json.loads(x)) for x in response.text.splitlines() if x]


def wait_batch(
    core: Core, batch_id: str, *, timeout: float | None = None, poll_interval: float | None = None
) -> Plan[Batch]:
    """Poll until the batch has ended (completed, failed or canceled) and return it."""
    interval = core.poll_interval if poll_interval is None else poll_interval
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        current = yield from batch(core, batch_id)
        if current.done:
            return current
        if deadline is not None and time.monotonic() >= deadline:
            raise BatchWaitTimeoutError(current, timeout or 0.0)
        yield Sleep(interval)
