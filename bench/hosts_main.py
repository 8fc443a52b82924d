"""``teamdeck tui`` over the hosts a hosts file lists, as a person starts it
(``TEAMDECK_HOSTS=FILE teamdeck tui``): bench/rows_remote.py runs it under a pty
(bench/screen.py's ``Terminal``, which passes the file where it passes a workspace).

Usage::

    python bench/hosts_main.py HOSTS_FILE
"""

from __future__ import annotations

import os
import sys

if __name__ == "__main__":
    os.environ["TEAMDECK_HOSTS"] = sys.argv[1]
    os.environ.pop("TEAMDECK_WORKSPACE", None)
    from teamdeck.cli.main import main

    sys.exit(main(["tui"]))
