"""What the Java oracles share: variants of a whole source file, one ``javac``
call for many files, one JVM for many drivers, and the comparison of what
drivers print case by case.

javac and JVM start-up dominate the cost of checking one variant, so every
oracle writes each variant as a whole class under a fresh name, compiles all
of them at once and runs every driver in one JVM (``VariantRunner``); a module
whose tests compile several sets compiles them all in one JVM (``compile_sets``).
"""

from __future__ import annotations

import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from invar.frontends.java import parse_units, renaming_space
from invar.program import Program
from invar.symmetry.permutations import PermutationSpace

#: runs the ``main`` of each class named on the command line, each in a thread
#: with a time limit, and prints ``=== NAME`` before what it printed
RUNNER = """
import java.io.*;
public class VariantRunner {
    public static void main(String[] args) throws Exception {
        PrintStream real = System.out;
        for (String name : args) {
            ByteArrayOutputStream buf = new ByteArrayOutputStream();
            PrintStream out = new PrintStream(buf, true, "UTF-8");
            System.setOut(out);
            String[] failure = {null};
            Thread t = new Thread(() -> {
                try {
                    Class.forName(name).getMethod("main", String[].class).invoke(null, (Object) new String[0]);
                } catch (Throwable e) {
                    failure[0] = String.valueOf(e.getCause() != null ? e.getCause() : e);
                }
            });
            t.setDaemon(true);
            t.start();
            t.join(10000);
            System.setOut(real);
            String tail = t.isAlive() ? "!!! timeout\\n" : failure[0] != null ? "!!! " + failure[0] + "\\n" : "";
            real.print("=== " + name + "\\n" + buf.toString("UTF-8") + tail);
        }
    }
}
"""


#: compiles several independent sets of files in one JVM (javac warms up once):
#: each argument names a file holding one javac command line, one word a line
BATCH_JAVAC = """
import java.nio.file.*;
import java.io.*;
import java.util.*;
import javax.tools.*;
public class BatchJavac {
    public static void main(String[] args) throws Exception {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        for (String argfile : args) {
            List<String> words = Files.readAllLines(Path.of(argfile));
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int rc = javac.run(null, null, err, words.toArray(new String[0]));
            System.out.print("### " + argfile + " " + rc + "\\n" + err.toString());
        }
    }
}
"""


def tools() -> tuple[str, str]:
    """javac and java; fails (never skips) when they are missing."""
    javac, java = shutil.which("javac"), shutil.which("java")
    if javac is None or java is None:
        pytest.fail("javac/java not found (.ci/run installs Debian's openjdk)")
    return javac, java


def sample_programs(unit: Program, rng: random.Random, perms: int, renamings: int) -> list[Program]:
    """``perms`` sampled permutations then ``renamings`` sampled renamings of
    ``unit`` (the unit itself where its renaming space is empty)."""
    pspace = PermutationSpace(unit)
    out = [pspace.apply(None, t) for t in pspace.sample(perms, rng)]
    names = renaming_space(unit)
    if names.count():
        out += [names.apply(None, r) for r in names.sample(renamings, rng)]
    else:
        out += [unit] * renamings
    return out


def splice(lines: list[str], replacements: list[tuple[Program, Program]]) -> str:
    """The file ``lines`` with each unit's text replaced by its variant's
    (units do not overlap; ``replacements`` pairs each unit with its variant)."""
    out = list(lines)
    for unit, variant in sorted(replacements, key=lambda uv: -uv[0].lines[0].source_line):
        first = unit.lines[0].source_line
        count = unit.render().count("\n") + 1
        assert "\n".join(out[first - 1 : first - 1 + count]) == unit.render()
        out[first - 1 : first - 1 + count] = variant.render().split("\n")
    return "\n".join(out)


def disjoint(units: list[Program]) -> list[Program]:
    """The units whose lines overlap no earlier unit's (the methods of a
    class body written on one line share that line)."""
    out, taken = [], set()
    for u in units:
        first = u.lines[0].source_line
        span = range(first, first + u.render().count("\n") + 1)
        if taken.isdisjoint(span):
            out.append(u)
            taken.update(span)
    return out


def file_variants(
    text: str, path: str, rng: random.Random, perms: int, renamings: int, units: list[Program] | None = None
) -> list[str]:
    """``perms + renamings`` variants of the whole file: variant ``k`` replaces
    every unit (of those whose lines no other unit shares) by the ``k``-th
    program sampled for it (so one compilation checks one variant of every
    unit)."""
    units = disjoint(list(parse_units(text, path)) if units is None else units)
    lines = text.split("\n")
    samples = [sample_programs(u, rng, perms, renamings) for u in units]
    return [splice(lines, [(u, s[k]) for u, s in zip(units, samples)]) for k in range(perms + renamings)]


def rename_class(source: str, old: str, new: str) -> str:
    return re.sub(rf"\b{re.escape(old)}\b", new, source)


#: the JVM's options for javac and the runs: the client compiler only and the serial collector, which start
#: a short-lived JVM about a third sooner on two cores (its own threads no longer compete with the tests')
JVM = ["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"]


