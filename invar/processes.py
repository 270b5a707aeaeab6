"""Where this process stands: its place among torchrun's processes, and a
package attribute that stays callable when a submodule of the same name is
imported.

Ground floor: imports nothing of invar.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Callable


def torchrun_place() -> tuple[int, int, int]:
    """(rank, world size, local rank) from torchrun's environment; (0, 1, 0)
    outside torchrun."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    return int(os.environ.get("RANK", "0")), world, int(os.environ.get("LOCAL_RANK", "0"))


def callable_module(name: str, function: Callable[..., Any]) -> None:
    """Make the module ``name`` callable as ``function``.

    ``invar.train`` and ``invar.audit`` are the package's modules of those
    names (imported on first use, :func:`invar.__getattr__`), each callable
    as its function: ``invar.train(...)`` and ``invar.audit.AuditConfig``
    alike."""
    module = sys.modules[name]

    class _Callable(type(module)):
        __doc__ = module.__doc__

        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            return function(*args, **kwargs)

    module.__class__ = _Callable


__all__ = ["torchrun_place", "callable_module"]
