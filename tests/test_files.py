"""write_atomic: a regular file is replaced whole; what is no regular file
(a link, a device, a pipe) is written through, never replaced; a failure of
the file system is an OutputError at the path, never an OSError."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from invar.errors import OutputError
from invar.files import write_atomic


def _write(text: str):
    return lambda f: f.write(text.encode())


def test_a_regular_file_is_replaced_and_leaves_no_temporary(tmp_path):
    path = tmp_path / "r.json"
    path.write_text("old\n")
    write_atomic(path, _write("new\n"))
    assert path.read_text() == "new\n" and os.listdir(tmp_path) == ["r.json"]


def test_a_link_is_written_through_and_stays_a_link(tmp_path):
    (tmp_path / "target.txt").write_text("old\n")
    (tmp_path / "link.json").symlink_to("target.txt")
    write_atomic(tmp_path / "link.json", _write("new\n"))
    assert (tmp_path / "link.json").is_symlink() and (tmp_path / "target.txt").read_text() == "new\n"


def test_a_dangling_link_creates_its_target(tmp_path):
    (tmp_path / "link.json").symlink_to("made.txt")
    write_atomic(tmp_path / "link.json", _write("new\n"))
    assert (tmp_path / "link.json").is_symlink() and (tmp_path / "made.txt").read_text() == "new\n"


def test_a_pipe_is_written_to_and_stays_a_pipe(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    write_atomic(fifo, _write("through\n"))
    reader.join(timeout=60)
    assert got == [b"through\n"] and stat.S_ISFIFO(fifo.stat().st_mode)


def device(folder: Path, minor: int) -> Path:
    """A character device of the kernel's memory driver (1: 3 null, 7 full)
    made in ``folder``, never the system's own: a regression that replaced
    a device must not replace /dev/null. Skips where devices cannot be made
    or opened (no root, a file system mounted nodev)."""
    path = folder / f"device-{minor}"
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, minor))
        os.close(os.open(path, os.O_WRONLY))
    except OSError as err:
        pytest.skip(f"cannot make a device here: {err.strerror}")
    return path


def test_a_device_stays_a_device(tmp_path):
    null = device(tmp_path, 3)
    write_atomic(null, _write("discarded\n"))
    assert stat.S_ISCHR(null.stat().st_mode) and os.listdir(tmp_path) == [null.name]


def test_a_device_that_refuses_the_bytes_is_an_output_error_and_stays_a_device(tmp_path):
    full = device(tmp_path, 7)
    with pytest.raises(OutputError) as err:
        write_atomic(full, _write("x\n"))
    assert err.value.path == str(full) and "No space left on device" in str(err.value)
    assert stat.S_ISCHR(full.stat().st_mode)


@pytest.mark.parametrize(
    "path, reason",
    [
        ("/proc/invar-test.json", "cannot write"),  # a file system that creates no file
        ("{tmp}/missing/r.json", "No such file or directory"),  # a folder the caller did not make
    ],
    ids=["proc", "missing-folder"],
)
def test_a_failure_of_the_file_system_is_an_output_error_at_the_path(path, reason, tmp_path):
    if path.startswith("/proc") and not Path("/proc").is_dir():
        pytest.skip("needs /proc")
    path = path.format(tmp=tmp_path)
    with pytest.raises(OutputError) as err:
        write_atomic(path, _write("x\n"))
    assert err.value.path == path and reason in str(err.value)
