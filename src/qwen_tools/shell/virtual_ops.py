"""What a shell command reads, lists, writes and fetches, as file and web rules must see it.

Qwen Code 0.24.4 checks ``Read``/``Edit``/``Write``/``WebFetch`` rules against the "virtual
operations" of a shell command too, so ``deny: ["Read(/secret/**)"]`` also stops
``cat secret/key``. :func:`virtual_operations` derives them from the commands
:func:`~qwen_tools.shell.command_words.effective_commands` finds (so wrappers, ``bash -c`` and
substitutions are covered), for the common programs:

* reads (``read_file``): ``cat``, ``head``, ``tail``, ``less``, ``wc``, ``sort``, ``diff``,
  checksums, ``xxd``/``od``… (their file arguments), ``grep``/``rg``/``sed``/``awk``/``jq`` (after
  the pattern or script), ``cp``'s sources, ``dd if=``, ``< FILE``;
* listings (``list_directory``): ``ls``, ``tree``, ``du`` and ``find``'s start points (the
  directory itself when none is given);
* writes (``write_file``): ``> FILE``/``>> FILE``/``&> FILE``, ``tee``, ``touch``, ``rm``,
  ``mkdir``, ``rmdir``, ``truncate``, ``chmod``/``chown``, ``cp``/``mv``/``ln``/``install``'s
  destination (or ``-t DIR``), ``sed -i``, ``dd of=``, ``curl -o``, ``wget -O``;
* fetches (``web_fetch``): the hosts of ``curl``/``wget`` URLs.

Relative paths are resolved against the command's directory and every ``cd``/``pushd`` target met
in the line (any may be current); a target only known when it runs makes the directory unknown
(reported, so that a rule on the paths can make the call ask). Like Qwen Code's table this is
not exhaustive: a program not listed reads and writes unseen.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from qwen_tools.contract.tool_names import ToolNames
from qwen_tools.shell.command_words import effective_commands
from qwen_tools.shell.text_scan import word_set

__all__ = ["VirtualOp", "VirtualOps", "virtual_operations"]

READ, LIST, WRITE = ToolNames.READ_FILE, ToolNames.LIST_DIRECTORY, ToolNames.WRITE_FILE
FETCH = ToolNames.WEB_FETCH

_READERS: dict[str, frozenset[str]] = {
    **dict.fromkeys(
        word_set("cat tac nl zcat bzcat xzcat less more wc file stat readlink realpath diff diff3 "
                 "sdiff cmp md5sum sha1sum sha224sum sha256sum sha384sum sha512sum b2sum cksum "
                 "sum strings hexdump xxd paste expand unexpand base64 base32 column fold uniq"),
        frozenset(),
    ),
    "head": word_set("-n -c --lines --bytes"),
    "tail": word_set("-n -c -s --lines --bytes --sleep-interval"),
    "od": word_set("-A -j -N -t -w"),
    "sort": word_set("-k -t -S -T --key --field-separator --buffer-size --temporary-directory"),
    "cut": word_set("-d -f -c -b --delimiter --fields --characters --bytes"),
    "join": word_set("-t -1 -2 -o -j"),
}  # fmt: skip
# Programs whose first operand is a pattern or script unless one came with an option.
_PATTERN_FIRST: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "grep": (word_set("-e -f --regexp --file"),
             word_set("-m -A -B -C --max-count --context --include --exclude --exclude-dir "
                      "--label --color --colour -d -D --devices --directories")),
    "rg": (word_set("-e -f --regexp --file"),
           word_set("-m -A -B -C -g -t -T -M -j -E --glob --iglob --type --type-not --max-count "
                    "--context --max-columns --threads --encoding --ignore-file --sort --sortr "
                    "--max-depth --max-filesize --colors --color --replace -r")),
    "sed": (word_set("-e -f --expression --file"), word_set("-l --line-length")),
    "awk": (word_set("-f --file"), word_set("-F -v --field-separator --assign")),
    "jq": (frozenset(), word_set("--arg --argjson --slurpfile --rawfile --indent")),
}  # fmt: skip
for _alias, _name in (("egrep", "grep"), ("fgrep", "grep"), ("zgrep", "grep"), ("gawk", "awk")):
    _PATTERN_FIRST[_alias] = _PATTERN_FIRST[_name]
_LISTERS: dict[str, frozenset[str]] = {
    "ls": frozenset(),
    "tree": word_set("-L -P -I -o --filelimit"),
    "du": word_set("-d --max-depth -B --block-size -t --threshold --exclude"),
}
_WRITERS = word_set("touch rm rmdir mkdir truncate shred unlink")
_MODE_FIRST = word_set("chmod chown chgrp")
_COPIERS = word_set("cp mv ln install")
_SAFE_TARGETS = word_set("/dev/null /dev/stdout /dev/stderr /dev/tty")


@dataclass(frozen=True)
class VirtualOp:
    """One file or web operation: ``tool`` is the file tool it stands for, ``target`` an
    absolute path or (``web_fetch``) a host."""

    tool: str
    target: str


@dataclass(frozen=True)
class VirtualOps:
    """The operations of a command line, and whether its directory is unknown somewhere."""

    ops: tuple[VirtualOp, ...]
    unknown_directory: bool


def _looks_like_path(arg: str) -> bool:
    return bool(arg) and not (
        arg.startswith(("$", "-")) or arg.isdigit() or "{" in arg or "}" in arg or "://" in arg
    )


def _operands(args: Iterable[str], with_values: frozenset[str]) -> list[str]:
    operands: list[str] = []
    skip = False
    rest = False
    for arg in args:
        if skip:
            skip = False
        elif rest or arg == "-" or not arg.startswith("-"):
            operands.append(arg)
        elif arg == "--":
            rest = True
        elif arg in with_values:
            skip = True
    return operands


def _has_option(args: Iterable[str], options: frozenset[str]) -> bool:
    return any(
        arg in options
        or arg.split("=", 1)[0] in options
        or any(len(o) == 2 and arg.startswith(o) and not arg.startswith("--") for o in options)
        for arg in args
    )


class _Collector:
    def __init__(self, bases: list[str], home: str) -> None:
        self.bases = bases
        self.home = home
        self.ops: list[VirtualOp] = []

    def paths(self, tool: str, args: Iterable[str]) -> None:
        for arg in args:
            if not _looks_like_path(arg) or arg in _SAFE_TARGETS:
                continue
            path = self.home + arg[1:] if arg == "~" or arg.startswith("~/") else arg
            if os.path.isabs(path):
                self.ops.append(VirtualOp(tool, os.path.normpath(path)))
            else:
                for base in self.bases:
                    self.ops.append(VirtualOp(tool, os.path.normpath(os.path.join(base, path))))

    def host(self, url: str) -> None:
        host = urlsplit(url if "://" in url else f"https://{url}").hostname
        if host:
            self.ops.append(VirtualOp(FETCH, host.lower()))

    def command(self, argv: tuple[str, ...]) -> None:
        program, args = argv[0], list(argv[1:])
        if program in _READERS:
            self.paths(READ, _operands(args, _READERS[program]))
        elif program in _PATTERN_FIRST:
            given, values = _PATTERN_FIRST[program]
            operands = _operands(args, values | given)
            inplace = program == "sed" and _has_option(args, word_set("-i --in-place"))
            files = operands if _has_option(args, given) else operands[1:]
            self.paths(WRITE if inplace else READ, files)
        elif program in _LISTERS:
            self.paths(LIST, _operands(args, _LISTERS[program]) or ["."])
        elif program == "find":
            starts = []
            for arg in args:
                if arg.startswith(("-", "(", "!")):
                    break
                starts.append(arg)
            self.paths(LIST, starts or ["."])
        elif program in _WRITERS or program == "tee":
            self.paths(WRITE, _operands(args, word_set("-s --size -m --mode")))
        elif program in _MODE_FIRST:
            self.paths(WRITE, _operands(args, word_set("--reference"))[1:])
        elif program in _COPIERS:
            self._copy(program, args)
        elif program == "dd":
            self.paths(READ, [a[3:] for a in args if a.startswith("if=")])
            self.paths(WRITE, [a[3:] for a in args if a.startswith("of=")])
        elif program in ("curl", "wget"):
            self._fetch(program, args)

    def _copy(self, program: str, args: list[str]) -> None:
        values = word_set("-t --target-directory -S --suffix -m --mode -o --owner -g --group")
        operands = _operands(args, values)
        target = next(
            (
                args[i + 1] if a in ("-t", "--target-directory") else a.split("=", 1)[1]
                for i, a in enumerate(args)
                if (a in ("-t", "--target-directory") and i + 1 < len(args))
                or a.startswith("--target-directory=")
            ),
            None,
        )
        if target is not None:
            sources = operands
            self.paths(WRITE, [os.path.join(target, os.path.basename(s)) for s in sources])
        elif operands:
            sources = operands[:-1]
            self.paths(WRITE, operands[-1:])
        else:
            sources = []
        if program in ("cp", "install"):
            self.paths(READ, sources)

    def _fetch(self, program: str, args: list[str]) -> None:
        out = "-o" if program == "curl" else "-O"
        values = word_set(
            "-o -O -H -d -X -u -A -e -b -c -F -T -w -x -K --output --header --data --request "
            "--user --user-agent --referer --cookie --output-document --url"
        )
        for index, arg in enumerate(args):
            if arg in (out, "--output", "--output-document") and index + 1 < len(args):
                self.paths(WRITE, [args[index + 1]])
            if arg == "--url" and index + 1 < len(args):
                self.host(args[index + 1])
        for operand in _operands(args, values):
            self.host(operand)


def virtual_operations(command: str, cwd: str, home: str | None = None) -> VirtualOps:
    """The file and web operations ``command``, run in ``cwd``, would make (see above)."""
    found = effective_commands(command)
    bases = [cwd]
    unknown = False
    home = home or os.path.expanduser("~")
    for argv in found.argvs:
        if argv[0] not in ("cd", "pushd", "popd"):
            continue
        targets = [a for a in argv[1:] if not a.startswith("-")]
        if argv[0] == "popd" or not targets or "$" in targets[0] or "`" in targets[0]:
            unknown = True
            continue
        target = home + targets[0][1:] if targets[0].startswith("~") else targets[0]
        bases = list(dict.fromkeys([*bases, *(os.path.join(b, target) for b in bases)]))
    collector = _Collector(bases, home)
    for argv in found.argvs:
        collector.command(argv)
    for op, target in found.redirects:
        if op in ("<", "<>"):
            collector.paths(READ, [target])
        if ">" in op and not target.isdigit() and target != "-":
            collector.paths(WRITE, [target])
    return VirtualOps(tuple(dict.fromkeys(collector.ops)), unknown)
