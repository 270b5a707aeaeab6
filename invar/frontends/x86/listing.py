"""A compiler's assembly output (``gcc -S``, ``clang -S``) read as basic blocks.

A file that holds a label or an assembler directive is such a listing, not
a paragraph of one block (docs/formats.md). Its basic blocks are what the
processor runs straight through:

- a label a jump may land on starts one: a label an instruction names as
  its target or as an address it takes (``jmp .L3``, ``$.L5``, ``leaq
  .L5(%rip)``), or data outside debugging information names (a jump
  table's entry, a landing pad), a label that is no assembler-local one
  (``f``: a function, called from elsewhere) unless declared data
  (``.type x, @object``), a numeric label (``1:``). A label only memory
  operands name (a constant read, ``movsd .LC0(%rip)``, a jump table
  read, ``jmp *.L4(,%rax,8)``), only debugging information names (gcc's
  ``.LVL``, ``.LBB``, ``.LFB`` with ``-g``, clang's ``.Ltmp``), or only
  the bounds of a call site in an exception table name (gcc's ``.LEHB``,
  ``.LEHE``, clang's ``.Ltmp``; the landing pad each record names is a
  jump target) starts nothing: ``-g`` and exceptions leave the blocks as
  they are; nor does a jump table's base in code, a label data follows
  that instructions name only as an address taken and data only as what
  its entries subtract (llc's COFF ``.LJTI0_0:`` after ``retq``, ``leaq
  .LJTI0_0(%rip)``, ``.long .LBB0_2-.LJTI0_0``);
- a control transfer ends one, the last line of its block (``jmp``, a
  conditional jump, ``call``, ``ret``, ``syscall``, ``int``, ``loop``,
  ``ud2``, ``hlt``, ``xbegin``), as BHive's blocks end;
- a blank line ends one, as between the paragraphs of a file of blocks, and
  the comment lines above a block's first instruction belong to it, across
  its labels and directives but not across a section switch or data (the
  ``# label:`` comments of an audit's dataset).

The labels written right before a block name it (:attr:`Block.labels`), a
refused one's too (a ``.code32`` region's, data's where instructions run);
a label data follows names no block, and one a section switch follows
names the next block of its own section (GNU as places that section's next
bytes at its address: gcc's ``.LCOLDB0`` names the function's cold part).

Directives are read for what they do to the instruction stream:

- those that place nothing the processor runs where they stand (``.cfi_*``,
  ``.loc``, ``.p2align``, ``.globl``, ``.type``, ``.size``, ``SYM = 1`` …)
  are left out: inside a block their lines stay in its text as comments, so
  that its lines keep their numbers;
- a section switch ends the block (ELF's ``.section NAME,"ax"`` and Mach-O's
  ``.section __TEXT,__text`` hold code); data (``.byte``, ``.long``,
  ``.asciz`` …) in a data section, in a Mach-O ``.data_region``, or where
  nothing runs into it (after ``jmp`` or ``ret``, before a label a jump may
  land on: a constant pool after a function's return), is left out;
- what would change the instructions read stays in its block's text, where
  the block is refused at that line: data the processor would run through
  (after an instruction that falls through, or after a label a jump may
  land on in a code section), macros, repetitions, conditional assembly,
  any other directive inside a block;
- a ``.intel_syntax`` region, up to ``.att_syntax``, and a ``.code16`` or
  ``.code32`` region, up to ``.code64`` (or the end of the file), is one
  block, refused at its first line (invar reads AT&T x86-64), where it
  places anything; the labels right before it, and those inside it before
  its last instruction, are its own.

A listing of i386 code (``gcc -m32``, ``clang -m32``) is refused as a
whole, at the first line that shows it (:func:`i386_evidence`), unless a
64-bit register says otherwise: its instructions would read as other
x86-64 ones (``movl 4(%esp), %eax`` assembles in both modes).

``;`` separates statements as a line break does, but a block starts and
ends with a line: a label a jump may land on after a ``;``, or a statement
after a control transfer on its line, refuses the block, at that statement.
``/* … */`` comments are blanks, as GNU as reads them; a ``;``, ``#`` or
``/*`` inside a string (``"a;b"``) or a character constant (``'#'``,
``'#``) is its own. A label or a symbol may be quoted, as clang writes a
name no plain symbol spells (``"weird name":``, ``call "weird name"``).

Part of the frontends layer: imports errors and the x86 frontend's own
modules only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...errors import ParseError
from .prefixes import PREFIXES

#: ``name:`` at the start of a statement (``f:``, ``.L3:``, ``1:``, clang's ``"a b":``): a label, possibly
#: followed by an instruction
LABEL = re.compile(r'(?:[\w.$@]+|"(?:[^"\\]|\\.)*"):(?!:)')
#: ``SYM = 16``: a symbol given a value, as ``.set`` gives one
_ASSIGNMENT = re.compile(r"[A-Za-z_.$][\w.$@]*\s*=(?!=)")
#: what an operand or a directive's argument may name: a symbol (group 2), or one quoted (group 1); a
#: character constant, a register, a number (``1b`` names a numeric label) and a relocation (``@PLT``) name none
_REFERENCE = re.compile(r'"((?:[^"\\]|\\.)*)"?|\'(?:\\.|.)\'?|%\w+|\d[\w.$]*|@\w+|([A-Za-z_.$][\w.$]*)')
#: ``A-B``: the distance between two labels (an exception table's call site: where it starts, how long it is)
_DIFFERENCE = re.compile(r'\s*([\w.$]+|"(?:[^"\\]|\\.)*")\s*-\s*([\w.$]+|"(?:[^"\\]|\\.)*")\s*')
#: ``.type x, @object``: a symbol declared data, no function
_OBJECT = re.compile(r'[@%]?"?(?:object|tls_object|gnu_unique_object|common|STT_OBJECT|STT_TLS|STT_COMMON)"?\s*')
#: data directives whose quoted arguments are text (or a file's name), no symbols
_TEXTS = frozenset(".ascii .asciz .string .string8 .string16 .incbin".split())
#: the directives that switch to code of another width, and the width each gives
_MODES = {".code16": "16", ".code16gcc": "16", ".code32": "32", ".code64": "64"}

#: directives that place nothing the processor runs where they stand: skipped (or a comment inside a block)
_INERT = frozenset(
    """.file .loc .loc_view .ident .globl .global .local .weak .weakref .hidden .protected .internal .type .size
    .p2align .align .balign .p2alignw .p2alignl .balignw .balignl .comm .lcomm .att_syntax .set .equ .equiv
    .extern .addrsig .addrsig_sym .symver .def .endef .scl .linkonce .note .list .nolist .eject .title .sbttl
    .psize .stabs .stabn .stabd .version .end .build_version .macosx_version_min .subsections_via_symbols
    .private_extern .alt_entry .weak_definition .weak_reference .no_dead_strip .indirect_symbol .loh
    .linker_option .lazy_reference .reference .desc .tbss .zerofill .section_start .code64""".split()
)
#: directives that place bytes where they stand: data, left out where nothing runs into them
DATA_DIRECTIVES = frozenset(
    """.byte .2byte .4byte .8byte .short .word .hword .value .int .long .quad .octa .single .float .double
    .ascii .asciz .string .string8 .string16 .zero .skip .space .fill .uleb128 .sleb128 .incbin .dc .ds
    .reloc .org""".split()
)
#: directives that switch sections (the block ends there); Mach-O's data sections by their own directives
_SECTIONS = frozenset(".text .data .bss .section .pushsection .popsection .previous .subsection".split())
_MACHO_DATA = frozenset(
    """.cstring .literal4 .literal8 .literal16 .const .const_data .static_data .static_const .mod_init_func
    .mod_term_func .objc_data .objc_const .non_lazy_symbol_pointer .lazy_symbol_pointer""".split()
)
#: an ELF section whose name says it holds code
_CODE_SECTION = re.compile(r"\.text\b|\.init\b|\.fini\b|\.plt\b")
#: sections of debugging and unwinding information: the labels only they name are no jump targets
_DEBUG_SECTION = re.compile(r"\.z?debug|\.eh_frame|\.stab|\.note|__DWARF,|__LD,__compact_unwind|__TEXT,__eh_frame")
#: exception tables (gcc's LSDA; COFF's in .xdata, after ``.seh_handlerdata``): the labels their call sites'
#: bounds name are no jump targets, their landing pads are
_EXCEPT_TABLE = re.compile(r"\.gcc_except_table|__TEXT,__gcc_except_tab|\.xdata\b")

#: instructions that end a block: control goes elsewhere (a call and a system call too, as in BHive's blocks)
_ENDS = frozenset(
    """jmp jmpq jmpl jmpw ljmp ljmpq ljmpl ljmpw ret retq retl retw lret lretq lretl lretw iret iretq iretd iretw
    call callq calll callw lcall lcallq lcalll syscall sysenter sysret sysretq sysretl sysexit sysexitq
    int int1 int3 into xbegin ud0 ud1 ud2 hlt loop loope loopne loopz loopnz jrcxz jecxz jcxz""".split()
)
#: of those, the ones after which the processor never runs the next line
_NO_FALL = frozenset(
    """jmp jmpq jmpl jmpw ljmp ljmpq ljmpl ljmpw ret retq retl retw lret lretq lretl lretw iret iretq iretd iretw
    sysret sysretq sysretl sysexit sysexitq ud0 ud1 ud2 hlt""".split()
)

#: instructions 64-bit mode has not (i386's): a 32-bit size suffix on a push, pop, call, jump or return, and
#: those removed (BCD arithmetic, ``pusha``, ``bound``, ``les`` …)
_I386_MNEMONICS = frozenset(
    """pushl popl pushfl popfl pushfd popfd calll retl jmpl pusha pushal pushaw pushad popa popal popaw popad
    aaa aad aam aas daa das into bound boundl boundw arpl lds ldsl ldsw les lesl lesw salc""".split()
)
#: i386 operands: a push or pop of a 32-bit register (or of a segment 64-bit mode cannot push), a call or
#: jump through a 32-bit register, gcc's thunk for the PC (i386 has no %rip)
_I386_OPERANDS = re.compile(
    r"(?:push|pop)\s+%(?:e[a-z]{2}|[cdes]s)\b|(?:call|jmp)\s*\*\s*%e[a-z]{2}\b|__(?:x86|i686)\.get_pc_thunk\.", re.I
)
#: memory addressed through %esp or %ebp: a 32-bit stack (x32's code names 64-bit registers too)
_I386_STACK = re.compile(r"\(\s*%e[sb]p\b", re.I)
#: a CFA offset (``.cfi_def_cfa_offset 12``, ``.cfi_def_cfa 4, 4``): i386's are 4 modulo 8, x86-64's multiples of 8
_CFA_OFFSET = re.compile(r"\.cfi_(?:def_cfa_offset|adjust_cfa_offset|def_cfa\s+[^,]+,)\s*(-?\d+)\s*", re.I)
#: a register only 64-bit code has
_WIDE = re.compile(r"%(?:r(?:[a-d]x|[sd]i|[sb]p|ip|1[0-5][dwb]?|[89][dwb]?)|[sd]il|[sb]pl)\b", re.I)


def is_listing(lines: list[str]) -> bool:
    """Whether ``lines`` are a compiler's listing: a statement opens with
    a label or is a directive."""
    for raw in lines:
        for _, code in split_statements(raw):
            if code.startswith(".") or LABEL.match(code) or _ASSIGNMENT.match(code):
                return True
    return False


def _mnemonic(instruction: str) -> str:
    words = [w for w in instruction.lower().split() if w not in PREFIXES]
    return words[0].rstrip(",") if words else ""


def ends_block(instruction: str) -> bool:
    """Whether ``instruction`` (its prefixes aside) transfers control: a
    jump, conditional or not, a call, a return, a system call, a trap."""
    mnemonic = _mnemonic(instruction)
    return mnemonic in _ENDS or (mnemonic.startswith("j") and mnemonic.isalnum())


def falls_through(instruction: str) -> bool:
    """Whether the processor may run the line after ``instruction``: not
    after an unconditional jump, a return or a trap."""
    return _mnemonic(instruction) not in _NO_FALL


@dataclass(frozen=True)
class Block:
    """A basic block of a listing: its first line (1-based), its text from
    that line to its last (what is left out inside it a comment or blanks),
    and why it is refused, where that is no line's own fault."""

    first: int
    text: str
    error: ParseError | None = None
    #: the labels written right before it (``sum3``, ``.L3``): names a command may also call it by
    labels: tuple[str, ...] = ()

    def __iter__(self):  # (first, text, error, labels), as parse_units unpacks a block
        return iter((self.first, self.text, self.error, self.labels))


