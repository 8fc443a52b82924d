"""`python -m teamdeck` runs the same entry point as the `teamdeck` console script."""

from teamdeck.cli.main import main

raise SystemExit(main())
