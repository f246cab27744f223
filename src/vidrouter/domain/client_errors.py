"""What a client is told when its generation failed, in our words.

The engine records the provider's own words on the generation (`error_message` in the
database, with `provider_error_code` and `provider_request_id`): they are for operators and
may hold an upstream request line, a raw response body or one of our file paths. Clients get
a sentence per error code saying what they can do; for the two codes that are the client's
own doing (`content_policy`, `invalid_input`) the provider's reason follows when it is plain
text, since it says what to change ("the image must be at least 300x300").
"""

from __future__ import annotations

import json
import re

_WORDING = {
    "content_policy": "the provider refused the request under its content policy; change the "
    "prompt or the image and try again",
    "invalid_input": "the provider refused the input; check the prompt, image and settings",
    "provider_error": "the provider could not make this video; try again, or use another model",
    "provider_unavailable": "the providers of this model are not available right now; "
    "try again later",
    "rate_limited": "the providers of this model are busy right now; try again later",
    "timeout": "the video was not finished within the time allowed; try again",
    "model_unavailable": "this model has no usable provider on this server right now",
    "internal_error": "an internal error stopped this generation; it has been logged",
}
_GENERIC = "the generation failed; try again"
_SHOWS_REASON = frozenset({"content_policy", "invalid_input"})
_MAX_REASON = 300

# Our image loader's failures (engine/inputs.py), about the client's own image_url.
_IMAGE = "image_url: "
_IMAGE_REASONS = (
    ("neither PNG nor JPEG", "the image is neither PNG nor JPEG"),
    ("larger than", "the image is larger than 20 MiB"),
    ("base64", "the image data URI is not valid base64"),
    ("refused", "the address is not allowed (private, loopback or reserved)"),
    ("answered", "fetching the image did not answer 200"),
    ("could not be fetched", "the image could not be fetched"),
)

# "POST /fal-ai/kling-video/v1 answered 422: " and the like, written by providers/http.py.
_REQUEST_LINE = re.compile(r"^[A-Z]{3,7} \S+ (?:answered \d{3}|timed out|failed)\S*:?\s*")
_PATH = re.compile(r"(?:^|[\s'\"(=])(?:/[\w.@+-]+){2,}")
# The human sentence inside a raw JSON body ({"error": {"message": "..."}} and the like).
_MESSAGE_FIELD = re.compile(
    r'"(?:message|msg|detail|error_message|status_msg|error)"\s*:\s*"((?:[^"\\]|\\.){1,500})"'
)
_UNSHOWABLE = re.compile(r"[{}<>]|https?://|Traceback|Errno|\bsuccess\b")


def client_message(code: str, stored: str) -> str:
    """The message shown for a failed generation whose recorded error is (code, stored)."""
    if stored.startswith(_IMAGE):
        reason = next((ours for key, ours in _IMAGE_REASONS if key in stored), None)
        if reason is not None:
            return f"image_url: {reason}"
    wording = _WORDING.get(code, _GENERIC)
    if code in _SHOWS_REASON:
        reason = provider_reason(stored)
        if reason:
            return f"{wording}. The provider said: {reason}"
    return wording


def provider_reason(stored: str) -> str | None:
    """The provider's reason as plain text, or None when it is not fit to show: a raw body,
    a URL or a file path, markup, or nothing at all."""
    reason = _REQUEST_LINE.sub("", stored.strip()).strip()
    if reason.startswith("{"):
        found = _MESSAGE_FIELD.search(reason)
        reason = _json_string(found[1]) if found else ""
    if not reason or _UNSHOWABLE.search(reason) or _PATH.search(reason):
        return None
    if len(reason) > _MAX_REASON:
        reason = reason[:_MAX_REASON].rstrip() + "…"
    return reason


def _json_string(escaped: str) -> str:
    try:
        return str(json.loads(f'"{escaped}"')).strip()
    except ValueError:
        return ""
