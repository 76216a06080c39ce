"""Terminal output of the command line: colour only on a terminal, and only when NO_COLOR is unset."""

from __future__ import annotations

import os
import sys

__all__ = ["colour_enabled", "verdict"]

#: ANSI codes by verdict: ``false`` bold red, ``misprinted`` yellow-red (a reading holds), ``holds`` green.
_CODES = {"false": "31;1", "misprinted": "31", "holds": "32", "vacuous": "33", "inconclusive": "35"}


def colour_enabled(stream=None) -> bool:
    """Whether to colour ``stream`` (stdout by default): a TTY, NO_COLOR unset (no-color.org), TERM not dumb."""
    stream = sys.stdout if stream is None else stream
    return (hasattr(stream, "isatty") and stream.isatty() and "NO_COLOR" not in os.environ
            and os.environ.get("TERM") != "dumb")


def verdict(text: str, width: int = 0) -> str:
    """``text`` padded to ``width``, coloured by verdict where colour is enabled."""
    padded = f"{text:<{width}}"
    code = _CODES.get(text)
    return f"\033[{code}m{padded}\033[0m" if code and colour_enabled() else padded
