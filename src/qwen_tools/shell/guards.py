"""Validation guards of ``run_shell_command``: self-kill, bare trailing ``&``, foreground sleeps.

* **Self-kill**: ``pkill``/``killall``/``taskkill`` naming node or qwen(-code), ``pkill -f`` with
  a qwen or bare-node pattern, ``kill $(pgrep node)`` and ``pgrep node | xargs kill`` — through
  ``sudo``/``command``/``env`` prefixes and ``bash -c`` wrappers. As this package runs in Python,
  ``python``/``python3``/``python3.N`` and ``qwen-tools``/``qwen_tools`` count as self too.
* **Trailing ``&``** (background calls only): a bare top-level ``&`` at the end.
* **Standalone sleep** (foreground only): ``sleep N`` (N ≥ 2 s) alone or before ``;``/``&&``/
  ``||``/newline, unless a trailing ``# intentional-sleep: <reason>`` (≥ 8 characters) allows a
  standalone one of at most 10 minutes.
"""

from __future__ import annotations

import re

from qwen_tools.shell.syntax import iter_commands, parse_script
from qwen_tools.shell.text_scan import (
    ENV_ASSIGNMENT,
    split_commands,
    split_trailing_comment,
    tokenize,
    word_set,
)

__all__ = [
    "SELF_KILL_REJECTION",
    "blocked_sleep_message",
    "detect_self_kill",
    "shell_wrapper_script",
]

SELF_KILL_REJECTION = (
    "Blocked: this command may terminate the running qwen-code process because it targets all "
    "node/qwen-code processes. Use task_stop for managed background shells, or kill a specific "
    "PID instead."
)
_SELF = re.compile(
    r"(^|[^a-z0-9_-])(node(?:\.exe)?|qwen(?:-code)?(?:\.exe)?|qwen[-_]tools"
    r"|python(?:3(?:\.\d+)?)?)(?=$|[^a-z0-9_-])",
    re.IGNORECASE,
)
_QWEN = re.compile(
    r"(^|[^a-z0-9_-])(qwen(?:-code)?(?:\.exe)?|qwen[-_]tools)(?=$|[^a-z0-9_-])", re.IGNORECASE
)
_BROAD_FULL = re.compile(r"(?:node(?:\.exe)?|python(?:3(?:\.\d+)?)?)[*?]*")
_SUDO_VALUES = word_set(
    "-u --user -g --group -h --host -p --prompt -C --close-from -T --command-timeout"
)
_ENV_VALUES = word_set("-u --unset -S --split-string -C --chdir")
_KILLALL_VALUES = word_set(
    "-n --ns -o --older-than -s --signal -t --tty -u --user -y --younger-than -Z --context"
)
_PKILL_VALUES = word_set(
    "-F --pidfile -G --group -g --pgroup -P --parent -s --session -t --terminal -T --thread "
    "-U --uid -u --euid"
)
_XARGS_VALUES = word_set(
    "-I -n -P -s -E -d -L -l -a -J -R --replace --max-args --max-procs --max-chars --eof "
    "--delimiter --max-lines --arg-file"
)
_WRAPPERS = frozenset(("sh", "bash", "zsh", "sh.exe", "bash.exe", "zsh.exe"))


def _exe(token: str) -> str:
    name = re.split(r"[\\/]", token)[-1].lower()
    return name[:-4] if name.endswith(".exe") else name


def _option_key(token: str) -> str:
    return token.lower() if token.startswith("--") else token


def _bundle_has(token: str, flag: str) -> bool:
    return (
        token.startswith("-")
        and not token.startswith("--")
        and len(token) > 2
        and flag.lower()[1:] in token[1:].lower()
    )


def _inline_value(token: str) -> bool:
    return "=" in token or ":" in token


def _skip_options(tokens: list[str], index: int, with_values: frozenset[str]) -> int:
    while index < len(tokens) and tokens[index].startswith("-"):
        token = tokens[index]
        index += 1
        takes_value = _option_key(token) in with_values or any(
            _bundle_has(token, option) for option in with_values
        )
        if takes_value and not _inline_value(token):
            index += 1
    return index


