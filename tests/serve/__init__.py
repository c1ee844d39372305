"""Tests of ``qwen-tools serve``: real MCP clients against spawned servers."""
