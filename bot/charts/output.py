"""A drawn figure as PNG bytes."""

from __future__ import annotations

import io

from matplotlib.figure import Figure

#: zlib level 1: pictures are mostly flat colour, so the file is hardly bigger than at the
#: default level 6, and encoding takes a fraction of the time (a third of a card's drawing)
PNG_OPTIONS = {"compress_level": 1}


def png_bytes(figure: Figure, dpi: float, background: str) -> bytes:
    """The figure as PNG at ``dpi`` (its size in inches times ``dpi`` gives the pixels)."""
    out = io.BytesIO()
    figure.savefig(out, format="png", dpi=dpi, facecolor=background, pil_kwargs=PNG_OPTIONS)
    return out.getvalue()
