"""`web_fetch`: fetch a URL and hand its content to the model.

* `tool` — the tool; `entry` — one fetch from URL to answer;
* `address` — which addresses may be fetched (private networks refused, checked per connection);
* `http` — the HTTP client with redirects and size limits; `content` — HTML to text;
  `binary` — what is said about content that is not text.
"""
