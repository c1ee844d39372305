"""Shell support for ``run_shell_command``: command analysis, validation guards, sandboxing."""
