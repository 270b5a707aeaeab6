"""AT&T x86-64 text -> :class:`~invar.program.Program`.

A basic block is one instruction per line or several separated by ``;``,
``#`` comments and blank lines ignored. Each instruction becomes one IR line
whose text is the instruction in canonical spacing (``movq 64(%rsp), %rax``),
so parse -> render -> parse is the identity. Labels and assembler directives
are rejected: a basic block holds instructions only.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ...errors import ParseError
from ...program import Line, Program, Token
from . import registers as R
from .deps import block_dependencies
from .semantics import base_mnemonic, effects

PREFIXES = frozenset(
    "lock rep repe repz repne repnz data16 data32 addr32 rex64 notrack bnd xacquire xrelease".split()
)
_IMM = re.compile(r"^\$[-+]?(?:0x[0-9a-f]+|[0-9]+|[a-z_.$][\w.$@]*(?:[-+](?:0x[0-9a-f]+|[0-9]+))?)$", re.I)
_NUMBER = re.compile(r"^[-+]?(?:0x[0-9a-f]+|[0-9]+)$", re.I)
_SYMBOLIC = re.compile(r"^[-+]?(?:0x[0-9a-f]+|[0-9]+|[a-z_.$][\w.$@]*(?:[-+](?:0x[0-9a-f]+|[0-9]+))?)$", re.I)
_DECORATOR = re.compile(r"^\{(?:%k[0-7]|z|1to(?:2|4|8|16|32)|r[nduz]-sae|sae)\}$", re.I)
_MNEMONIC = re.compile(r"^[a-z][a-z0-9_]*$")


def parse(text: str, *, name: str = "block", path: str | None = None, first_line: int = 1) -> Program:
    """Parse AT&T text holding one basic block."""
    pieces: list[tuple[str, int, int]] = []  # (instruction text, source line, column)
    for lineno, raw in enumerate(text.splitlines(), start=first_line):
        code = raw.split("#", 1)[0]
        col = 0
        for part in code.split(";"):
            stripped = part.strip()
            if stripped:
                pieces.append((stripped, lineno, col + len(part) - len(part.lstrip()) + 1))
            col += len(part) + 1
    if not pieces:
        raise ParseError("no instructions in input", path=path, line=first_line, col=1)
    lines: list[Line] = []
    tokens: list[Token] = []
    semantics = []
    for index, (source, lineno, col) in enumerate(pieces):
        try:
            line, toks, eff, mem = _instruction_cached(source)
        except ParseError as err:
            raise ParseError(err.message).at(lineno, col + max(err.col - 1, 0), source).located(path)
        toks = [Token(t.text, t.kind, t.view, t.referent, index, t.start) for t in toks]
        lines.append(Line(text=line.text, reads=line.reads, writes=line.writes, source_line=lineno))
        tokens.extend(toks)
        semantics.append((eff, mem, toks))
    deps, pinned = block_dependencies(lines, semantics)
    return Program(
        lang="x86", lines=tuple(lines), tokens=tuple(tokens), deps=deps, pinned=pinned, name=name
    )


def parse_units(text: str, path: str | None = None) -> list[Program]:
    """A ``.s`` file is one basic block."""
    return [parse(text, path=path, name=_stem(path))]


def _stem(path: str | None) -> str:
    if not path or path == "<stdin>":
        return "block"
    import os

    return os.path.splitext(os.path.basename(path))[0]


# ----------------------------------------------------------------- operands
def _split_operands(text: str) -> list[tuple[str, int]]:
    """Split at top-level commas (not inside parentheses or braces)."""
    out, opened, start = [], [], 0
    for i, ch in enumerate(text):
        if ch in "({":
            opened.append(i)
        elif ch in ")}":
            if not opened:
                raise ParseError(f"unbalanced {ch!r}", col=i + 1)
            opened.pop()
        elif ch == "," and not opened:
            out.append((text[start:i], start))
            start = i + 1
    if opened:
        raise ParseError(f"unbalanced {text[opened[-1]]!r}", col=opened[-1] + 1)
    out.append((text[start:], start))
    return [(s.strip(), off + len(s) - len(s.lstrip())) for s, off in out]


def _register(text: str, col: int) -> R.Reg:
    reg = R.lookup(text)
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


def _operand(op: str, col: int, b: _Builder) -> dict:
    """Parse one operand, appending its tokens; return its description."""
    info: dict = {"text": op}
    decorators = []
    # AVX-512 decorators trail the operand: %zmm0 {%k1} {z}
    while op.endswith("}"):
        at = op.rfind("{")
        deco = op[at:].replace(" ", "")
        if at < 0 or not _DECORATOR.match(deco):
            raise ParseError(f"malformed operand decorator in {op!r}", col=col + max(at, 0) + 1)
        decorators.insert(0, deco.lower())
        op = op[:at].rstrip()
    if op.startswith("{"):  # a leading rounding operand: {rn-sae}
        deco = op.replace(" ", "").lower()
        if not _DECORATOR.match(deco):
            raise ParseError(f"malformed operand {op!r}", col=col + 1)
        b.add(deco, "decorator")
        info["kind"] = "decorator"
        return info
    if not op:
        raise ParseError("empty operand", col=col + 1)
    if op.startswith("*"):  # indirect branch target
        b.add("*", "punct")
        op = op[1:].lstrip()
        col += 1
    low = op.lower()
    if low.startswith("$"):
        if not _IMM.match(op):
            raise ParseError(f"malformed immediate {op!r}", col=col + 1)
        b.add(op, "immediate", "imm")
        info["kind"] = "imm"
    elif low.startswith("%") and ":" not in low and "(" not in low.replace("%st(", ""):
        reg = _register(low.replace(" ", ""), col)
        b.add("%" + reg.name, "register", reg.view, reg.referent)
        info.update(kind="reg", reg=reg, bits=reg.bits)
    elif low.startswith("%st(") and low.endswith(")") and ":" not in low:
        reg = _register(low.replace(" ", ""), col)
        b.add("%" + reg.name, "register", reg.view, reg.referent)
        info.update(kind="reg", reg=reg, bits=reg.bits)
    else:
        _memory(op, col, b, info)
    for deco in decorators:
        b.space(" ")
        if deco.startswith("{%k"):
            b.add("{", "punct")
            reg = R.lookup(deco[2:-1])
            b.add("%" + reg.name, "register", reg.view, reg.referent)
            b.add("}", "punct")
            info.setdefault("masks", []).append(reg)
        else:
            b.add(deco, "decorator")
    info["decorators"] = decorators
    return info


_MEM = re.compile(
    r"^(?:(?P<seg>%[a-z]+)\s*:\s*)?(?P<disp>[^()]*?)\s*(?:\((?P<inner>[^()]*)\))?$", re.I
)


def _memory(op: str, col: int, b: _Builder, info: dict) -> None:
    m = _MEM.match(op)
    if not m:
        raise ParseError(f"malformed operand {op!r}", col=col + 1)
    seg, disp, inner = m.group("seg"), m.group("disp").strip(), m.group("inner")
    regs: list[R.Reg] = []
    if seg:
        reg = _register(seg.lower(), col)
        if reg.cls != "seg":
            raise ParseError(f"{seg} is not a segment register", col=col + 1)
        b.add("%" + reg.name, "register", reg.view, reg.referent)
        b.add(":", "punct")
        info["seg"] = reg.name
    if disp:
        if not _SYMBOLIC.match(disp):
            raise ParseError(f"malformed displacement {disp!r}", col=col + 1)
        b.add(disp, "disp", "disp")
    info["disp"] = int(disp, 0) if disp and _NUMBER.match(disp) else (0 if not disp else None)
    if inner is None:
        if not disp:
            raise ParseError(f"malformed operand {op!r}", col=col + 1)
        if not seg and _NUMBER.match(disp) is None and not _SYMBOLIC.match(disp):
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
        kind="mem", regs=regs, base=base, index=index, scale=scale, absolute=False,
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
    if source.endswith(":") or re.match(r"^[\w.$@]+:", source):
        raise ParseError("labels are not allowed in a basic block", col=1)
    if source.startswith("."):
        raise ParseError(f"assembler directive {source.split()[0]!r} is not an instruction", col=1)
    b = _Builder(index)
    prefixes = []
    words = source.split()
    head = words[0].lower()
    pos = 0  # where the unread part of the source starts
    while head in PREFIXES and len(words) > 1:
        prefixes.append(head)
        b.add(head, "prefix")
        b.space(" ")
        pos = source.index(words[0], pos) + len(words[0])
        words = source[pos:].split()
        head = words[0].lower()
    if not _MNEMONIC.match(head):
        raise ParseError(f"malformed instruction {source!r}", col=pos + 1)
    base = base_mnemonic(head)
    at = source.index(words[0], pos)
    if base is None:
        raise ParseError(f"unknown instruction {head!r}", col=at + 1)
    b.add(head, "mnemonic")
    pos = at + len(words[0])
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
    operands = [o for o in operands if o.get("kind") != "decorator"]
    # a bare-number operand of a branch is its target, not memory
    if (head.startswith("j") or base in ("call", "loop", "loope", "loopne", "xbegin")) and operands:
        for o in operands:
            if o.get("absolute"):
                o["kind"] = "target"
    eff = effects(head, base, operands)
    reads: set[str] = set(eff.implicit.reads)
    writes: set[str] = set(eff.implicit.writes)
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
    line = Line(text=b.text, reads=frozenset(reads), writes=frozenset(writes))
    info = {
        "mnemonic": head, "base": base, "prefixes": prefixes, "operands": operands,
    }
    return line, b.tokens, eff, info
