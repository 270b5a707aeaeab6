"""x86-64 basic blocks: AT&T text and BHive hex.

``parse(text) -> Program`` reads AT&T text; ``decode(hex) -> Program`` reads
BHive hex through capstone; both build the same IR (see
tests/frontends/test_x86_capstone.py). ``renaming_space(program)`` gives the
exact space of semantics-preserving register renamings; its targets are the
register file itself, so ``canonical_space`` is the same space and
``canonical(program)`` the block's canonical form.

The face (shaped like every frontend's, :mod:`invar.frontends`): ``LANG``,
``parse_units``, ``parse``, ``renaming_space``, ``canonical_space``, and the
hooks of the x86 and hex records: ``spell`` (a register's name for a view),
``read_block`` (one paragraph of a file), ``decode`` and ``read_hex_block``
(BHive hex).

**Modules.** ``parse`` (AT&T text: blocks, instructions, operands, tokens),
``hexblock`` (BHive hex through capstone), ``registers`` (the register file
and its spellings), ``operands``, ``expressions``, ``prefixes``, ``forms``,
``validate`` (what invar accepts), ``semantics`` and ``deps`` (what an
instruction reads and writes; the dependencies), ``general_purpose``,
``vector`` and ``register_rules`` (which registers a renaming may use),
``rename`` (the renaming rules).

Part of the frontends layer: imports the ground floor, ``symmetry`` and the
frontends' shared modules only; never encoding or anything above it.
"""

from ..registry import X86
from .hexblock import decode
from .hexblock import read_block as read_hex_block
from .parse import parse, parse_units, read_block
from .registers import spell
from .rename import canonical, canonical_space, renaming_space

LANG = X86.name

__all__ = [
    "LANG",
    "parse_units",
    "parse",
    "renaming_space",
    "canonical_space",
    "canonical",
    "spell",
    "read_block",
    "decode",
    "read_hex_block",
]
