"""`web_search`: search through the configured provider. `tool` is the tool; `base` is what a provider implements; `tavily`, `google`, `dashscope` are the providers 0.24.4 knows."""