@dataclass
class _Sections:
    """The section each line goes to, as GNU as switches them."""

    #: the current section (name, subsection), the one ``.previous`` returns to, those ``.popsection`` returns to
    section: tuple[str, str] = (".text", "0")
    previous: tuple[str, str] = (".text", "0")
    stack: list[tuple[str, str]] = field(default_factory=list)
    #: sections that hold code: named so, or declared executable
    code: set[str] = field(default_factory=lambda: {".text"})

    @property
    def in_code(self) -> bool:
        return self.section[0] in self.code or bool(_CODE_SECTION.match(self.section[0]))

    @property
    def in_debug(self) -> bool:
        return bool(_DEBUG_SECTION.match(self.section[0]))

    @property
    def in_except_table(self) -> bool:
        return bool(_EXCEPT_TABLE.match(self.section[0]))

    def switch(self, name: str, statement: str) -> bool:
        """Follow directive ``name``; whether it switched sections."""
        here = self.section
        raw = statement[len(name) :].strip()
        args = [a.strip() for a in re.split(r",(?=(?:[^\"]*\"[^\"]*\")*[^\"]*$)", raw)] if raw else [""]
        if name in (".text", ".data", ".bss"):
            self.section = (name, args[0] or "0")
        elif name in _MACHO_DATA:
            self.section = (name, "0")
        elif name in (".section", ".pushsection"):
            if name == ".pushsection":
                self.stack.append(here)
            section = args[0].strip('"')
            if section.startswith("__") and len(args) > 1 and not args[1].startswith('"'):  # Mach-O: SEG,sect,…
                rest = ",".join(args[1:])
                section = f"{section},{args[1] if len(args) > 1 else ''}"
                if section == "__TEXT,__text" or "pure_instructions" in rest:
                    self.code.add(section)
            elif len(args) > 1 and args[1].startswith('"') and "x" in args[1].strip('"'):  # ELF's "ax"
                self.code.add(section)
            self.section = (section, "0")
        elif name == ".subsection":
            self.section = (here[0], args[0] or "0")
        elif name == ".popsection":
            self.section = self.stack.pop() if self.stack else here
        elif name == ".previous":
            self.section = self.previous
        else:
            return False
        self.previous = here
        return True


