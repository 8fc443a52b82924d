"""Unit tests of join, gates, worker outputs, validate and the schemas (spec 000)."""
