"""What Runway's `/v1/video_to_video` takes for `aleph2` (runwayml SDK 5.24.0
`video_to_video_create_params.Variant0`), as Runway's body validator answers."""

from __future__ import annotations

import base64
import binascii
from typing import Any

ALEPH2_FIELDS = frozenset(
    {
        "model", "videoUri", "promptText", "keyframes", "ratio", "seed", "targetAspectRatio",
        "contentModeration", "outputFormat", "proresProfile",
    }
)  # fmt: skip
TARGET_RATIOS = ("16:9", "4:3", "3:2", "1:1", "2:3", "3:4", "9:16", "21:9")
MAX_DATA_URI = 5 * 1024 * 1024
MAX_KEYFRAMES = 5


def validate_edit(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The issues of an aleph2 body (empty: accepted)."""
    issues: list[dict[str, Any]] = []
    unknown = sorted(set(body) - ALEPH2_FIELDS)
    if unknown:
        keys = ", ".join(f'"{k}"' for k in unknown)
        issues.append(_issue("unrecognized_keys", [], f"Unrecognized keys: {keys}"))
    uri = body.get("videoUri")
    if not isinstance(uri, str):
        issues.append(_issue("invalid_type", ["videoUri"], "Invalid input: expected string"))
    elif uri.startswith("data:"):
        if len(uri) > MAX_DATA_URI:
            issues.append(_issue("too_big", ["videoUri"], "Data URIs must be at most 5MB"))
        elif not _video_data(uri):
            issues.append(_issue("invalid_format", ["videoUri"], "Invalid data URI"))
    elif not uri.startswith(("https://", "runway://")):
        issues.append(_issue("invalid_format", ["videoUri"], "Invalid URL: must be HTTPS"))
    prompt = body.get("promptText")
    if prompt is not None and (not isinstance(prompt, str) or not prompt):
        issues.append(_issue("too_small", ["promptText"], "Expected a non-empty string"))
    keyframes = body.get("keyframes", [])
    if not isinstance(keyframes, list) or len(keyframes) > MAX_KEYFRAMES:
        issues.append(_issue("too_big", ["keyframes"], "Up to 5 keyframes"))
    target = body.get("targetAspectRatio")
    if target is not None and target not in TARGET_RATIOS:
        issues.append(_issue("invalid_value", ["targetAspectRatio"], "Invalid option"))
    seed = body.get("seed")
    if seed is not None and (
        isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= 4294967295
    ):
        issues.append(_issue("invalid_type", ["seed"], "Invalid input: expected int"))
    return issues


def _video_data(uri: str) -> bool:
    header, _, payload = uri.partition(",")
    if not (header.startswith("data:video/") and header.endswith(";base64")):
        return False
    try:
        data = base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError):
        return False
    return data[4:8] == b"ftyp"  # an MP4 or MOV


def _issue(code: str, path: list[str], message: str) -> dict[str, Any]:
    return {"code": code, "path": path, "message": message}
