"""What the fake Ark checks of a create body's `content` items.

Item shapes are the SDK's (byteplus-python-sdk-v2 `create_task_content_param.py`): text,
`image_url`, `video_url` and `audio_url` items with a `role`. Frame roles (`first_frame`,
`last_frame`) and the 2.0 series' reference roles (`reference_image` <= 9, `reference_video`
<= 3, `reference_audio` <= 3, 12 files at most, audio only beside an image or a video) cannot
be mixed (docs.byteplus.com ModelArk 2291680; fal's typed schema). A field an item does not
document, or a role a medium cannot take, is refused in Ark's error shape.
"""

from __future__ import annotations

import base64
import binascii
import io

from PIL import Image, UnidentifiedImageError

FRAME_ROLES = ("first_frame", "last_frame")
REFERENCE_ROLES = ("reference_image", "reference_video", "reference_audio")
MEDIA = {"image_url": "image", "video_url": "video", "audio_url": "audio"}
LIMITS = {"reference_image": 9, "reference_video": 3, "reference_audio": 3}
MAX_FILES = 12


class ArkError(Exception):
    def __init__(self, status: int, code: str, message: str, param: str = "") -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.param = status, code, message, param


def _invalid(message: str, param: str = "content") -> ArkError:
    return ArkError(400, "InvalidParameter", message, param)


def check_content(content: object, roles: tuple[str, ...]) -> None:
    """Refuses a `content` that Ark would refuse for a model taking these `roles`."""
    if not isinstance(content, list) or not content:
        raise ArkError(400, "MissingParameter", "The parameter `content` is required.")
    texts = 0
    used: list[str] = []
    for item in content:
        if not isinstance(item, dict):
            raise _invalid("Invalid content items.")
        kind = item.get("type")
        if kind == "text":
            texts += 1
            if set(item) != {"type", "text"}:
                raise _invalid("Invalid text item.")
            continue
        if kind not in MEDIA or set(item) - {"type", kind, "role"}:
            raise _invalid("Invalid content items.")
        role = item.get("role", "first_frame" if kind == "image_url" else "")
        takes = (*FRAME_ROLES, "reference_image") if kind == "image_url" else ()
        if role not in roles or role not in (*takes, f"reference_{MEDIA[kind]}"):
            raise _invalid(f"Role {role} is not supported for {kind}.", "role")
        data = item.get(kind)
        url = data.get("url") if isinstance(data, dict) else None
        if kind == "image_url":
            _check_image(url)
        else:
            _check_url(url, kind)
        used.append(role)
    if texts > 1:
        raise _invalid("Invalid content items.")
    _check_roles(used)


def _check_roles(used: list[str]) -> None:
    frames = [r for r in used if r in FRAME_ROLES]
    references = [r for r in used if r in REFERENCE_ROLES]
    if frames and references:
        raise _invalid("Frame images cannot be mixed with reference media.", "role")
    if "last_frame" in frames and frames.count("first_frame") != 1:
        raise _invalid("A last_frame image needs one first_frame image.", "role")
    for role, most in LIMITS.items():
        if references.count(role) > most:
            raise _invalid(f"At most {most} items may have the role {role}.", "role")
    if len(references) > MAX_FILES:
        raise _invalid(f"At most {MAX_FILES} reference files are allowed.")
    if "reference_audio" in references and len(set(references)) == 1:
        raise _invalid("Reference audio needs at least one reference image or video.", "role")


def _check_url(url: object, kind: str) -> None:
    """Ark fetches videos and sounds by http(s) URL (the fake does not fetch them)."""
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise _invalid(f"Invalid {kind} url.", kind)


def _check_image(url: object) -> None:
    """An image URL or a data URI of one 300-6000 px a side, ratio 0.4-2.5."""
    if not isinstance(url, str) or not url:
        raise ArkError(400, "MissingParameter", "image_url.url is required.", "image_url")
    if not url.startswith("data:"):
        if not url.startswith(("http://", "https://")):
            raise _invalid("Invalid image url.", "image_url")
        return  # the fake does not fetch remote images
    header, _, payload = url.partition(",")
    if not header.startswith("data:image/") or not header.endswith(";base64"):
        raise _invalid("Invalid image data URI.", "image_url")
    try:
        with Image.open(io.BytesIO(base64.b64decode(payload, validate=True))) as image:
            width, height = image.size
    except (binascii.Error, UnidentifiedImageError, OSError) as exc:
        raise _invalid("The image cannot be decoded.", "image_url") from exc
    fits = 300 <= width <= 6000 and 300 <= height <= 6000 and 0.4 <= width / height <= 2.5
    if not fits:
        raise _invalid(f"The image size {width}x{height} does not meet the requirements.")
