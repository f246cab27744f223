"""Google Veo on the Gemini API: the adapter (`adapter`) and its error codes (`errors`)."""

from vidrouter.providers.veo.adapter import (
    FACTORY,
    VeoProvider,
)

__all__ = ["FACTORY", "VeoProvider"]
