"""No secret URL reaches the logs: a webhook URL's `?token=` and a presigned URL's signature
never appear on stderr, in text or JSON, whoever logs them (httpx's own request lines, a
message, an extra field, a traceback)."""

from __future__ import annotations

import io
import json
import logging
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.harness import running, test_settings
from tests.support.receiver import WebhookReceiver
from tests.support.servers import serve_app
from vidrouter.observability.logs import LogFormat, configure_logging

TOKEN = "tok3nS3cr3tValue"
SIGNATURE = "X-Amz-Signature=abcdef0123456789"


@pytest.fixture(params=["text", "json"])
def stderr_logs(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[io.StringIO]:
    """The service's logging as `vidrouter serve` sets it up, at INFO, into a buffer."""
    buffer = io.StringIO()
    monkeypatch.setattr(sys, "stderr", buffer)
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    levels = {name: logging.getLogger(name).level for name in ("httpx", "httpcore")}
    log_format: LogFormat = request.param
    configure_logging("INFO", log_format)
    try:
        yield buffer
    finally:
        root.handlers[:] = saved[0]
        root.setLevel(saved[1])
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)


async def test_a_webhook_url_token_never_reaches_the_logs(
    tmp_path: Path, stderr_logs: io.StringIO
) -> None:
    receiver = WebhookReceiver()
    async with serve_app(receiver) as hook_base, running(test_settings(tmp_path / "data")) as app:
        key = await app.new_key()
        hook = f"{hook_base}/hook?token={TOKEN}"
        done = await app.generate(key, model="local-preview", prompt="p", duration=0.5,
                                   webhook_url=hook)  # fmt: skip
        assert done["status"] == "completed"
        await receiver.wait_for(1)
    lines = stderr_logs.getvalue()
    assert "generation_completed" in lines  # the logs were captured at all
    assert TOKEN not in lines, [line for line in lines.splitlines() if TOKEN in line]


def test_every_part_of_a_line_is_redacted(stderr_logs: io.StringIO) -> None:
    log = logging.getLogger("vidrouter.test")
    presigned = f"https://bucket.s3.example/v.mp4?{SIGNATURE}&X-Amz-Credential=AKIA"
    with_password = "https://user:hunter2@proxy.example:8443/path"
    log.info("fetching %s", presigned)
    log.warning("proxy_failed", extra={"proxy": with_password, "urls": [presigned]})
    try:
        raise httpx.HTTPStatusError(f"Client error for url '{presigned}'", request=httpx.Request("GET", presigned), response=httpx.Response(404))  # fmt: skip
    except httpx.HTTPStatusError:
        log.exception("download_failed")
    logging.getLogger("httpx").warning("HTTP Request: GET %s", presigned)
    out = stderr_logs.getvalue()
    for secret in (SIGNATURE, "AKIA", "hunter2", "user:"):
        assert secret not in out, out
    # What a line is about is still there: host and path.
    assert out.count("https://bucket.s3.example/v.mp4?[redacted]") >= 3, out
    if out.lstrip().startswith("{"):  # extra fields are in the JSON lines only
        assert "https://[redacted]@proxy.example:8443/path" in out, out
    if out.lstrip().startswith("{"):
        for line in out.splitlines():
            json.loads(line)  # still JSON


def test_httpx_request_lines_are_quiet_at_info(stderr_logs: io.StringIO) -> None:
    logging.getLogger("httpx").info("HTTP Request: GET https://x.example/ok")
    assert "x.example" not in stderr_logs.getvalue()
