"""Outbound requests that a user controls (webhooks, image URLs) and the guard they pass."""
