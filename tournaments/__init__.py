"""Tournaments: events (formats, rounds, pairing, standings, scheduling) as a Django app."""
