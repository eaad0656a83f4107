"""The packages, and the ``club`` default's per-game loop compiled with mypyc when it can.

Everything else about the package is in pyproject.toml.

The schema migrations live in the repository's top-level ``migrations/`` folder, where a reader
looks for them, and install as the package ``bot.storage.schema``: a wheel without them would
start with no schema, and the installed bot and an editable checkout read the same files. ``ratings_core/inlined.py`` is plain
Python: where mypyc or a C compiler is missing, or the build fails, the package installs
without the extension and the same source runs interpreted, with the same results (slower).
"""

from __future__ import annotations

from pathlib import Path

from setuptools import find_namespace_packages, setup
from setuptools.command.build_py import build_py

#: the migrations folder's name once installed
SCHEMA = "bot.storage.schema"


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


#: the languages' catalogues (bot/chat/language.py)
LOCALES = Path(__file__).parent / "bot" / "chat" / "locales"


def compile_catalogues() -> None:
    """Each language's ``.po`` compiled to the ``.mo`` gettext reads, beside it (a fuzzy entry
    is left out: an unchecked translation is no translation)."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    for source in sorted(LOCALES.glob("*/LC_MESSAGES/*.po")):
        with source.open("rb") as file:
            catalogue = read_po(file)
        with source.with_suffix(".mo").open("wb") as file:
            write_mo(file, catalogue, use_fuzzy=False)


class BuildWithCatalogues(build_py):
    """The package's files, the compiled catalogues among them (also for an editable
    install, which runs this command too)."""

    def run(self) -> None:
        compile_catalogues()
        super().run()


setup(
    cmdclass={"build_py": BuildWithCatalogues},
    packages=[*find_namespace_packages(include=["ratings_core*", "bot*"]), SCHEMA],
    package_dir={SCHEMA: "migrations"},
    package_data={SCHEMA: ["*.sql"], "bot.chat": ["locales/*/LC_MESSAGES/*.mo"],
                  "bot.web": ["templates/*.html"]},
    ext_modules=_compiled_loops(),
)
