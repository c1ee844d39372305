"""``python -m qwen_tools``: the same as the ``qwen-tools`` command."""

from qwen_tools.cli.main import entry

entry()
