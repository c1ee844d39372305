"""The programs a shell command would run, as deny and ask rules must see them.

A rule like ``Bash(rm:*)`` must catch ``rm`` however it is spelled or hidden, so
:func:`effective_commands` walks the parsed command (bashlex, see :mod:`.syntax`) and lists each
simple command bash would run, as ``program arg…`` text with quotes removed and the program
reduced to its basename (``/bin/rm`` and ``r''m`` are ``rm``). It looks into every place a
command can hide:

* lists, pipelines, subshells, groups, loops, conditionals and function bodies;
* command substitutions and process substitutions, in words, assignments and redirections;
* ``bash -c``/``sh -c``/``zsh -c`` scripts, ``eval`` arguments, ``trap`` handlers,
  ``env -S``/``su -c``/``watch``/``flock -c`` command strings (each parsed again, to depth 4);
* prefix programs that run their arguments: ``command``, ``builtin``, ``exec``, ``env``,
  ``sudo``/``doas``, ``nohup``, ``nice``, ``ionice``, ``setsid``, ``time``, ``timeout``,
  ``stdbuf``, ``chroot``, ``taskset``, ``chrt``, ``unshare``, ``flock``, ``unbuffer``,
  ``strace``/``ltrace``, ``busybox``, ``xargs``, ``parallel`` (and ``find -exec``/``-execdir``/
  ``-ok``, whose commands are listed besides ``find`` itself), and ``ssh HOST command``;
* brace expansion (``{rm,x}`` is ``rm x``).

What it cannot know is reported in :attr:`EffectiveCommands.opaque`: a program name that is only
known when the command runs (``$X``, ``$(…)``, a glob such as ``/bin/r?``, ``{}`` filled in by
``find -exec``/``xargs -I``), a shell reading commands from stdin, ``source``/``bash`` of a substitution (``source <(…)``), ``alias``/``shopt``/
``hash``/``enable``, substitutions inside unquoted heredocs or parameter defaults, and text
bashlex cannot parse. A script file (``./x.sh``, ``bash x.sh``, ``source x.sh``) and programs
that run other programs by their own means (``python -c``, ``make``, ``npm run``, ``git``
aliases) are programs like any other: no name-based rule sees inside them.
"""

from __future__ import annotations

import functools
import re
import shlex
from dataclasses import dataclass

from qwen_tools.shell.braces import expand_braces
from qwen_tools.shell.sed_awk import has_brace_expansion
from qwen_tools.shell.substitution import detect_command_substitution, prepare_for_bashlex
from qwen_tools.shell.syntax import Group, Script, SimpleCommand, Word, parse_script
from qwen_tools.shell.text_scan import ENV_ASSIGNMENT, word_set

__all__ = ["EffectiveCommands", "effective_commands"]

_MAX_DEPTH = 4
_SHELLS = word_set("sh bash zsh dash ksh mksh ash")
_OPAQUE_PROGRAMS = word_set("alias shopt hash enable")
_SOURCES = word_set("source .")
_RESERVED = word_set(
    "if then else elif fi do done while until for in esac ! time coproc select function"
)
# Prefix programs: options that take a separate value, and how many operands precede the command.
_PREFIXES: dict[str, tuple[frozenset[str], int]] = {
    "command": (frozenset(), 0),
    "builtin": (frozenset(), 0),
    "exec": (word_set("-a"), 0),
    "env": (word_set("-u --unset -C --chdir -S --split-string"), 0),
    "sudo": (word_set("-u --user -g --group -h --host -p --prompt -C --close-from -D "
                      "--chdir -r --role -t --type -T --command-timeout -U --other-user"), 0),
    "doas": (word_set("-u -C"), 0),
    "nohup": (frozenset(), 0),
    "nice": (word_set("-n --adjustment"), 0),
    "ionice": (word_set("-c --class -n --classdata -p --pid -P --pgid -u --uid"), 0),
    "setsid": (frozenset(), 0),
    "time": (word_set("-f --format -o --output"), 0),
    "timeout": (word_set("-s --signal -k --kill-after"), 1),
    "stdbuf": (word_set("-i --input -o --output -e --error"), 0),
    "chroot": (word_set("--userspec --groups"), 1),
    "taskset": (frozenset(), 1),
    "unbuffer": (frozenset(), 0),
    "flock": (word_set("-w --timeout -E --conflict-exit-code"), 1),
    "chrt": (frozenset(), 1),
    "unshare": (word_set("--propagation --setgroups --map-user --map-group"), 0),
    "strace": (word_set("-o -e -p -s -u -E -a -b -I -O -P -S -X"), 0),
    "ltrace": (word_set("-o -e -p -s -u -a -n -A -D -F -l -L -x"), 0),
    "busybox": (frozenset(), 0),
    "xargs": (word_set("-a --arg-file -d --delimiter -E -e --eof -I -i --replace -L -l "
                       "--max-lines -n --max-args -P --max-procs -s --max-chars"), 0),
    "parallel": (word_set("-j --jobs -S --sshlogin -N -n --max-args -a --arg-file -d "
                          "--delimiter -E -I --timeout --results --joblog --tmpdir -C --colsep "
                          "--delay"), 0),
}  # fmt: skip
_SSH_VALUES = word_set("-B -b -c -D -E -e -F -I -i -J -L -l -m -O -o -p -Q -R -S -W -w")
_REPLACING = re.compile(r"-[Ii]\S*|--replace(?:=.*)?")
_GLOB = re.compile(r"[*?\[]")
_STRING_RUNNERS = word_set("eval watch")
_FIND_EXEC = word_set("-exec -execdir -ok -okdir")


