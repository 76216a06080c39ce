"""Shared pieces of the self-contained HTML reports: the page (viewport, style, a few lines of
script to sort tables), verdict badges, number formatting, and the claims' notation rendered
readably: ``h_{t−1}`` → h<sub>t−1</sub>, ``U^(S)`` → U<sup>(S)</sup>, while identifiers such as
``spectral_rnn.eq7`` or ``worst_parts`` stay as they are. Everything works offline: no external
stylesheet, font or script."""

from __future__ import annotations

import html
import math
import re
import unicodedata

__all__ = ["rich", "math_html", "page", "verdict_badge", "breakable_id", "fmt_number", "number_html", "VERDICT_ORDER",
           "anchor"]

#: Verdicts in the order a reader wants them: what needs attention first.
#: The verdicts of ``check`` in the order the reports list them (docs/verdicts.md): failing first.
VERDICT_ORDER = ("false", "misprinted", "inconclusive", "vacuous", "holds")

#: Operator names that take a subscript although they are words (max_i, sup_k, opt_A).
_OPERATORS = ("max", "min", "sup", "inf", "lim", "argmax", "argmin", "opt", "log", "sum", "prod")
#: Single non-letter characters that can stand alone as a subscript (‖·‖_∞, the nuclear norm ‖G‖_*).
_SCRIPT_SYMBOLS = "∞*"
#: Symbols that take sub- and superscripts although they are not letters (∏_{j=1}^{t}, ∇_U).
_BIG_OPERATORS = "∏∑∇∂⋃⋂∫"
_RUN = re.compile(r"[A-Za-z0-9]+")
_SUP_RUN = re.compile(r"[−\-+±]?[A-Za-z0-9]+(?:\.[0-9]+)?")


def _is_ascii_word_char(ch: str) -> bool:
    return ch.isascii() and (ch.isalnum() or ch == "_")


def _subscript_base_ok(s: str, i: int, start: int, in_script: bool) -> bool:
    """May ``_`` at s[i] start a subscript? Its base must be one symbol (h_t, σ_min, ‖X‖_F, A^(k)_i,
    [h]_i) or an operator name (max_i), not the end of an identifier (spectral_rnn, worst_parts).
    Inside a script's argument every letter is a symbol (e^{it_j}); ``start`` is where the current
    word may begin (after the last script: R_WR_x is R_W R_x)."""
    if i == start > 0:  # right after a script: h^(S)_k
        return True
    j = i - 1
    while j >= start and unicodedata.combining(s[j]):  # ρ̃_x: skip the combining tilde
        j -= 1
    if j < start:
        return False
    base = s[j]
    if base in ")]}‖|⟩" or base in _BIG_OPERATORS:
        return True
    if not (base.isalpha() or base.isdigit()):
        return False
    if in_script:
        return base.isalpha()
    k = j
    while k > start and _is_ascii_word_char(s[k - 1]) and _is_ascii_word_char(base):
        k -= 1
    word = s[k:j + 1].lstrip("0123456789")  # a coefficient: 2b_k
    if len(word) == 1:
        return not base.isdigit()
    if len(word) == 2 and word[0].isupper() and word[1].islower():  # a matrix times a vector: Wh_{t−1}, Ux_t
        return True
    if i + 1 < len(s) and s[i + 1] == "{":  # a braced subscript is notation, never an identifier
        return True
    return word in _OPERATORS and (k == start or not _is_ascii_word_char(s[k - 1]))


def _matching(s: str, j: int, open_: str, close: str, limit: int) -> int | None:
    """Index of the bracket closing s[j] == open_, within ``limit`` characters; None if unbalanced."""
    depth = 0
    for k in range(j, min(len(s), j + limit)):
        if s[k] == open_:
            depth += 1
        elif s[k] == close:
            depth -= 1
            if depth == 0:
                return k
    return None


def _script_argument(s: str, j: int, sup: bool) -> tuple[str, int] | None:
    """The argument of a sub/superscript starting at s[j], and the index after it."""
    if j >= len(s):
        return None
    if s[j] == "{":
        k = _matching(s, j, "{", "}", 80)
        return None if k is None else (s[j + 1:k], k + 1)
    if s[j] == "(":
        k = _matching(s, j, "(", ")", 12)
        return None if k is None else (s[j:k + 1], k + 1)
    m = (_SUP_RUN if sup else _RUN).match(s, j)
    if m:
        text = m.group(0)
        # R_WR_x: a run followed by another script is one letter (R_W R_x), as in TeX
        if not sup and len(text) > 1 and m.end() < len(s) and s[m.end()] in "_^":
            text = text[0]
        return text, j + len(text)
    if s[j].isalpha() or s[j] in _SCRIPT_SYMBOLS:
        return s[j], j + 1
    return None


