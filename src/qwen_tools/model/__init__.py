"""Talking to a model: the OpenAI-compatible chat-completions client and what tools may ask of it.

* :mod:`.client` — :class:`ChatClient` (httpx, streamed or not); :mod:`.retry`, :mod:`.errors` —
  retries and errors as Qwen Code 0.24.4 has them;
* :mod:`.completion` — one answer (text, reasoning, tool calls, usage); :mod:`.json_args` —
  tool-call arguments parsed, and repaired when broken;
* :mod:`.model_config` — :class:`ModelConfig`: the endpoint and limits; :mod:`.caps` — what a
  model can take (token limits, modalities);
* :mod:`.protocol` — what a tool may ask of the session's model (``web_fetch``).
"""
