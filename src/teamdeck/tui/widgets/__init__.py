"""The TUI's widgets: the seven panels (on a typed Panel base), their virtualised lists, the confirm bar, the footer."""
