"""A claim applied to a given (trained) model: are its assumptions met, and does its bound hold there?

Each claim's :class:`~rnnaudit.bounds.core.CaseSpace` may say how a model becomes one of its cases
(``from_model``). :func:`assess` then evaluates the claim's own assumption predicates on those
cases, with the slack that fits how the parameters were stored (:data:`FLOAT32_TRAINED` for
float32 parameters), and measures the bound on them. A claim whose cases a model cannot be (a
parameter count, a random-walk law, another architecture) is reported as not applicable, with the
reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch
from torch import Tensor

from rnnaudit.bounds.core import FLOAT32_TRAINED, FLOAT64_CASES, Claim, NotApplicable, Tolerances, tolerances
from rnnaudit.bounds.results import json_number
from rnnaudit.bounds.search import evaluate_cases

__all__ = ["ModelView", "NotApplicable", "ClaimOnModel", "assess", "tolerances_for"]


@dataclass
class ModelView:
    """A model as the claims see it.

    Attributes:
        cell: the recurrent cell (an :class:`rnnaudit.cells.base.RecurrentCell`), in the dtype it
            was trained in; ``from_model`` functions copy it to float64 before measuring.
        inputs: input sequences to measure the bounds on, (m, T, n), any floating dtype.
        readout: the linear readout's weight (k, h) when the model has one (a single row is the
            single-neuron output f = σ_y(vᵀh_T) of the gradient and capacity theorems), else None.
        T: the sequence length the model is meant for (a run's T; eq. 4-type conditions depend on it).
        trained_dtype: the dtype the parameters were trained in, when the cell is a float64 copy
            (default: the cell's own parameter dtype); it sets the assumptions' slack.
    """

    cell: torch.nn.Module
    inputs: Tensor
    readout: Tensor | None = None
    T: int | None = None
    trained_dtype: torch.dtype | None = None

    @property
    def parameter_dtype(self) -> torch.dtype:
        """The floating dtype the parameters were trained in (:attr:`trained_dtype`, else the cell's)."""
        if self.trained_dtype is not None:
            return self.trained_dtype
        return next((p.dtype for p in self.cell.parameters() if p.is_floating_point()), torch.float64)

    def readout_row(self) -> Tensor:
        """The single readout row v (h,).

        Raises:
            NotApplicable: no readout, or more than one output.
        """
        if self.readout is None or self.readout.dim() != 2 or self.readout.shape[0] != 1:
            shape = None if self.readout is None else tuple(self.readout.shape)
            raise NotApplicable(f"the statement is about a single-neuron output f = σ_y(vᵀh_T); the model's readout "
                                f"is {shape}")
        return self.readout[0]


def tolerances_for(dtype: torch.dtype) -> Tolerances:
    """The assumption slack for parameters stored in ``dtype``: float64 parameters are judged like
    the checks' own cases, anything narrower like float32 training (:data:`FLOAT32_TRAINED`)."""
    return FLOAT64_CASES if dtype == torch.float64 else FLOAT32_TRAINED


@dataclass
class ClaimOnModel:
    """What :func:`assess` found for one claim.

    Attributes:
        id: the claim id. applies: whether the model is one of the claim's cases.
        reason: why not, when ``applies`` is False; when it applies but no case can be built from
            the parameters alone (statements about training updates), what is judged instead.
        assumptions: per assumption, ``{"name", "holds", "detail"}`` on the first case (the
            parameters are the same in every case; ``holds`` is False if any case fails it).
        verdict: of the bound measured on the model's cases (``holds``/``violated``/...), None
            when not applicable.
        worst_ratio: largest measured/bound over the cases.
    """

    id: str
    applies: bool
    reason: str | None = None
    assumptions: list[dict] = field(default_factory=list)
    verdict: str | None = None
    worst_ratio: float | None = None

    @property
    def assumptions_hold(self) -> bool:
        """Every assumption holds on the model."""
        return all(a["holds"] for a in self.assumptions)

    @property
    def reading(self) -> str:
        """What the result means for this model, in one of four sentences about the model (never the
        verdict words about papers): a bound measured where an assumption fails is no guarantee the
        theorem gives, so it is never read as holding; any measured verdict other than holds, vacuous and
        inconclusive is the bound exceeded on this model."""
        if not self.applies:
            return f"not applicable: {self.reason}" if self.reason else "not applicable"
        if not self.assumptions:
            return "assumptions are judged on the training records (the statement concerns training updates)"
        if not self.assumptions_hold:
            return "an assumption fails, so the theorem says nothing here"
        if self.verdict is None:
            return "assumptions hold; the bound was not measured"
        if self.verdict in ("holds", "vacuous"):
            return "assumptions hold and the bound holds on this model"
        if self.verdict == "inconclusive":
            return "assumptions hold; the measurement of the bound is inconclusive on this model"
        ratio = "" if self.worst_ratio is None else f" (ratio {self.worst_ratio:.4g})"
        return f"assumptions hold and the bound is exceeded on this model{ratio}"

    @property
    def exceeded(self) -> bool:
        """Assumptions hold and the measured bound is exceeded (a verdict other than holds, vacuous,
        inconclusive or None)."""
        return (self.applies and bool(self.assumptions) and self.assumptions_hold
                and self.verdict not in (None, "holds", "vacuous", "inconclusive"))

    def to_json(self) -> dict:
        return {"id": self.id, "applies": self.applies, "reason": self.reason, "reading": self.reading,
                "assumptions": self.assumptions, "assumptions_hold": self.assumptions_hold if self.applies else None,
                "verdict": self.verdict, "worst_ratio": json_number(self.worst_ratio), "exceeded": self.exceeded}


def _assumption_over_cases(checks: list[tuple[str, bool, str]]) -> dict:
    """One assumption over the model's cases (one per input sequence): it holds only if it holds on every case,
    and the detail shown is that of the first case where it fails, else of the first case; where the values differ
    between sequences the detail says which sequence they are from, so a value from one sequence is never read as
    the value over all the data."""
    name = checks[0][0]
    failing = next((k for k, c in enumerate(checks) if not c[1]), None)
    k = 0 if failing is None else failing
    detail = checks[k][2]
    if len({c[2] for c in checks}) > 1:
        detail += f" (sequence {k + 1} of {len(checks)}{'' if failing is None else ', the first where it fails'}; " \
                  "the values differ between sequences)"
    return {"name": name, "holds": failing is None, "detail": detail}


def assess(claim: Claim, view: ModelView, *, measure_bound: bool = True) -> ClaimOnModel:
    """Evaluate ``claim``'s assumptions and, with ``measure_bound``, its bound on the model ``view``
    describes.

    Returns:
        :class:`ClaimOnModel`; ``applies=False`` with the reason when the claim's cases cannot be
        built from this model.
    """
    build = claim.cases.from_model
    if build is None:
        return ClaimOnModel(claim.id, False, f"{claim.id} is checked on its own constructed cases only: an identity, "
                            "a count or a statement about a task, or a bound whose terms need more than one model's "
                            "parameters (data, margins, a search over cases)")
    try:
        cases = build(view)
    except NotApplicable as why:
        return ClaimOnModel(claim.id, False, str(why))
    if not cases:  # of the claim's architecture, but its statement is about training updates
        return ClaimOnModel(claim.id, True, "the statement concerns training updates; its recorded assumptions are "
                                            "judged on a run's trajectory")
    with tolerances(tolerances_for(view.parameter_dtype)):
        checks = [[(a.name, *a.check(case)) for a in claim.assumptions] for case in cases]
        result = evaluate_cases(claim, cases) if measure_bound else None
    assumptions = [_assumption_over_cases([c[i] for c in checks]) for i in range(len(checks[0]))]
    if result is None:
        return ClaimOnModel(claim.id, True, None, assumptions)
    # the audit of a model keeps its own word for a bound that fails on the model's cases
    verdict = "violated" if result.fails else result.verdict
    return ClaimOnModel(claim.id, True, None, assumptions, verdict, result.worst_ratio)
