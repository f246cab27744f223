"""Extensions on providers that extend only the videos they made (Kling, Veo, Luma).

Such a provider takes no video to extend, only its own name for one it made: what the job
that made the source kept (`ProviderSource.job`), which this route has only for a source it
made itself. Each takes that video alone, without images beside it; some add a fixed number
of seconds.
"""

from __future__ import annotations

from dataclasses import dataclass

from vidrouter.providers import base, http


@dataclass(frozen=True)
class OwnExtension:
    """One provider's terms for an extension; the refusals are in its own words."""

    key: str | None  # what the source's job kept under this key; None: the job's own id
    not_own: str  # a source this route did not make (or whose job kept no `key`)
    not_alone: str  # reference images or a first frame beside the video
    seconds: int | None = None  # what one extension adds, where that is fixed
    not_seconds: str = ""

    def source(self, request: base.ProviderRequest) -> str:
        """The provider's name for the video `request` extends, once the request is one
        the provider takes."""
        job = request.source.job if request.source is not None else None
        if job is None:
            raise base.InvalidInput(self.not_own)
        name = job.id if self.key is None else http.text_at(job.data, self.key)
        if name is None:
            raise base.InvalidInput(self.not_own)
        if request.references or request.image_url is not None:
            raise base.InvalidInput(self.not_alone)
        if self.seconds is not None and round(request.duration) != self.seconds:
            raise base.InvalidInput(self.not_seconds)
        return name


__all__ = ["OwnExtension"]
