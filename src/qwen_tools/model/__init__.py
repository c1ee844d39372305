"""Talking to a model: the OpenAI-compatible chat-completions client and what tools may ask of it."""
