"""The command line's verdict colours follow the vocabulary: false and misprinted apart; violated is gone."""

from rnnaudit.bounds.core import VERDICTS
from rnnaudit.cli import style


def test_every_verdict_has_its_colour_and_false_differs_from_misprinted(monkeypatch):
    monkeypatch.setattr(style, "colour_enabled", lambda stream=None: True)
    coloured = {v: style.verdict(v) for v in VERDICTS}
    assert all(text.startswith("\033[") and v in text for v, text in coloured.items())
    assert coloured["false"] != coloured["misprinted"].replace("misprinted", "false")
    assert style.verdict("violated") == "violated"  # the negative control: not a verdict of check any more


def test_no_colour_off_a_terminal(monkeypatch):
    monkeypatch.setattr(style, "colour_enabled", lambda stream=None: False)
    assert style.verdict("false", 8) == "false   "
