"""Media types of what we store, by file extension (input images, videos and the previews
kept beside each video), and the keys of those previews."""

from __future__ import annotations

from typing import Literal

IMAGE_EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg"}
# Reference media and source videos (engine/kept_inputs.py).
INPUT_EXTENSIONS = {
    **IMAGE_EXTENSIONS,
    "video/mp4": "mp4",
    "audio/mp4": "m4a",
    "audio/wav": "wav",
    "audio/mpeg": "mp3",
}
MEDIA_TYPES = {ext: mime for mime, ext in IMAGE_EXTENSIONS.items()}
INPUT_TYPES = {ext: mime for mime, ext in INPUT_EXTENSIONS.items()}

PreviewVariant = Literal["thumbnail", "spritesheet"]
# OpenAI's media types for its `thumbnail` and `spritesheet` variants: WebP and JPEG.
PREVIEW_EXTENSIONS: dict[PreviewVariant, str] = {"thumbnail": "webp", "spritesheet": "jpg"}
PREVIEW_VARIANTS: tuple[PreviewVariant, ...] = ("thumbnail", "spritesheet")
_SERVED_TYPES = {**INPUT_TYPES, "webp": "image/webp"}


def media_type_of(key: str) -> str:
    """The media type of a stored blob; videos (the default) are MP4."""
    ext = key.rsplit(".", 1)[-1].lower()
    return _SERVED_TYPES.get(ext, "video/mp4")


def preview_key(video_key: str, variant: PreviewVariant) -> str:
    """Where a video's preview is kept: beside it, named after it (`videos/gen_x.mp4` ->
    `videos/gen_x.thumbnail.webp`), so that no record has to say so."""
    stem = video_key.removesuffix(".mp4")
    return f"{stem}.{variant}.{PREVIEW_EXTENSIONS[variant]}"


def preview_keys(video_key: str) -> list[str]:
    return [preview_key(video_key, variant) for variant in PREVIEW_VARIANTS]


def video_of_preview(key: str) -> tuple[str, PreviewVariant] | None:
    """The video key and variant a preview key was named after; None for any other key."""
    for variant in PREVIEW_VARIANTS:
        suffix = f".{variant}.{PREVIEW_EXTENSIONS[variant]}"
        if key.startswith("videos/") and key.endswith(suffix) and len(key) > len(suffix) + 7:
            return key.removesuffix(suffix) + ".mp4", variant
    return None
