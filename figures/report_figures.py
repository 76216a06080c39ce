"""The figures of report.md and report.html, taken only from the report's own directory.

A report document (results.json, audit.json) names its figures by path; a document written elsewhere
may name any file (``/etc/hostname``, ``../../secret.png``, a symlink out of the directory). report.md
links only paths that stay inside the directory as written; report.html embeds only PNG files that
are inside it once every symlink is resolved. Anything else is named in a visible note, not shown.
"""

from __future__ import annotations

import base64
import html
import os
from pathlib import Path

from rnnaudit.figures.escaping import inside_directory, md_code, md_link_target, md_text
from rnnaudit.figures.html import rich

__all__ = ["markdown_figures", "embedded_figures", "MAX_FIGURE_BYTES"]

esc = html.escape


def _symlink_out(path, out_dir) -> bool:
    """Whether ``path`` (inside ``out_dir`` as written) is a symlink, or under one, that resolves outside ``out_dir``;
    a missing file is not (its link leads nowhere, and reveals nothing)."""
    root = Path(out_dir).resolve()
    try:
        file = (root / path).resolve(strict=True)
    except (OSError, RuntimeError):  # missing, a symlink loop
        return False
    return root not in file.parents


def markdown_figures(figures: list, out_dir: str | os.PathLike | None = None) -> list[str]:
    """report.md lines for the figures (caption and image), each path percent-encoded; a figure whose path
    leaves the report's directory (absolute, ``..``, or, given ``out_dir``, a symlink resolving outside it: served,
    the link would return the file it names) is named as such, not linked."""
    lines = []
    for f in figures:
        f = f if isinstance(f, dict) else {}
        caption = md_text(f.get("caption", "figure"))
        if not inside_directory(f.get("path")):
            lines += ["", f"*{caption}*: not shown, its path {md_code(f.get('path'))} is outside this report's "
                          "directory."]
        elif out_dir is not None and _symlink_out(f["path"], out_dir):
            lines += ["", f"*{caption}*: not shown, its path {md_code(f.get('path'))} is a symlink to a file outside "
                          "this report's directory."]
        else:
            lines += ["", f"![{caption}]({md_link_target(f['path'])})", "", f"*{caption}*"]
    return lines


#: Largest figure embedded (a PNG rnnaudit draws is well under 5 MB; a larger file is not one of them).
MAX_FIGURE_BYTES = 64 * 2**20
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _figure_file(path, out_dir: str | os.PathLike) -> tuple[Path | None, str]:
    """The PNG file a figure entry names, if it lies in ``out_dir`` once every symlink is resolved; else
    None and why it is not embedded."""
    if not inside_directory(path):
        return None, "its path is outside this report's directory"
    root = Path(out_dir).resolve()
    try:
        file = (root / path).resolve(strict=True)
    except (OSError, RuntimeError):  # missing, a symlink loop
        return None, "there is no such file in this report's directory"
    if root not in file.parents:
        return None, "it is a symlink to a file outside this report's directory"
    try:
        if not file.is_file() or file.stat().st_size > MAX_FIGURE_BYTES:
            return None, f"it is not a regular file of at most {MAX_FIGURE_BYTES // 2**20} MiB"
        with open(file, "rb") as fh:
            if fh.read(len(_PNG_SIGNATURE)) != _PNG_SIGNATURE:
                return None, "it is not a PNG image"
    except OSError as err:
        return None, f"it cannot be read ({err.strerror or err})"
    return file, ""


def embedded_figures(figures: list[dict], out_dir: str | os.PathLike) -> str:
    """<figure> elements with each PNG embedded as base64 (the page needs no file beside it).

    A figure is embedded only from ``out_dir`` itself: a path that is absolute, climbs out with ``..``, or
    is a symlink resolving outside it (``/etc/hostname``, a results.json written elsewhere), a missing file
    and a file that is not a PNG get a visible note in place of the image, naming the path."""
    out = []
    for i, f in enumerate(figures):
        f = f if isinstance(f, dict) else {}
        caption = str(f.get("caption", ""))
        file, why = _figure_file(f.get("path"), out_dir)
        if file is None:
            out.append(f"<figure id='figure-{i + 1}'><p class='muted'>Figure {i + 1} is not embedded: {esc(why)} "
                       f"(<code>{esc(str(f.get('path')))}</code>).</p><figcaption>Figure {i + 1}. {rich(caption)}"
                       "</figcaption></figure>")
            continue
        data = base64.b64encode(file.read_bytes()).decode("ascii")
        out.append(f"<figure id='figure-{i + 1}'><img alt='{esc(caption)}' src='data:image/png;base64,{data}'>"
                   f"<figcaption>Figure {i + 1}. {rich(caption)}</figcaption></figure>")
    return "".join(out)
