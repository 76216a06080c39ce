"""Writing a figure to a file: atomically, in the shared style's output settings (Type 42 fonts in
PDF), from a ``str`` or a :class:`pathlib.Path`; with the numbers behind it in a data file beside it
(``.csv``, or ``.npz`` for maps) and its provenance (rnnaudit version, commit, command line, seed) in
the file's own metadata: PNG text chunks, the PDF document information, SVG's Dublin Core fields."""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

import matplotlib
import numpy as np

from rnnaudit.atomic import atomic_path
from rnnaudit.figures.escaping import metadata_text
from rnnaudit.figures.style import style_context
from rnnaudit.provenance import figure_provenance

__all__ = ["save_figure", "attach_data", "figure_data", "figure_labels", "read_labels", "data_path", "FIGURE_FORMATS",
           "LABELS_KEY", "MAX_SIDE_PIXELS"]

#: File suffixes :func:`save_figure` writes.
FIGURE_FORMATS = (".png", ".pdf", ".svg")

_DATA_ATTRIBUTE = "_rnnaudit_data"
_LABELS_ATTRIBUTE = "_rnnaudit_labels"
#: The entry of a figure's ``.npz`` that holds what each array is (:func:`attach_data`'s labels), as JSON text.
LABELS_KEY = "labels"
#: The longest side of a saved raster figure, in pixels: :func:`save_figure` lowers the style's 200 dpi for a figure
#: larger than 20 inches (a grid of many spectra) rather than writing an image no viewer shows whole.
MAX_SIDE_PIXELS = 4000


def attach_data(fig, data: dict, *, labels: dict | None = None) -> None:
    """Keep the numbers a figure draws with it, for :func:`save_figure` to write beside the file.

    Args:
        fig: a :class:`matplotlib.figure.Figure`.
        data: column name → array-like. All 1-D and real: a ``.csv`` with one column each (shorter
            columns end in empty cells), any names. Any array of 2 or more dimensions, or complex: a ``.npz``,
            whose names must be plain ASCII identifiers (``jacobian_norm``, ``t``), so that ``np.load(f)[name]``
            and ``f.name`` work in every language that reads the file.
        labels: name → what the array is, in words or matplotlib mathtext (the figure's own label); written into
            the ``.npz`` as the entry ``labels``, a JSON object in a 0-d string array
            (``json.loads(str(np.load(f)["labels"]))``; no pickle needed).

    Raises:
        TypeError: data not a dict, a name not a str, labels not a dict of str → str.
        ValueError: for a ``.npz``, a name that is not an ASCII identifier, or the name ``labels``; a label for a
            name not in data.
    """
    if not isinstance(data, dict) or not all(isinstance(k, str) for k in data):
        raise TypeError("data must be a dict of str -> array-like")
    if labels is not None and (not isinstance(labels, dict)
                               or not all(isinstance(k, str) and isinstance(v, str) for k, v in labels.items())):
        raise TypeError("labels must be a dict of str -> str")
    arrays = {k: np.asarray(v) for k, v in data.items()}
    if not _is_table(arrays):
        bad = [k for k in arrays if not (k.isascii() and k.isidentifier()) or k == LABELS_KEY]
        if bad:
            raise ValueError(f"the names of a .npz must be plain ASCII identifiers other than {LABELS_KEY!r} (its "
                             f"labels go in labels=...), got {bad[:3]}")
    unknown = sorted(set(labels or {}) - set(arrays))
    if unknown:
        raise ValueError(f"labels name arrays that data does not hold: {unknown[:3]}")
    setattr(fig, _DATA_ATTRIBUTE, arrays)
    setattr(fig, _LABELS_ATTRIBUTE, dict(labels or {}))


def figure_data(fig) -> dict | None:
    """The data :func:`attach_data` kept with ``fig``, or None."""
    return getattr(fig, _DATA_ATTRIBUTE, None)


def figure_labels(fig) -> dict:
    """The labels :func:`attach_data` kept with ``fig`` (name → label), {} if none."""
    return dict(getattr(fig, _LABELS_ATTRIBUTE, None) or {})


def read_labels(npz) -> dict:
    """The ``labels`` entry of a figure's ``.npz`` (an open ``np.load`` result): name → label, {} without one.

    Raises:
        ValueError: an entry ``labels`` that is not a JSON object of strings.
    """
    if LABELS_KEY not in npz.files:
        return {}
    try:
        out = json.loads(str(npz[LABELS_KEY]))
    except (ValueError, TypeError) as err:
        raise ValueError(f"the {LABELS_KEY!r} entry is not JSON text: {err}") from None
    if not isinstance(out, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in out.items()):
        raise ValueError(f"the {LABELS_KEY!r} entry must be a JSON object of strings")
    return out


