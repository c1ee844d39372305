"""`glob`: files matching a pattern, newest first. `tool` is the tool; `walk` walks the workspace through checked directory descriptors."""
