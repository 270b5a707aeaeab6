"""The commands the methods pages give still parse.

Every shell block of docs/benchmarks/*.md and docs/*.md is expanded by bash itself, so that variables, ``\\``
continuations, loops, brace expansion, ``&`` and ``wait`` behave as written,
but nothing can run: bash starts with no startup files, a PATH of one empty
folder and restricted (no command name with a ``/``, no output redirection),
and each program the pages start (python, invar, torchrun, bash, and the
wrappers timeout, nice, nohup, env) is a shell function that records its
arguments and the folder the block has ``cd``-ed to. Any other command is
an error, unless :data:`ALLOWED` lets it through with a reason.

Each block runs as it would pasted into a shell at the repository's root:
``cd DIR`` goes to DIR under where the block is (a second ``cd bench`` in
one block fails, and skips what ``&&`` joins to it), and a block that has not
``cd``-ed finds its scripts at the root.

Each recorded call is then parsed by the parser of what it runs, stopped
before any work: a script's argparse parser (run in-process as
``__main__``, cwd and ``sys.argv`` as the page gives them, a successful parse
raising at once), invar's click command tree (contexts made, no command
invoked), torchrun's own parser and then the invar command it runs, and
bench/gpu_studies.sh's ``case "$1"`` arms. A renamed or removed option
fails the page's case with the page's line, the command and the parser's
message. Checks made after a successful parse (``parser.error`` further on
in a script, a config's own validation) are not reached.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import re
import runpy
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ROOT

DOCS = ROOT / "docs"
#: the methods pages, then the other pages of docs/
PAGES = sorted((DOCS / "benchmarks").glob("*.md")) + sorted(DOCS.glob("*.md"))
BASH = shutil.which("bash")

#: fenced blocks in these languages are shell (``console``: only its ``$ `` lines)
SHELL_FENCES = {"sh", "bash", "shell", "console", "shell-session"}
#: an indented block is shell unless its first line starts so: JSON, a table, markup, Python (an indented
#: block of anything else, output included, fails as a command nothing provides: fence it as ``text``)
NOT_SHELL = re.compile(r"[{\[|<]|>>>|(?:from|import|def|class)\s")
#: the programs the pages may start: each a function that records its arguments
RECORDED = ("python", "python3", "invar", "torchrun", "bash", "sh", "timeout", "nice", "nohup", "env")
#: other commands a block may hold, each a function that does nothing, and why it may
ALLOWED = {"jq": "reads the JSON report `invar audit --format json` prints (docs/audit.md); starts nothing"}
#: scripts with no argparse parser: the counts of arguments they take (they are not run)
NO_PARSER = {"bench/tables.py": (0, 0), "bench/gpu_table.py": (1, 1)}

_PRELUDE = r"""exec 9>>{records}
__root={root}
__pwd=$__root
__rec() {{ printf '%s\0' "$1" "${{BASH_LINENO[1]}}" "$__pwd" "$(($# - 1))" "${{@:2}}" >&9; }}
{recorded}
{allowed}
cd() {{
  local to=${{1:-$HOME}}
  case "$to" in /*) ;; *) to=$__pwd/$to ;; esac
  if [ -d "$to" ]; then __pwd=$to; else __rec NOFOLDER cd "$@"; return 1; fi
}}
kill() {{ __rec UNKNOWN kill "$@"; return 127; }}
command_not_found_handle() {{ __rec UNKNOWN "$@"; return 127; }}
trap 'wait; printf "%s\0" END 0 "$__pwd" 0 >&9' EXIT
set -r
"""


class _Parsed(BaseException):
    """A parser parsed its arguments: stop before the script does anything
    with them (a BaseException, so that no ``except Exception`` takes it)."""


class _Refused(BaseException):
    """A parser refused its arguments (argparse's ``error``)."""


class Refused(Exception):
    """A documented command that would not be accepted, and why."""


@dataclass
class Block:
    first: int  # the page's line of the block's first line
    lines: list[str]  # the block's lines, one a page line (blank where a console block has output)


@dataclass
class Call:
    line: int  # the page's line
    cwd: Path  # where the block had cd-ed to (absolute)
    argv: list[str]
    kind: str  # CALL: a program of RECORDED; UNKNOWN: a command nothing provides; NOFOLDER: a cd that failed


# ----------------------------------------------------------------- the blocks
def shell_blocks(text: str) -> list[Block]:
    """The page's shell blocks: fenced in a shell language (a fence without
    one holds text: a synopsis, a diagram), or indented, where the first line
    does not start as :data:`NOT_SHELL` does."""
    lines = text.splitlines()
    out: list[Block] = []
    i = 0
    while i < len(lines):
        fence = re.match(r"^( {0,3})(`{3,}|~{3,})\s*([\w+-]*)", lines[i])
        if fence:
            indent, mark, lang = len(fence.group(1)), fence.group(2), fence.group(3).lower()
            j = i + 1
            while j < len(lines) and not re.match(rf"^ {{0,3}}{mark[0]}{{{len(mark)},}}\s*$", lines[j]):
                j += 1
            body = [re.sub(rf"^ {{0,{indent}}}", "", line) for line in lines[i + 1 : j]]
            if lang in SHELL_FENCES:
                out.append(Block(i + 2, _console(body) if lang in ("console", "shell-session") else body))
            i = j + 1
            continue
        if re.match(r"^( {4}|\t)", lines[i]) and (i == 0 or not lines[i - 1].strip()):
            j = i
            while j < len(lines) and (re.match(r"^( {4}|\t)", lines[j]) or not lines[j].strip()):
                j += 1
            body = [re.sub(r"^( {4}|\t)", "", line) for line in lines[i:j]]
            if not NOT_SHELL.match(body[0]):
                out.append(Block(i + 1, _console(body) if body[0].startswith("$ ") else body))
            i = j
            continue
        i += 1
    return out


def _console(body: list[str]) -> list[str]:
    """A console block's commands: its ``$ `` lines and their ``\\``
    continuations; its output lines blank (the lines keep their numbers)."""
    out, going = [], False
    for line in body:
        if line.startswith("$ ") or going:
            out.append(line[2:] if line.startswith("$ ") and not going else line)
            going = line.endswith("\\")
        else:
            out.append("")
    return out


# ------------------------------------------------------ the calls, by bash
def expanded(block: Block, tmp: Path) -> tuple[list[Call], list[str]]:
    """What bash would run of the block: the recorded calls, bash's own
    errors (``PAGE-LINE: message``, without the page)."""
    empty, records, script = tmp / "empty-path", tmp / "records", tmp / "block.sh"
    empty.mkdir(exist_ok=True)
    records.write_bytes(b"")
    prelude = _PRELUDE.format(
        records=shlex.quote(str(records)),
        root=shlex.quote(str(ROOT)),
        recorded="\n".join(f'{name}() {{ __rec CALL {name} "$@"; }}' for name in RECORDED),
        allowed="\n".join(f"{name}() {{ :; }}" for name in ALLOWED),
    )
    skip = prelude.count("\n")
    script.write_text(prelude + "\n".join(block.lines) + "\n")
    done = subprocess.run(
        [BASH, "--noprofile", "--norc", str(script)],
        cwd=tmp,
        env={"PATH": str(empty), "HOME": str(tmp), "LC_ALL": "C"},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    page_line = lambda n: block.first + n - skip - 1
    errors = []
    for line in done.stderr.splitlines():
        located = re.match(rf"^{re.escape(str(script))}: line (\d+): (.*)$", line)
        if located:
            hint = " (nothing runs here: start a script as `bash SCRIPT` or `python SCRIPT`)" if "/'" in line else ""
            errors.append(f"{page_line(int(located.group(1)))}: bash: {located.group(2)}{hint}")
        else:
            errors.append(f"{block.first}: bash: {line}")
    fields = records.read_bytes().split(b"\0")
    calls, k = [], 0
    while k + 4 <= len(fields):
        kind, line, cwd, n = (f.decode() for f in fields[k : k + 4])
        argv = [f.decode() for f in fields[k + 4 : k + 4 + int(n)]]
        k += 4 + int(n)
        if kind != "END":
            calls.append(Call(page_line(int(line)), _folder(cwd), argv, kind))
    return calls, errors


def _folder(cwd: str) -> Path:
    return Path(os.path.normpath(cwd))


# ------------------------------------------------------------ the parsers
@contextlib.contextmanager
def _parsers_stop():
    """argparse, changed for a check: the outermost parse that succeeds raises
    :class:`_Parsed` (nothing after it runs), and an error raises
    :class:`_Refused` with argparse's message (nothing printed, no exit)."""
    parser = argparse.ArgumentParser
    names = ("parse_args", "parse_known_args", "parse_intermixed_args", "parse_known_intermixed_args")
    saved = {name: getattr(parser, name) for name in (*names, "error")}
    depth = [0]  # parse_args calls parse_known_args; a subparser's parse runs inside its parent's

    def stopping(original):
        def method(self, *args, **kwargs):
            depth[0] += 1
            try:
                result = original(self, *args, **kwargs)
            finally:
                depth[0] -= 1
            if depth[0] == 0:
                raise _Parsed(result)
            return result

        return method

    def error(self, message):
        raise _Refused(f"{self.prog}: error: {message}")

    try:
        for name in names:
            setattr(parser, name, stopping(saved[name]))
        parser.error = error
        yield
    finally:
        for name, method in saved.items():
            setattr(parser, name, method)


def _argparse(run) -> argparse.Namespace:
    """``run()``'s first parse, stopped: what it returned (``parse_args``: the
    namespace), or :class:`Refused` with why it would not parse."""
    try:
        with _parsers_stop():
            run()
    except _Parsed as parsed:
        return parsed.args[0]
    except _Refused as refused:
        raise Refused(str(refused)) from None
    except argparse.ArgumentError as error:
        raise Refused(f"error: {error}") from None
    except SystemExit as exit:
        raise Refused(f"exited ({exit.code}) before it parsed its arguments") from None
    except Exception as error:
        raise Refused(f"failed before it parsed its arguments: {error!r}") from None
    raise Refused("ran to its end without parsing its arguments")


@functools.cache
def _invar_command():
    import typer

    from invar.cli.app import app

    return typer.main.get_command(app)


def parse_invar(args: list[str]) -> None:
    """``invar ARGS`` through the command tree: each group's context made (its
    options parsed), then its subcommand's, none invoked. (Duck-typed: typer
    0.29 carries a click of its own, whose classes are not ``click``'s.)"""
    command, name, parent = _invar_command(), "invar", None
    try:
        while True:
            ctx = command.make_context(name, list(args), parent=parent)
            if not hasattr(command, "resolve_command"):  # a command, not a group
                return
            # click 8.2 and typer's own keep the subcommand's name in _protected_args (click 8.1: protected_args)
            rest = [*(getattr(ctx, "_protected_args", None) or getattr(ctx, "protected_args", [])), *ctx.args]
            if not rest:
                if not command.invoke_without_command:
                    raise Refused(f"{ctx.command_path}: a command is missing")
                return
            name, command, args = command.resolve_command(ctx, rest)
            parent = ctx
    except Refused:
        raise
    except Exception as error:
        if hasattr(error, "format_message"):  # a usage error: an unknown option or command, a bad value
            where = error.ctx.command_path if getattr(error, "ctx", None) else name
            raise Refused(f"{where}: {error.format_message()}") from None
        if getattr(error, "exit_code", None) is None:  # not --help's or --version's exit
            raise Refused(f"failed while its arguments were parsed: {error!r}") from None
        if error.exit_code:
            raise Refused(f"exited ({error.exit_code})") from None


def parse_torchrun(args: list[str]) -> None:
    """``torchrun ARGS``: torchrun's own options, then the invar command it runs."""
    from torch.distributed.run import get_args_parser

    parser = get_args_parser()
    parser.prog = "torchrun"
    parsed = _argparse(lambda: parser.parse_args(args))
    if not (parsed.module and parsed.training_script == "invar"):
        raise Refused(f"torchrun runs {parsed.training_script!r}: only `-m invar` is checked")
    parse_invar(parsed.training_script_args)


def _script(text: str, cwd: Path) -> Path:
    """The script a call names, from where the block has cd-ed to."""
    path = Path(os.path.normpath(cwd / text))
    if path.is_file() and path.is_relative_to(ROOT):
        return path
    raise Refused(f"no script {text} in {cwd.relative_to(ROOT) if cwd.is_relative_to(ROOT) else cwd}/")


def parse_script(text: str, args: list[str], cwd: Path) -> None:
    """``python SCRIPT ARGS``: the script run as ``__main__`` from ``cwd``,
    its parse stopped."""
    path = _script(text, cwd)
    name = path.relative_to(ROOT).as_posix()
    if name in NO_PARSER:
        low, high = NO_PARSER[name]
        if not low <= len(args) <= high:
            raise Refused(f"{name} takes {low} to {high} arguments, not {len(args)}")
        return
    if "argparse" not in path.read_text():
        raise Refused(f"{name} has no argparse parser to check against (and is not in NO_PARSER)")
    saved = sys.path[:], sys.argv, os.getcwd()
    sys.path.insert(0, str(path.parent))
    sys.argv = [text, *args]
    os.chdir(cwd)
    try:
        _argparse(lambda: runpy.run_path(str(path), run_name="__main__"))
    finally:
        sys.path[:], sys.argv = saved[0], saved[1]
        os.chdir(saved[2])


def parse_shell_script(args: list[str], cwd: Path) -> None:
    """``bash SCRIPT ARGS``, read not run: the options its ``case "$1"`` arms
    take (an arm that reads ``$2`` takes a value)."""
    if not args or args[0].startswith("-"):
        raise Refused("bash: only `bash SCRIPT ARGS` is checked")
    path = _script(args[0], cwd)
    loop = re.search(r'case "\$1" in(.*?)\besac\b', path.read_text(), re.S)
    if not loop:
        raise Refused(f"{args[0]}: no `case \"$1\" in` argument loop to check against")
    takes = {}
    for patterns, body in re.findall(r"^\s*([^\s()*][^)\n]*)\)(.*?);;", loop.group(1), re.M | re.S):
        for option in patterns.split("|"):
            takes[option.strip()] = "$2" in body
    rest = args[1:]
    while rest:
        option = rest.pop(0)
        if option not in takes:
            raise Refused(f"{args[0]}: unknown option {option} (it takes {', '.join(takes)})")
        if takes[option] and not rest:
            raise Refused(f"{args[0]}: {option} needs a value")
        if takes[option]:
            rest.pop(0)


def _unwrapped(name: str, args: list[str]) -> list[str]:
    """The command a wrapper (timeout, nice, nohup, env) runs."""
    rest = list(args)
    if name == "timeout":
        while rest and rest[0].startswith("-"):
            option = rest.pop(0)
            if option in ("-s", "-k", "--signal", "--kill-after") and rest:
                rest.pop(0)
        if not (rest and re.fullmatch(r"\d+(\.\d+)?[smhd]?", rest[0])):
            raise Refused("timeout: no duration")
        rest.pop(0)
    elif name == "nice":
        if rest and rest[0] == "-n" and len(rest) > 1:
            rest[:2] = []
        elif rest and re.fullmatch(r"-\d+|--adjustment=-?\d+|-n-?\d+", rest[0]):
            rest.pop(0)
    elif name == "env":
        while rest and (rest[0] in ("-i", "-", "-u") or re.match(r"[A-Za-z_]\w*=", rest[0])):
            if rest.pop(0) == "-u" and rest:
                rest.pop(0)
    if not rest:
        raise Refused(f"{name}: no command")
    return rest


def check(call: Call) -> None:
    """Raise :class:`Refused` if the call would be refused."""
    if call.kind == "NOFOLDER":
        raise Refused("cd: no such folder from where the block is (a block runs as pasted at the repository's root)")
    if call.kind == "UNKNOWN":
        raise Refused(f"{call.argv[0]}: not a program these checks know (ALLOWED may let it through, with a reason)")
    _check(call.argv, call.cwd)


def _check(argv: list[str], cwd: Path) -> None:
    name, args = argv[0], argv[1:]
    if name in ("timeout", "nice", "nohup", "env"):
        _check(_unwrapped(name, args), cwd)
    elif name == "invar":
        parse_invar(args)
    elif name == "torchrun":
        parse_torchrun(args)
    elif name in ("bash", "sh"):
        parse_shell_script(args, cwd)
    elif name in ("python", "python3"):
        while args and re.fullmatch(r"-[uBOsSEIqb]+|-[XW]", args[0]):
            args = args[2:] if args[0] in ("-X", "-W") else args[1:]
        if not args:
            raise Refused("python: no script")
        if args[0] == "-m" and args[1:2] == ["invar"]:
            parse_invar(args[2:])
        elif args[0] == "-m" and args[1:2] == ["torch.distributed.run"]:
            parse_torchrun(args[2:])
        elif args[0].startswith("-"):
            raise Refused(f"python {shlex.join(args[:2])}: not a script or module these checks know")
        else:
            parse_script(args[0], args[1:], cwd)
    else:
        raise Refused(f"{name}: not a program these checks know (ALLOWED may let it through, with a reason)")


def problems(text: str, name: str, tmp: Path) -> tuple[int, list[str]]:
    """The calls the page's shell blocks make, and every one that would be
    refused (``NAME:LINE: command``, then why)."""
    out, count = [], 0
    for block in shell_blocks(text):
        calls, errors = expanded(block, tmp)
        out += [f"{name}:{error}" for error in errors]
        seen = set()
        for call in calls:
            count += 1
            try:
                check(call)
            except Refused as refused:
                if (call.line, str(refused)) not in seen:  # a loop's every round says the same
                    seen.add((call.line, str(refused)))
                    out.append(f"{name}:{call.line}: {shlex.join(call.argv)}\n    {refused}")
    return count, out


# ------------------------------------------------------------------ the tests
pytestmark = pytest.mark.skipif(BASH is None, reason="bash expands the pages' commands")


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(DOCS).as_posix())
def test_every_command_the_page_gives_parses(page, tmp_path):
    name = page.relative_to(ROOT).as_posix()
    count, refused = problems(page.read_text(), name, tmp_path)
    assert not refused, f"{len(refused)} documented command(s) would be refused:\n" + "\n".join(refused)
    if page.parent.name == "benchmarks":
        assert count, f"{name}: no command found in a methods page (has the block extraction missed them?)"


GOOD = """
    cd bench && C="--programs 20 \\
        --repeat 1"
    for s in 0 1; do python bench_exec.py $C --report r$s.json & done; wait
    python bench_exec.py --repeat 2

then, a block of its own, from the root:

    cd bench && python bench_exec.py --repeat 3

```sh
timeout 600 nice -n 10 python -m invar parse x.py --format json | jq .
torchrun --nproc-per-node 2 -m invar audit compare a.jsonl b.jsonl
bash bench/gpu_studies.sh --tiny --out OUT && python bench/gpu_table.py OUT
```

```console
$ invar data bhive --source SRC \\
    --out DATA
Wrote 3 files
```
"""


def test_the_check_follows_variables_loops_folders_wrappers_and_pipes(tmp_path):
    count, refused = problems(GOOD, "good.md", tmp_path)
    assert (count, refused) == (9, [])


@pytest.mark.parametrize(
    "block, message",
    [
        ("cd bench && python bench_exec.py --repeat 1 --no-such-option", "unrecognized arguments: --no-such-option"),
        ("python bench/bench_exec.py --repeat", "argument --repeat: expected one argument"),
        ("python bench_exec.py", "no script bench_exec.py in ./"),
        ("cd no-such-folder && python bench_exec.py", "cd: no such folder"),
        # pasted into one shell, a second `cd bench` fails and && skips its command
        ("cd bench && python bench_exec.py --repeat 1\n    cd bench && python bench_exec.py", "cd: no such folder"),
        ("invar parse x.py --no-such-option", "No such option: --no-such-option"),
        ("invar data no-such-data", "No such command 'no-such-data'"),
        ("torchrun --nproc-per-node 2 -m invar train --no-such-option", "No such option: --no-such-option"),
        ("bash bench/gpu_studies.sh --tiny --no-such-option", "unknown option --no-such-option"),
        ("rm -rf DIR", "rm: not a program these checks know"),
        ("bench/gpu_studies.sh --tiny", "restricted: cannot specify `/' in command names"),
        ("invar parse x.py > out.txt", "restricted: cannot redirect output"),
        ("python bench_exec.py 'unclosed", "unexpected EOF"),
    ],
)
def test_the_check_refuses(block, message, tmp_path):
    count, refused = problems(f"text\n\n    {block}\n", "page.md", tmp_path)
    line = 3 + block.count("\n")  # the block's last line
    assert len(refused) == 1 and refused[0].startswith(f"page.md:{line}: ") and message in refused[0], refused
