"""`verify_webhook` with every malformed input a stranger can send: always
`WebhookVerificationError`, and it accepts what the `standardwebhooks` package accepts."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial

import pytest
from standardwebhooks.webhooks import Webhook

from tests.support.hostile import generation_body
from vidrouter.client import WebhookVerificationError, verify_webhook

SECRET = "whsec_" + base64.b64encode(b"0123456789abcdef0123456789abcdef").decode()
BODY = json.dumps(generation_body())


def signed(body: str = BODY, timestamp: str | None = None) -> dict[str, str]:
    """Headers as a sender following the spec writes them (the signature covers the
    timestamp's whole seconds, as standardwebhooks signs them)."""
    stamp = timestamp or str(int(time.time()))
    when = datetime.fromtimestamp(float(stamp), UTC)
    signature = Webhook(SECRET).sign("msg_1", when, body)
    return {"webhook-id": "msg_1", "webhook-timestamp": stamp, "webhook-signature": signature}


def test_a_timestamp_with_a_fraction_is_accepted_as_standardwebhooks_does() -> None:
    now = int(time.time())
    headers = signed(timestamp=f"{now}.0")
    Webhook(SECRET).verify(BODY, headers)  # the reference accepts it ...
    event = verify_webhook(BODY.encode(), headers, SECRET)  # ... and so do we
    assert event.timestamp == datetime.fromtimestamp(now, UTC) and event.id == "msg_1"


def test_bytes_headers_are_read_as_text() -> None:
    headers = {k.encode(): v.encode() for k, v in signed().items()}
    assert verify_webhook(BODY.encode(), headers, SECRET).generation.status == "completed"


def _with(**changes: str) -> dict[str, str]:
    return {**signed(), **changes}


# Headers are made when the test runs: a timestamp made at collection can be too old by
# then (standardwebhooks allows five minutes).
MALFORMED = [
    pytest.param(b"\xff\xfe not utf-8", signed, SECRET, "not UTF-8", id="body-not-utf8"),
    *(
        pytest.param(BODY, partial(_with, **{header: value}), SECRET, says, id=name)
        for header, value, says, name in [
            ("webhook-signature", "v1", "malformed", "no-comma"),
            ("webhook-signature", "v1,a,b", "malformed", "commas"),
            ("webhook-signature", "v1,%%%", "", "bad-base64"),
            ("webhook-timestamp", "soon", "", "timestamp-text"),
            ("webhook-timestamp", "nan", "", "timestamp-nan"),
            ("webhook-timestamp", "1e400", "", "timestamp-inf"),
        ]
    ),
    pytest.param(BODY, dict, SECRET, "", id="no-headers"),
    pytest.param(BODY, signed, "whsec_", "secret", id="empty-secret"),
    pytest.param(BODY, signed, "whsec_!!!!", "", id="secret-not-base64"),
    pytest.param(
        "[" * 5000 + "]" * 5000, partial(signed, "[" * 5000 + "]" * 5000), SECRET, "", id="deep"
    ),
    pytest.param("{}", partial(signed, "{}"), SECRET, "not a generation", id="not-a-generation"),
    pytest.param("a\ud800", signed, SECRET, "", id="surrogate-body"),
]


@pytest.mark.parametrize(("body", "headers", "secret", "says"), MALFORMED)
def test_every_malformed_delivery_is_a_verification_error(
    body: bytes | str, headers: Callable[[], dict[str, str]], secret: str, says: str
) -> None:
    with pytest.raises(WebhookVerificationError) as info:
        verify_webhook(body, headers(), secret)
    message = str(info.value)
    assert says in message
    assert "unpack" not in message and "codec" not in message, message
