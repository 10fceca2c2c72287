"""Engines: the registry (Django app), engine packages, the sandbox, the SDK and bundled engines.

Kept free of Django imports: the sandbox and SDK modules are used without Django.
"""
