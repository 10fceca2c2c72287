"""A shim that keeps the command line ``python -m engines.sandbox_check`` working: the check
moved into the sandbox package, ``engines.sandbox.check`` (``python -m engines.sandbox.check``).

Only for the command line (docs/architecture.md, "Names that keep working"): no code imports
this module.
"""

import sys

from engines.sandbox.check import main

if __name__ == "__main__":
    sys.exit(main())
