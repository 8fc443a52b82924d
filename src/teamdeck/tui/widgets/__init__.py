"""The TUI's generic widgets, which no panel owns: the typed Panel base and the
virtualised line list every panel's list is made on, the confirm bar, the footer, the
notice line and the overview line (each panel's own widgets are its package's,
tui/panels/)."""
