"""The built-in model catalog: one TOML file per maker or host, shipped as package data and
read by `vidrouter.domain.catalog.load_catalog`. No code lives here."""

__all__: list[str] = []
