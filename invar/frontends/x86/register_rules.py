"""Instruction forms whose llvm-mca timing depends on which register an
operand names (generated: do not edit).

Measured by the register sweep (tests/oracles/x86_register_sweep.py) over
every instruction form of BHive; regenerate with

    python bench/bench_register_sweep.py --json sweep.json --rules invar/frontends/x86/register_rules.py

1225 forms swept on haswell, ivybridge, skylake, skylake-avx512; haswell: 29 register-dependent; ivybridge: 25 register-dependent; skylake: 29 register-dependent; skylake-avx512: 29 register-dependent.

``RULES[(mnemonic, operand kinds)]`` maps a group of slots, each
``(operand index, role)`` with role ``reg``, ``base`` or ``index``, tied to
one register (one slot, or two naming the same register), to the registers
(referents) that llvm-mca times differently there and the CPU models where
it does. :mod:`invar.frontends.x86.rename` keeps such a register in such a
slot and lets no other register of the slot become it.
"""

from __future__ import annotations

RULES: dict[tuple[str, tuple[str, ...]], dict[tuple[tuple[int, str], ...], tuple[frozenset[str], tuple[str, ...]]]] = {
    ('adcl', ('imm', 'gpr:32')): {
        ((1, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'skylake', 'skylake-avx512')),
    },
    ('adcq', ('imm', 'gpr:64')): {
        ((1, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'skylake', 'skylake-avx512')),
    },
    ('cmpxchgl', ('gpr:32', 'mem:b')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'base')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('cmpxchgq', ('gpr:64', 'mem:b')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'base')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('divl', ('gpr:32',)): {
        ((0, 'reg'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('divl', ('mem:b',)): {
        ((0, 'base'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('divq', ('gpr:64',)): {
        ((0, 'reg'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('divq', ('mem:b',)): {
        ((0, 'base'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('idivl', ('gpr:32',)): {
        ((0, 'reg'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('idivl', ('mem:b',)): {
        ((0, 'base'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('idivq', ('gpr:64',)): {
        ((0, 'reg'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('idivq', ('mem:b',)): {
        ((0, 'base'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('idivq', ('mem:bi',)): {
        ((0, 'base'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'base'), (0, 'index')): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'index'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('imull', ('gpr:32',)): {
        ((0, 'reg'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('imulq', ('gpr:64',)): {
        ((0, 'reg'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('lock cmpxchgb', ('gpr:8', 'mem:b')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'base')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('lock cmpxchgb', ('gpr:8', 'mem:bi')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'base')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'index')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'), (1, 'index')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'index'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('lock cmpxchgl', ('gpr:32', 'mem:b')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'base')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('lock cmpxchgl', ('gpr:32', 'mem:fs:abs')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('lock cmpxchgq', ('gpr:64', 'mem:b')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'base')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('lock cmpxchgq', ('gpr:64', 'mem:bi')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'base')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'index')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'), (1, 'index')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'index'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('mull', ('gpr:32',)): {
        ((0, 'reg'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('mulq', ('gpr:64',)): {
        ((0, 'reg'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('popq', ('gpr:64',)): {
        ((0, 'reg'),): (frozenset(['gpr:sp']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('pushq', ('gpr:64',)): {
        ((0, 'reg'),): (frozenset(['gpr:sp']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('pushq', ('mem:b',)): {
        ((0, 'base'),): (frozenset(['gpr:sp']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('sbbl', ('imm', 'gpr:32')): {
        ((1, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'skylake', 'skylake-avx512')),
    },
    ('sbbq', ('imm', 'gpr:64')): {
        ((1, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'skylake', 'skylake-avx512')),
    },
    ('xchgq', ('gpr:64', 'gpr:64')): {
        ((0, 'reg'), (1, 'reg')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
}
