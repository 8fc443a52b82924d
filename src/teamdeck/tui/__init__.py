"""The live supervisor: ``teamdeck tui`` (Textual). A thin app over the read model
(view/) and the protocol functions; it never writes a file itself."""
