"""What the CLI says where a newcomer stumbled: --out - for a command that
writes a directory, name pools given to the wrong language or too small to
rename, help text that rich's markup ate, repeatable options' metavars,
task/architecture mismatches in CLI terms, a directory given to predict,
counts beside their nouns, a stray argument to the audit, and a language
named in capitals."""

from __future__ import annotations

import inspect
import re
import types

import pytest

from tests.conftest import FIXTURES

from .conftest import messages

# ------------------------------------------------------------ --out - for a folder
DIRECTORY_WRITERS = [
    ["data", "names", "--source", FIXTURES / "python"],
    ["data", "bugs", "--source", FIXTURES / "python"],
    ["data", "lm", "--source", FIXTURES / "python"],
    ["data", "copy"],
    ["data", "exec", "--generate", "3"],
    ["data", "bhive", "--source", FIXTURES / "blocks"],
    ["audit", "--suite", "code-reasoning", "--model", "http://127.0.0.1:9/v1"],
]


@pytest.mark.parametrize("args", DIRECTORY_WRITERS, ids=lambda a: a[1])
def test_out_dash_refused_where_a_directory_is_written(invoke, tmp_path, monkeypatch, args) -> None:
    monkeypatch.chdir(tmp_path)
    result = invoke(*args, "--out", "-")
    assert result.exit_code == 2
    assert messages(result.stderr) == [
        "--out: error: --out - is standard output, but this command writes a directory of files: give a folder name"
    ]
    assert not (tmp_path / "-").exists()


def test_every_directory_writer_is_in_the_table() -> None:
    """Each data command that checks its --out as a folder is a row above
    (the commands that stream, ltl, lookup and permutation, take -)."""
    from invar.cli import data

    parts = inspect.getsource(data).split("@data_app.command(")[1:]
    folders = {part.split('"')[1] for part in parts if "folder_destination(" in part}
    assert folders == {args[1] for args in DIRECTORY_WRITERS if args[0] == "data"}


# ------------------------------------------------------------------ name pools
POOL_OPTIONS = [
    (
        ["--aps", "a,b"],
        FIXTURES / "python" / "arith.py",
        "--aps: error: --aps is the pool of an LTL formula's APs; python renamings take --names",
    ),
    (
        ["--aps", "a,b"],
        FIXTURES / "java" / "Arith.java",
        "--aps: error: --aps is the pool of an LTL formula's APs; java renamings take --names",
    ),
    (
        ["--names", "a,b,c"],
        FIXTURES / "ltl" / "paper.ltl",
        "--names: error: LTL renamings draw their APs from --aps, not --names",
    ),
]


@pytest.mark.parametrize("pool, path, message", POOL_OPTIONS, ids=["aps-python", "aps-java", "names-ltl"])
def test_pool_option_of_another_language_refused(invoke, pool, path, message) -> None:
    result = invoke("renamings", path, *pool, "--count")
    assert result.exit_code == 2 and messages(result.stderr) == [message]


SMALL_POOLS = [  # earnings renames its two locals (income, bonus); its parameters are kept
    (
        "rent,x",
        "0",
        "note: earnings: no renaming: 2 referents to rename, 1 usable name in the pool of 2 (rent: kept by the unit)",
    ),
    ("x", "0", "note: earnings: no renaming: 2 referents to rename, 1 usable name in the pool of 1"),
    ("x,y", "2", None),
]


@pytest.mark.parametrize("pool, count, note", SMALL_POOLS, ids=["kept", "short", "enough"])
def test_a_pool_that_leaves_no_renaming_is_noted(invoke, pool, count, note) -> None:
    result = invoke("renamings", FIXTURES / "python" / "arith.py", "--function", "earnings", "--names", pool, "--count")
    assert result.exit_code == 0 and result.stdout.strip() == count
    assert result.stderr.splitlines() == ([note] if note else [])


# ------------------------------------------------------------------------ help
def _commands():
    from invar.cli.reference import walk

    return walk()


@pytest.mark.parametrize("cmd", _commands(), ids=lambda c: " ".join(c.path[1:]) or "invar")
def test_help_keeps_brackets_and_shows_no_double_backticks(invoke, cmd) -> None:
    """Rich reads help as markup: a bracketed word (order[new]) must still be
    shown, and a reST literal ``x`` is shown 'x'."""
    shown = invoke(*cmd.path[1:], "--help")
    assert shown.exit_code == 0
    texts = [cmd.help, *(getattr(p, "help", None) or "" for p in cmd.params)]
    for word in {w for text in texts for w in re.findall(r"\[[^\]\s]+\]", text)}:
        assert word in shown.stdout, word
    assert "``" not in shown.stdout
    assert "<str>..." not in shown.stdout  # a repeatable option takes one value a flag


def test_permutations_help_states_the_order_convention(invoke) -> None:
    assert "'order[new] = old' (0-based)" in invoke("permutations", "--help").stdout


