"""The OpenRouter video API (host): the adapter (`adapter`), its error codes (`errors`), what
it publishes about its models (`catalog`) and its signed callbacks (`callbacks`)."""

from vidrouter.providers.openrouter.adapter import FACTORY, OpenRouterProvider

__all__ = ["FACTORY", "OpenRouterProvider"]
