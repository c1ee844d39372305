"""Reading one file as ``read_file`` and ``read_many_files`` show it.

* :mod:`.file_open` — opening the path through a descriptor checked to lie in the workspace;
* :mod:`.file_types` — text, image, PDF, binary or notebook, as 0.24.4 decides;
* :mod:`.content` — the content parts and display text for one file;
* :mod:`.text_window` — ``offset``/``limit`` line windows and long-line truncation;
* :mod:`.notebook`, :mod:`.pdf` — Jupyter notebooks, and PDF page ranges.
"""
