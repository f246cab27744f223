"""The fake gateway's `POST /v1/videos/extensions` (OpenAI's shape, openai-python 3.3.1
`resources/videos.py` `extend`; shared/providers/inputs.md "OpenAI-style /v1/videos"): JSON
`{"prompt", "seconds", "video": {"id"}}` of a completed video of this upstream; `seconds` is
the length of the new segment; the answer is a new Video whose `seconds` (and content) is the
stitched whole. Any other field is refused as OpenAI does (`unknown_parameter`)."""

from __future__ import annotations

from typing import Any

FIELDS = {"prompt", "seconds", "video"}


def extension_problem(
    body: object, videos: dict[str, dict[str, Any]], seconds: tuple[str, ...]
) -> tuple[int, str, str] | None:
    """(status, message, param) of what OpenAI would refuse in this body, else None."""
    if not isinstance(body, dict):
        return 400, "The body must be a JSON object.", "body"
    for name in sorted(set(body) - FIELDS):
        return 400, f"Unknown parameter: '{name}'.", name
    prompt = body.get("prompt")
    if not isinstance(prompt, str) or not 1 <= len(prompt) <= 32000:
        return 400, "prompt must be a string of 1 to 32000 characters.", "prompt"
    if body.get("seconds") not in seconds:
        return 400, f"Invalid value: '{body.get('seconds')}'.", "seconds"
    video = body.get("video")
    source_id = video.get("id") if isinstance(video, dict) and set(video) == {"id"} else None
    if not isinstance(source_id, str):
        return 400, "video must be an object with an id.", "video"
    source = videos.get(source_id)
    if source is None:
        return 404, f"Video with id '{source_id}' not found.", "video"
    if source["status"] != "completed":
        return 400, f"Video {source_id} is not completed.", "video"
    return None


def extended_fields(body: dict[str, Any], source: dict[str, Any]) -> dict[str, str]:
    """The new video's fields: the whole length, the source's model and size."""
    whole = int(source["seconds"]) + int(body["seconds"])
    return {
        "model": source["model"],
        "prompt": body["prompt"],
        "seconds": str(whole),
        "size": source["size"],
    }
