"""Pydantic models of every on-disk format. No I/O, no Textual."""