@dataclass(frozen=True)
class EffectiveCommands:
    """Each command that would run (``program arg…``), and why some could not be known."""

    commands: tuple[str, ...]
    opaque: tuple[str, ...]
    argvs: tuple[tuple[str, ...], ...] = ()
    """The same commands as word lists (what :mod:`.virtual_ops` reads)."""
    redirects: tuple[tuple[str, str], ...] = ()
    """``(operator, target)`` of every redirection whose target is known."""


class _Walker:
    def __init__(self) -> None:
        self.commands: list[str] = []
        self.argvs: list[tuple[str, ...]] = []
        self.redirects: list[tuple[str, str]] = []
        self.opaque: list[str] = []

    def script_text(self, text: str, depth: int) -> None:
        """Walk a command string run by a shell (the top level, ``bash -c``, ``eval`` …)."""
        if depth > _MAX_DEPTH:
            self.opaque.append(text)
            return
        script = parse_script(text)
        substitutes = detect_command_substitution(prepare_for_bashlex(text)[0])
        if script is None:
            self._fallback(text, depth, substitutes)
            return
        found_subs = self._nodes(script, depth)
        if substitutes and not found_subs:
            self.opaque.append(text)

    def _fallback(self, text: str, depth: int, substitutes: bool) -> None:
        """Text bashlex rejects (``[[ ]]``, ``case``, ``time`` …): split on operators.

        The split cannot see inside substitutions, so text with any is opaque; so is a command
        word that is an expansion, and text whose quotes do not close.
        """
        if substitutes:
            self.opaque.append(text)
        for line in re.split(r"&&|\|\||;;|[;|&\n(){}]", text):
            try:
                tokens = shlex.split(line, comments=True)
            except ValueError:
                self.opaque.append(line)
                continue
            while tokens and (tokens[0] in _RESERVED or ENV_ASSIGNMENT.match(tokens[0])):
                if tokens[0] == "case":
                    tokens = []
                    break
                tokens.pop(0)
            if tokens and tokens[0].endswith(")") and not tokens[0].startswith("$"):
                tokens.pop(0)  # a case pattern
            if not tokens:
                continue
            if "$" in tokens[0] or "`" in tokens[0]:
                self.opaque.append(line)
                continue
            self._words(tokens, depth)

    def _nodes(self, nodes: Script, depth: int) -> int:
        subs = 0
        for node in nodes:
            if isinstance(node, Group):
                subs += self._words_subs((*node.words, *_targets(node)), depth)
                subs += self._heredocs(node.redirects)
                subs += self._nodes(node.children, depth)
                continue
            subs += self._words_subs((*node.assignments, *node.words, *_targets(node)), depth)
            subs += self._heredocs(node.redirects)
            self.redirects.extend(
                (r.op, r.target.text)
                for r in node.redirects
                if r.target is not None and not (r.target.params or r.target.subs)
            )
            self._simple(node, depth)
        return subs

    def _words_subs(self, words: tuple[Word, ...], depth: int) -> int:
        count = 0
        for word in words:
            for sub in word.subs:
                count += 1 + self._nodes(sub, depth)
            if any("$(" in p or "`" in p or p.endswith("@P") for p in word.params):
                self.opaque.append(word.raw)
        return count

    def _heredocs(self, redirects: tuple[object, ...]) -> int:
        for redirect in redirects:
            body = getattr(redirect, "heredoc", None)
            quoted = getattr(redirect, "heredoc_quoted", False)
            if body and not quoted and detect_command_substitution(body):
                self.opaque.append(body)
                return 1
        return 0

    def _simple(self, command: SimpleCommand, depth: int) -> None:
        if not command.words:
            return
        head = command.words[0]
        if head.params or head.subs:
            self.opaque.append(head.raw)
            return
        program = _basename(head.text)
        if (program in _SHELLS or program in _SOURCES) and any(w.subs for w in command.words[1:]):
            self.opaque.append(command.words[0].raw)
        words: list[str] = []
        for word in command.words:
            if word.fully_quoted or not has_brace_expansion(word.raw):
                words.append(word.text)
                continue
            expanded = expand_braces(word.text)
            if expanded is None:
                self.opaque.append(word.raw)
                return
            words.extend(expanded)
        if _GLOB.search(head.raw) and not head.fully_quoted:
            self.opaque.append(head.raw)
        self._words(words, depth)

    def _words(self, words: list[str], depth: int) -> None:
        """Record ``words`` as a command, then whatever it runs in turn."""
        words = list(words)
        while words:
            program = _basename(words[0])
            words[0] = program
            self.commands.append(" ".join(words))
            self.argvs.append(tuple(words))
            args = words[1:]
            if program in _OPAQUE_PROGRAMS or "{}" in program or _GLOB.search(program):
                self.opaque.append(" ".join(words))
                return
            if program == "ssh":
                rest = _after_options(args, _SSH_VALUES)[1:]
                if rest:
                    self.script_text(" ".join(rest), depth + 1)
                return
            if program in ("xargs", "parallel") and any(_REPLACING.fullmatch(a) for a in args):
                self.opaque.append(" ".join(words))
            if program in _OPAQUE_PROGRAMS:
                self.opaque.append(" ".join(words))
                return
            if program in _SHELLS:
                self._shell(args, depth)
                return
            if program in _STRING_RUNNERS:
                self._string_runner(program, args, depth)
                return
            if program == "trap":
                handler = next((a for a in args if not a.startswith("-")), None)
                if handler is not None:
                    self.script_text(handler, depth + 1)
                return
            if program in ("su", "runuser", "script", "flock", "env"):
                if self._command_string(args, depth) and program != "env":
                    return
                if program in ("su", "runuser", "script"):
                    if not args or program == "su":
                        self.opaque.append(" ".join(words))
                    return
            if program == "find":
                self._find(args, depth)
                return
            if program not in _PREFIXES:
                return
            words = _after_prefix(program, args)

    def _shell(self, args: list[str], depth: int) -> None:
        index = 0
        while index < len(args):
            arg = args[index]
            if re.fullmatch(r"-[A-Za-z]*c[A-Za-z]*", arg):
                if index + 1 < len(args):
                    self.script_text(args[index + 1], depth + 1)
                else:
                    self.opaque.append(" ".join(args))
                return
            if arg in ("-o", "+o", "-O", "+O"):
                index += 2
                continue
            if not arg.startswith(("-", "+")) or arg == "-":
                break
            if arg == "-s":
                break
            index += 1
        if index >= len(args) or args[index] in ("-", "-s"):
            self.opaque.append(" ".join(args) or "shell reading stdin")

    def _string_runner(self, program: str, args: list[str], depth: int) -> None:
        if program == "watch":
            args = _after_options(args, word_set("-n --interval -d --differences -q --equexit"))
        if args:
            self.script_text(" ".join(args), depth + 1)

    def _command_string(self, args: list[str], depth: int) -> bool:
        found = False
        for index, arg in enumerate(args):
            for flag in ("-c", "--command", "-S", "--split-string"):
                if arg == flag and index + 1 < len(args):
                    self.script_text(args[index + 1], depth + 1)
                    found = True
                elif arg.startswith(flag + "=") or (
                    len(flag) == 2 and arg.startswith(flag) and len(arg) > 2
                ):
                    value = arg.split("=", 1)[1] if "=" in arg else arg[2:]
                    self.script_text(value, depth + 1)
                    found = True
        return found

    def _find(self, args: list[str], depth: int) -> None:
        index = 0
        while index < len(args):
            if args[index] in _FIND_EXEC:
                end = index + 1
                while end < len(args) and args[end] not in (";", "+"):
                    end += 1
                inner = args[index + 1 : end]
                if inner:
                    self._words(inner, depth)
                index = end
            index += 1