def split_statements(line: str) -> list[tuple[int, str]]:
    """(0-based column, text) of each ``;``-separated statement of a line's
    code (its ``#`` comment cut), blank ones left out; a ``;`` or ``#``
    inside a string (``.string "a;b#c"``) or a character constant
    (``movb $'#', %al``) is its own."""
    if '"' not in line and "'" not in line:  # nothing quoted: the cuts are every ';' before the comment (most lines)
        code = line.split("#", 1)[0]
        cuts, k = [i for i, c in enumerate(code) if c == ";"], len(code)
    else:
        cuts, k = [], 0  # where a statement ends: each ';' outside quotes, then the '#' or the line's end
        while k < len(line) and line[k] != "#":
            if line[k] in "\"'":
                k = quote_end(line, k)
                continue
            if line[k] == ";":
                cuts.append(k)
            k += 1
    out, start = [], 0
    for cut in [*cuts, k]:
        part = line[start:cut]
        if part.strip():
            out.append((start + len(part) - len(part.lstrip()), part.strip()))
        start = cut + 1
    return out


def quote_end(line: str, k: int) -> int:
    """Where the string (``"a#b"``, its escapes skipped) or the character
    constant (``'#``, ``'#'``, ``'\n'``, as GNU as reads one) that opens at
    ``line[k]`` ends: the index after it, the line's end at most."""
    if line[k] == '"':
        k += 1
        while k < len(line) and line[k] != '"':
            k += 2 if line[k] == "\\" else 1
        return min(k + 1, len(line))
    k += 3 if line[k + 1 : k + 2] == "\\" else 2  # past the quote and the character (or its escape)
    return min(k + 1 if line[k : k + 1] == "'" else k, len(line))  # a closing quote is the constant's


