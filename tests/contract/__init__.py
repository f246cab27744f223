"""The provider contract: every shared behaviour, once per provider (see cases.py)."""
