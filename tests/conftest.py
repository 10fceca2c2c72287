"""The shared fixture world of the test suite (users, engines) lives here."""
