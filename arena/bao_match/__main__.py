"""``python -m arena.bao_match``: the ``bao-match`` command line."""

import sys

from .cli import main

sys.exit(main())
