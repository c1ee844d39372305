"""``web_search``: search the web through the configured provider.

* :mod:`.tool` — the tool (registered only when a provider is configured); :mod:`.params` —
  :class:`WebSearchParams`;
* :mod:`.base` — what a provider implements: result types, HTTP and formatting;
* :mod:`.tavily`, :mod:`.google`, :mod:`.dashscope` — the providers Qwen Code knows.
"""
