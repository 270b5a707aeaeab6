"""AT&T x86-64 text -> :class:`~invar.program.Program`.

A basic block is one instruction per line or several separated by ``;``,
``#`` comments and blank lines ignored (a ``;`` or ``#`` inside a character
constant, ``$';'``, or a string is its own). A prefix written alone (``rep`` on its
own line, ``lock; cmpxchg …``) belongs to the instruction after it: the two are
one IR line, rendered on one line (``lock cmpxchgl %ecx, (%rdi)``). Each
instruction becomes one IR line whose text is the instruction in canonical
spacing (``movq 64(%rsp), %rax``), so parse -> render -> parse is the
identity. Labels and assembler directives are rejected in a block: a basic
block holds instructions only; a file that holds them is a compiler's listing,
whose blocks :mod:`.listing` finds. Every instruction is checked (:mod:`.validate`) before any
analysis; an invalid one is a :class:`~invar.errors.ParseError` at the
offending operand.

One instruction is read in steps (:func:`_instruction`): prefixes, mnemonic,
operands, validation, effects, and the resources its line reads and writes.

Part of the frontends layer: imports errors, program and the x86 frontend's
own modules only; must not import encoding, tasks, data, nn, checkpoint,
train, audit, alta or cli.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache

from ...errors import ParseError
from ...program import Line, Program, Token
from ..registry import X86
from ..units import Units
from .deps import block_dependencies
from .expressions import read_expression
from .listing import DATA_DIRECTIVES, is_listing, quote_end, read_listing, split_statements
from .registers import Reg, lookup
from .semantics import Effects, base_mnemonic, effects
from .validate import PREFIXES, check, segment_prefix

_DECORATOR = re.compile(r"^\{(?:%k[0-7]|z|1to(?:2|4|8|16|32)|r[nduz]-sae|sae)\}$", re.I)
#: a space inside a decorator that splits one of the assembler's tokens (``{%k 1}``, ``{1to 16}``): an
#: identifier runs on through letters and digits, a number through digits; spaces between tokens are allowed
_SPLIT_TOKEN = re.compile(r"(?<=[a-z_])\s+(?=\w)|(?<=\d)\s+(?=\d)", re.I)
_MNEMONIC = re.compile(r"^[a-z][a-z0-9_]*$")


@dataclass(frozen=True, slots=True)
class _Piece:
    """One ``;``-separated piece of a source line."""

    #: the piece without surrounding blanks
    text: str
    #: 1-based source line and column of its first character
    line: int
    col: int
    #: the whole source line, for error messages
    raw: str


@dataclass(frozen=True, slots=True)
class _Statement:
    """One instruction with the prefix pieces written before it."""

    #: the pieces, prefixes first
    parts: tuple[_Piece, ...]

    @property
    def text(self) -> str:
        return " ".join(p.text for p in self.parts)

    def locate(self, col: int) -> tuple[int, int, str]:
        """Source line, column and line text of 1-based column ``col`` of :attr:`text`."""
        offset = max(col - 1, 0)
        for part in self.parts:
            if offset <= len(part.text) or part is self.parts[-1]:
                return part.line, part.col + offset, part.raw
            offset -= len(part.text) + 1
        raise AssertionError("unreachable")


def parse(text: str, *, name: str = "block", path: str | None = None, first_line: int = 1) -> Program:
    """Parse AT&T text holding one basic block."""
    statements = _statements(_pieces(text, first_line), path)
    if not statements:
        raise ParseError("no instructions in input", path=path, line=first_line, col=1)
    lines: list[Line] = []
    tokens: list[Token] = []
    semantics = []
    for index, stmt in enumerate(statements):
        try:
            line, toks, eff, mem = _instruction_cached(stmt.text)
        except ParseError as err:
            lineno, col, raw = stmt.locate(err.col)
            raise ParseError(err.message).at(lineno, col, raw).located(path) from None
        toks = [Token(t.text, t.kind, t.view, t.referent, index, t.start) for t in toks]
        lines.append(Line(text=line.text, reads=line.reads, writes=line.writes, source_line=stmt.parts[0].line))
        tokens.extend(toks)
        semantics.append((eff, mem, toks))
    deps, pinned = block_dependencies(lines, semantics)
    return Program(lang=X86.name, lines=tuple(lines), tokens=tuple(tokens), deps=deps, pinned=pinned, name=name)


def read_block(source: str, *, name: str, path: str | None = None, line: int = 1) -> Program:
    """One block of a file, its text starting at ``line`` of ``path`` (the
    record's ``block`` hook: the audit reads an assembly file a paragraph at a time)."""
    return parse(source, name=name, path=path, first_line=max(line, 1))


def parse_units(text: str, path: str | None = None) -> Units:
    """The basic blocks of an assembly file: paragraphs separated by blank
    lines, or one block per line when no blank line separates its code and
    its lines separate instructions with ``;`` (BHive's one-block-a-line
    form); a paragraph of comments alone is no block; a compiler's listing
    (labels, directives) cut as :mod:`.listing` cuts it, each block also
    named by its labels (``units.aliases``) (docs/formats.md). Every
    command and the audit read a file so. A file of one block is one unit
    named after the file; in a file of several, each is named ``lineN`` after
    the first line of its paragraph (the line of the audit's example id), and
    a block that does not parse is left out in ``skipped`` (the others are
    still read), as a hex file's bad line is."""
    lines = text.splitlines()
    listing = is_listing(lines)
    found = read_listing(text) if listing else [(first, body, None, ()) for first, body, _ in blocks(text)]
    if not found and listing:
        raise ParseError("no instructions: only labels and assembler directives", path=path, line=1, col=1)
    if not found or len(found) == 1 and not listing:  # the whole text: an empty one is located as parse locates it
        return Units([parse(text, path=path, name=_stem(path))])
    units = Units()
    for first, body, error, labels in found:
        name = _stem(path) if len(found) == 1 else f"line{first}"
        units.aliases.update((label, name) for label in labels if label != name and not label.isdigit())
        try:
            if error is not None:
                raise error
            units.append(parse(body, name=name, path=path, first_line=first))
        except ParseError as err:
            units.refused.add(name)
            if listing and err.line and err.line <= len(lines):  # the line as written, not as the block holds it
                err.source_line = lines[err.line - 1]
            err.reason = "block rejected"  # type: ignore[attr-defined]  (the skip summary counts by reason)
            units.skipped.append(err.located(path))
    if len(found) == 1 and units.skipped:  # the file's one block: its error is the file's
        raise units.skipped[0]
    if not units:  # no block parses: the file fails as a whole, at its first bad block
        first_error = units.skipped[0]
        more = len(units.skipped) - 1
        first_error.message += f" (and {more} more bad block{'s' if more != 1 else ''}; no block parses)"
        first_error.args = (first_error.message,)
        raise first_error
    return units


def blocks(text: str) -> list[tuple[int, str, ParseError | None]]:
    """(first line, text, why it is refused or None) of each block of an
    assembly file, as :func:`parse_units` reads them; a block's text runs
    from the first line of its paragraph (comments above the code included)
    to its last."""
    lines = text.splitlines()
    if is_listing(lines):  # a compiler's output: labels and jumps bound its blocks (.listing)
        return [(b.first, b.text, b.error) for b in read_listing(text)]
    code = [i for i, raw in enumerate(lines) if split_statements(raw)]
    if not code:
        return []
    blank_between = any(not lines[i].strip() for i in range(code[0], code[-1]))
    if not blank_between and len(code) > 1 and any(_separated(lines[i]) for i in code):
        return [(i + 1, lines[i], None) for i in code]
    paragraphs: list[list[int]] = []
    for i, raw in enumerate(lines):
        if not raw.strip():
            continue
        if paragraphs and paragraphs[-1][-1] == i - 1:
            paragraphs[-1].append(i)
        else:
            paragraphs.append([i])
    return [
        (p[0] + 1, "\n".join(lines[p[0] : p[-1] + 1]), None)
        for p in paragraphs
        if any(split_statements(lines[i]) for i in p)
    ]


def _separated(line: str) -> bool:
    """Whether ``line``'s code holds a ``;`` (outside strings and character constants: ``$';'``)."""
    k = 0
    while k < len(line) and line[k] != "#":
        if line[k] in "'\"":
            k = quote_end(line, k)
            continue
        if line[k] == ";":
            return True
        k += 1
    return False


def _stem(path: str | None) -> str:
    if not path or path == "<stdin>":
        return "block"
    return os.path.splitext(os.path.basename(path))[0]


def _pieces(text: str, first_line: int) -> list[_Piece]:
    out = []
    for lineno, raw in enumerate(text.splitlines(), start=first_line):
        for col, stripped in split_statements(raw):  # a ';' or '#' in a character constant is its own: $'#'
            out.append(_Piece(stripped, lineno, col + 1, raw))
    return out


def _prefix_only(piece: _Piece) -> bool:
    return all(w.lower() in PREFIXES for w in piece.text.split())


def _statements(pieces: list[_Piece], path: str | None) -> list[_Statement]:
    """Join every piece made of prefixes only to the instruction after it."""
    out: list[_Statement] = []
    pending: list[_Piece] = []
    for piece in pieces:
        pending.append(piece)
        if not _prefix_only(piece):
            out.append(_Statement(tuple(pending)))
            pending = []
    if pending:
        first = pending[0]
        word = first.text.split()[0]
        raise ParseError(
            f"prefix {word!r} is not followed by an instruction",
            path=path,
            line=first.line,
            col=first.col,
            source_line=first.raw,
        )
    return out


# ----------------------------------------------------------------- operands
def _split_operands(text: str) -> list[tuple[str, int]]:
    """Split at top-level commas (not inside parentheses or braces, nor
    character constants: ``$','``)."""
    out, opened, start, i = [], [], 0, 0
    while i < len(text):
        ch = text[i]
        if ch in "'\"":
            i = quote_end(text, i)
            continue
        if ch in "({":
            opened.append(i)
        elif ch in ")}":
            if not opened:
                raise ParseError(f"unbalanced {ch!r}", col=i + 1)
            opened.pop()
        elif ch == "," and not opened:
            out.append((text[start:i], start))
            start = i + 1
        i += 1
    if opened:
        raise ParseError(f"unbalanced {text[opened[-1]]!r}", col=opened[-1] + 1)
    out.append((text[start:], start))
    return [(s.strip(), off + len(s) - len(s.lstrip())) for s, off in out]


def _register(text: str, col: int) -> Reg:
    reg = lookup(text)
    if reg is None or not text.startswith("%"):
        raise ParseError(f"unknown register {text!r}", col=col + 1)
    return reg


class _Builder:
    """Accumulates the canonical text of one instruction and its tokens."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.text = ""
        self.tokens: list[Token] = []

    def add(self, text: str, kind: str, view: str | None = None, referent: str | None = None) -> None:
        self.tokens.append(Token(text, kind, view if view is not None else text, referent, self.index, len(self.text)))
        self.text += text

    def space(self, s: str) -> None:
        self.text += s


def _no_split_token(deco: str, col: int) -> None:
    """Refuse a decorator (at 0-based ``col``) whose spaces split a token, as llvm-mc does: ``{%k 1}``."""
    split = _SPLIT_TOKEN.search(deco)
    if split:
        raise ParseError(
            f"malformed operand decorator {deco.strip()!r}: a space splits a name", col=col + split.start() + 1
        )


def _operand(op: str, col: int, b: _Builder) -> dict:
    """Parse one operand (``col``: its 0-based column in the instruction),
    appending its tokens; return its description: ``kind`` (``reg``, ``mem``,
    ``imm``, ``decorator``; branches turn absolute ``mem`` into ``target``),
    ``col`` (1-based), ``decorators`` as (text, column) pairs and per kind
    ``reg``/``bits``, ``value`` (None when symbolic), or the address parts."""
    info: dict = {"text": op, "col": col + 1}
    decorators = []
    if op.startswith("{"):  # a leading rounding operand: {rn-sae}
        _no_split_token(op, col)
        deco = op.replace(" ", "").lower()
        if not _DECORATOR.match(deco) or deco.startswith(("{%k", "{z", "{1to")):
            raise ParseError(f"malformed operand {op!r}", col=col + 1)
        b.add(deco, "decorator")
        info["kind"] = "decorator"
        info["decorators"] = [(deco, col + 1)]
        return info
    # AVX-512 decorators trail the operand: %zmm0 {%k1} {z}
    while op.endswith("}"):
        at = op.rfind("{")
        deco = op[at:].replace(" ", "")
        if at < 0 or not _DECORATOR.match(deco):
            raise ParseError(f"malformed operand decorator in {op!r}", col=col + max(at, 0) + 1)
        _no_split_token(op[at:], col + at)
        decorators.insert(0, (deco.lower(), col + at + 1))
        op = op[:at].rstrip()
    if not op:
        raise ParseError("empty operand", col=col + 1)
    if op.startswith("*"):  # indirect branch target
        b.add("*", "punct")
        info["indirect"] = True
        op = op[1:].lstrip()
        col += 1
    low = op.lower()
    if low.startswith("$"):
        if not op[1:].strip():
            raise ParseError(f"malformed immediate {op!r}", col=col + 1)
        expression = _expression(op[1:], col + 1, "immediate")
        b.add("$" + expression.text, "immediate", "imm")
        info["kind"] = "imm"
        info["value"] = expression.value
    elif low.startswith("%") and ":" not in low and "(" not in low and ")" not in low:
        name = _REGISTER_NAME.match(low)  # "% rax" is %rax; "%ra x" is no register
        reg = _register(name.group(), col)
        if low[name.end() :].strip():
            at = name.end() + len(low[name.end() :]) - len(low[name.end() :].lstrip())
            raise ParseError(f"unexpected {op[at:].split()[0]!r} after {op[: name.end()]}", col=col + at + 1)
        b.add("%" + reg.name, "register", reg.view, reg.referent)
        info.update(kind="reg", reg=reg, bits=reg.bits)
    elif _STACK_REGISTER.fullmatch(low):  # %st(1), also spaced: %st ( 1 )
        reg = _register(low.replace(" ", ""), col)
        b.add("%" + reg.name, "register", reg.view, reg.referent)
        info.update(kind="reg", reg=reg, bits=reg.bits)
    else:
        _memory(op, col, b, info)
    for deco, _at in decorators:
        b.space(" ")
        if deco.startswith("{%k"):
            b.add("{", "punct")
            reg = lookup(deco[2:-1])
            b.add("%" + reg.name, "register", reg.view, reg.referent)
            b.add("}", "punct")
            info.setdefault("masks", []).append(reg)
        else:
            b.add(deco, "decorator")
    info["decorators"] = decorators
    return info


_SEGMENT = re.compile(r"^(%\s*[a-z]+)\s*:\s*", re.IGNORECASE)
_STACK_REGISTER = re.compile(r"%\s*st\s*\(\s*\w+\s*\)")
#: a register operand's name: the ``%``, the spaces an assembler allows after it, and the word
_REGISTER_NAME = re.compile(r"%\s*[^\s%]*")


def _expression(text: str, at: int, what: str, local_labels: bool = False):
    """:func:`~.expressions.read_expression` of ``text``, which starts at
    0-based column ``at`` of the instruction: errors are located there."""
    try:
        return read_expression(text, what, local_labels=local_labels)
    except ParseError as err:
        raise ParseError(err.message, col=at + err.col) from None


def _split_address(op: str) -> tuple[str | None, str, int, str | None]:
    """(segment, displacement, its 0-based column in ``op``, what the address
    parentheses hold or None) of a memory operand. The parentheses are the
    last group, when it holds registers (``%``) or an index (``,``) or
    nothing: ``(g+8)(%rip)`` is a displacement and a base, ``(g+8)`` an
    absolute address (the operand is balanced: :func:`_split_operands`)."""
    m = _SEGMENT.match(op)
    seg, start = ("".join(m.group(1).split()), m.end()) if m else (None, 0)
    rest, inner, end = op[start:], None, len(op) - start
    if rest.endswith(")"):
        depth, at = 0, len(rest) - 1
        for at in range(len(rest) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(rest[at], 0)
            if depth == 0:
                break
        content = rest[at + 1 : -1].strip()
        if not content or content[0] in "%,":
            inner, end = rest[at + 1 : -1], at
    disp = rest[:end]
    return seg, disp.strip(), start + len(disp) - len(disp.lstrip()), inner


def _memory(op: str, col: int, b: _Builder, info: dict) -> None:
    seg, disp, disp_at, inner = _split_address(op)
    regs: list[Reg] = []
    if seg:
        reg = _register(seg.lower(), col)
        if reg.cls != "seg":
            raise ParseError(f"{seg} is not a segment register", col=col + 1)
        b.add("%" + reg.name, "register", reg.view, reg.referent)
        b.add(":", "punct")
        info["seg"] = reg.name
    info["disp"] = 0
    if disp:
        # a branch's bare target may name a numeric local label (``jnz 1b``): a listing defines it
        kinds = [t.kind for t in b.tokens]
        mnemonic = b.tokens[kinds.index("mnemonic")].text.lower() if "mnemonic" in kinds else ""
        local = inner is None and mnemonic.startswith(("j", "call", "loop"))
        what = "branch target" if local and not info.get("indirect") else "displacement"
        expression = _expression(disp, col + disp_at, what, local_labels=local)
        b.add(expression.text, "disp", "disp")
        info.update(disp=expression.value, disp_text=expression.text)
    if inner is None:
        if not disp:
            raise ParseError(f"malformed operand {op!r}", col=col + 1)
        # a bare number or label: a branch target or an absolute address
        info.update(kind="mem", regs=regs, base=None, index=None, scale=1, absolute=True)
        return
    parts = [p.strip() for p in inner.split(",")]
    if len(parts) > 3 or (len(parts) == 1 and not parts[0]):
        raise ParseError(f"malformed memory operand {op!r}", col=col + 1)
    b.add("(", "punct")
    base = index = None
    scale = 1
    if parts[0]:
        base = _register(parts[0].lower(), col)
        if base.cls not in ("gpr", "ip") or base.width not in ("32", "64"):
            raise ParseError(f"{parts[0]} cannot be a base register", col=col + 1)
        b.add("%" + base.name, "register", base.view, base.referent)
        regs.append(base)
    if len(parts) >= 2:
        b.add(",", "punct")
        if parts[1]:
            index = _register(parts[1].lower(), col)
            if index.cls == "vec":
                info["vsib"] = True
            elif index.cls != "gpr" or index.width not in ("32", "64") or index.base == "sp":
                raise ParseError(f"{parts[1]} cannot be an index register", col=col + 1)
            b.add("%" + index.name, "register", index.view, index.referent)
            regs.append(index)
    if len(parts) == 3:
        b.add(",", "punct")
        if parts[2] not in ("1", "2", "4", "8"):
            raise ParseError(f"scale must be 1, 2, 4 or 8, not {parts[2]!r}", col=col + 1)
        scale = int(parts[2])
        b.add(parts[2], "scale", "scale")
    b.add(")", "punct")
    info.update(
        kind="mem",
        regs=regs,
        base=base,
        index=index,
        scale=scale,
        absolute=False,
        rip=base is not None and base.cls == "ip",
    )


# ------------------------------------------------------------- instructions
@lru_cache(maxsize=1 << 16)
def _instruction_cached(source: str):
    """Instructions repeat across blocks; their parse does not depend on where
    they stand (tokens come back on line 0 and are moved by the caller).
    Results are shared, so nothing downstream may mutate them."""
    return _instruction(source, 0)


def _instruction(source: str, index: int):
    """Parse one instruction into (Line, tokens, effects, memory operands)."""
    _reject_non_instruction(source)
    b = _Builder(index)
    prefixes, pos = _read_prefixes(source, b)
    head, base, mnemonic_col, pos = _read_mnemonic(source, pos, b)
    operands, rounding = _read_operands(source, pos, b)
    _mark_targets(head, base, operands)
    check(head, base, prefixes, operands, rounding, mnemonic_col)
    segment = segment_prefix(prefixes)
    if segment:  # a segment prefix word applies to the memory operands that name none
        for o in operands:
            if o["kind"] == "mem" and not o.get("seg"):
                o["seg"] = segment
    eff = effects(head, base, operands, tuple(p for p, _ in prefixes))
    reads, writes = _accesses(operands, eff, segment)
    line = Line(text=b.text, reads=reads, writes=writes)
    info = {"mnemonic": head, "base": base, "prefixes": [p for p, _ in prefixes], "operands": operands}
    return line, b.tokens, eff, info


def _reject_non_instruction(source: str) -> None:
    """Labels and assembler directives have no place in a basic block."""
    if source.endswith(":") or re.match(r"^[\w.$@]+:", source):
        raise ParseError("labels are not allowed in a basic block", col=1)
    if source.startswith("."):
        name = source.split()[0].rstrip(",")
        if name.lower() == ".intel_syntax":
            raise ParseError("Intel syntax from here on: invar reads AT&T (gcc -S without -masm=intel)", col=1)
        if name.lower() in DATA_DIRECTIVES:
            raise ParseError(f"assembler directive {name!r} places data where instructions run", col=1)
        raise ParseError(f"assembler directive {name!r} is not an instruction", col=1)


def _read_prefixes(source: str, b: _Builder) -> tuple[list[tuple[str, int]], int]:
    """The prefix words that open ``source`` as (prefix, 1-based column), and
    where the rest starts; each prefix becomes a token."""
    prefixes: list[tuple[str, int]] = []
    words = source.split()
    pos = 0  # where the unread part of the source starts
    while words[0].lower() in PREFIXES:
        at = source.index(words[0], pos)
        if len(words) == 1:
            raise ParseError(f"prefix {words[0]!r} is not followed by an instruction", col=at + 1)
        prefixes.append((words[0].lower(), at + 1))
        b.add(words[0].lower(), "prefix")
        b.space(" ")
        pos = at + len(words[0])
        words = source[pos:].split()
    return prefixes, pos


def _read_mnemonic(source: str, pos: int, b: _Builder) -> tuple[str, str, int, int]:
    """(mnemonic, its base, its 1-based column, where the operands start) of
    the word at ``pos``, added as a token."""
    word = source[pos:].split()[0]
    head = word.lower()
    at = source.index(word, pos)
    if not _MNEMONIC.match(head):
        raise ParseError(f"malformed instruction {source!r}", col=at + 1)
    base = base_mnemonic(head)
    if base is None:
        raise ParseError(f"unknown instruction {head!r}", col=at + 1)
    b.add(head, "mnemonic")
    return head, base, at + 1, at + len(word)


def _read_operands(source: str, pos: int, b: _Builder) -> tuple[list[dict], list[dict]]:
    """The operands after ``pos``, added as tokens: (operands, rounding
    decorators such as ``{rn-sae}``, which stand apart)."""
    rest = source[pos:]
    operands: list[dict] = []
    if rest.strip():
        b.space(" ")
        try:
            split = _split_operands(rest)
        except ParseError as err:
            raise ParseError(err.message, col=pos + err.col)
        for k, (op, off) in enumerate(split):
            if k:
                b.add(",", "punct")
                b.space(" ")
            operands.append(_operand(op, pos + off, b))
    rounding = [o for o in operands if o.get("kind") == "decorator"]
    return [o for o in operands if o.get("kind") != "decorator"], rounding


def _mark_targets(head: str, base: str, operands: list[dict]) -> None:
    """A bare-number operand of a branch is its target, not memory."""
    if (head.startswith("j") or base in ("call", "loop", "loope", "loopne", "xbegin")) and operands:
        for o in operands:
            if o.get("absolute") and not o.get("indirect"):
                o["kind"] = "target"


def _accesses(operands: list[dict], eff: Effects, segment: str | None) -> tuple[frozenset[str], frozenset[str]]:
    """The resources (referents, ``flags``, ``mem``, ``x87``, ``mxcsr``,
    ``seg:…``) one instruction reads and writes, its operands' and its
    implicit ones; a resource it accumulates into (:attr:`Effects.accumulates`)
    is read and written. A ``nop`` touches nothing, whatever its operands."""
    if eff.inert:
        return frozenset(), frozenset()
    reads: set[str] = set(eff.implicit.reads) | eff.other_reads | eff.accumulates
    writes: set[str] = set(eff.implicit.writes) | eff.other_writes | eff.accumulates
    for i, o in enumerate(operands):
        if o["kind"] == "reg":
            (writes if i in eff.written else reads).add(o["reg"].referent)
            if i in eff.written and o["reg"].bits < 32 and o["reg"].cls == "gpr":
                reads.add(o["reg"].referent)  # partial writes keep the rest of the register
        elif o["kind"] == "mem":
            reads.update(r.referent for r in o["regs"])
            if o.get("seg"):
                reads.add(f"seg:{o['seg']}")
        for m in o.get("masks", ()):
            reads.add(m.referent)
    if segment and not any(o["kind"] == "mem" for o in operands) and eff.unbounded_memory:
        reads.add(f"seg:{segment}")  # string instructions: the source segment
    if eff.reads_flags:
        reads.add("flags")
    if eff.writes_flags:
        writes.add("flags")
    if eff.reads_memory:
        reads.add("mem")
    if eff.writes_memory:
        writes.add("mem")
    if eff.x87:
        reads.add("x87")
        writes.add("x87")
    return frozenset(reads), frozenset(writes)