#: javac's options for every set of variants (the classes go to ``-d``)
JAVAC = ["-nowarn", "-Xmaxerrs", "10000", "-encoding", "UTF-8"]


def _written(sources: dict[str, str], where: Path) -> list[str]:
    """Write ``NAME.java`` for every source, and the runner, under ``where``: their paths."""
    where.mkdir(parents=True, exist_ok=True)
    files = []
    for name, source in {**sources, "VariantRunner": RUNNER}.items():
        (where / f"{name}.java").write_text(source)
        files.append(str(where / f"{name}.java"))
    return files


def compile_all(sources: dict[str, str], where: Path, extra: list[str] = ()) -> subprocess.CompletedProcess:
    """Write ``NAME.java`` for every source and compile them in one ``javac`` call."""
    javac, _ = tools()
    files = _written(sources, where)
    return subprocess.run(
        [javac, *(f"-J{o}" for o in JVM), *JAVAC, *extra, "-d", str(where / "out"), *files],
        capture_output=True,
        text=True,
    )


def compile_sets(sets: dict[str, dict[str, str]], where: Path) -> dict[str, subprocess.CompletedProcess]:
    """:func:`compile_all` for each set of sources, each in ``where/KEY`` (classes in ``where/KEY/out``),
    every set compiled by its own javac command line and all of them in one JVM (:func:`compile_batches`):
    javac starts and warms up once, and a set that fails to compile leaves the others' classes."""
    commands = [[*JAVAC, "-d", str(where / k / "out"), *_written(sources, where / k)] for k, sources in sets.items()]
    results = compile_batches(commands, where)
    return {key: subprocess.CompletedProcess([], rc, "", err) for key, (rc, err) in zip(sets, results)}


def compile_batches(commands: list[list[str]], where: Path, timeout: int = 600) -> list[tuple[int, str]]:
    """Run each javac command line (without ``javac`` itself) in one JVM:
    ``(exit status, diagnostics)`` for each, in order."""
    _, java = tools()
    where.mkdir(parents=True, exist_ok=True)
    (where / "BatchJavac.java").write_text(BATCH_JAVAC)
    argfiles = []
    for k, words in enumerate(commands):
        f = where / f"javac{k}.args"
        f.write_text("\n".join(words) + "\n")
        argfiles.append(str(f))
    run = subprocess.run(
        [java, *JVM, str(where / "BatchJavac.java"), *argfiles], capture_output=True, text=True, timeout=timeout
    )
    assert run.returncode == 0, run.stderr[-4000:]
    out = {}
    for chunk in run.stdout.split("### ")[1:]:
        head, _, body = chunk.partition("\n")
        name, rc = head.rsplit(" ", 1)
        out[name] = (int(rc), body)
    return [out[f] for f in argfiles]


def error_lines(diagnostics: str) -> list[tuple[str, int, str]]:
    """``(file, line, message)`` of every error javac reports."""
    return [(f, int(n), m) for f, n, m in re.findall(r"^(\S+\.java):(\d+): error: (.*)$", diagnostics, re.M)]


def failing_files(stderr: str) -> set[str]:
    """The class names (file stems) javac reports errors in."""
    return {Path(m).stem for m in re.findall(r"^(\S+\.java):\d+: error:", stderr, re.M)}


def run_all(classes: list[str], where: Path, timeout: int = 300) -> dict[str, str]:
    """Run every class's ``main`` in one JVM: what each printed, by class."""
    _, java = tools()
    run = subprocess.run(
        [java, *JVM, "-Xss4m", "-cp", str(where / "out"), "VariantRunner", *classes],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert run.returncode == 0, run.stderr[-4000:]
    printed = {}
    for chunk in run.stdout.split("=== ")[1:]:
        name, _, body = chunk.partition("\n")
        printed[name] = body
    return printed


def cases(printed: str) -> dict[str, str]:
    """A driver's output split at its ``#case`` lines."""
    out = {}
    for chunk in ("\n" + printed).split("\n#case ")[1:]:
        head, _, body = chunk.partition("\n")
        out[head] = body
    return out


def differences(original: str, variant: str) -> list[str]:
    """The cases in which the original completed normally and the variant
    printed something else (a variant's timeout or crash is a difference)."""
    if "!!! " in original:
        return ["the original itself crashed or timed out"]
    if "!!! " in variant:
        return [variant[variant.index("!!! ") :].split("\n")[0]]
    ours, theirs = cases(original), cases(variant)
    out = []
    for case, text in ours.items():
        completed = not any(line.startswith("! ") for line in text.split("\n"))
        if completed and theirs.get(case) != text:
            out.append(f"case {case}: {text!r} != {theirs.get(case)!r}")
    return out


__all__ = [
    "tools",
    "sample_programs",
    "splice",
    "disjoint",
    "file_variants",
    "rename_class",
    "compile_all",
    "compile_sets",
    "compile_batches",
    "error_lines",
    "failing_files",
    "run_all",
    "cases",
    "differences",
    "RUNNER",
]
