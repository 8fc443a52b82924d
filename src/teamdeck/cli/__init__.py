"""The headless command line: argument parsing → protocol / view → text or --json."""