def math_html(escaped: str, *, in_script: bool = False) -> str:
    """Sub- and superscripts of already HTML-escaped text as <sub>/<sup> (nested ones too)."""
    out, i, start = [], 0, 0
    while i < len(escaped):
        ch = escaped[i]
        if ch in "_^" and i > 0 and (ch == "^" or _subscript_base_ok(escaped, i, start, in_script)):
            arg = _script_argument(escaped, i + 1, sup=ch == "^")
            if arg is not None:
                content, i = arg
                start = i
                tag = "sup" if ch == "^" else "sub"
                out.append(f"<{tag}>{math_html(content, in_script=True)}</{tag}>")
                continue
        out.append(ch)
        i += 1
    return "".join(out)


def rich(text: str | None) -> str:
    """Claim text as HTML: escaped, `backticked` spans as <code>, the notation as sub/superscripts."""
    if not text:
        return ""
    parts = str(text).split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick is literal
        parts = [str(text)]
    return "".join(f"<code>{html.escape(p)}</code>" if k % 2 else math_html(html.escape(p))
                   for k, p in enumerate(parts))


def breakable_id(claim_id: str) -> str:
    """A claim id as <code> that may wrap after its dots and underscores only, never inside a word."""
    return "<code class='id'>" + re.sub(r"([._])", r"\1<wbr>", html.escape(claim_id)) + "</code>"


def anchor(kind: str, name: str) -> str:
    """An id for an element: ``claim-sgornn.theorem2``, ``paper-nc_gru`` (ids may hold dots)."""
    return f"{kind}-{re.sub(r'[^A-Za-z0-9_.-]', '-', name)}"


def fmt_number(x, digits: int = 4) -> str:
    """A ratio or measurement for reading: 4 significant digits, ∞ for infinity, – for none."""
    if x == "inf" or (isinstance(x, float) and math.isinf(x) and x > 0):
        return "∞"
    if x is None or isinstance(x, bool) or not isinstance(x, (int, float)) or math.isnan(x):
        return "–"
    return f"{x:.{digits}g}".replace("-", "−")


def number_html(x, digits: int = 4) -> str:
    """:func:`fmt_number` for HTML, powers of ten written out: 3.815e+10 → 3.815 × 10<sup>10</sup>."""
    text = fmt_number(x, digits)
    m = re.fullmatch(r"(−?[0-9.]+)e([+−]?)0*([0-9]+)", text)
    if not m:
        return html.escape(text)
    sign = "−" if m.group(2) == "−" else ""
    return f"{m.group(1)} × 10<sup>{sign}{m.group(3)}</sup>"


def verdict_badge(verdict: str | None) -> str:
    """A coloured, labelled badge for a verdict (the word is always written: colour is never the only cue)."""
    v = verdict or "not measured"
    return f"<span class='verdict v-{html.escape(re.sub(r'[^a-z]', '-', v))}'>{html.escape(v)}</span>"


