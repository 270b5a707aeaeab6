"""Imports every command module so that each registers itself on the app."""

from . import parse_cmd, canon, renamings, permutations, dlg, ltl, data, train, audit  # noqa: F401
