#!/usr/bin/env python3
"""Django's command-line utility for Bao Arena."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")
    from django.core.management import execute_from_command_line

    from arena.env import SettingError

    try:
        execute_from_command_line(sys.argv)
    except SettingError as exc:
        # The message names the variable and what it accepts; a traceback would only bury it.
        sys.stderr.write(f"Bad setting: {exc}\n")
        sys.exit(2)


if __name__ == "__main__":
    main()
