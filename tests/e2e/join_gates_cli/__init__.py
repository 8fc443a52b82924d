"""End-to-end tests of join, gates and validate: the real CLI as a subprocess."""
