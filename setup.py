"""Compiles the ``club`` default's per-game loop with mypyc, when it can.

Everything else about the package is in pyproject.toml. ``ratings_core/inlined.py`` is plain
Python: where mypyc or a C compiler is missing, or the build fails, the package installs
without the extension and the same source runs interpreted, with the same results (slower).
"""

from __future__ import annotations

from setuptools import setup


def _compiled_loops() -> list[object]:
    try:
        from mypyc.build import mypycify
    except ImportError:  # mypyc is not installed: the loop runs interpreted
        return []
    extensions = mypycify(["ratings_core/inlined.py"], opt_level="3")
    for extension in extensions:
        extension.optional = True  # a failed compile leaves the interpreted loop, no error
        # a*b + c as two roundings, as Python does it: no fused multiply-add (aarch64 has one)
        extension.extra_compile_args.append("-ffp-contract=off")
    return extensions


setup(ext_modules=_compiled_loops())
