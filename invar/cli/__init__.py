"""The command-line interface: thin wrappers over the library."""
