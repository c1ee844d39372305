"""`save_memory`: remember a fact in `QWEN.md` (global or project). `tool` is the tool; `memory_file` edits the memory section of the file."""
