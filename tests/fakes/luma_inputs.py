"""What Luma's typed requests take (lumaai SDK 1.21.0): a modify (`VideoModifyParams`) and
an extension by a generation id (`KeyframesFrame0GenerationReference`). Messages are ours:
Luma's are unpublished."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx

MODIFY_FIELDS = {
    "generation_type",
    "media",
    "mode",
    "model",
    "callback_url",
    "first_frame",
    "prompt",
}
MODIFY_MODELS = ("ray-2", "ray-flash-2")
MODES = tuple(f"{kind}_{n}" for kind in ("adhere", "flex", "reimagine") for n in (1, 2, 3))
MAX_MODIFY_BYTES = 100 * 1024 * 1024


async def check_modify(body: object) -> str | None:
    if not isinstance(body, dict):
        return "The request body must be a JSON object"
    unknown = sorted(set(body) - MODIFY_FIELDS)
    if unknown:
        return f"Unknown fields: {', '.join(unknown)}"
    missing = sorted({"generation_type", "media", "mode", "model"} - set(body))
    if missing:
        return f"Missing fields: {', '.join(missing)}"
    if body["generation_type"] != "modify_video":
        return "generation_type must be modify_video"
    if body["model"] not in MODIFY_MODELS:
        return f"model must be one of {', '.join(MODIFY_MODELS)}"
    if body["mode"] not in MODES:
        return f"mode must be one of {', '.join(MODES)}"
    for name in ("media", "first_frame"):
        entity = body.get(name)
        if entity is None:
            continue
        if not isinstance(entity, dict) or set(entity) != {"url"}:
            return f"{name} is {{url}}"
        if (problem := await _fetchable(entity["url"])) is not None:
            return problem
    return None


async def _fetchable(url: object) -> str | None:
    """Luma fetches the media itself: a URL it cannot get, or one too large, is refused."""
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        return "media url must be a public http(s) URL"
    async with httpx.AsyncClient(timeout=10, trust_env=False) as client:
        try:
            response = await client.get(url)
        except httpx.HTTPError:
            return "failed to fetch media"
    if response.status_code != 200 or len(response.content) > MAX_MODIFY_BYTES:
        return "failed to fetch media"
    return None


def check_generation_frames(
    body: Mapping[str, Any], generations: Mapping[str, Mapping[str, Any]]
) -> str | None:
    """A `generation` keyframe names a completed generation of this account."""
    for frame in (body.get("keyframes") or {}).values():
        if frame.get("type") != "generation":
            continue
        made = generations.get(str(frame.get("id")))
        if made is None or made["state"] != "completed":
            return "keyframe generation not found or not completed"
    return None
