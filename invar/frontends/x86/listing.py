"""A compiler's assembly output (``gcc -S``, ``clang -S``) read as basic blocks.

A file that holds a label or an assembler directive is such a listing, not
a paragraph of one block (docs/formats.md). Its basic blocks are what the
processor runs straight through: a label starts one (a jump may land there)
and a control transfer ends one, the last line of its block (``jmp``, a
conditional jump, ``call``, ``ret``, ``syscall``, ``loop``, ``ud2``,
``hlt``), as BHive's blocks end.

Directives are read for what they do to the instruction stream:

- those that emit nothing the processor runs there (``.cfi_*``, ``.loc``,
  ``.p2align``, ``.globl``, ``.type``, ``.size``, sections …) are left out:
  inside a block they stay in its text as comments, so that a block's lines
  keep their numbers;
- a section switch ends the block, and data (``.byte``, ``.long``,
  ``.string`` …) in a data section, or where nothing runs into it (after
  ``jmp`` or ``ret``, before any label), is left out;
- what would change the instructions read (data the processor would run
  through: after an instruction that falls through, or after a label in a
  code section, where a jump may land, as a jump table in ``.text`` does
  after its label; macros, repetitions, conditional assembly, ``.code32``, another
  directive inside a block) stays in the block's text, where the block is
  refused at that line, as any line that is not an instruction is;
- ``.intel_syntax`` ends the reading: the rest of the file is one block,
  refused at that line (invar reads AT&T).

Part of the frontends layer: imports errors and the x86 frontend's own
modules only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .prefixes import PREFIXES

#: ``name:`` at the start of a line (``f:``, ``.L3:``, ``1:``): a label, possibly followed by an instruction
LABEL = re.compile(r"[\w.$@]+:(?!:)")

#: directives that emit nothing the processor runs where they stand: skipped (or a comment inside a block)
_INERT = frozenset(
    """.file .loc .loc_view .ident .globl .global .local .weak .weakref .hidden .protected .internal .type .size
    .p2align .align .balign .p2alignw .p2alignl .comm .lcomm .att_syntax .set .equ .equiv .addrsig
    .addrsig_sym .symver .def .endef .scl .seh_proc .seh_endproc .seh_pushreg .seh_setframe .seh_stackalloc
    .seh_savereg .seh_savexmm .seh_endprologue .seh_handler .seh_handlerdata .linkonce .note .build_version
    .macosx_version_min .subsections_via_symbols .end""".split()
)
#: directives that place bytes where they stand: data, left out where nothing runs into them
DATA_DIRECTIVES = frozenset(
    """.byte .2byte .4byte .8byte .short .word .hword .value .int .long .quad .octa .single .float .double
    .ascii .asciz .string .string8 .string16 .zero .skip .space .fill .uleb128 .sleb128 .incbin .dc .ds
    .reloc""".split()
)
#: directives that switch sections (the block ends there)
_SECTIONS = frozenset(".text .data .bss .section .pushsection .popsection .previous .subsection".split())
#: a section whose name says it holds code
_CODE_SECTION = re.compile(r"\.text\b|\.init\b|\.fini\b|\.plt\b")

#: instructions that end a block: control goes elsewhere (a call too, as in BHive's blocks)
_ENDS = frozenset(
    """jmp jmpq jmpl jmpw ljmp ljmpq ljmpl ljmpw ret retq retl retw lret lretq lretl lretw iret iretq iretd iretw
    call callq calll callw lcall lcallq lcalll syscall sysenter sysret sysretq sysretl sysexit sysexitq
    ud0 ud1 ud2 hlt loop loope loopne loopz loopnz jrcxz jecxz jcxz""".split()
)


#: of those, the ones after which the processor never runs the next line
_NO_FALL = frozenset(
    """jmp jmpq jmpl jmpw ljmp ljmpq ljmpl ljmpw ret retq retl retw lret lretq lretl lretw iret iretq iretd iretw
    sysret sysretq sysretl sysexit sysexitq ud0 ud1 ud2 hlt""".split()
)


def is_listing(lines: list[str]) -> bool:
    """Whether ``lines`` are a compiler's listing: a line of code opens with
    a label or is a directive."""
    for raw in lines:
        code = raw.split("#", 1)[0].strip()
        if code and (code.startswith(".") or LABEL.match(code)):
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


@dataclass
class _Reader:
    """The blocks of a listing, read line by line."""

    lines: list[str]
    blocks: list[tuple[int, str]] = field(default_factory=list)
    #: the open block: (0-based line, text) per line, and whether it holds code yet
    open: list[tuple[int, str]] = field(default_factory=list)
    code: bool = False
    #: whether the processor may run the next line: after an instruction that falls through, and
    #: after a label in a code section (a jump may land there)
    flows: bool = False
    #: the current section (name, subsection), the one ``.previous`` returns to, those
    #: ``.popsection`` returns to, and what ran last in each section left (its ``flows``)
    section: tuple[str, str] = (".text", "0")
    previous: tuple[str, str] = (".text", "0")
    stack: list[tuple[str, str]] = field(default_factory=list)
    left: dict[tuple[str, str], bool] = field(default_factory=dict)
    #: sections that hold code: named so, or flagged executable (``"ax"``) when declared
    code_sections: set[str] = field(default_factory=lambda: {".text"})

    @property
    def in_code(self) -> bool:
        return self.section[0] in self.code_sections or bool(_CODE_SECTION.match(self.section[0]))

    def read(self) -> list[tuple[int, str]]:
        for i, raw in enumerate(self.lines):
            if not self._line(i, raw):
                break
        self._close()
        return self.blocks

    def _line(self, i: int, raw: str) -> bool:
        """Read line ``i``; False when the reading stops there."""
        code = raw.split("#", 1)[0]
        text = raw
        stripped = code.strip()
        while (label := LABEL.match(stripped)) is not None:  # ``f: .L2: movq …``: the labels blanked out
            self._close()
            self.flows = self.flows or self.in_code  # a jump may land here: data after it would be run
            start = code.index(stripped)
            text = text[:start] + " " * label.end() + text[start + label.end() :]
            code = code[:start] + " " * label.end() + code[start + label.end() :]
            stripped = code.strip()
        if not stripped:
            if self.open:
                self.open.append((i, "#" if not raw.strip() else text))
            return True
        if stripped.startswith("."):
            return self._directive(i, text, stripped.split()[0].rstrip(",").lower(), stripped)
        self._keep(i, text)
        self.code = True
        last = stripped.split(";")[-1]
        self.flows = falls_through(last)
        if ends_block(last):
            self._close()
        return True

    def _directive(self, i: int, text: str, name: str, stripped: str) -> bool:
        if name == ".intel_syntax":  # the rest is another syntax: one block, refused at this line
            self._close()
            self.open = [(i, text), *((k, line) for k, line in enumerate(self.lines[i + 1 :], start=i + 1))]
            self.code = True
            return False
        if name in _SECTIONS:  # the lines after it go elsewhere: the block ends, and what ran there resumes
            self._close()
            self.left[self.section] = self.flows
            self._section(name, stripped)
            self.flows = self.left.get(self.section, False)
        elif name in _INERT or name.startswith((".cfi_", ".seh_")):
            if self.open:
                self.open.append((i, "# " + text.strip()))
        elif name in DATA_DIRECTIVES and not (self.in_code and self.flows):
            self._close()  # a jump table, a string: nothing runs into it
        else:  # it would change what runs here: kept, where the block is refused
            self._keep(i, text)
            self.code = True
        return True

    def _section(self, name: str, stripped: str) -> None:
        here = self.section
        args = [a.strip().strip('"') for a in stripped[len(name) :].split(",")]
        if name in (".text", ".data", ".bss"):
            self.section = (name, args[0] or "0")
        elif name in (".section", ".pushsection"):
            if name == ".pushsection":
                self.stack.append(here)
            if len(args) > 1 and "x" in args[1]:
                self.code_sections.add(args[0])
            self.section = (args[0], "0")
        elif name == ".subsection":
            self.section = (here[0], args[0] or "0")
        elif name == ".popsection":
            self.section = self.stack.pop() if self.stack else here
        elif name == ".previous":
            self.section = self.previous
        self.previous = here

    def _keep(self, i: int, text: str) -> None:
        if not self.open:
            self.open = []
        self.open.append((i, text))

    def _close(self) -> None:
        """End the open block: kept when it holds code, its trailing comments trimmed."""
        lines = self.open
        while lines and lines[-1][1].lstrip().startswith("#"):
            lines = lines[:-1]
        if self.code and lines:
            self.blocks.append((lines[0][0] + 1, "\n".join(text for _, text in lines)))
        self.open, self.code = [], False


def listing_blocks(lines: list[str]) -> list[tuple[int, str]]:
    """(first line, text) of each basic block of a compiler's listing; a
    block's text keeps its lines' numbers (what is left out inside it is a
    comment line)."""
    return _Reader(lines).read()
