"""Tournaments: formats, pairing, scheduling, standings, Elo ratings (Django app)."""
