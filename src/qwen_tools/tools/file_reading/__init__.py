"""Reading one file as `read_file` and `read_many_files` show it: type detection, checked opening, text windows, images, PDFs and notebooks.

* `file_open` — opening the path through a descriptor checked to lie in the workspace;
* `file_types` — text, image, PDF, binary or notebook, as 0.24.4 decides;
* `content` — the content parts and display text for one file;
* `text_window` — `offset`/`limit` line windows and long-line truncation;
* `notebook`, `pdf` — Jupyter notebooks and PDF text.
"""
