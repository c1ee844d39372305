"""Helpers every file tool shares: `paths` (resolving and checking a path the model gave, the texts of path errors) and `glob_patterns` (glob syntax as Qwen Code's glob library reads it)."""
