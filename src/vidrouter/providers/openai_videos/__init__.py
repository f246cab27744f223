"""Any OpenAI-style /v1/videos upstream: the adapter (`adapter`) and its error codes (`errors`)."""

from vidrouter.providers.openai_videos.adapter import (
    FACTORY,
    OpenAIVideosProvider,
    Upstream,
    seconds_for,
    size_for,
    status_of,
)
from vidrouter.providers.openai_videos.errors import refine

__all__ = [
    "FACTORY",
    "OpenAIVideosProvider",
    "Upstream",
    "refine",
    "seconds_for",
    "size_for",
    "status_of",
]
