"""Reading an audit's JSONL back (``invar audit merge`` and ``compare``): a
file that cannot be read is one located line, never a traceback."""

from __future__ import annotations

import pytest

from invar.audit.report import read_jsonl
from invar.errors import DataError


@pytest.mark.parametrize(
    "write, where, message",
    [
        (lambda p: p.write_bytes(b'{"type": "header"}\n{"a": "\xbd"}\n'), ":2:8", "not UTF-8 (byte 0xbd)"),
        (lambda p: p.write_text('{not json\n'), ":1:2", "not JSON"),
        (lambda p: None, "", "no such file"),
        (lambda p: p.mkdir(), "", "cannot read: Is a directory"),
    ],
)
def test_a_file_that_cannot_be_read_is_a_located_error(tmp_path, write, where, message):
    path = tmp_path / "s.jsonl"
    write(path)
    with pytest.raises(DataError) as caught:
        read_jsonl(str(path))
    assert str(caught.value).startswith(f"{path}{where}: error: {message}"), str(caught.value)
    assert "\n" not in str(caught.value)
