"""What a generation is made from beyond its prompt: its type, its reference media and its
source video. Values only; the create rules that read them are `create_inputs.py`, what a
route takes of them is `route.py` (`InputCaps`).

The five types, and what each needs:

| type                 | needs                 | the result                                      |
|----------------------|-----------------------|-------------------------------------------------|
| `text-to-video`      | nothing beyond prompt | a new video                                     |
| `image-to-video`     | `image_url`           | a new video starting at the image               |
| `reference-to-video` | `references`          | a new video showing the referenced subjects     |
| `video-to-video`     | `video`               | the source re-rendered (an edit)                |
| `video-extend`       | `video`               | the source followed by `duration` more seconds  |
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeGuard

TEXT_TO_VIDEO = "text-to-video"
IMAGE_TO_VIDEO = "image-to-video"
REFERENCE_TO_VIDEO = "reference-to-video"
VIDEO_TO_VIDEO = "video-to-video"
VIDEO_EXTEND = "video-extend"
TYPES = (TEXT_TO_VIDEO, IMAGE_TO_VIDEO, REFERENCE_TO_VIDEO, VIDEO_TO_VIDEO, VIDEO_EXTEND)
VIDEO_TYPES = (VIDEO_TO_VIDEO, VIDEO_EXTEND)  # the types made from a source video
REFERENCE_KINDS = ("image", "video", "audio")
CHARACTER = "character"  # a reference by a stored character's id (usecases/characters.py)


def fetchable(url: str | None) -> TypeGuard[str]:
    """Whether media given by `url` can be fetched from outside this server (an http(s)
    URL), unlike a data: URI, an uploaded file or a character's media, which only our
    storage holds."""
    return url is not None and url.startswith(("http://", "https://"))


@dataclass(frozen=True)
class Reference:
    """One reference medium: its kind, the URL it was given by (an http(s) URL or a data:
    URI; empty for a character) and, once it is kept, the key of our copy in the storage
    and the SHA-256 of its bytes (what the cache of identical requests compares).
    A character (`character`: its id) is its video, or a frame of it as an image for a
    model that takes no video references (`create_inputs.character_kind`)."""

    kind: str  # one of REFERENCE_KINDS
    url: str
    key: str | None = None
    character: str | None = None
    sha256: str | None = None

    def to_json(self) -> dict[str, Any]:
        out = {"type": self.kind, "url": self.url, "key": self.key, "sha256": self.sha256}
        return out if self.character is None else {**out, "character": self.character}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Reference:
        return cls(
            str(data["type"]),
            str(data["url"]),
            data.get("key"),
            data.get("character"),
            data.get("sha256"),
        )

    def shown(self) -> dict[str, Any]:
        """As a Generation object shows it: what the request named."""
        if self.character is not None:
            return {"type": CHARACTER, "id": self.character}
        return {"type": self.kind, "url": self.url}


@dataclass(frozen=True)
class SourceVideo:
    """The video a `video-to-video` or `video-extend` starts from: a generation of the same
    account, a URL, or a file uploaded with the request (neither: `key` is set at once).
    Once accepted it has our copy (`key`), its length and, when it was one of ours, the
    route that made it (an extension that only that route can make goes there:
    `route.InputCaps.extends_own_only`) and that route's job. `remix`: made by OpenAI's
    remix of that generation (shown as `remixed_from_video_id`)."""

    generation_id: str | None = None
    url: str | None = None
    key: str | None = None
    seconds: float | None = None
    route: str | None = None  # the route key of the generation that made it
    provider_job_id: str | None = None
    job_data: Mapping[str, Any] | None = None  # that job's data, as its adapter kept it
    remix: bool = False
    file: str | None = None  # an upload's file name, as the client gave it
    sha256: str | None = (
        None  # of a source URL's or upload's kept bytes (a generation's: see the cache)
    )

    @property
    def uploaded(self) -> bool:
        return self.generation_id is None and self.url is None

    def to_json(self) -> dict[str, Any]:
        return {
            "generation_id": self.generation_id,
            "url": self.url,
            "key": self.key,
            "seconds": self.seconds,
            "route": self.route,
            "provider_job_id": self.provider_job_id,
            "job_data": dict(self.job_data) if self.job_data is not None else None,
            "remix": self.remix,
            "file": self.file,
            "sha256": self.sha256,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SourceVideo:
        seconds = data.get("seconds")
        return cls(
            data.get("generation_id"),
            data.get("url"),
            data.get("key"),
            float(seconds) if seconds is not None else None,
            data.get("route"),
            data.get("provider_job_id"),
            data.get("job_data"),
            bool(data.get("remix")),
            data.get("file"),
            data.get("sha256"),
        )

    def shown(self) -> dict[str, Any]:
        """As a Generation object shows it: what the request named (an uploaded file: its
        name, `{"file": "clip.mp4"}`)."""
        if self.generation_id is not None:
            return {"generation_id": self.generation_id}
        if self.url is None:
            return {"file": self.file or "upload.mp4"}
        return {"url": self.url}


def inferred_type(*, image: bool, references: bool) -> str:
    """The type of a request that names none (a source video needs its type named)."""
    if references:
        return REFERENCE_TO_VIDEO
    return IMAGE_TO_VIDEO if image else TEXT_TO_VIDEO


def reference_counts(references: tuple[Reference, ...] | tuple[str, ...]) -> dict[str, int]:
    """How many of each kind (`references`: the references, or their kinds)."""
    out: dict[str, int] = {}
    for r in references:
        kind = r if isinstance(r, str) else r.kind
        out[kind] = out.get(kind, 0) + 1
    return out
