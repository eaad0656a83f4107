"""The schema migrations, numbered SQL files (see :mod:`bot.storage.migrations`).

The folder sits at the repository's top level, where a reader looks for it, and installs as the
package ``bot.storage.schema`` (``[tool.setuptools.package-dir]`` in pyproject.toml), so the
installed bot and an editable checkout read the same files. This module makes the folder
importable under that name in both; it holds no code.
"""
