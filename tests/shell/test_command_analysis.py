"""Tests for ``_shell.command_analysis``: read-only decisions, roots, rules, substitution."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from qwen_tools.shell.command_analysis import (
    analyze_command,
    get_command_roots,
    is_read_only_command,
    is_read_only_in_directory,
    strip_shell_wrapper,
)

READ_ONLY = [
    "awk '{print $1}' f.txt", "basename /a/b", "cat f.txt", "cd src", "column -t f", "cut -d, -f1 f",
    "df -h", "dirname /a/b", "du -sh .", "echo hi", "find . -name '*.py'", "git status", "grep -rn x .",
    "head -5 f", "ls -la", "printenv HOME", "printf '%s\\n' a", "ps aux", "pwd", "rg foo", "ripgrep foo",
    "sed -n 1,5p f", "sort f", "stat f", "tail -n 3 f", "tree src", "uniq f", "wc -l f", "which git",
    "where git", "whoami",
]  # fmt: skip


@pytest.mark.parametrize("command", READ_ONLY)
def test_read_only_roots(command: str) -> None:
    analysis = analyze_command(command)
    assert analysis.parse_ok
    assert analysis.is_read_only, command
    assert analysis.safety == "read-only"
    assert analysis.non_read_only_roots == ()
    assert analysis.permission_rules == ()


@pytest.mark.parametrize(
    ("command", "safety"),
    [
        ("npm test", "unknown"), ("python3 x.py", "unknown"), ("make", "unknown"),
        ("less f", "unknown"), ("more f", "unknown"), ("LS", "unknown"), ("/usr/bin/ls", "unknown"),
        ('"ls"', "unknown"), ("sudo ls", "unknown"), ("curl https://x", "unknown"),
        ("printf -v x hi", "unknown"), ("rg --pre cat x", "unknown"), ("sort -o out f", "write"),
        ("uniq in out", "write"), ("git --help", "read-only"),
    ],
)  # fmt: skip
def test_not_read_only_programs(command: str, safety: str) -> None:
    analysis = analyze_command(command)
    assert analysis.safety == safety
    assert analysis.is_read_only is (safety == "read-only")


GIT_READ_ONLY = [
    "blame f", "branch", "branch --list", "branch -a", "branch -r", "cat-file -p HEAD", "diff",
    "diff HEAD~1 -- src", "grep -n foo", "log --oneline -5", "ls-files", "remote", "remote -v",
    "remote show origin", "remote get-url origin", "rev-parse HEAD", "show HEAD", "status --short",
    "describe --tags", "--version",
]  # fmt: skip
GIT_NOT_READ_ONLY = [
    ("add .", "write"), ("commit -m x", "write"), ("push", "write"), ("checkout main", "write"),
    ("stash", "write"), ("fetch", "write"), ("pull", "write"), ("reset --hard", "write"),
    ("branch feature", "write"), ("branch -D feature", "write"), ("remote add o u", "write"),
    ("remote prune origin", "write"), ("config user.name x", "unknown"), ("tag v1", "unknown"),
    ("diff --output=out.patch", "write"), ("diff --ext-diff", "unknown"),
    ("log --show-signature", "unknown"), ("log --format=%G?", "unknown"), ("grep -Ovim x", "unknown"),
    ("status --help", "unknown"), ("push --dry-run", "unknown"), ("-C sub status", "unknown"),
    ("log *", "unknown"), ("diff $REV", "unknown"),
]  # fmt: skip


@pytest.mark.parametrize("args", GIT_READ_ONLY)
def test_git_read_only_subcommands(args: str) -> None:
    assert is_read_only_command(f"git {args}")


@pytest.mark.parametrize(("args", "safety"), GIT_NOT_READ_ONLY)
def test_git_other_subcommands(args: str, safety: str) -> None:
    analysis = analyze_command(f"git {args}")
    assert not analysis.is_read_only
    assert analysis.safety == safety


@pytest.mark.parametrize(
    ("command", "read_only"),
    [
        ("ls | grep x", True), ("cd src && ls", True), ("ls; pwd", True), ("(cd src && ls)", True),
        ("{ ls; pwd; }", True), ("ls || echo none", True), ("! grep -q x f", True),
        ("ls\npwd", True), ("ls && rm x", False), ("(ls; rm x)", False), ("ls | tee out", False),
        ("for f in *; do cat $f; done", False), ("if true; then ls; fi", False),
        ("f() { ls; }; f", False),
    ],
)  # fmt: skip
def test_lists_pipelines_and_groups(command: str, read_only: bool) -> None:
    assert is_read_only_command(command) is read_only


@pytest.mark.parametrize(
    ("command", "read_only"),
    [
        ("ls > out", False), ("ls >> out", False), ("ls 2> err", False), ("ls &> out", False),
        ("ls &>> out", False), ("ls >| out", False), ("ls >& out", False), ("ls > /dev/null", False),
        ("ls 2>/dev/null", False), ("ls 2>&1", True), ("ls >&2", True), ("ls 2>&-", True),
        ("cat < in.txt", True), ("grep x <<< 'text'", True), ("(ls) > out", False),
    ],
)  # fmt: skip
def test_redirections(command: str, read_only: bool) -> None:
    assert is_read_only_command(command) is read_only


@pytest.mark.parametrize(
    "command",
    [
        "rm -rf build",
        "mv a b",
        "cp a b",
        "chmod +x f",
        "chown me f",
        "chgrp g f",
        "mkdir d",
        "touch f",
        "ln -s a b",
        "rmdir d",
        "truncate -s 0 f",
        "unlink f",
        "install a b",
        "shred f",
        "tee out",
        "dd if=a of=b",
        "kill 123",
        "pkill -9 python3x",
        "killall foo",
        "sed -i s/a/b/ f",
        "sed -i.bak s/a/b/ f",
        "sed --in-place s/a/b/ f",
        "sed 'w out' f",
        "sed -n 's/a/b/w out' f",
        "awk '{print > \"out\"}' f",
        "find . -delete",
        "find . -exec rm {} \\;",
        "find . -execdir mv {} x +",
        "find . -fprint out",
    ],
)
def test_writers(command: str) -> None:
    analysis = analyze_command(command)
    assert analysis.safety == "write"
    assert not analysis.is_read_only


@pytest.mark.parametrize(
    ("command", "safety"),
    [
        ("sed 'e ls' f", "unknown"), ("sed -f script.sed f", "unknown"), ("sed -n 'r x' f", "unknown"),
        ("awk 'BEGIN{system(\"ls\")}'", "unknown"), ("awk '{print | \"sh\"}' f", "unknown"),
        ("find . -exec cat {} \\;", "unknown"), ("find . -ok rm {} \\;", "write"),
        ("find . -name", "unknown"), ("kill -0 123", "unknown"), ("kill -l", "unknown"),
        ("rm --help", "unknown"), ("dd if=a", "unknown"), ("tee", "unknown"),
    ],
)  # fmt: skip
def test_unknown_forms(command: str, safety: str) -> None:
    assert analyze_command(command).safety == safety


def test_environment_assignments() -> None:
    prefixed = analyze_command("FOO=1 npm test")
    assert not prefixed.is_read_only
    assert prefixed.roots == ("npm",)
    assert prefixed.permission_rules == ("Bash(npm test)",)
    assert not is_read_only_command("FOO=1 ls")
    assert is_read_only_command("FOO=1")
    assert not is_read_only_command("cd a && FOO=1")
    assert get_command_roots("A=1 B=2 git log") == ["git"]


def test_quoted_separators_stay_in_one_word() -> None:
    analysis = analyze_command("echo \"a; rm -rf /\" && grep ';' f")
    assert analysis.is_read_only
    assert analysis.roots == ("echo", "grep")
    assert get_command_roots("echo 'x | y' | wc -l") == ["echo", "wc"]


def test_heredocs() -> None:
    assert is_read_only_command("cat <<EOF\nhello\nEOF")
    assert not is_read_only_command("cat <<EOF > out.txt\nhello\nEOF")
    quoted = analyze_command("cat <<'EOF'\n$(id) `id`\nEOF")
    assert quoted.parse_ok and quoted.is_read_only and not quoted.has_command_substitution
    live = analyze_command("cat <<EOF\n$(id)\nEOF")
    assert live.has_command_substitution and not live.is_read_only
    assert analyze_command('cat <<"END" > f.py\nprint("$(x)")\nEND').safety == "write"


@pytest.mark.parametrize(
    "command",
    ["echo $(whoami)", "echo `whoami`", "diff <(ls a) b", "ls > >(cat)", 'echo "${P@P}"',
     'echo "$(id)"', "ls $(echo .)", "cat <<EOF\n`id`\nEOF", "x=$(id)"],
)  # fmt: skip
def test_substitution_forms(command: str) -> None:
    analysis = analyze_command(command)
    assert analysis.has_command_substitution
    assert not analysis.is_read_only


@pytest.mark.parametrize(
    "command",
    ["echo '$(whoami)'", "echo '`id`'", "ls # $(rm x)", "echo \\$(id)", 'echo "<(x)"', "echo ${P}"],
)
def test_inert_substitution_lookalikes(command: str) -> None:
    assert not analyze_command(command).has_command_substitution


def test_substitution_contents_are_classified() -> None:
    assert analyze_command("echo $(ls)").safety == "unknown"
    assert analyze_command("echo $(rm -rf x)").safety == "write"
    assert analyze_command("echo $(ls)").roots == ("echo",)


@pytest.mark.parametrize(
    ("command", "rules"),
    [
        ("npm install lodash", ("Bash(npm install *)",)), ("npm install", ("Bash(npm install)",)),
        ("npm --silent run build", ("Bash(npm run *)",)), ("make", ("Bash(make)",)),
        ("make build", ("Bash(make *)",)), ("python3 x.py", ("Bash(python3 *)",)),
        ("docker compose up -d", ("Bash(docker compose up *)",)),
        ("docker compose up", ("Bash(docker compose up)",)), ("cargo build", ("Bash(cargo build)",)),
        ("git commit -m x", ("Bash(git commit *)",)), ("git -c a=b commit", ("Bash(git *)",)),
        ("NPM Install x", ("Bash(npm Install *)",)), ("rm -rf a && rm b", ("Bash(rm *)",)),
        ("ls && npm test | tee log", ("Bash(npm test)", "Bash(tee *)")),
        ("bash -c 'npm ci'", ("Bash(npm ci)",)), ("export A=1 && make", ("Bash(make)",)),
        ("[ -f x ] && rm x", ("Bash(rm *)",)), ("x=$(date)", ()),
    ],
)  # fmt: skip
def test_permission_rules(command: str, rules: tuple[str, ...]) -> None:
    assert analyze_command(command).permission_rules == rules


def test_confirmation_lists_only_non_read_only_subcommands() -> None:
    analysis = analyze_command("git status && npm run build; cd x && make")
    assert analysis.roots == ("git", "npm", "cd", "make")
    assert analysis.non_read_only_roots == ("npm", "make")
    assert analysis.permission_rules == ("Bash(npm run *)", "Bash(make)")
    assert [s.read_only for s in analysis.subcommands] == [True, False, True, False]
    assert analysis.subcommands[1].text == "npm run build"


def test_all_read_only_parts_fall_back_to_every_subcommand() -> None:
    analysis = analyze_command("echo $(whoami)")
    assert analysis.non_read_only_roots == ("echo",)
    assert analysis.permission_rules == ("Bash(echo *)",)


def test_roots(monkeypatch: pytest.MonkeyPatch) -> None:
    assert get_command_roots("/usr/bin/ls -la") == ["ls"]
    assert get_command_roots("sudo rm x") == ["sudo"]
    assert get_command_roots("ls; ls && ls") == ["ls"]
    assert get_command_roots("x=1") == []
    assert get_command_roots("") == []
    monkeypatch.setenv("QT_ROOTS_EDITOR", "/usr/bin/vim -n")
    monkeypatch.delenv("QT_ROOTS_UNSET", raising=False)
    assert get_command_roots("$QT_ROOTS_EDITOR f") == ["vim"]
    assert get_command_roots("${QT_ROOTS_UNSET:-nano} f") == ["nano"]
    assert get_command_roots("$QT_ROOTS_UNSET git log") == ["git"]


def test_unparsable_syntax_falls_back() -> None:
    analysis = analyze_command("[[ -f x ]] && cat x")
    assert not analysis.parse_ok
    assert not analysis.is_read_only
    assert analysis.roots == ("[[", "cat")
    assert analysis.non_read_only_roots == ("[[",)
    assert analysis.permission_rules == ()  # test commands get no rule, as in Qwen Code
    case = analyze_command("case $x in a) rm y;; esac")
    assert not case.parse_ok and not case.is_read_only and case.safety == "unknown"


def test_shell_wrappers() -> None:
    assert is_read_only_command('bash -c "ls -la"')
    assert is_read_only_command("sh -lc 'git status'")
    assert strip_shell_wrapper("FOO=1 zsh -c 'pwd'") == "pwd"
    assert not is_read_only_command("bash -c 'rm x'")
    assert not is_read_only_command("bash -c 'echo $(id)'")
    assert analyze_command("bash -c 'echo $(id)'").has_command_substitution
    # Anything after the wrapper keeps it: 0.24.4 would judge only "ls" here.
    hidden = analyze_command('bash -c "ls" && rm -rf x')
    assert hidden.stripped_command == 'bash -c "ls" && rm -rf x'
    assert not hidden.is_read_only
    assert not is_read_only_command("bash -c ls > out")
    assert analyze_command("bash -c 'rm x'").safety == "unknown"  # as given, for plan mode


def test_line_continuation() -> None:
    assert is_read_only_command("ls \\\n  -la")


def test_deliberate_differences_from_qwen_code() -> None:
    # Comments run nothing (0.24.4's tree-sitter walk makes any comment "unknown").
    assert is_read_only_command("ls -la  # list the files")
    # A heredoc followed by "> file" writes (0.24.4 misses the nested redirect).
    assert analyze_command("cat <<EOF > out.txt\nhello\nEOF").safety == "write"
    # Arithmetic expansion is an expansion, not a command (still "ask": "$((" looks like "$(").
    arithmetic = analyze_command("echo $((1 + 2))")
    assert arithmetic.parse_ok and arithmetic.safety == "read-only"
    assert arithmetic.has_command_substitution and not arithmetic.is_read_only
    # Roots come from the parse: keywords and heredoc lines are not programs.
    assert get_command_roots("for f in *; do cat $f; done") == ["cat"]
    assert get_command_roots("cat <<EOF\nhello\nEOF") == ["cat"]
    assert get_command_roots("x=$(date) && echo $x") == ["date", "echo"]


@pytest.mark.parametrize(
    ("command", "safe"),
    [
        ("ls | grep x", True), ("git log -5", True), ("cat f && wc -l f", True),
        ("ls 2>&1", False), ("sort f", False), ("git branch -a", False), ("sed -e p f", False),
        ("bash -c ls", False), ("rm x", False), ("tree", False),
    ],
)  # fmt: skip
def test_concurrency_safety_is_stricter(command: str, safe: bool) -> None:
    assert analyze_command(command).concurrency_safe is safe


@pytest.mark.skipif(shutil.which("git") is None and not os.environ.get("CI"), reason="needs git")
def test_repository_config_can_make_git_unsafe(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    cwd = str(repo)
    assert is_read_only_in_directory("git diff", cwd)
    assert is_read_only_in_directory("git status", cwd)
    assert not is_read_only_in_directory("cd sub && git status", cwd)
    subprocess.run(["git", "-C", cwd, "config", "diff.external", "/bin/true"], check=True)
    assert not is_read_only_in_directory("git diff", cwd)
    # Stricter than 0.24.4: any setting that names a program makes every git command ask.
    assert not is_read_only_in_directory("git status", cwd)
    subprocess.run(["git", "-C", cwd, "config", "core.fsmonitor", "./hook.sh"], check=True)
    assert not is_read_only_in_directory("git status", cwd)
    assert analyze_command("rm x").safety == "write"