@pytest.mark.parametrize(
    "cmd, option",
    [(c, p) for c in _commands() for p in c.params if getattr(p, "multiple", False)],
    ids=lambda x: getattr(x, "name", None) or " ".join(getattr(x, "path", ())[1:]),
)
def test_repeatable_options_say_so(cmd, option) -> None:
    assert "repeatable" in option.help


PINS = [
    (["--pin", "rax,rbx"], "182"),
    (["--pin", "rax", "--pin", "rbx"], "182"),
    (["--pin", "rax,"], None),  # an empty part is nothing
]


@pytest.mark.parametrize("pins, count", PINS, ids=["commas", "repeated", "trailing-comma"])
def test_pin_takes_a_comma_list(invoke, pins, count) -> None:
    result = invoke("renamings", FIXTURES / "x86" / "figure1a.s", *pins, "--count")
    alone = invoke("renamings", FIXTURES / "x86" / "figure1a.s", "--pin", "rax", "--count").stdout.strip()
    assert result.exit_code == 0 and result.stdout.strip() == (count or alone)


# ----------------------------------------------------------- task/architecture
ARCH_MISMATCHES = [
    ("lm", "renamer", "--task lm takes --arch vanilla or lexinvariant (not renamer)"),
    ("lm", "spe", "--task lm takes --arch vanilla or lexinvariant (not spe)"),
    ("lm", "canonicalized", "--task lm takes --arch vanilla or lexinvariant (not canonicalized)"),
    (
        "ltl",
        "spe",
        "--task ltl takes --arch vanilla, augmented, canonicalized, dualpart, lexinvariant, "
        "canonicalized+dualpart or canonicalized+lexinvariant (not spe)",
    ),
    (
        "bhive",
        "canonicalized+dualpart",
        "--task bhive takes --arch vanilla, augmented, canonicalized, renamer, spe, "
        "renamer+spe, dualpart or lexinvariant (not canonicalized+dualpart, which is for sequence tasks: ltl "
        "and copy)",
    ),
]


@pytest.mark.parametrize("task, arch, message", ARCH_MISMATCHES, ids=lambda x: x if " " not in x else "")
def test_task_arch_mismatch_in_cli_terms(invoke, tmp_path, task, arch, message) -> None:
    result = invoke("train", "--task", task, "--data", tmp_path, "--arch", arch, "--out", tmp_path / "m.pt")
    assert result.exit_code == 2 and messages(result.stderr) == [f"--arch: error: {message}"]


# ------------------------------------------------------------ predict a directory
PREDICT_DIRS = [(FIXTURES / "blocks", f" (e.g. {FIXTURES / 'blocks' / 'test.csv'})"), (FIXTURES, "")]


@pytest.mark.parametrize("path, example", PREDICT_DIRS, ids=["split", "other"])
def test_predict_on_a_directory(invoke, path, example) -> None:
    result = invoke("predict", "--model", FIXTURES / "models" / "renamer.pt", path)
    assert result.exit_code == 1
    assert messages(result.stderr) == [f"{path}: error: is a directory: predict reads one file{example}"]


# --------------------------------------------------------------------- plurals
@pytest.mark.parametrize(
    "n, noun, many, shown",
    [
        (1, "pair", None, "1 pair"),
        (0, "pair", None, "0 pairs"),
        (2, "layer", None, "2 layers"),
        (1, "index", "indices", "1 index"),
        (3, "index", "indices", "3 indices"),
    ],
)
def test_plural(n, noun, many, shown) -> None:
    from invar.cli.listing import plural

    assert plural(n, noun, many) == shown


PLURAL_OUTPUTS = [
    (["ltl", "check", "-f", "{tmp}/one.ltl"], "&aXb a;b;{1}\n", "1 pair: 1 hold, 0 fail"),
    (["ltl", "check", "-f", "{tmp}/two.ltl"], "&aXb a;b;{1}\nXXa a;&ab;{b}\n", "2 pairs: 1 hold, 1 fail"),
    (["dlg", "{tmp}/one.py"], "def f(a):\n    return a\n", "f: 2 lines, 1 layer"),
]


@pytest.mark.parametrize("args, text, line", PLURAL_OUTPUTS, ids=["one-pair", "two-pairs", "one-layer"])
def test_counts_beside_their_nouns(invoke, tmp_path, args, text, line) -> None:
    args = [a.format(tmp=tmp_path) for a in args]
    (tmp_path / args[-1].rsplit("/", 1)[1]).write_text(text)
    assert line in invoke(*args).stdout


def test_training_start_line_says_one_step(capsys) -> None:
    from invar.cli.train import _Reporter

    info = dict(n_train=3, n_valid=1, too_long=0, config=types.SimpleNamespace(max_len=64), steps=1, world=1)
    _Reporter(None, "vanilla tiny")._start(**info)
    assert "3 training and 1 validation program (0 longer than 64 tokens skipped), 1 step per epoch" in (
        capsys.readouterr().err
    )