def _without_c_comments(text: str) -> list[str]:
    """The lines of ``text`` with each ``/* … */`` comment blanked, as GNU as
    reads it (outside strings, character constants and ``#`` comments;
    columns and line numbers kept); a line that held only a comment stays a
    comment line (``#``)."""
    if "/*" not in text:
        return text.splitlines()
    out, in_comment = [], False
    for line in text.splitlines():
        chars, k, commented = list(line), 0, in_comment
        while k < len(line):
            if in_comment:
                end = line.find("*/", k)
                stop = len(line) if end < 0 else end + 2
                chars[k:stop] = " " * (stop - k)
                in_comment, k = end < 0, stop
            elif line[k] in "\"'":
                k = quote_end(line, k)
            elif line[k] == "#":
                break
            elif line.startswith("/*", k):
                chars[k : k + 2] = "  "
                in_comment, commented, k = True, True, k + 2
            else:
                k += 1
        blanked = "".join(chars)
        out.append("#" + blanked[1:] if commented and line.strip() and not blanked.strip() else blanked)
    return out


def _directive(statement: str) -> str:
    return statement.split()[0].rstrip(",").lower()


def _symbol(text: str) -> str:
    """The symbol ``text`` spells: ``f``, or ``weird name`` for ``"weird name"`` (its escapes read)."""
    return re.sub(r"\\(.)", r"\1", text[1:-1]) if text.startswith('"') else text


def _names(text: str) -> set[str]:
    """The symbols an operand or a directive's arguments name (``.L3``,
    ``weird name`` for ``"weird name"@PLT``): not registers, numbers,
    character constants or relocations."""
    out = set()
    for m in _REFERENCE.finditer(text):
        if m[1] is not None:
            out.add(re.sub(r"\\(.)", r"\1", m[1]))
        elif m[2]:
            out.add(m[2])
    return out


def _split(text: str) -> list[str]:
    """``text`` cut at each comma outside parentheses, strings and character constants."""
    out, depth, start, k = [], 0, 0, 0
    while k < len(text):
        if text[k] in "\"'":
            k = quote_end(text, k)
            continue
        depth += {"(": 1, ")": -1}.get(text[k], 0)
        if text[k] == "," and depth == 0:
            out.append(text[start:k])
            start = k + 1
        k += 1
    return [*out, text[start:]]


