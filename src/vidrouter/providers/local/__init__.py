"""The built-in local renderer: the adapter (`adapter`), the renderer itself (`render`, drawing
with `background` and `overlay`) and the process pool its renders run in (`pool`)."""

from vidrouter.providers.local.adapter import FACTORY, LocalProvider

__all__ = ["FACTORY", "LocalProvider"]
