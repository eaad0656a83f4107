"""The pictures of rated problems, kept as files in ``pictures/`` of the data folder.

A picture is named by its content (the first 32 hex digits of its SHA-256, and its format's
extension), so the event log names a picture that can never change under it, and the same
picture sent twice is kept once. Only PNG, JPEG, GIF and WebP are taken, told by their first
bytes, never by a name a member chose; the folder and its files are private to the bot's user
(:mod:`bot.storage.private`). Backups of the database do not hold them: back this folder up
with it (docs/deploy.md).
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from pathlib import Path

from .private import FILE_MODE, private_folder

#: the largest picture taken (Telegram sends photos of at most 10 MB; a problem's diagram is
#: far smaller)
MAX_BYTES = 5 * 1024 * 1024
FOLDER = "pictures"
_NAME = re.compile(r"^[0-9a-f]{32}\.(png|jpg|gif|webp)$")


class PictureError(ValueError):
    """A picture that is not taken: too large, or none of the formats taken."""


def picture_format(data: bytes) -> str | None:
    """The extension of the format ``data`` is in, by its signature; None for any other."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if data.startswith(b"\xff\xd8\xff"):
        return "jpg"
    if data.startswith((b"GIF87a", b"GIF89a")):
        return "gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    return None


class PictureStore:
    """The pictures of ``data_folder``/pictures."""

    def __init__(self, data_folder: Path) -> None:
        self.folder = data_folder / FOLDER

    def put(self, data: bytes) -> str:
        """Keep ``data`` and give its name; :class:`PictureError` when it is not taken."""
        if len(data) > MAX_BYTES:
            raise PictureError(f"a picture of at most {MAX_BYTES // (1024 * 1024)} MB")
        kind = picture_format(data)
        if kind is None:
            raise PictureError("a PNG, JPEG, GIF or WebP picture")
        name = f"{hashlib.sha256(data).hexdigest()[:32]}.{kind}"
        target = self.folder / name
        if target.exists():
            return name
        private_folder(self.folder)
        # Written whole under another name first: a reader never finds half a picture.
        descriptor, temporary = tempfile.mkstemp(dir=self.folder, prefix=".incoming-")
        try:
            with os.fdopen(descriptor, "wb") as out:
                out.write(data)
            os.chmod(temporary, FILE_MODE)
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        return name

    def path(self, name: str) -> Path:
        """Where the picture ``name`` is kept; ``FileNotFoundError`` for a name that is no
        picture's or a picture that is gone."""
        if not _NAME.fullmatch(name):
            raise FileNotFoundError(name)
        path = self.folder / name
        if not path.is_file():
            raise FileNotFoundError(name)
        return path

    def read(self, name: str) -> bytes:
        return self.path(name).read_bytes()
