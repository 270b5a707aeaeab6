"""The skip summary counts the skipped units by reason, in the reason's plural
where more than one share it."""

from __future__ import annotations

import pytest

from invar.errors import ParseError
from invar.frontends.units import Units


def _skipped(*reasons: str | None) -> Units:
    errors = []
    for k, reason in enumerate(reasons):
        err = ParseError(f"message {k}" if reason is None else "a message", line=k + 1, col=1)
        if reason is not None:
            err.reason = reason  # type: ignore[attr-defined]
        errors.append(err)
    return Units([], errors)


@pytest.mark.parametrize(
    "reasons, summary",
    [
        ((), ""),
        (("block rejected",), "1 skipped: 1 block rejected"),
        (("block rejected",) * 2, "2 skipped: 2 blocks rejected"),
        (
            ("unsupported construct", "syntax error", "unsupported construct"),
            "3 skipped: 2 unsupported constructs, 1 syntax error",
        ),
        (("trace without a formula",) * 3, "3 skipped: 3 traces without a formula"),
        (("odd number of hex digits",) * 2, "2 skipped: 2 odd numbers of hex digits"),
        (("nesting too deep",) * 2, "2 skipped: 2 nesting too deep"),  # no noun to put in the plural
        (("undecodable bytes",) * 2, "2 skipped: 2 undecodable bytes"),
        ((None,), "1 skipped: 1 message 0"),  # no reason: the error's own message
    ],
)
def test_skip_summary(reasons, summary):
    assert _skipped(*reasons).skip_summary() == summary