_CSS = """
:root{--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--alt:#f6f8fa;--bad:#a40e26;--ok:#116329;--warn:#7d4e00;
--info:#0b4f8a;--link:#0550ae}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;padding:0 16px;color:var(--fg);background:#fff;
font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif}
main{max-width:1240px;margin:0 auto;padding:10px 0 48px}
a{color:var(--link)}
h1{font-size:1.55rem;margin:.3em 0 .1em}
h2{font-size:1.22rem;margin:1.3em 0 .5em;padding-bottom:.2em;border-bottom:1px solid var(--line)}
h3{font-size:1.02rem;margin:1.1em 0 .3em}
p{margin:.35em 0}
.meta{color:var(--muted);font-size:13.5px;margin:0 0 .4em}
nav.toc{font-size:14px;margin:.3em 0 .2em;padding:.35em .6em;background:var(--alt);border-radius:6px}
nav.toc ol{display:flex;flex-wrap:wrap;gap:.15em 1.1em;list-style:none;margin:0;padding:0}
nav.toc ol ol{display:inline-flex;gap:.1em .6em;margin-left:.4em}
.lede{font-size:15.5px;margin:.2em 0 .5em}
.table-wrap{max-width:100%;overflow-x:auto}
table{border-collapse:collapse;width:100%;margin:.4em 0 .8em}
th,td{border:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top;font-size:14px}
table.summary td,table.summary th{padding:1px 8px}
table.summary td,table.summary th{font-size:12px;line-height:1.05}
th{background:var(--alt);font-weight:600}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.total td{font-weight:600;background:var(--alt)}
table.counts,#summary table{width:auto;min-width:min(100%,560px)}
th button{font:inherit;font-weight:600;border:0;background:none;padding:0;cursor:pointer;color:var(--link)}
th button::after{content:" \\2195";color:var(--muted)}
th[aria-sort=descending] button::after{content:" \\2193"}
th[aria-sort=ascending] button::after{content:" \\2191"}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.86em;background:#eff2f5;
padding:0 3px;border-radius:3px;overflow-wrap:anywhere}
code.id{overflow-wrap:normal;word-break:normal}
table.claims td:first-child{min-width:11em}
a.more{font-size:12.5px;white-space:nowrap}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#eff2f5;padding:.4em .6em;border-radius:4px;margin:.2em 0}
sub,sup{font-size:75%;line-height:0}
.verdict{display:inline-block;padding:0 7px;border-radius:10px;font-size:12.5px;font-weight:600;white-space:nowrap;
border:1px solid currentColor}
.v-violated,.v-false{color:var(--bad);background:#ffebe9}
.v-misprinted{color:#9a3412;background:#ffedd5}
.v-holds{color:var(--ok);background:#dafbe1}
.v-vacuous{color:var(--warn);background:#fff8c5}
.v-inconclusive{color:var(--info);background:#ddf4ff}
.v-not-measured,.v-not-applicable{color:var(--muted);background:var(--alt)}
.verdict.reading{white-space:normal;display:inline;line-height:1.7;-webkit-box-decoration-break:clone;
box-decoration-break:clone}
.exact{font-size:12px;color:var(--muted);white-space:nowrap}
ol.violations{list-style:none;margin:0;padding:0}
li.violation{border:1px solid #f0c4c4;border-left:4px solid var(--bad);border-radius:6px;padding:.45em .8em;
margin:0 0 .6em;background:#fffafa}
li.violation .head{display:flex;flex-wrap:wrap;align-items:baseline;gap:.2em .8em}
.ratio{font-variant-numeric:tabular-nums;font-weight:600}
.src{color:var(--muted);font-size:13.5px}
.label{font-weight:600}
article.claim{border-top:1px solid var(--line);padding:.3em 0 .6em}
article.claim h3{display:flex;flex-wrap:wrap;align-items:baseline;gap:.2em .7em}
dl.fields{display:grid;grid-template-columns:minmax(8em,max-content) 1fr;gap:.15em 1em;margin:.3em 0}
dl.fields dt{font-weight:600;color:var(--muted)}
dl.fields dd{margin:0;min-width:0}
dl.fields ul{margin:0;padding-left:1.2em}
figure{margin:1.2em 0}
figure img{display:block;max-width:100%;height:auto;border:1px solid var(--line)}
figcaption{font-size:14px;color:var(--muted);margin-top:.3em}
.muted{color:var(--muted)}
@media (max-width:900px){
 body{font-size:14px;padding:0 10px}
 .hide-narrow{display:none}
 th,td{font-size:13px;padding:3px 6px}
 dl.fields{grid-template-columns:1fr}
 dl.fields dd{margin:0 0 .3em}
}
"""

#: Sorting for <table class="sortable">: a header <button data-sort="key"> orders the body rows by
#: their numeric data-<key> attribute, descending on the first click, then alternating; ties keep
#: the original order (data-order).
_SORT_JS = """
document.querySelectorAll('table.sortable').forEach(function (table) {
  table.querySelectorAll('th button[data-sort]').forEach(function (button) {
    button.addEventListener('click', function () {
      var key = button.dataset.sort, th = button.parentNode;
      var desc = th.getAttribute('aria-sort') !== 'descending';
      table.querySelectorAll('th').forEach(function (h) { h.removeAttribute('aria-sort'); });
      th.setAttribute('aria-sort', desc ? 'descending' : 'ascending');
      var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = parseFloat(a.dataset[key]), y = parseFloat(b.dataset[key]);
        var d = x === y ? 0 : (x < y ? -1 : 1);
        return (desc ? -d : d) || (a.dataset.order - b.dataset.order);
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
"""


def page(title: str, body: str) -> str:
    """A complete, self-contained HTML document (viewport tag, inline style and script); a lone surrogate (a
    path that is not valid UTF-8) is written as its escape, ``\\udcff``, so the page is valid UTF-8."""
    text = ("<!doctype html>\n<html lang='en'><head><meta charset='utf-8'>"
            "<meta name='viewport' content='width=device-width, initial-scale=1'>"
            f"<title>{html.escape(title)}</title><style>{_CSS}</style></head>"
            f"<body><main>{body}</main><script>{_SORT_JS}</script></body></html>\n")
    return text.encode("utf-8", "backslashreplace").decode("utf-8")
