"""Media types of what we store, by file extension (input images and videos)."""

from __future__ import annotations

IMAGE_EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg"}
MEDIA_TYPES = {ext: mime for mime, ext in IMAGE_EXTENSIONS.items()}


def media_type_of(key: str) -> str:
    """The media type of a stored blob; videos (the default) are MP4."""
    ext = key.rsplit(".", 1)[-1].lower()
    return MEDIA_TYPES.get(ext, "video/mp4")