def _is_table(data: dict) -> bool:
    return all(a.ndim <= 1 and not np.iscomplexobj(a) for a in data.values())


def data_path(path: str | os.PathLike, data: dict) -> Path:
    """Where :func:`save_figure` writes the data of the figure at ``path``: same stem, ``.csv`` for a
    table of 1-D columns, ``.npz`` otherwise."""
    return Path(path).with_suffix(".csv" if _is_table(data) else ".npz")


def _csv_text(data: dict) -> str:
    columns = {k: np.atleast_1d(a) for k, a in data.items()}
    n = max((len(a) for a in columns.values()), default=0)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(list(columns))
    for i in range(n):
        writer.writerow(["" if i >= len(a) else _cell(a[i]) for a in columns.values()])
    return out.getvalue()


def _cell(v) -> str:
    if isinstance(v, (np.integer, np.bool_)):
        return str(int(v))
    if isinstance(v, np.floating):
        return repr(float(v))  # the shortest text that reads back to the same float, bit for bit
    return str(v)


def _metadata(fmt: str, fields: dict[str, str]) -> dict:
    """Provenance in each format's own metadata fields (matplotlib's ``savefig(metadata=...)``)."""
    summary = "; ".join(f"{k}={v}" for k, v in fields.items())
    creator = f"rnnaudit {fields['rnnaudit']} (commit {fields['commit']})"
    if fmt == "png":  # one tEXt chunk per field, under its own keyword
        return {"Software": creator, **fields}
    if fmt == "pdf":  # the document information dictionary's standard keys
        return {"Creator": creator, "Subject": fields["command"], "Keywords": summary}
    if fmt == "svg":  # Dublin Core, as matplotlib writes it
        return {"Creator": creator, "Description": fields["command"], "Keywords": [summary]}
    return {}


def save_figure(fig, path: str | os.PathLike, *, provenance: dict | None = None) -> Path:
    """Save a matplotlib figure to ``path`` atomically (format from its suffix), then close it.

    The figure is written inside :func:`rnnaudit.figures.style.style_context`: PDF and PostScript
    embed TrueType (Type 42) fonts, PNG is 200 dpi (less for a figure over 20 inches: its longest side is at most
    :data:`MAX_SIDE_PIXELS` pixels), the bounding box is tight (inside :func:`rnnaudit.figures.style.drawn_when_saved`,
    a constrained layout keeps its own margins). A figure that pyplot manages is closed (freed); one built as a bare
    :class:`matplotlib.figure.Figure` needs no closing.
    The data kept with :func:`attach_data` is written beside it (:func:`data_path`), atomically too, and before
    the figure: a data file that cannot be written leaves neither file (an existing file of that name is replaced).

    Args:
        fig: a :class:`matplotlib.figure.Figure`.
        path: ``str`` or path-like ending in ``.png``, ``.pdf`` or ``.svg``; the parent directory
            must exist.
        provenance: str → str fields ``rnnaudit``, ``commit``, ``command``, ``seed`` for the file's
            metadata; default :func:`rnnaudit.provenance.figure_provenance` (the seed of the running
            command, :func:`rnnaudit.provenance.recorded_seed`). Control characters and lone surrogates
            in a value are written as escapes (:func:`rnnaudit.figures.escaping.metadata_text`).

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
    fmt = path.suffix.lower().lstrip(".")
    # the command line names paths and a run directory's name: one printable line in every format's field
    fields = {k: metadata_text(v) for k, v in (figure_provenance() if provenance is None else provenance).items()}
    data = figure_data(fig)
    # the data file is renamed into place inside the figure's atomic write: a data file that cannot be written
    # leaves neither file, never a figure without its numbers
    with style_context(), atomic_path(path) as tmp_figure:
        dpi = min(float(matplotlib.rcParams["savefig.dpi"]), MAX_SIDE_PIXELS / max(fig.get_size_inches()))
        # the style's tight box (savefig.bbox) stays on even for a constrained layout: it trims the margins the
        # layout leaves (bbox_inches=None would not skip it: matplotlib reads None as the rc value)
        fig.savefig(tmp_figure, format=fmt, metadata=_metadata(fmt, fields), dpi=dpi)
        if data is not None:
            beside = data_path(path, data)
            with atomic_path(beside) as tmp:
                if beside.suffix == ".csv":
                    Path(tmp).write_text(_csv_text(data))
                else:
                    labels = figure_labels(fig)
                    extra = {LABELS_KEY: np.array(json.dumps(labels, ensure_ascii=False))} if labels else {}
                    with open(tmp, "wb") as f:
                        np.savez_compressed(f, **data, **extra)
    if getattr(fig.canvas, "manager", None) is not None:
        import matplotlib.pyplot as plt

        plt.close(fig)
    return path
