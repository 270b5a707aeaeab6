"""Symmetry spaces (renamings, permutations) and masks."""
