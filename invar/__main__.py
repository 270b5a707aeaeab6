"""``python -m invar``: the command line (what ``torchrun … -m invar train`` runs)."""

from .cli.app import main

main()
