"""The HTTP API: routes, authentication, errors. No provider wire formats live here."""
