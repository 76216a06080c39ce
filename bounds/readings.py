"""Helpers for the readings of a claim (:class:`~rnnaudit.bounds.core.Reading`, docs/verdicts.md)."""

from __future__ import annotations

from typing import Any, Callable

__all__ = ["select_parts"]


def select_parts(evaluate: Callable[[Any], dict], keep: Callable[[str], bool]) -> Callable[[Any], dict]:
    """``evaluate`` restricted to the parts whose name ``keep`` accepts: a claim whose evaluation measures several
    readings at once gives its printed form and each :class:`Reading` their own parts.

    Raises (when called):
        ValueError: no part of the case's evaluation is kept (a reading with nothing to measure).
    """
    def selected(case):
        parts = {k: v for k, v in evaluate(case).items() if keep(k)}
        if not parts:
            raise ValueError("select_parts: no part of the evaluation is kept")
        return parts
    return selected
