"""The shell engine behind ``run_shell_command`` (the tool itself is :mod:`qwen_tools.tools.shell`).

* parsing: :mod:`.syntax` (a typed tree from bashlex's parse), :mod:`.braces`,
  :mod:`.substitution`, :mod:`.text_scan`;
* does a command only read: :mod:`.command_analysis`, :mod:`.safety`, :mod:`.safety_rules`,
  :mod:`.sed_awk`, :mod:`.readonly_paths`, :mod:`.git_config_risk`;
* what permission rules see of a command: :mod:`.command_words`, :mod:`.virtual_ops`;
  :mod:`.rules` — the rule suggested for it;
* running it: :mod:`.guards` (validation), :mod:`.execution`, :mod:`.command_run` (a command
  to its end in its own process group: stdin, caps, timeout, abort), :mod:`.output`, :mod:`.background`
  (background shells), :mod:`.sandbox` (the optional bubblewrap sandbox).
"""
