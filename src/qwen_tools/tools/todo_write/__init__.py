"""`todo_write`: the session's todo list. `tool` is the tool; `store` keeps each session's list on disk as 0.24.4 does."""
