"""vidrouter: one HTTP API in front of many AI video generation models."""

__version__ = "0.1.0"
