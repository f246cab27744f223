"""The provider contract's cases (one per provider) and the controls each provider honours,
with the service started on a case: what tests/contract/ runs."""
