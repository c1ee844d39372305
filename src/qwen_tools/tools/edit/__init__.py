"""`edit`: replace text in a file. `tool` is the tool; `matching` finds the old text (exact, then the reference's flexible matches); `plan` computes the new content and its diff."""
