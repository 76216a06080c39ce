"""Text from outside made inert for the format it enters.

A model's class name, a parameter's name, a field of a run.json or a results.json and a path (a run
directory named with backticks, ``<``, ``|`` or a newline) are data: in report.md, report.html, a
saved figure's metadata or title, and a Slurm batch script they must stay text, never become markup,
an attribute or a command line. Each function here takes any such string and returns it escaped for
one format; HTML uses the standard library's :func:`html.escape` directly.

Markdown escaping targets CommonMark and Python-Markdown (what mkdocs renders) with the ``tables``
and ``attr_list`` extensions: every character that can open an element there (``<``, ``&``, ``[``,
``*``, a word-boundary ``_``, `````, ``{``, ``|``, a block marker at the start) is escaped, and a line
break never survives, so a string cannot start a block of its own.
"""

from __future__ import annotations

import re
from urllib.parse import quote

from rnnaudit.untrusted import control_character

__all__ = ["control_character", "visible_controls", "md_text", "md_code", "md_link_target", "inside_directory",
           "metadata_text", "mpl_text"]

_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _unprinted(ch: str) -> bool:
    return control_character(ch) is not None


def _escape_of(ch: str) -> str:
    if ch in _SHORT:
        return _SHORT[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible_controls(text: str) -> str:
    """``text`` with each character :func:`control_character` looks for written as its Python escape
    (``\\n``, ``\\x1b``, ``\\udcff``, ``\\u2028``): one printable line, readable, valid UTF-8 and valid XML."""
    return "".join(_escape_of(ch) if _unprinted(ch) else ch for ch in str(text))


#: Characters that open an element anywhere in a line (and ``#``, which a heading's closing sequence drops):
#: backslash-escaped (CommonMark and Python-Markdown both escape them), except ``<``, ``>`` and ``&``, written
#: as entities (Python-Markdown does not escape ``\<``).
_MD_INLINE = re.compile(r"[\\`*{}\[\]|#]")
_MD_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
#: A run of underscores: inert in both only between two letters or digits (W_hh, spectral_rnn), else emphasis.
_MD_UNDERSCORES = re.compile(r"_+")
#: What starts a block when it starts a line: an ordered or bullet list item, a definition, a rule, a fence,
#: an admonition (a heading's ``#`` is escaped everywhere).
_MD_ORDERED = re.compile(r"[0-9]+[.)](?=\s|$)")
_MD_BLOCK_START = re.compile(r"[+\-:](?=\s|$)|[-=~!]{2}")


def _between_alphanumerics(m: re.Match) -> bool:
    s, i, j = m.string, m.start(), m.end()
    return i > 0 and j < len(s) and s[i - 1].isalnum() and s[j].isalnum()


def md_text(text) -> str:
    """``text`` (any object, as ``str``; None as "") as inert Markdown inline text: whitespace runs, newlines included,
    collapsed to one space; other control characters written as escapes; every character that could open an
    element, link, image, code span, emphasis, table cell or attribute list escaped; a block marker at the start
    escaped. Rendered, it reads as ``text`` (collapsed)."""
    s = visible_controls(" ".join(("" if text is None else str(text)).split()))
    s = _MD_INLINE.sub(lambda m: "\\" + m.group(0), s)
    s = _MD_UNDERSCORES.sub(lambda m: m.group(0) if _between_alphanumerics(m) else m.group(0).replace("_", r"\_"), s)
    s = re.sub(r"[&<>]", lambda m: _MD_ENTITIES[m.group(0)], s)
    m = _MD_ORDERED.match(s)
    if m:  # 1. → 1&#46;
        return s[:m.end() - 1] + f"&#{ord(s[m.end() - 1])};" + s[m.end():]
    if _MD_BLOCK_START.match(s):  # - x → &#45; x
        return f"&#{ord(s[0])};" + s[1:]
    return s


def md_code(text) -> str:
    """``text`` as one Markdown code span, shown exactly (control characters as escapes): delimited by one
    backtick more than its longest run of backticks, so no backtick inside can close it, and padded with a
    space where it begins or ends with one (both renderers strip that space)."""
    s = visible_controls(str(text))
    longest = max((len(run) for run in re.findall(r"`+", s)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if not s or s[0] in "` " or s[-1] in "` " else ""
    return f"{fence}{pad}{s}{pad}{fence}"


def md_link_target(path) -> str:
    """A relative path as a Markdown link or image destination: percent-encoded, so that no space, ``)``,
    ``<`` or ``:`` (a ``javascript:`` scheme) survives; a name that is not valid UTF-8 keeps its bytes."""
    return quote(str(path), safe="/", errors="surrogateescape")


def inside_directory(path) -> bool:
    """Whether ``path`` (as written in a report document) is a relative path that stays inside the report's
    directory as written: not absolute, no ``..`` component, no control character. Symlinks are the reader's to
    resolve (:func:`rnnaudit.figures.report_html.embedded_figures` does)."""
    if not isinstance(path, str) or not path or control_character(path) is not None:
        return False
    parts = path.replace("\\", "/").split("/")
    return not path.startswith(("/", "\\")) and ".." not in parts and not re.match(r"[A-Za-z]:", path)


def metadata_text(text) -> str:
    """``text`` for a saved figure's metadata field (PNG text chunk, PDF document information, SVG Dublin
    Core): control characters and lone surrogates as escapes, so that the field is valid XML, valid UTF-8
    and UTF-16, and one line. matplotlib escapes ``<``, ``&`` and PDF's parentheses itself."""
    return visible_controls(text)


def mpl_text(text) -> str:
    """``text`` as plain matplotlib text (a title naming a path or a model): ``$`` escaped, so that it is never
    parsed as mathtext (an unknown ``\\symbol`` there ends the drawing in an error), control characters as
    escapes."""
    return visible_controls(text).replace("$", r"\$")
