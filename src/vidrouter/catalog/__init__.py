"""The built-in model catalog (`models.toml`), shipped as package data."""
