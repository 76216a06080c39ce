"""Writing a figure to a file: atomically, in the shared style's output settings (Type 42 fonts in
PDF), from a ``str`` or a :class:`pathlib.Path`."""

from __future__ import annotations

import os
from pathlib import Path

from rnnaudit.atomic import atomic_path
from rnnaudit.figures.style import style_context

__all__ = ["save_figure", "FIGURE_FORMATS"]

#: File suffixes :func:`save_figure` writes.
FIGURE_FORMATS = (".png", ".pdf", ".svg")


def save_figure(fig, path: str | os.PathLike) -> Path:
    """Save a matplotlib figure to ``path`` atomically (format from its suffix), then close it.

    The figure is written inside :func:`rnnaudit.figures.style.style_context`: PDF and PostScript
    embed TrueType (Type 42) fonts, PNG is 200 dpi, the bounding box is tight. A figure that pyplot
    manages is closed (freed); one built as a bare :class:`matplotlib.figure.Figure` needs no closing.

    Args:
        fig: a :class:`matplotlib.figure.Figure`.
        path: ``str`` or path-like ending in ``.png``, ``.pdf`` or ``.svg``; the parent directory
            must exist.

    Returns:
        the path written, as a :class:`pathlib.Path`.

    Raises:
        TypeError: ``path`` is not a str or path-like.
        ValueError: an unsupported suffix.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str or path-like, got {type(path).__name__}")
    path = Path(path)
    if path.suffix.lower() not in FIGURE_FORMATS:
        raise ValueError(f"path must end in one of {', '.join(FIGURE_FORMATS)}, got {str(path)!r}")
    with style_context(), atomic_path(path) as tmp:
        fig.savefig(tmp, format=path.suffix.lower().lstrip("."))
    if getattr(fig.canvas, "manager", None) is not None:
        import matplotlib.pyplot as plt

        plt.close(fig)
    return path
