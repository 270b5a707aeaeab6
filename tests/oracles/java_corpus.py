"""Real Java for the oracles: JDK 17 sources of ``java.base``.

The sources are the ``src.zip`` of the JDK that ``javac`` belongs to
(``<jdk>/lib/src.zip``, Debian's ``openjdk-17-source``; .ci/run installs it
when it is missing). The files below parse with ``javalang`` (Java 8 syntax)
and compile on their own when patched into ``java.base``
(``javac --patch-module java.base=DIR``), so a variant of any of their methods
can be compiled without the rest of the JDK's sources.
"""

from __future__ import annotations

import os
import shutil
import zipfile
from functools import lru_cache
from pathlib import Path

import pytest

#: java.base files (paths inside the module): about 750 methods and constructors
JDK_FILES = [
    "java/util/ArrayList.java",
    "java/util/ArrayDeque.java",
    "java/util/AbstractList.java",
    "java/util/Vector.java",
    "java/util/PriorityQueue.java",
    "java/util/LinkedList.java",
    "java/util/SplittableRandom.java",
    "java/lang/StringLatin1.java",
    "java/lang/StringUTF16.java",
    "java/lang/StringBuffer.java",
    "java/io/ByteArrayOutputStream.java",
    "java/io/CharArrayWriter.java",
]


#: java.base files that javalang refuses (switch expressions, ``instanceof``
#: patterns, records, ``var``, a text block) and tree-sitter reads; they
#: compile on their own patched into java.base as well: about 200 methods
JDK17_FILES = [
    "java/util/jar/Manifest.java",
    "java/util/regex/PrintPattern.java",
    "java/util/regex/CharPredicates.java",
    "jdk/internal/misc/ThreadTracker.java",
    "sun/nio/ch/IOUtil.java",
    "sun/security/pkcs/SignerInfo.java",
    "sun/security/x509/AVA.java",
    "sun/util/locale/BaseLocale.java",
]


def src_zip() -> Path:
    """The JDK's ``lib/src.zip`` beside the ``javac`` on PATH (or, where that
    link dangles, as Debian's headless JDK leaves it without the full JDK,
    ``lib/src.zip`` beside the link's target), found as .ci/run finds it;
    fails (never skips) when it is missing."""
    javac = shutil.which("javac")
    if javac is None:
        pytest.fail("javac not found (.ci/run installs Debian's openjdk-17-jdk-headless)")
    link = Path(os.path.realpath(javac)).parents[1] / "lib" / "src.zip"
    for path in (link, Path(os.path.realpath(link)).parent / "lib" / "src.zip"):
        if path.is_file():
            return path
    pytest.fail(f"JDK sources not found at {link} (.ci/run installs Debian's openjdk-17-source)")


@lru_cache(maxsize=None)
def jdk_sources() -> dict[str, str]:
    """The text of every file of :data:`JDK_FILES` and :data:`JDK17_FILES`, by
    its path in the module."""
    with zipfile.ZipFile(src_zip()) as zf:
        return {rel: zf.read(f"java.base/{rel}").decode("utf-8") for rel in JDK_FILES + JDK17_FILES}


__all__ = ["JDK_FILES", "JDK17_FILES", "src_zip", "jdk_sources"]
