"""The rated-play fixtures (``tests.service.rated_play``) for these tests."""

from tests.service.rated_play import fresh_var_dir, make_finished_match, make_version

__all__ = ["fresh_var_dir", "make_finished_match", "make_version"]