def _unwrap(tokens: list[str]) -> list[str]:
    """Drop leading assignments and ``sudo``/``command``/``env`` prefixes with their options."""
    index = 0
    while index < len(tokens) and ENV_ASSIGNMENT.match(tokens[index]):
        index += 1
    while index < len(tokens):
        root = _exe(tokens[index])
        if root == "sudo":
            index = _skip_options(tokens, index + 1, _SUDO_VALUES)
        elif root == "command":
            index = _skip_options(tokens, index + 1, frozenset())
        elif root == "env":
            index = _skip_options(tokens, index + 1, _ENV_VALUES)
            while index < len(tokens) and ENV_ASSIGNMENT.match(tokens[index]):
                index += 1
        else:
            break
    return tokens[index:]


def _arguments(tokens: list[str], with_values: frozenset[str]) -> list[str]:
    args: list[str] = []
    index = 1
    while index < len(tokens):
        token = tokens[index]
        if token == "--":
            args.extend(tokens[index + 1 :])
            break
        if token.startswith("-"):
            if _option_key(token) in with_values and not _inline_value(token):
                index += 1
        else:
            args.append(token)
        index += 1
    return args


def _pkill_targets_self(tokens: list[str]) -> bool:
    full = False
    args: list[str] = []
    index = 1
    while index < len(tokens):
        token = tokens[index]
        key = _option_key(token)
        if token == "--":
            args.extend(tokens[index + 1 :])
            break
        if key in ("-f", "--full") or _bundle_has(token, "-f"):
            full = True
        elif token.startswith("-"):
            if key in _PKILL_VALUES and not _inline_value(token):
                index += 1
        else:
            args.append(token)
        index += 1
    if full:
        return any(_QWEN.search(arg) or _broad_full_pattern(arg) for arg in args)
    return any(_SELF.search(arg) for arg in args)


def _broad_full_pattern(value: str) -> bool:
    core = re.sub(r"^(?:\^|\\b|\.\*)+", "", value.strip())
    core = re.sub(r"(?:\$|\\b|\.\*)+$", "", core)
    return bool(_BROAD_FULL.fullmatch(re.split(r"[\\/]", core)[-1].lower()))


def _taskkill_targets_self(tokens: list[str]) -> bool:
    image_filter = re.compile(r"\bimagename\s+eq\s+(.+)$", re.IGNORECASE)
    for index, token in enumerate(tokens[1:], start=1):
        key = token.lower()
        following = tokens[index + 1] if index + 1 < len(tokens) else ""
        if key in ("/im", "-im") and _SELF.search(following):
            return True
        if key[:4] in ("/im:", "-im:") and _SELF.search(token[4:]):
            return True
        value = (
            following if key in ("/fi", "-fi") else token[4:] if key[:4] in ("/fi:", "-fi:") else ""
        )
        found = image_filter.search(value) if value else None
        if found and _SELF.search(found.group(1)):
            return True
    return False


def _pgrep_substitution_args(text: str) -> list[str]:
    """Argument strings of ``$(pgrep …)`` / `` `pgrep …` `` inside ``text``."""
    found: list[str] = []
    quote = ""
    escaped = False
    i = 0
    while i < len(text):
        ch = text[i]
        if quote == "'":
            quote = "" if ch == "'" else quote
        elif escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == '"':
            quote = "" if quote == '"' else '"'
        elif ch == "'" and not quote:
            quote = "'"
        elif ch == "`" or (ch == "$" and text[i + 1 : i + 2] == "("):
            start = i + (1 if ch == "`" else 2)
            end = text.find("`" if ch == "`" else ")", start)
            if end < 0:
                break
            match = re.match(r"pgrep\b(.*)$", text[start:end].strip(), re.IGNORECASE | re.DOTALL)
            if match:
                found.append(match.group(1))
            i = end
        i += 1
    return found


def _xargs_kills(tokens: list[str] | None) -> bool:
    tokens = _unwrap(tokens or [])
    if not tokens or _exe(tokens[0]) != "xargs":
        return False
    invoked = _unwrap(_arguments(tokens, _XARGS_VALUES))
    first = next((t for t in invoked if not t.startswith("-")), "")
    return _exe(first) == "kill"


def shell_wrapper_script(tokens: list[str]) -> str | None:
    """The script of ``[VAR=… ]sh|bash|zsh [flags] -c SCRIPT …`` (``-lc`` etc. too), else None."""
    index = 0
    while index < len(tokens) and ENV_ASSIGNMENT.match(tokens[index]):
        index += 1
    if index >= len(tokens) or re.split(r"[\\/]", tokens[index])[-1].lower() not in _WRAPPERS:
        return None
    index += 1
    while index < len(tokens):
        flag = tokens[index].lower()
        if re.fullmatch(r"-[a-z]*c[a-z]*", flag):
            return tokens[index + 1] if index + 1 < len(tokens) else None
        if not (flag.startswith("-") or flag == "+o"):
            return None
        if flag in ("-o", "+o"):
            index += 1
        index += 1
    return None


