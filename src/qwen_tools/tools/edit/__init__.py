"""``edit``: replace text in a file, or create one from an empty ``old_string``.

* :mod:`.tool` — the tool: validation, the confirmation with its diff, the write;
* :mod:`.params` — :class:`EditParams`, the params as its schema declares them;
* :mod:`.matching` — finding the old text: exact, then the reference's flexible matches;
* :mod:`.plan` — from the params and the file's text to the new text and its diff, or a refusal.
"""
