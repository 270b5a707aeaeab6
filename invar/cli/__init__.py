"""The command-line interface: thin wrappers over the library.

``app`` lists every command and is the only module that imports them; the
commands import what they share from ``options`` and ``console``. The CLI
stands on top of the library and may import any part of it; nothing in the
library imports the CLI.
"""