def _places_nothing(name: str) -> bool:
    """Whether directive ``name`` places nothing where it stands (``.p2align``'s padding aside)."""
    return name in _INERT or name.startswith((".cfi_", ".seh_")) or name in (".data_region", ".end_data_region")


def _unlabelled(col: int, statement: str) -> tuple[int, str]:
    """(column, text) of ``statement`` after the labels it opens with (``f: .L2: movq …``)."""
    while (label := LABEL.match(statement)) is not None:
        rest = statement[label.end() :]
        col += label.end() + len(rest) - len(rest.lstrip())
        statement = rest.strip()
    return col, statement


def _targets(instruction: str) -> set[str]:
    """The names an instruction gives as a place a jump may land on: its
    target (``jmp .L3``, ``call f``) or an address it takes (``$.L5``,
    ``leaq .L5(%rip), %rax``); not the memory it reads or writes (a constant,
    ``movsd .LC0(%rip), %xmm0``; a jump table, ``jmp *.L4(,%rax,8)``)."""
    branched, taken = _references(instruction)
    return branched | taken


def _references(instruction: str) -> tuple[set[str], set[str]]:
    """(the names an instruction branches to, the names whose address it
    takes) (:func:`_targets`)."""
    words = instruction.split(None, 1)
    while len(words) > 1 and words[0].lower() in PREFIXES:
        words = words[1].split(None, 1)
    if len(words) < 2:
        return set(), set()
    lea, branch = re.fullmatch(r"lea[wlq]?", words[0].lower()) is not None, ends_block(instruction)
    if not (lea or branch or "$" in words[1]):  # only memory and registers (most instructions)
        return set(), set()
    branched, taken = set(), set()
    for operand in _split(words[1]):
        operand = operand.strip()
        if operand.startswith("$") or lea:
            taken |= _names(operand.removeprefix("$"))  # ``$.L5``: the immediate's '$' is no part of the name
        elif branch and not operand.startswith("*"):
            branched |= _names(operand)
    return branched, taken


@dataclass
class _Labels:
    """What a listing says of its labels, statement by statement
    (:func:`_landing_labels`)."""

    sections: _Sections = field(default_factory=_Sections)
    #: the labels defined; those defined in code; those declared data (``.type x, @object``)
    defined: set[str] = field(default_factory=set)
    in_code: set[str] = field(default_factory=set)
    objects: set[str] = field(default_factory=set)
    #: the names given as places a jump may land on: a branch's target, data's whole value or the first
    #: term of a difference (``.quad .L3``, ``.long .L3-.L2``), a symbol's value
    named: set[str] = field(default_factory=set)
    #: the names whose address an instruction takes (``leaq .L2(%rip)``, ``$.L2``); the names data subtracts
    #: (``.long .L3-.L2``: a table's base)
    taken: set[str] = field(default_factory=set)
    bases: set[str] = field(default_factory=set)
    #: the labels data follows (the next statement in their section that places bytes is data); those
    #: defined since the last statement that placed bytes
    before_data: set[str] = field(default_factory=set)
    awaiting: list[str] = field(default_factory=list)
    #: the values exception tables hold, in order: (A, B) for ``A-B``, else None; and their ``X = A-B``
    table: list[tuple[str, str] | None] = field(default_factory=list)
    table_symbols: dict[str, tuple[str, str]] = field(default_factory=dict)
    intel: bool = False

    def statement(self, statement: str) -> None:
        while (label := LABEL.match(statement)) is not None:
            name = _symbol(statement[: label.end() - 1])
            self.defined.add(name)
            self.awaiting.append(name)
            if self.sections.in_code:
                self.in_code.add(name)
            statement = statement[label.end() :].strip()
        if not statement:
            return
        assignment = not statement.startswith(".") and _ASSIGNMENT.match(statement)
        if not statement.startswith(".") and not assignment:
            self.awaiting = []
            if not self.intel:
                branched, taken = _references(statement)
                self.named, self.taken = self.named | branched, self.taken | taken
            return
        name = ".set" if assignment else _directive(statement)
        self.intel = name == ".intel_syntax" or (self.intel and name != ".att_syntax")
        if self.sections.switch(name, statement):
            self.awaiting = []  # (what follows them in their section is not known here: they stay jump targets)
            return
        if name in DATA_DIRECTIVES:
            self.before_data |= set(self.awaiting)
            self.awaiting = []
        if self.sections.in_debug:
            return
        text = statement.replace("=", ",", 1) if assignment else statement[len(name) :]
        if name in DATA_DIRECTIVES and name not in _TEXTS and not self.sections.in_except_table:
            for value in _split(text):  # a jump table's entry, a computed goto's target; a table's base
                m = _DIFFERENCE.fullmatch(value)
                self.named |= {_symbol(m[1])} if m else _names(value)
                self.bases |= {_symbol(m[2])} if m else set()
        elif name in DATA_DIRECTIVES and name not in _TEXTS:
            for value in _split(text):
                m = _DIFFERENCE.fullmatch(value)
                self.table.append((_symbol(m[1]), _symbol(m[2])) if m else self.table_symbols.get(value.strip()))
        elif name in (".set", ".equ", ".equiv", ".type") and len(args := _split(text)) == 2:
            symbol, value = _symbol(args[0].strip()), args[1]
            if name == ".type":
                self.objects |= {symbol} if _OBJECT.fullmatch(value.strip()) else set()
            elif self.sections.in_except_table and (m := _DIFFERENCE.fullmatch(value)):
                self.table_symbols[symbol] = (_symbol(m[1]), _symbol(m[2]))
            else:
                self.named |= _names(value)

    def landing_pads(self) -> set[str]:
        """The landing pads the exception tables' call-site records name
        (``.L5``, clang's ``.Ltmp2``), not their bounds. A record is four
        values: its start and its length, each the distance between two
        labels in code (``.LEHB0-.LFB0``, ``.LEHE0-.LEHB0``; clang's
        ``.Ltmp0-.Lfunc_begin0``, ``.Ltmp1-.Ltmp0``), its landing pad
        (``.L5-.LFB0``, or ``0``), its action."""
        pads, at = set(), 0
        for value in self.table:
            if at == 0 and not (value and all(v in self.in_code for v in value)):
                continue  # no record starts here (the table's header, its actions, its types)
            if at == 2 and value:
                pads.add(value[0])
            at = (at + 1) % 4
        return pads


