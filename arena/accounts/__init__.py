"""User accounts and API tokens (Django app)."""
