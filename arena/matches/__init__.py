"""Matches, games and replays (Django app)."""
