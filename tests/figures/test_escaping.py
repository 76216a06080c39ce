"""Text from a model, a file, a path or a results.json stays text in every format it enters: rendered by
Python-Markdown (as mkdocs renders it) it opens no element and no attribute, and it still reads as itself;
in a figure's metadata it is one valid line; in a figure's title it is never mathtext."""

import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import markdown
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rnnaudit.figures.escaping import (control_character, inside_directory, md_code, md_link_target, md_text,
                                       metadata_text, mpl_text, visible_controls)

#: Strings a hostile pass fed to the reports: tags, attributes, code-span breakers, Markdown syntax, controls.
HOSTILE = ["x<img src=x onerror=alert(1)>", "`a` <script>alert(1)</script>", "``a`` ```b``` <b>bold</b>",
           "[link](javascript:alert(1))", "![img](x.png)", "x {: onclick=alert(1) }", "# heading", "- item",
           "1. first", "*em* _em_ __strong__", "| a | b |", "a\n\n<script>x</script>", "&lt;img src=x&gt;",
           "<http://example.com>", "--", "a\\", "\x1b[31mred\x00", "!!! note"]


class _Elements(HTMLParser):
    """The tags, attributes and text of rendered HTML."""

    def __init__(self, html: str):
        super().__init__()
        self.tags, self.attrs, self.text = [], [], ""
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs += attrs

    def handle_data(self, data):
        self.text += data


def _render(source: str) -> _Elements:
    return _Elements(markdown.markdown(source, extensions=["tables", "attr_list"]))


#: Where report.md puts a string: a paragraph, a heading, a list item, a table cell; the elements each makes.
CONTEXTS = [("{}", {"p"}), ("## claim: {}", {"h2"}), ("- {}", {"ul", "li"}),
            ("| a | b |\n|---|---|\n| {} | z |", {"table", "thead", "tbody", "tr", "th", "td"})]


@pytest.mark.parametrize("text", HOSTILE)
@pytest.mark.parametrize("context, elements", CONTEXTS)
def test_escaped_text_opens_no_element_and_reads_as_itself(text, context, elements):
    page = _render(context.format(md_text(text)))
    assert set(page.tags) <= elements and page.attrs == []
    assert visible_controls(" ".join(text.split())) in page.text


def test_unescaped_text_would_open_elements():
    """The negative control: the same strings raw make an <img>, a <script>, a link and an attribute."""
    page = _render("\n\n".join(context.format(text) for text in HOSTILE for context, _ in CONTEXTS[:2]))
    assert {"img", "script", "a"} <= set(page.tags) and ("onclick", "alert(1)") in page.attrs


@pytest.mark.parametrize("text", HOSTILE + ["`", "a`", "`a", "x ` y `` z ``` w"])
def test_a_code_span_holds_any_text_backticks_included(text):
    page = _render(f"| a |\n|---|\n| x {md_code(text)} y |")
    assert page.tags.count("code") == 1 and set(page.tags) <= {"table", "thead", "tbody", "tr", "th", "td", "code"}
    assert page.attrs == [] and visible_controls(text).strip(" ") in page.text


def test_a_backtick_closes_a_plain_code_span_early():
    """The negative control: a run directory's name in a single-backtick span, as report.md had it, lets the
    rest of the name out as HTML."""
    page = _render("Source: `runs/a` <img src=x onerror=alert(1)>`: cell")
    assert "img" in page.tags and ("onerror", "alert(1)") in page.attrs
    page = _render(f"Source: {md_code('runs/a` <img src=x onerror=alert(1)>')}: cell")
    assert page.tags == ["p", "code"] and page.attrs == []


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(list("ab1 _*`<>&[](){}|#+-=!:.\\\n~^$'\"") + ["\x00", "σ", "é", "<img ", "&lt;"]),
                max_size=16).map("".join))
def test_no_string_opens_an_element_in_any_context(text):
    for context, elements in CONTEXTS:
        page = _render(context.format(md_text(text)))
        assert set(page.tags) <= elements and page.attrs == [], (text, context)
        assert visible_controls(" ".join(text.split())) in page.text
    code = _render(f"x {md_code(text)} y")
    assert code.tags == ["p", "code"] and code.attrs == []
    # Python-Markdown writes "&#1" in a code span as "&#1;": the text is compared without semicolons
    assert visible_controls(text).strip(" ").replace(";", "") in code.text.replace(";", "")


def test_a_figure_path_in_markdown_is_percent_encoded_and_kept_inside_the_report():
    page = _render(f"![fig]({md_link_target('figures/a b).png')})")
    assert page.tags == ["p", "img"] and ("src", "figures/a%20b%29.png") in page.attrs
    assert md_link_target("javascript:alert(1)") == "javascript%3Aalert%281%29"
    assert [inside_directory(p) for p in ("figures/a.png", "a.png", "/etc/hostname", "../x.png", "a/../../x.png",
                                          "C:/x.png", "a\nb.png", "", None)] == [True, True] + [False] * 7


def test_control_characters_are_found_and_shown_as_escapes():
    assert [control_character(s) for s in ("plain/path é", "a\nb", "a\x85b", "a\u2028b", "a\udcffb")] == [
        None, "\n", "\x85", "\u2028", "\udcff"]
    assert visible_controls("a\nb\x00c\x1b\udcff") == "a\\nb\\x00c\\x1b\\udcff"


def test_figure_metadata_from_a_hostile_command_line_is_valid_xml_and_one_line(tmp_path):
    """A command line naming a path with a newline, a NUL, an ESC and a lone surrogate (a name that is not valid
    UTF-8) and an SVG closing tag: the SVG stays well-formed XML holding it as text, the PNG and PDF are written.
    Unescaped, the SVG is not XML and the PNG/PDF writers raise UnicodeEncodeError."""
    import matplotlib.figure

    from rnnaudit.figures.saving import save_figure

    command = "rnnaudit heatmap --out 'a\nb\x00\x1b\udcff</dc:description><script>alert(1)</script>.svg'"
    for suffix in ("svg", "png", "pdf"):
        fig = matplotlib.figure.Figure()
        fig.add_subplot().plot([0, 1])
        save_figure(fig, tmp_path / f"f.{suffix}", provenance={"rnnaudit": "x", "commit": "c", "command": command,
                                                                "seed": "0"})
    root = ET.parse(tmp_path / "f.svg").getroot()
    assert not [e for e in root.iter() if e.tag.endswith("script")]
    (description,) = [e.text for e in root.iter() if e.tag.endswith("description")]
    assert description == metadata_text(command) and "\n" not in description and "</dc:description>" in description
    from PIL import Image

    assert Image.open(tmp_path / "f.png").text["command"] == metadata_text(command)


def test_a_title_naming_a_path_with_dollars_is_drawn_as_text(tmp_path):
    r"""A run directory named ``runs/$\x$``: raw, matplotlib parses it as mathtext and fails to draw."""
    import matplotlib.figure

    fig = matplotlib.figure.Figure()
    fig.suptitle(mpl_text(r"runs/$\x$ and $a^{$"))
    fig.savefig(tmp_path / "ok.png")
    raw = matplotlib.figure.Figure()
    raw.suptitle(r"runs/$\x$")
    with pytest.raises(ValueError):
        raw.savefig(tmp_path / "raw.png")
