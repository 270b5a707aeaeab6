"""x86-64 basic blocks: AT&T text and BHive hex.

``parse(text) -> Program`` reads AT&T text; ``decode(hex) -> Program`` reads
BHive hex through capstone; both build the same IR (see
tests/frontends/test_x86_capstone.py). ``renaming_space(program)`` gives the
exact space of semantics-preserving register renamings.

Part of the frontends layer: imports the ground floor, ``symmetry`` and the
frontends' shared modules only; never encoding or anything above it.
"""

from .parse import parse, parse_units
from .rename import renaming_space, canonical

__all__ = ["parse", "parse_units", "renaming_space", "canonical"]