def _landing_labels(lines: list[str]) -> set[str]:
    """The labels a jump may land on: named as a target or as an address
    taken by an instruction, or by data outside debugging information and
    outside the bounds of exception tables' call sites, or not
    assembler-local (``.L…``; on Mach-O ``L…`` and ``l…``) and not declared
    data, or numeric. A label data follows that data names only as the base
    of differences (``.long .L5-.LJTI0``), and instructions only as an
    address taken (``leaq .LJTI0(%rip)``), is a jump table's: no jump lands
    on data (a computed goto's target, ``&&a``, is followed by code, or is
    named whole: ``.quad .L3``)."""
    macho = any("__TEXT" in line or ".subsections_via_symbols" in line for line in lines)
    seen = _Labels()
    for line in lines:
        for _, statement in split_statements(line):
            seen.statement(statement)
    named = seen.named | seen.landing_pads()
    # a jump table's base in code (llc's COFF ``.LJTI3_0:`` after ``retq``, its address taken by ``leaq``, its
    # entries ``.long .LBB3_2-.LJTI3_0``): data follows it, and nothing names it but as an address or a base
    named |= (seen.taken | seen.bases) - ((seen.bases & seen.before_data) - named)
    local = (".L",) + (("L", "l") if macho else ())
    return {
        label
        for label in seen.defined
        if label in named or label.isdigit() or not (label.startswith(local) or label in seen.objects)
    }


def i386_evidence(lines: list[str]) -> tuple[int, int, str] | None:
    """(0-based line, column, what it is) of the first sign that a listing
    is i386 code (``gcc -m32``, ``clang -m32``), or None: an instruction
    64-bit mode has not (``pushl %ebp``, clang's ``calll`` and ``retl``),
    gcc's thunk for the PC, a CFA offset of 4 modulo 8 (four-byte stack
    slots), memory addressed through %esp or %ebp. None where a 64-bit
    register appears: x86-64 code (x32's addresses are 32-bit too). Lines
    after a ``.codeNN``, and those in another syntax, are no sign either
    way (``.code64`` says x86-64)."""
    first, width, intel = None, "", False
    for i, line in enumerate(lines):
        for col, statement in split_statements(line):
            col, statement = _unlabelled(col, statement)
            if statement.startswith("."):
                name = _directive(statement)
                width = _MODES.get(name, width)
                intel = name == ".intel_syntax" or (intel and name != ".att_syntax")
                cfa = _CFA_OFFSET.fullmatch(statement)
                if first is None and not width and not intel and cfa and int(cfa[1]) % 8 == 4:
                    first = (i, col, f"{' '.join(statement.split())!r} counts four-byte stack slots")
                continue
            if width or intel or not statement:
                continue
            if _WIDE.search(statement):
                return None
            shown = repr(" ".join(statement.split()))
            if first is None and (_mnemonic(statement) in _I386_MNEMONICS or _I386_OPERANDS.search(statement)):
                first = (i, col, f"{shown} is i386 code")
            elif first is None and _I386_STACK.search(statement):
                first = (i, col, f"{shown} addresses the stack through a 32-bit register")
    return first


