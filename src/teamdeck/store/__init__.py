"""The only code that touches the disk: safe paths, atomic writes, locks, logs, parsing."""
