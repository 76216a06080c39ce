"""The outcome of a check: one record per measured case, and the claim's result with its
results.json entry."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from typing import Any

from rnnaudit.bounds.core import FAILING, Claim, ExactVerdict, Reading

__all__ = ["CaseRecord", "ClaimResult", "ReadingResult", "json_number", "RESULTS_FORMAT_VERSION"]

#: ``format_version`` of results.json. 2: verdicts ``false``/``misprinted`` replace ``violated``, and each claim
#: carries ``readings`` (docs/verdicts.md). Documents without the key are version 1.
RESULTS_FORMAT_VERSION = 2


@dataclass
class CaseRecord:
    """One measured case: its size, ratio, per-part ratios and failed assumptions.

    Attributes:
        h, T: the case's size. ratio: its largest measured/bound. parts: measured/bound per part.
        failed_assumptions: the assumptions it fails, with their measured values.
        origin: ``"random"``, ``"structured"`` (a :attr:`CaseSpace.starts` construction),
            ``"ascent"``, ``"global"`` (the global optimiser of :mod:`rnnaudit.bounds.global_search`) or
            ``"given"`` (fed by hand).
        vacuous: the claim's vacuity test said so for this case.
        errors: for identity parts, ``{part: (absolute error, ‖truth‖)}``.
        case: the case itself, kept only where a counterexample may need it.
        method: the search method that found it: ``"random"``, ``"structured:<name>"`` (or ``"structured"`` for
            an unnamed start), ``"ascent"``, ``"differential_evolution"``, ``"cma"`` or ``"given"``; empty:
            the origin.
        not_a_number: the statement's quantity came out NaN on finite inputs that satisfy the assumptions: the
            case is a violation, recorded with ratio +inf (so it is the worst) and reported as "NaN".
    """

    h: int
    T: int
    ratio: float
    parts: dict[str, float]
    failed_assumptions: list[str]
    origin: str
    vacuous: bool = False
    errors: dict[str, tuple[float, float]] = field(default_factory=dict)
    case: Any = field(default=None, repr=False)
    method: str = ""
    not_a_number: bool = False

    @property
    def ratio_text(self) -> str:
        """The ratio as reports print it: ``"NaN"`` for a NaN measurement (:attr:`not_a_number`)."""
        return "NaN" if self.not_a_number else f"{self.ratio:.6g}"

    @property
    def found_by(self) -> str:
        """:attr:`method`, or :attr:`origin` where no method was recorded."""
        return self.method or self.origin

    @property
    def relative_error(self) -> float | None:
        """Largest ‖formula − truth‖/‖truth‖ over the identity parts (inf where the truth is 0 and
        the formula is not), or None when the claim has no identity part."""
        if not self.errors:
            return None
        return max(a / r if r > 0 else (0.0 if a == 0 else math.inf) for a, r in self.errors.values())


@dataclass
class ReadingResult:
    """The outcome of checking one :class:`~rnnaudit.bounds.core.Reading` of a claim.

    Attributes:
        reading: the reading. verdict: ``holds``, ``false``, ``vacuous`` or ``inconclusive``.
        worst_ratio: largest measured/bound under this reading (None: nothing measured).
        exact: the reading's own exact verdict, if it has one. n_cases: cases measured.
    """

    reading: Reading
    verdict: str
    worst_ratio: float | None
    exact: ExactVerdict | None = None
    n_cases: int = 0

    def to_json(self) -> dict:
        return {"name": self.reading.name, "statement": self.reading.statement, "support": self.reading.support,
                "verdict": self.verdict, "worst_ratio": json_number(self.worst_ratio), "n_cases": self.n_cases,
                "exact": None if self.exact is None else {"verdict": self.exact.verdict, "detail": self.exact.detail}}


@dataclass
class ClaimResult:
    """The outcome of checking one claim; :meth:`to_json` gives the results.json entry."""

    claim: Claim
    verdict: str
    records: list[CaseRecord]
    counterexample: str | None = None
    counterexample_case: CaseRecord | None = None
    errors: list[str] = field(default_factory=list)
    worst_counterexample: str | None = None
    worst_counterexample_case: CaseRecord | None = None
    exact: ExactVerdict | None = None
    #: results.json's ``search`` entry (:func:`rnnaudit.bounds.global_search.method_summary`): the best ratio
    #: per part found by each search method; None for results not made by ``check_claim``.
    search: dict | None = None
    readings: list[ReadingResult] = field(default_factory=list)

    @property
    def fails(self) -> bool:
        """Whether the statement as printed fails (verdict ``false`` or ``misprinted``)."""
        return self.verdict in FAILING

    @property
    def worst_record(self) -> CaseRecord | None:
        """The measured case of largest ratio."""
        measured = [r for r in self.records if not math.isnan(r.ratio)]
        return max(measured, key=lambda r: r.ratio) if measured else None

    @property
    def ratios(self) -> list[float]:
        return [r.ratio for r in self.records if not math.isnan(r.ratio)]

    @property
    def worst_ratio(self) -> float | None:
        return max(self.ratios) if self.ratios else None

    @property
    def median_ratio(self) -> float | None:
        return statistics.median(self.ratios) if self.ratios else None

    def tightness(self) -> dict[str, dict[str, float]]:
        """Worst ratio per T and per h: how tightness moves with sequence length and width."""
        by_T: dict[str, float] = {}
        by_h: dict[str, float] = {}
        for r in self.records:
            if not math.isnan(r.ratio):
                by_T[str(r.T)] = max(by_T.get(str(r.T), 0.0), r.ratio)
                by_h[str(r.h)] = max(by_h.get(str(r.h), 0.0), r.ratio)
        key = lambda kv: int(kv[0])  # noqa: E731
        return {"by_T": {k: json_number(v) for k, v in sorted(by_T.items(), key=key)},
                "by_h": {k: json_number(v) for k, v in sorted(by_h.items(), key=key)}}

    def worst_parts(self) -> dict[str, float]:
        """Worst ratio of each part (e.g. eq. 7 and eq. 8 of one theorem) over all cases."""
        return {k: v for k, (v, _) in self._worst_parts_found().items()}

    def worst_parts_found_by(self) -> dict[str, str | None]:
        """The search method (:attr:`CaseRecord.found_by`) of the first case that reached each part's worst
        ratio; None for a part whose worst ratio is 0 (no case above it)."""
        return {k: m for k, (_, m) in self._worst_parts_found().items()}

    def _worst_parts_found(self) -> dict[str, tuple[float, str | None]]:
        out: dict[str, tuple[float, str | None]] = {}
        for r in self.records:
            for k, v in r.parts.items():
                if not math.isnan(v) and v > out.get(k, (0.0, None))[0]:
                    out[k] = (v, r.found_by)
                elif k not in out and not math.isnan(v):
                    out[k] = (0.0, None)
        return out

    @property
    def worst_found_by(self) -> str | None:
        """The search method of the first case of largest ratio (None when nothing was measured)."""
        measured = [r for r in self.records if not math.isnan(r.ratio)]
        if not measured:
            return None
        top = max(r.ratio for r in measured)
        return next(r.found_by for r in measured if r.ratio == top)

    def notes_text(self) -> str:
        parts = []
        if self.fails and self.claim.explanation:
            parts.append(self.claim.explanation)
        if self.worst_counterexample_case is not None:
            ce = self.worst_counterexample_case
            parts.append(f"Worst counterexample: h = {ce.h}, T = {ce.T}, ratio {ce.ratio_text} ({ce.found_by}).")
        if self.counterexample_case is not None:
            ce = self.counterexample_case
            parts.append(f"Smallest counterexample: h = {ce.h}, T = {ce.T}, ratio {ce.ratio_text} ({ce.found_by}).")
        if self.claim.notes:
            parts.append(self.claim.notes)
        parts.extend(self.errors)
        return " ".join(parts)

    def to_json(self) -> dict:
        c = self.claim
        return {
            "id": c.id, "paper": c.paper, "source": c.source, "statement": c.statement,
            "assumptions": [a.name for a in c.assumptions], "verdict": self.verdict,
            "worst_ratio": self._worst_ratio_json(), "n_cases": len(self.ratios),
            "counterexample": self.counterexample, "notes": self.notes_text(),
            "median_ratio": json_number(self.median_ratio), "measure": c.measure, "bound": c.bound,
            "worst_parts": {k: json_number(v) for k, v in self.worst_parts().items()}, "tightness": self.tightness(),
            "worst_found_by": self.worst_found_by, "worst_parts_found_by": self.worst_parts_found_by(),
            "worst_counterexample": self.worst_counterexample,
            "readings": [r.to_json() for r in self.readings], **self._evidence(),
            "search": self.search if self.search is not None else {"methods": None},
        }

    def _worst_ratio_json(self):
        """results.json's worst_ratio: "NaN" when the worst case is a NaN measurement (:attr:`CaseRecord.not_a_number`)."""
        worst = self.worst_record
        return "NaN" if worst is not None and worst.not_a_number else json_number(self.worst_ratio)

    def _evidence(self) -> dict:
        """Relative error of an identity on its worst case, the exact verdict, and the known supremum
        with how much of it the search reached."""
        worst = self.worst_record
        out: dict = {"relative_error": None, "absolute_error": None, "exact": None, "supremum": None,
                     "supremum_reached": None}
        if worst is not None and worst.errors:
            rel = {k: (a / r if r > 0 else (0.0 if a == 0 else math.inf)) for k, (a, r) in worst.errors.items()}
            out["relative_errors"] = {k: json_number(v) for k, v in rel.items()}
            # the scalar is the failing identity's error when an identity part sets the worst ratio; when the
            # claim holds, the least accurate identity; a claim violated through a bound part has none
            part = max(worst.parts, key=lambda k: worst.parts[k])
            key = part if part in rel else (max(rel, key=rel.get) if not self.fails else None)
            if key is not None:
                out["relative_error"], out["absolute_error"] = json_number(rel[key]), worst.errors[key][0]
        if self.exact is not None:
            out["exact"] = {"verdict": self.exact.verdict, "detail": self.exact.detail}
        sup = self.claim.supremum
        if sup is not None:
            # a size-dependent supremum is compared case by case, at each case's own (h, T)
            ratio = (lambda r: r.parts.get(sup.part, math.nan)) if sup.part else (lambda r: r.ratio)
            reached = [(ratio(r) / s, s) for r in self.records if not math.isnan(ratio(r))
                       and (s := sup.at_size(r.h, r.T)) > 0]
            fraction, value = max(reached) if reached else (None, sup.at_size(*sup.at))
            out["supremum"], out["supremum_reached"] = value, json_number(fraction)
        return out


def json_number(x: float | None):
    """JSON has no infinity: an infinite ratio (positive measured value over a zero bound) is
    written as the string "inf"."""
    return "inf" if x is not None and math.isinf(x) else x
