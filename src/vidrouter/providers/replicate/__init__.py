"""Replicate (host): the adapter (`adapter`), its error codes (`errors`), what it publishes
about its models (`catalog`) and its signed webhooks (`callbacks`)."""

from vidrouter.providers.replicate.adapter import FACTORY, ReplicateProvider

__all__ = ["FACTORY", "ReplicateProvider"]