def _segments(command: str, depth: int = 0) -> list[tuple[list[str] | None, str]]:
    script = parse_script(command)
    if script is None:
        found = [(tokenize(part), part) for part in split_commands(command)]
    else:
        found = [
            ([w.text for w in (*c.assignments, *c.words)], command[c.start : c.end])
            for c in iter_commands(script, into_substitutions=True)
        ]
    result: list[tuple[list[str] | None, str]] = []
    for tokens, text in found:
        inner = shell_wrapper_script(tokens) if tokens else None
        if inner is not None and depth < 3:
            result.extend(_segments(inner, depth + 1))
        else:
            result.append((tokens, text))
    return result


def detect_self_kill(command: str) -> bool:
    """True when the command would kill every node/qwen-code (or this Python) process."""
    if "kill" not in command.lower():
        return False
    segments = _segments(command)
    for index, (raw_tokens, text) in enumerate(segments):
        tokens = _unwrap(raw_tokens or [])
        if not tokens:
            continue
        root = _exe(tokens[0])
        if (
            (root == "taskkill" and _taskkill_targets_self(tokens))
            or (
                root == "killall"
                and any(_SELF.search(a) for a in _arguments(tokens, _KILLALL_VALUES))
            )
            or (root == "pkill" and _pkill_targets_self(tokens))
        ):
            return True
        if root == "kill":
            for args in _pgrep_substitution_args(text):
                pgrep = tokenize(f"pgrep {args}")
                if pgrep is not None and _pkill_targets_self(pgrep):
                    return True
        if (
            root == "pgrep"
            and _pkill_targets_self(tokens)
            and any(_xargs_kills(later) for later, _ in segments[index + 1 :])
        ):
            return True
    return False


_STANDALONE_GUIDANCE = (
    "If you genuinely need a standalone delay (rate limiting, deliberate pacing), add a trailing "
    "comment like `# intentional-sleep: wait for MCP rate limit reset` (up to 10 minutes)."
)
_SPLIT_GUIDANCE = (
    "Split into two calls: first `sleep N # intentional-sleep: <reason>` (standalone), then the "
    "follow-up command."
)
_SHORT_REASON = (
    "The intentional-sleep comment was recognized, but the reason is too short; explain why the "
    "delay is needed after `intentional-sleep:`."
)
_TOO_LONG = (
    "The intentional-sleep comment was recognized, but foreground sleeps over 10 minutes are not "
    "allowed; use is_background: true or Monitor for longer waits."
)
_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


def _sleep_seconds(token: str) -> float | None:
    match = re.match(r"(\d*\.?\d*)", token)
    number = match.group(1) if match else ""
    if not re.search(r"\d", number):
        return None
    factor = _UNITS.get(token[len(number) :].lower() or "s")
    return None if factor is None else float(number) * factor


def blocked_sleep_message(command: str) -> str | None:
    """The foreground-sleep rejection for ``command``, or ``None`` when it may run."""
    code, comment = split_trailing_comment(command)
    text = code.strip()
    match = re.match(r"sleep(\s+)([^\s;&|]*)", text)
    if not match or not match.group(2):
        return None
    duration = match.group(2)
    seconds = _sleep_seconds(duration)
    if seconds is None or seconds < 2:
        return None
    suffix = text[match.end() :]
    suffix = suffix[len(suffix) - len(re.sub(r"^[^\S\n]+", "", suffix)) :]
    if not suffix:
        rest = ""
    elif suffix[:2] in ("&&", "||"):
        rest = suffix[2:].strip()
    elif suffix[0] in ";\n":
        rest = suffix[1:].strip()
    else:
        return None
    description = (
        f"sleep {duration} followed by: {rest}" if rest else f"standalone sleep {duration}"
    )
    guidance = _SPLIT_GUIDANCE if rest else _STANDALONE_GUIDANCE
    note = (comment or "").strip()
    if not rest and note.startswith("intentional-sleep:"):
        if len(note[len("intentional-sleep:") :].strip()) < 8:
            guidance = _SHORT_REASON
        elif seconds > 600:
            guidance = _TOO_LONG
        else:
            return None
    return (
        f"Blocked: {description}. Run blocking commands in the background with is_background: "
        "true. For streaming events (watching logs, polling APIs), use the Monitor tool. "
        + guidance
    )
