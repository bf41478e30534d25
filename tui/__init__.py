"""planwatch's terminal app (Textual) and its command line."""
