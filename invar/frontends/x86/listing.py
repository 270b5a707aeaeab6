"""A compiler's assembly output (``gcc -S``, ``clang -S``) read as basic blocks.

A file that holds a label or an assembler directive is such a listing, not
a paragraph of one block (docs/formats.md). Its basic blocks are what the
processor runs straight through:

- a label a jump may land on starts one: a label some instruction or some
  data outside debugging information names (a branch target, a jump
  table's entry, a landing pad), a label that is no assembler-local one
  (``f``: a function, called from elsewhere), a numeric label (``1:``).
  The labels only debugging information names (gcc's ``.LVL``, ``.LBB``,
  ``.LFB`` with ``-g``, clang's ``.Ltmp``) and gcc's bounds of a call site
  in an exception table (``.LEHB``, ``.LEHE``) start nothing: ``-g`` leaves
  the blocks as they are;
- a control transfer ends one, the last line of its block (``jmp``, a
  conditional jump, ``call``, ``ret``, ``syscall``, ``int``, ``loop``,
  ``ud2``, ``hlt``, ``xbegin``), as BHive's blocks end;
- a blank line ends one, as between the paragraphs of a file of blocks, and
  the comment lines above a block's first instruction belong to it, across
  its labels and directives but not across a section switch or data (the
  ``# label:`` comments of an audit's dataset).

Directives are read for what they do to the instruction stream:

- those that place nothing the processor runs where they stand (``.cfi_*``,
  ``.loc``, ``.p2align``, ``.globl``, ``.type``, ``.size``, ``SYM = 1`` …)
  are left out: inside a block their lines stay in its text as comments, so
  that its lines keep their numbers;
- a section switch ends the block (ELF's ``.section NAME,"ax"`` and Mach-O's
  ``.section __TEXT,__text`` hold code); data (``.byte``, ``.long``,
  ``.asciz`` …) in a data section, in a Mach-O ``.data_region``, or where
  nothing runs into it (after ``jmp`` or ``ret``, before a label a jump may
  land on), is left out;
- what would change the instructions read stays in its block's text, where
  the block is refused at that line: data the processor would run through
  (after an instruction that falls through, or after a label a jump may
  land on in a code section), macros, repetitions, conditional assembly,
  ``.code32``, any other directive inside a block;
- a ``.intel_syntax`` region, up to ``.att_syntax`` or the end of the file,
  is one block, refused at its first line (invar reads AT&T).

``;`` separates statements as a line break does, but a block starts and
ends with a line: a label a jump may land on after a ``;``, or a statement
after a control transfer on its line, refuses the block, at that statement.
``/* … */`` comments are blanks, as GNU as reads them; a ``;``, ``#`` or
``/*`` inside a string is the string's.

Part of the frontends layer: imports errors and the x86 frontend's own
modules only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...errors import ParseError
from .prefixes import PREFIXES

#: ``name:`` at the start of a statement (``f:``, ``.L3:``, ``1:``): a label, possibly followed by an instruction
LABEL = re.compile(r"[\w.$@]+:(?!:)")
#: ``SYM = 16``: a symbol given a value, as ``.set`` gives one
_ASSIGNMENT = re.compile(r"[A-Za-z_.$][\w.$@]*\s*=(?!=)")
#: gcc's bounds of a call site in an exception table (``.LEHB0``, ``.LEHE0``): no jump lands there
_CALL_SITE = re.compile(r"\.LEH[BE]\d+")
#: a name a statement may refer to a label by
_NAME = re.compile(r"[A-Za-z_.$][\w.$@]*")

#: directives that place nothing the processor runs where they stand: skipped (or a comment inside a block)
_INERT = frozenset(
    """.file .loc .loc_view .ident .globl .global .local .weak .weakref .hidden .protected .internal .type .size
    .p2align .align .balign .p2alignw .p2alignl .balignw .balignl .comm .lcomm .att_syntax .set .equ .equiv
    .extern .addrsig .addrsig_sym .symver .def .endef .scl .linkonce .note .list .nolist .eject .title .sbttl
    .psize .stabs .stabn .stabd .version .end .build_version .macosx_version_min .subsections_via_symbols
    .private_extern .alt_entry .weak_definition .weak_reference .no_dead_strip .indirect_symbol .loh
    .linker_option .lazy_reference .reference .desc .tbss .zerofill .section_start""".split()
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


def is_listing(lines: list[str]) -> bool:
    """Whether ``lines`` are a compiler's listing: a statement opens with
    a label or is a directive."""
    for raw in lines:
        for _, code in _statements(raw):
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


def _statements(line: str) -> list[tuple[int, str]]:
    """(0-based column, text) of each ``;``-separated statement of a line's
    code (its ``#`` comment cut), blank ones left out; a ``;`` or ``#``
    inside a string (``.string "a;b#c"``) is the string's."""
    if '"' not in line:  # no string: the cuts are every ';' before the comment (most lines)
        code = line.split("#", 1)[0]
        cuts, k = [i for i, c in enumerate(code) if c == ";"], len(code)
    else:
        cuts, k = [], 0  # where a statement ends: each ';' outside strings, then the '#' or the line's end
        while k < len(line) and line[k] != "#":
            if line[k] == '"':
                k = _string_end(line, k)
            elif line[k] == ";":
                cuts.append(k)
            k += 1
    out, start = [], 0
    for cut in [*cuts, k]:
        part = line[start:cut]
        if part.strip():
            out.append((start + len(part) - len(part.lstrip()), part.strip()))
        start = cut + 1
    return out


def _string_end(line: str, k: int) -> int:
    """Where the string opening at ``line[k]`` closes (its escapes skipped), or the line's end."""
    k += 1
    while k < len(line) and line[k] != '"':
        k += 2 if line[k] == "\\" else 1
    return min(k, len(line))


def _without_c_comments(text: str) -> list[str]:
    """The lines of ``text`` with each ``/* … */`` comment blanked, as GNU as
    reads it (outside strings and ``#`` comments; columns and line numbers
    kept); a line that held only a comment stays a comment line (``#``)."""
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
            elif line[k] == '"':
                k = _string_end(line, k) + 1
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


def _landing_labels(lines: list[str]) -> set[str]:
    """The labels a jump may land on: named by an instruction or by data
    outside debugging information, or not assembler-local (``.L…``; on
    Mach-O ``L…`` and ``l…``), or numeric."""
    macho = any("__TEXT" in line or ".subsections_via_symbols" in line for line in lines)
    defined, named = set(), set()
    sections = _Sections()
    intel = False
    for line in lines:
        for _, statement in _statements(line):
            while (label := LABEL.match(statement)) is not None:
                defined.add(statement[: label.end() - 1])
                statement = statement[label.end() :].strip()
            if not statement:
                continue
            if statement.startswith("."):
                name = _directive(statement)
                intel = name == ".intel_syntax" or (intel and name != ".att_syntax")
                if sections.switch(name, statement) or sections.in_debug or name not in DATA_DIRECTIVES:
                    if name not in (".set", ".equ", ".equiv"):
                        continue
                named.update(_NAME.findall(statement[len(name) :]))
            elif not intel:
                named.update(_NAME.findall(statement))
    local = (".L",) + (("L", "l") if macho else ())
    named -= {name for name in named if _CALL_SITE.fullmatch(name)}
    return {label for label in defined if label in named or label.isdigit() or not label.startswith(local)}


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
    #: the first line of an open ``.intel_syntax`` region
    intel: int | None = None
    #: the labels since the last block, before any code: the next block's
    labels: list[str] = field(default_factory=list)
    block_labels: tuple[str, ...] = ()

    def read(self) -> list[Block]:
        for i, raw in enumerate(self.lines):
            self._line(i, raw)
        self._close()
        return self.blocks

    def _line(self, i: int, raw: str) -> None:
        if self.intel is not None:  # another syntax: every line joins the refused region, up to .att_syntax
            self._add(i, raw)
            if any(_directive(s) == ".att_syntax" for _, s in _statements(raw) if s.startswith(".")):
                self._close()
            return
        statements = _statements(raw)
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
            while (label := LABEL.match(statement)) is not None:  # ``f: .L2: movq …``: the labels blanked
                if statement[: label.end() - 1] in self.landing and not (k > 0 or kept):
                    self._close()
                if not self.open:
                    self.labels.append(statement[: label.end() - 1])
                if statement[: label.end() - 1] in self.landing:
                    if k > 0 or kept:
                        self._refuse(i, col, "a label a jump lands on after ';': start a line with it")
                    else:
                        self.flows = self.flows or self.sections.in_code
                text = text[:col] + " " * label.end() + text[col + label.end() :]
                col += label.end() + len(statement[label.end() :]) - len(statement[label.end() :].lstrip())
                statement = statement[label.end() :].strip()
            if not statement:
                continue
            if statement.startswith(".") or _ASSIGNMENT.match(statement):
                name = ".set" if _ASSIGNMENT.match(statement) else _directive(statement)
                if name == ".intel_syntax":
                    self._close()
                    self.open, self.code, self.intel = [(i, raw)], True, i
                    self.error = ParseError(
                        "Intel syntax up to .att_syntax: invar reads AT&T (gcc -S without -masm=intel)",
                        line=i + 1,
                        col=col + 1,
                        source_line=raw,
                    )
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

    def _directive(self, i: int, name: str, statement: str) -> bool:
        """Follow a directive; whether its line is kept in the block (it refuses it)."""
        if name in _SECTIONS or name in _MACHO_DATA:  # the lines after it go elsewhere
            self._close()
            self.comments, self.labels = [], []  # what stood above it is not the next block's
            self.left[self.sections.section] = self.flows
            self.sections.switch(name, statement)
            self.flows = self.left.get(self.sections.section, False)
            self.data_region = False
            return False
        if name in (".data_region", ".end_data_region"):
            self.data_region = name == ".data_region"
            return False
        if name in _INERT or name.startswith((".cfi_", ".seh_")):
            return False
        if name in DATA_DIRECTIVES and not (self.sections.in_code and self.flows and not self.data_region):
            self._close()  # a jump table, a string: nothing runs into it
            self.comments, self.labels = [], []  # nor are its labels and comments the next block's
            return False
        self.code = True  # it would change what runs here: kept, where the block is refused
        if not self.open:
            self._open()
        return True

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
        self.open, self.code, self.error, self.intel = [], False, None, None


def read_listing(text: str) -> list[Block]:
    """The basic blocks of a compiler's listing ``text``."""
    lines = _without_c_comments(text)
    return _Reader(lines, _landing_labels(lines)).read()


def listing_blocks(lines: list[str]) -> list[tuple[int, str]]:
    """(first line, text) of each basic block of a compiler's listing; a
    block's text keeps its lines' numbers (what is left out inside it is a
    comment line)."""
    return [(b.first, b.text) for b in read_listing("\n".join(lines))]