# ------------------------------------------------------------ stray arguments, --lang's case
@pytest.mark.parametrize(
    "stray, hint",
    [("b=0", "; give a repeatable option once per value (--fail-over A=1 --fail-over B=2)"), ("extra", "")],
)
def test_a_stray_argument_to_the_audit_is_named_as_one(invoke, stray, hint) -> None:
    result = invoke("audit", "--model", "m.pt", "--dataset", "d", "--fail-over", "a=0", stray)
    assert result.exit_code == 2
    assert messages(result.stderr) == [
        f"invar: error: unexpected argument {stray!r}: invar audit takes options alone "
        f"(its subcommands: compare, merge){hint} (invar audit -h)"
    ]


@pytest.mark.parametrize(
    "args, said",
    [
        (["renamingz"], "No such command 'renamingz'. Did you mean 'renamings'? (invar -h)"),
        (["audit", "merg", "a.json"], "No such command 'merg'. Did you mean 'merge'? (invar audit -h)"),
    ],
)
def test_a_misspelt_command_is_still_no_such_command(invoke, args, said) -> None:
    assert messages(invoke(*args).stderr) == [f"invar: error: {said}"]


@pytest.mark.parametrize("lang", ["x86", "X86", "X86 "])
def test_lang_is_read_in_any_case(invoke, tmp_path, lang) -> None:
    block = tmp_path / "block.txt"
    block.write_text("mov %rax, %rbx\n")
    result = invoke("renamings", block, "--lang", lang, "--count")
    if lang.strip() != lang:  # a name with a space is no language's
        assert messages(result.stderr) == [
            f"--lang: error: --lang {lang!r}: unknown language (choose from x86, hex, python, java, ltl)"
        ]
        return
    assert result.exit_code == 0 and result.stdout.strip() == "240"  # rax and rbx: 16 × 15


@pytest.mark.parametrize("task", ["lookup", "permutation"])
def test_in_context_data_creates_missing_folders(invoke, tmp_path, task) -> None:
    out = tmp_path / "a" / "b" / f"{task}.jsonl"
    result = invoke("data", task, "--num", "3", "--out", out)
    assert result.exit_code == 0, result.stderr
    assert len(out.read_text().splitlines()) == 3


def test_a_lone_survivor_of_several_blocks_keeps_its_name(invoke, tmp_path) -> None:
    """A listing of two blocks, one refused: the other is shown under its
    name, as when both are read; standard input is <stdin> in the summary too."""
    listing = "f:\nmovq %rdi, %rax\nret\ng:\n.byte 0x90\nret\n"
    path = tmp_path / "one.s"
    path.write_text(listing)
    result = invoke("renamings", path, "--count")
    assert result.exit_code == 1 and result.stdout.strip() == "line2: 210"
    piped = invoke("renamings", "-", "--lang", "x86", "--count", input=listing)
    assert piped.stdout.strip() == "line2: 210"
    assert "<stdin>: 1 skipped: 1 block rejected" in piped.stderr


@pytest.mark.parametrize("function, count", [(".L3", "40950"), ("sum3", "16"), ("line16", "40950")])
def test_a_listings_block_is_taken_by_its_label(invoke, function, count) -> None:
    result = invoke("renamings", FIXTURES / "x86" / "sum3.s", "--function", function, "--count")
    assert result.exit_code == 0 and result.stdout.strip() == count


@pytest.mark.parametrize("function", ["g", "line5"])
def test_a_refused_block_named_by_function_says_so(invoke, tmp_path, function) -> None:
    path = tmp_path / "one.s"
    path.write_text("f:\nmovq %rdi, %rax\nret\ng:\n.byte 0x90\nret\n")
    result = invoke("renamings", path, "--function", function, "--count")
    assert result.exit_code == 2
    assert (
        messages(result.stderr)[-1]
        == f"{path}: error: --function {function!r}: that block was refused (its error is above)"
    )


# ------------------------------------------------------------ text that looks like an emoji code
@pytest.mark.parametrize("line", [100, 1234])
def test_a_location_is_printed_as_it_is_not_as_an_emoji(invoke, tmp_path, line) -> None:
    """rich would print ``:100:`` as an emoji (and ``:1234:``): a location tools parse."""
    path = tmp_path / "t.s"
    path.write_text("".join("addq %rax, %rbx\n" if k % 2 == 0 else "\n" for k in range(line - 1)) + "bogus %rax\n")
    result = invoke("parse", path)
    assert result.exit_code == 1
    assert messages(result.stderr)[0].startswith(f"{path}:{line}:1: error: "), result.stderr


@pytest.mark.parametrize("text", ["ys = xs[0:x:2]", "ys = xs[a:b:o]", "ys = xs[0:thumbs_up:1]"])
def test_program_text_is_printed_as_it_is_not_as_an_emoji(invoke, tmp_path, text) -> None:
    path = tmp_path / "s.py"
    path.write_text(
        f"def f(xs: list, x: int, a: int, b: int, o: int, thumbs_up: int) -> list:\n    {text}\n    return ys\n"
    )
    result = invoke("canon", path)
    assert result.exit_code == 0, result.output
    assert text.split(" = ")[1] in result.stdout and result.stdout.isascii(), result.stdout
