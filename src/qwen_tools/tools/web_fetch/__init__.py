"""``web_fetch``: fetch a URL and hand its content to the model.

* :mod:`.tool` — the tool; :mod:`.params` — :class:`WebFetchParams`; :mod:`.entry` — one fetch, from the URL to the text, and the
  session's cache;
* :mod:`.address` — which addresses may be fetched (private networks refused, checked per
  connection);
* :mod:`.http` — one GET with redirects, a time limit and a size cap; :mod:`.content` — URL
  rewrites, HTML to Markdown, decoding;
* :mod:`.binary` — binary responses: recognised, saved, a PDF's text.
"""
