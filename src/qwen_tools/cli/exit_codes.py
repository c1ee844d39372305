"""The exit codes of every ``qwen-tools`` command (listed in ``qwen-tools --help``)."""

EXIT_OK = 0
EXIT_TOOL_ERROR = 1
"""A tool call failed (``run``: the model or its API failed)."""
EXIT_USAGE = 2
"""Bad arguments or JSON."""
EXIT_CONFIG = 3
"""A settings file is wrong (``run``: also no model configured)."""
EXIT_REFUSED = 4
"""A call was cancelled or refused."""
EXIT_INTERRUPTED = 130
"""``SIGINT`` (143 and 129 for ``SIGTERM`` and ``SIGHUP``: 128 + the signal)."""
EXIT_BROKEN_PIPE = 141
"""The reader of our output closed the pipe (``| head``): 128 + ``SIGPIPE``, without a word."""
