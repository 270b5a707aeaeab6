"""invar's version (also in pyproject.toml), written into every audit report.

Ground floor: imports nothing.
"""

__version__ = "0.1.0"