@dataclass
class _Reader:
    """The blocks of a listing, read line by line."""

    lines: list[str]
    landing: set[str]
    blocks: list[Block] = field(default_factory=list)
    #: the open block: (0-based line, text) per line; whether it holds code yet; why it is refused
    open: list[tuple[int, str]] = field(default_factory=list)
    code: bool = False
    error: ParseError | None = None
    #: comment lines right above the next instruction: (0-based line, text)
    comments: list[tuple[int, str]] = field(default_factory=list)
    #: whether the processor may run the next line: after an instruction that falls through, and
    #: after a label a jump may land on in a code section
    flows: bool = False
    sections: _Sections = field(default_factory=_Sections)
    #: what ran last in each section left (its ``flows``)
    left: dict[tuple[str, str], bool] = field(default_factory=dict)
    #: inside a Mach-O ``.data_region`` (a jump table in code: data nothing runs through)
    data_region: bool = False
    #: inside a region of another syntax or width (one refused block, up to ``.att_syntax`` and ``.code64``);
    #: the syntax and the width the directives so far give
    region: bool = False
    intel: bool = False
    width: str = "64"
    #: the labels since the last block, before any code: the next block's; those of the sections left
    labels: list[str] = field(default_factory=list)
    block_labels: tuple[str, ...] = ()
    pending: dict[tuple[str, str], list[str]] = field(default_factory=dict)

    def read(self) -> list[Block]:
        for i, raw in enumerate(self.lines):
            self._line(i, raw)
        self._close()
        return self.blocks

    def _line(self, i: int, raw: str) -> None:
        statements = split_statements(raw)
        if self.region:  # another syntax or width: every line joins the refused region, up to its end
            self._add(i, raw)
            self._follow(statements)
            return
        if not statements:
            if not raw.strip():  # a blank line ends a block, as between paragraphs
                self._close()
                self.comments = []
            elif self.open:
                self._add(i, raw)
            elif self.comments and self.comments[-1][0] != i - 1:  # comments right above the code only
                self.comments = [(i, raw)]
            else:
                self.comments.append((i, raw))
            return
        text = raw
        kept = False  # whether the line keeps a statement (an instruction, or what refuses the block)
        for k, (col, statement) in enumerate(statements):
            col, statement, text = self._labels(i, col, statement, text, k > 0 or kept)
            if not statement:
                continue
            if statement.startswith(".") or _ASSIGNMENT.match(statement):
                name = ".set" if _ASSIGNMENT.match(statement) else _directive(statement)
                if name == ".intel_syntax" or name in _MODES and name != ".code64":
                    self._enter(i, col, name, [(col, statement), *statements[k + 1 :]])
                    return
                if not self._directive(i, name, statement):
                    text = text[:col] + " " * len(statement) + text[col + len(statement) :]
                else:
                    kept = True
                continue
            kept = True
            self.code = True
            if not self.open:
                self._open()
            self.flows = falls_through(statement)
            if ends_block(statement):
                later = statements[k + 1 :]
                if later:
                    why = "a statement after a control transfer on its line: start a line with it"
                    self._refuse(i, later[0][0], why)
                self._keep(i, text)
                self._close()
                return
        if kept:
            self._keep(i, text)
        elif self.open:
            self._add(i, "# " + raw.strip())

    def _labels(self, i: int, col: int, statement: str, text: str, after: bool) -> tuple[int, str, str]:
        """Follow the labels ``statement`` opens with (``f: .L2: movq …``),
        blanked in the line's ``text``: one a jump may land on ends the open
        block, or refuses it ``after`` a statement on its line. (column,
        statement, text) after them."""
        while (label := LABEL.match(statement)) is not None:
            name = _symbol(statement[: label.end() - 1])
            lands = name in self.landing
            if lands and not after:
                self._close()
            if not self.open:
                self.labels.append(name)
            if lands and after:
                self._refuse(i, col, "a label a jump lands on after ';': start a line with it")
            elif lands:
                self.flows = self.flows or self.sections.in_code
            text = text[:col] + " " * label.end() + text[col + label.end() :]
            rest = statement[label.end() :]
            col += label.end() + len(rest) - len(rest.lstrip())
            statement = rest.strip()
        return col, statement, text

    def _enter(self, i: int, col: int, name: str, statements: list[tuple[int, str]]) -> None:
        """Open a region of another syntax (``.intel_syntax``) or width
        (``.code32``) at line ``i``: one block, refused at that directive,
        the comments right above it its own; kept where it places bytes."""
        self._close()
        self.open, self.comments, self.block_labels = list(self.comments), [], ()
        self._add(i, self.lines[i])
        self.region = True
        if name == ".intel_syntax":
            why = "Intel syntax up to .att_syntax: invar reads AT&T (gcc -S without -masm=intel)"
        else:
            why = f"{_MODES[name]}-bit code ({name}) up to .code64: invar reads x86-64"
        self.error = ParseError(why, line=i + 1, col=col + 1, source_line=self.lines[i])
        self._follow(statements)

    def _follow(self, statements: list[tuple[int, str]]) -> None:
        """Follow a region's line: its syntax and width directives (the region
        ends where both are back), its section switches, its labels (the
        region's where it places bytes after them, else the next block's)."""
        for _, statement in statements:
            while (label := LABEL.match(statement)) is not None:
                self.labels.append(_symbol(statement[: label.end() - 1]))
                statement = statement[label.end() :].strip()
            if not statement:
                continue
            places = not (statement.startswith(".") or _ASSIGNMENT.match(statement))
            if places:
                self.flows = falls_through(statement)
            else:
                name = ".set" if _ASSIGNMENT.match(statement) else _directive(statement)
                self.width = _MODES.get(name, self.width)
                self.intel = name == ".intel_syntax" or (self.intel and name != ".att_syntax")
                switches = name in _SECTIONS or name in _MACHO_DATA
                if switches:
                    self._switch(name, statement)
                places = not (switches or _places_nothing(name) or name in _MODES or name == ".intel_syntax")
            if places:  # the labels before it name the region
                self.code, self.block_labels, self.labels = True, self.block_labels + tuple(self.labels), []
        if not self.intel and self.width == "64":
            self._close()

    def _directive(self, i: int, name: str, statement: str) -> bool:
        """Follow a directive; whether its line is kept in the block (it refuses it)."""
        if name in _SECTIONS or name in _MACHO_DATA:  # the lines after it go elsewhere
            self._close()
            self.comments = []  # the comments above it are not the next block's
            self._switch(name, statement)
            return False
        if name in (".data_region", ".end_data_region"):
            self.data_region = name == ".data_region"
            return False
        if _places_nothing(name):
            return False
        if name in DATA_DIRECTIVES and not (self.sections.in_code and self.flows and not self.data_region):
            self._close()  # a jump table, a string: nothing runs into it
            self.comments, self.labels = [], []  # nor are its labels and comments the next block's
            return False
        self.code = True  # it would change what runs here: kept, where the block is refused
        if not self.open:
            self._open()
        return True

    def _switch(self, name: str, statement: str) -> None:
        """Switch sections: what ran last in the one left, and its labels
        not yet followed by anything, wait for it (GNU as places the next
        bytes there at their address); the one entered's come back."""
        here = self.sections.section
        self.left[here] = self.flows
        if self.labels:
            self.pending[here] = self.labels
        self.sections.switch(name, statement)
        self.flows = self.left.get(self.sections.section, False)
        self.labels = self.pending.pop(self.sections.section, [])
        self.data_region = False

    def _refuse(self, i: int, col: int, why: str) -> None:
        if self.error is None:
            self.error = ParseError(why, line=i + 1, col=col + 1, source_line=self.lines[i])
        self.code = True
        if not self.open:
            self._open()

    def _keep(self, i: int, text: str) -> None:
        if not self.open:
            self._open()
        self._add(i, text)

    def _open(self) -> None:
        """Open a block: the comments right above it and the labels before it are its own."""
        self.open, self.comments = list(self.comments), []
        if self.labels:  # (opened again before its first line is added: the labels stay the block's)
            self.block_labels, self.labels = tuple(self.labels), []

    def _add(self, i: int, text: str) -> None:
        """Add line ``i`` to the open block, the lines left out since its last as comments (their numbers kept)."""
        if self.open:
            last = self.open[-1][0]
            self.open.extend((j, "#") for j in range(last + 1, i))
        self.open.append((i, text))

    def _close(self) -> None:
        """End the open block: kept when it holds code, its trailing comments trimmed."""
        end = len(self.open)
        while end and self.open[end - 1][1].lstrip().startswith("#"):
            end -= 1
        if self.code and end:
            lines = self.open[:end]
            self.blocks.append(Block(lines[0][0] + 1, "\n".join(t for _, t in lines), self.error, self.block_labels))
        if self.open:
            self.block_labels = ()
        self.open, self.code, self.error, self.region = [], False, None, False


def read_listing(text: str) -> list[Block]:
    """The basic blocks of a compiler's listing ``text``; a listing of i386
    code (:func:`i386_evidence`) raises a :class:`ParseError` at the line
    that shows it."""
    lines = _without_c_comments(text)
    if (evidence := i386_evidence(lines)) is not None:
        i, col, what = evidence
        raise ParseError(
            f"a 32-bit listing (i386, -m32): {what}; invar reads x86-64 (compile without -m32; .code64 marks x86-64)",
            line=i + 1,
            col=col + 1,
            source_line=text.splitlines()[i],
        )
    return _Reader(lines, _landing_labels(lines)).read()


def listing_blocks(lines: list[str]) -> list[tuple[int, str]]:
    """(first line, text) of each basic block of a compiler's listing; a
    block's text keeps its lines' numbers (what is left out inside it is a
    comment line)."""
    return [(b.first, b.text) for b in read_listing("\n".join(lines))]
