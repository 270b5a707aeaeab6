"""A command's options made from a run's config, so that each option is
declared once: in the config's field (type, choices, default, flags, help,
bounds; :func:`invar.config.option`).

:func:`with_config` adds one typer option per field of the config class to
a command and hands the command the config built from them. Choices come
from the field's ``Literal`` type or from a registry (the tasks), so the
help cannot drift from the library.

Imports typer and the config module's helpers; never a command module.
"""

from __future__ import annotations

import functools
import inspect
import typing
from dataclasses import MISSING, fields
from typing import Annotated, Any, Callable, Literal, Optional

import typer

from ..config import choices_of, field_types, option_fields


def config_parameters(cls: type) -> list[inspect.Parameter]:
    """One keyword parameter per option field of ``cls``, annotated for typer
    (a field without a default is a required option)."""
    types = field_types(cls)
    out = []
    for f in option_fields(cls):
        meta = f.metadata
        annotation = types[f.name]
        choices = choices_of(f, cls)
        if meta.get("choices") is not None:  # a registry's choices, as a Literal for typer
            annotation = Optional[Literal[choices]]  # type: ignore[valid-type]
        if meta.get("read_file"):
            annotation = Optional[str]
        extra: dict[str, Any] = {}
        for key in ("min", "max", "metavar"):
            if meta.get(key) is not None:
                extra[key] = meta[key]
        if choices is not None:
            extra.setdefault("metavar", f"[{'|'.join(choices)}]")
        required = f.default is MISSING
        option = typer.Option(
            *meta["flags"], help=meta["help"], show_default=not required and f.default is not None, **extra
        )
        out.append(
            inspect.Parameter(
                f.name,
                inspect.Parameter.KEYWORD_ONLY,
                default=inspect.Parameter.empty if required else f.default,
                annotation=Annotated[annotation, option],
            )
        )
    return out


def with_config(cls: type, name: str = "config") -> Callable[[Callable], Callable]:
    """Give the command one option per field of ``cls`` in place of its
    parameter ``name``, which receives ``cls(**options)``; an option that
    names a file (``read_file``) passes the file's text."""

    def wrap(fn: Callable) -> Callable:
        resolved = typing.get_type_hints(fn, include_extras=True)  # the command's own, under postponed annotations
        own = [
            p.replace(annotation=resolved.get(p.name, p.annotation))
            for p in inspect.signature(fn).parameters.values()
            if p.name != name
        ]
        own_names = {p.name for p in own}
        params = own + config_parameters(cls)

        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any):
            values = {k: kwargs.pop(k) for k in list(kwargs) if k not in own_names}
            for f in fields(cls):
                if f.metadata.get("read_file") and values.get(f.name) is not None:
                    from .console import read_text

                    values[f.name] = read_text(values[f.name])
            return fn(*args, **kwargs, **{name: cls(**values)})

        hints = {
            **{p.name: p.annotation for p in own if p.annotation is not inspect.Parameter.empty},
            **{p.name: p.annotation for p in params[len(own) :]},
        }
        run.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
        run.__annotations__ = hints
        del run.__wrapped__  # typer must read the signature above, not the function's
        return run

    return wrap


__all__ = ["config_parameters", "with_config"]
