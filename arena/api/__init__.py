"""Shared API plumbing: error codes, pagination."""