def _targets(node: SimpleCommand | Group) -> tuple[Word, ...]:
    return tuple(r.target for r in node.redirects if r.target is not None)


def _basename(program: str) -> str:
    return program.replace("\\", "/").rsplit("/", 1)[-1] or program


def _after_options(args: list[str], with_values: frozenset[str]) -> list[str]:
    index = 0
    while index < len(args) and args[index].startswith("-") and args[index] != "-":
        option = args[index]
        index += 1
        if option == "--":
            break
        if option in with_values and "=" not in option:
            index += 1
    return args[index:]


def _after_prefix(program: str, args: list[str]) -> list[str]:
    """The command a prefix program runs: options, assignments and operands skipped."""
    with_values, operands = _PREFIXES[program]
    rest = _after_options(args, with_values)
    if program in ("env", "sudo", "doas"):
        while rest and ENV_ASSIGNMENT.match(rest[0]):
            rest = rest[1:]
    return rest[operands:]


@functools.lru_cache(maxsize=512)
def effective_commands(command: str) -> EffectiveCommands:
    """The commands ``command`` would run (see the module docstring); cached."""
    walker = _Walker()
    walker.script_text(command.strip(), 0)
    return EffectiveCommands(
        tuple(dict.fromkeys(walker.commands)),
        tuple(dict.fromkeys(walker.opaque)),
        tuple(dict.fromkeys(walker.argvs)),
        tuple(dict.fromkeys(walker.redirects)),
    )
