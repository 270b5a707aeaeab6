"""Imports every command module so that each registers itself on the app."""

from . import parse_cmd, canon, renamings, permutations, dlg, ltl, data, train, predict, audit  # noqa: F401
