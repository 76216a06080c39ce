"""What a claim is: its record, its assumptions, the tolerances they allow, and the ratio rule.

A claim (:class:`Claim`) says only what is particular to it: its statement and source, its
assumptions as named predicates, how to measure the bounded quantity and evaluate the bound,
and which family of cases it is checked on (:class:`CaseSpace`: how a case is drawn, which of
its tensors the adversarial search may move, how it is projected back onto the assumptions, at
which sizes). :mod:`rnnaudit.bounds.search` does the rest.

Identities (a closed-form gradient against autograd, a parameter-count formula, a constructive
theorem's reconstruction) fit the same mould: measured = the error, bound = the stated
tolerance, so ratio > 1 means the identity fails. When a statement is wrong and a corrected form
suggests itself, the corrected form is a second claim with id ``<id>.corrected`` in the same
file, checked the same way, and the original's ``explanation`` points to it.

This module is the bottom of :mod:`rnnaudit.bounds`: it imports nothing else of the package.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
from dataclasses import dataclass
from typing import Any, Callable

import torch
from torch import Tensor

__all__ = ["Assumption", "CaseSpace", "NotApplicable", "Claim", "Profile", "PROFILES", "VERDICTS",
           "Tolerances", "FLOAT64_CASES", "FLOAT32_TRAINED", "tolerances", "assumption_tolerances", "within",
           "nothing_free", "no_projection", "safe_ratio", "worst_pair", "DEFAULT_TOLERANCE", "Supremum",
           "ExactVerdict", "Statement", "Reading", "Finding", "FAILING", "FINDING_VERDICTS"]

#: The verdicts of ``check`` about a paper's claim (docs/verdicts.md). ``false``: the statement as printed
#: fails and no reading the paper's text supports holds; ``misprinted``: it fails as printed but a supported
#: reading (:class:`Reading`) holds; ``vacuous``: holds, but the bound exceeds every possible value;
#: ``inconclusive``: no case could be measured.
VERDICTS = ("holds", "false", "misprinted", "vacuous", "inconclusive")

#: The verdicts of a statement that fails as printed (a counterexample is saved for each).
FAILING = ("false", "misprinted")

#: What a statement-index entry can record about the paper (:class:`Finding`).
FINDING_VERDICTS = FAILING

#: Relative slack before a ratio counts as a violation. Every measured quantity here is a
#: float64 computation of O(T·h) operations with T·h ≤ 10⁶ in the shipped profiles, so its
#: rounding error is below T·h·2⁻⁵³ ≈ 1e-10 relative; 1e-9 leaves a 10× margin and is still
#: a million times smaller than any violation worth reporting.
DEFAULT_TOLERANCE = 1e-9


# ------------------------------------------------------------------------------------ tolerances
@dataclass(frozen=True)
class Tolerances:
    """How much slack the assumption predicates allow; it depends on where the parameters come from.

    Attributes:
        rtol: relative slack of a predicate ``a ≤ b`` between quantities that a sampler or a
            projection sets exactly (a case lands on its constraint up to a few roundings).
        rtol_computed: relative slack where the compared quantity comes out of a forward
            computation whose last step cancels (e.g. 1 − σ(z) for a gate projected to within ε
            of 1: the relative error of 1 − σ is u/ε).
        orthogonality: ‖UᵀU − I‖₂ below which U counts as orthogonal.
    """

    rtol: float
    rtol_computed: float
    orthogonality: float


#: Cases drawn and projected by the checks, in float64 (u = 1.1e-16). ``rtol``: a projection
#: lands on its constraint to a few ulps, 1e-12 is ~10⁴ ulps. ``rtol_computed``: with ε ≥ 1e-3
#: the cancellation in 1 − σ(z) loses up to 1e3 ulps relative, and the gates pass through two
#: more products; 1e-9 covers that with a 100× margin. ``orthogonality``: the maps φ and the
#: Cayley transforms reach ≈ 1e-15 in float64; 1e-10 leaves room for h up to 10⁴.
FLOAT64_CASES = Tolerances(rtol=1e-12, rtol_computed=1e-9, orthogonality=1e-10)

#: Parameters trained in float32 (u = 6e-8) and audited in float64: a constraint the cell
#: enforces in float32 (β clipped to 1 − 2α, U = φ(Θ)) holds only to float32 rounding. ``rtol``
#: 1e-6 is 16 float32 ulps (a sigmoid, a product and a difference); ``rtol_computed`` 1e-4 is the
#: same behind the 1/ε ≤ 1e3 cancellation; ``orthogonality`` 1e-5 is ≈ 100 float32 ulps of
#: accumulated rounding, far below any loss of orthogonality that would change a theorem's constants.
FLOAT32_TRAINED = Tolerances(rtol=1e-6, rtol_computed=1e-4, orthogonality=1e-5)

_ACTIVE: contextvars.ContextVar[Tolerances] = contextvars.ContextVar("rnnaudit_tolerances", default=FLOAT64_CASES)


def assumption_tolerances() -> Tolerances:
    """The :class:`Tolerances` the assumption predicates use now (:data:`FLOAT64_CASES` unless
    inside :func:`tolerances`)."""
    return _ACTIVE.get()


@contextlib.contextmanager
def tolerances(tol: Tolerances):
    """Evaluate assumption predicates with ``tol`` inside the ``with`` block, e.g. the audit of a
    model trained in float32 uses :data:`FLOAT32_TRAINED`. Thread- and task-local."""
    token = _ACTIVE.set(tol)
    try:
        yield tol
    finally:
        _ACTIVE.reset(token)


def within(value: float, limit: float) -> bool:
    """``value ≤ limit`` up to the active relative slack (:func:`assumption_tolerances`)."""
    return value <= limit * (1 + assumption_tolerances().rtol)


# ------------------------------------------------------------------------------------ the record
@dataclass(frozen=True)
class Assumption:
    """A named, checkable hypothesis of a claim.

    Attributes:
        name: the hypothesis as the paper writes it, e.g. ``"β ≤ 1 − α"``.
        check: case → (holds, detail); ``detail`` shows the measured value. Predicates that
            compare floating-point quantities take their slack from :func:`assumption_tolerances`.
        recorded: the attributes of the case the predicate reads, when they are all scalars a
            training trajectory records under the same names (e.g. ``("alpha", "beta")``): the
            audit then evaluates the predicate at every trajectory record, on an object that has
            just those attributes. Empty for predicates that need the parameters themselves.
    """

    name: str
    check: Callable[[Any], tuple[bool, str]]
    recorded: tuple[str, ...] = ()


def nothing_free(case) -> list[Tensor]:
    """Default ``CaseSpace.free``: the assumptions leave nothing for the ascent to move."""
    return []


def no_projection(case) -> None:
    """Default ``CaseSpace.project``: nothing constrains the free tensors."""


@dataclass(frozen=True)
class CaseSpace:
    """The family of cases a claim is checked on: the plumbing several claims of a paper share.

    Attributes:
        case_type: the case class: a dataclass whose fields are tensors, modules with a
            ``config()`` (the cells), plain values or None (saved and reloaded generically by
            :mod:`rnnaudit.bounds.cases`, unless the class defines its own ``state()`` and
            ``from_state(state, device, dtype)``), with ``size() → (h, T)``.
        sample: ``(generator, h, T, device, dtype) → case`` drawing a case that satisfies the
            assumptions.
        sizes: profile name → list of (h, T) the cases are drawn at.
        free: ``case → list of leaf tensors`` the ascent may move; by default none (random
            cases only, as for identities).
        project: ``case → None``, moves the free tensors back onto the assumptions in place; by
            default nothing (the free tensors are unconstrained).
        starts: optional ``(h, T, device, dtype) → {name: case}`` (or a list of cases, unnamed): structured
            cases (saturated gates, aligned singular vectors, Hadamard, flat rank-one and extreme
            constructions, hypotheses on their boundary) measured at every size of the profile before the
            random ones, and polished by the ascent like the worst random cases. They carry the
            constructions that reach a claim's known supremum, which random draws rarely find; results.json
            names the one that found a worst case (``structured:<name>``).
        from_model: ``ModelView → list of cases`` (:class:`rnnaudit.bounds.on_model.ModelView`):
            a trained model as cases of this family, one per input sequence, so the audit can
            evaluate the claims' assumptions and bounds on it; raises :class:`NotApplicable`
            (with the reason) for a model of another architecture. None: the family's claims are
            not statements about a model's parameters (counts, identities, random walks).
    """

    case_type: type
    sample: Callable[..., Any]
    sizes: dict[str, list[tuple[int, int]]]
    free: Callable[[Any], list[Tensor]] = nothing_free
    project: Callable[[Any], None] = no_projection
    starts: Callable[..., list] | None = None
    from_model: Callable[[Any], list] | None = None


class NotApplicable(ValueError):
    """A claim is not about this model; the message says why (the architecture or readout it needs)."""


@dataclass(frozen=True)
class Supremum:
    """The supremum of a claim's ratio measured/bound over its assumptions, where it is known.

    Attributes:
        value: the supremum: a number, or ``(h, T) → number`` when it depends on the size.
        derivation: why (the argument that caps the ratio and the construction that reaches it).
        at: the (h, T) at which a test requires the quick search to reach 99 % of it.
        part: the part of the claim's evaluation the supremum is about (None: the case's ratio,
            the largest over the parts).
    """

    value: float | Callable[[int, int], float]
    derivation: str
    at: tuple[int, int]
    part: str | None = None

    def at_size(self, h: int, T: int) -> float:
        """The supremum at width h and length T."""
        return float(self.value(h, T)) if callable(self.value) else float(self.value)


@dataclass(frozen=True)
class ExactVerdict:
    """A verdict reached in exact arithmetic (sympy): a symbolic proof or an exact counterexample.

    Attributes:
        verdict: ``"proved"`` or ``"violated"``.
        detail: what was proved, or the exact counterexample with both sides of the statement.
    """

    verdict: str
    detail: str

    def __post_init__(self):
        if self.verdict not in ("proved", "violated"):
            raise ValueError(f"verdict must be 'proved' or 'violated', got {self.verdict!r}")


@dataclass(frozen=True)
class Finding:
    """What rnnaudit found wrong in a statement of the paper, recorded in its index entry.

    Attributes:
        verdict: ``"false"`` or ``"misprinted"`` (:data:`FINDING_VERDICTS`): the verdict that the
            claim named by ``claim`` must show, so the finding is never only words in a reason.
        claim: the id of the claim whose verdict shows it (one of the entry's ``claims``).
        summary: the finding in one line.
    """

    verdict: str
    claim: str
    summary: str

    def __post_init__(self):
        if self.verdict not in FINDING_VERDICTS:
            raise ValueError(f"Finding.verdict must be one of {FINDING_VERDICTS}, got {self.verdict!r}")
        if not self.claim or not self.summary:
            raise ValueError("Finding needs the claim whose verdict shows it and a summary")


@dataclass(frozen=True)
class Statement:
    """One entry of a paper's statement index: a labelled statement and how rnnaudit covers it.

    Attributes:
        label: as printed in the paper: ``"Theorem 3"``, ``"eq. (12)"``, ``"Table 2, row 3"``,
            ``"Sec. 5, second paragraph"``.
        claims: ids of the claims that check it (empty when it is not checkable).
        reason: why it is not checkable (e.g. "needs the paper's dataset"), or a note on how the
            claims cover it.
        finding: what rnnaudit found wrong in the statement (:class:`Finding`), or None. A test
            requires its claim to show the finding's verdict.

    Raises:
        ValueError: no claims and no reason; a finding whose claim is not among ``claims``.
    """

    label: str
    claims: tuple[str, ...] = ()
    reason: str = ""
    finding: Finding | None = None

    def __post_init__(self):
        if not self.claims and not self.reason:
            raise ValueError(f"{self.label}: a statement no claim checks needs the reason why it is not checkable")
        if self.finding is not None and self.finding.claim not in self.claims:
            raise ValueError(f"{self.label}: the finding's claim {self.finding.claim!r} is not among its claims "
                             f"{self.claims}")

    @property
    def status(self) -> str:
        """``"checked"`` when some claim checks it, else ``"not checkable"``."""
        return "checked" if self.claims else "not checkable"


@dataclass(frozen=True)
class Reading:
    """Another fair reading of a claim's printed text, checked beside the printed form.

    A reading interprets the same printed words (a symbol read as the only one the text defines, the
    quantifier the proof uses, the activation every experiment uses); it is not a correction
    rnnaudit proposes (those are separate ``.corrected`` claims). The claim's headline verdict is
    ``holds`` when the printed form holds, ``misprinted`` when it fails but some reading holds,
    ``false`` when none does.

    Attributes:
        name: short label shown in the report, e.g. ``"h̄ read as h"``.
        statement: the statement under this reading.
        support: where the paper's own text supports it (section, equation, proof step).
        evaluate: ``case → {part: (measured, bound)}`` as :attr:`Claim.evaluate`.
        cases: the :class:`CaseSpace` of this reading; None: the claim's own.
        exact: optional ``() → ExactVerdict`` of this reading.
        assumptions: this reading's hypotheses; None: the claim's own.
    """

    name: str
    statement: str
    support: str
    evaluate: Callable[[Any], dict[str, tuple[Tensor, Tensor]]]
    cases: CaseSpace | None = None
    exact: Callable[[], ExactVerdict] | None = None
    assumptions: tuple[Assumption, ...] | None = None

    def __post_init__(self):
        if not self.support:
            raise ValueError(f"reading {self.name!r}: a reading needs the paper's text that supports it")


@dataclass(frozen=True)
class Claim:
    """One stated result of a paper, as an executable check.

    Attributes:
        id: stable ``<paper>.<label>``, e.g. ``sgornn.theorem2``; the file that defines it is
            ``bounds/<paper>/<label>.py`` (a ``.corrected`` form sits in its original's file).
        source: paper file and equation/theorem, e.g. ``sgornn.md, Theorem 2, eq. 7–8``.
        statement: the inequality as the paper states it.
        assumptions: the claim's hypotheses as predicates.
        measure: how the left side is measured (which probe).
        bound: the right side, as in the paper.
        evaluate: ``case → {part: (measured, bound)}``, 0-d tensors; the case's ratio is the
            largest measured/bound over the parts. Must be differentiable in the tensors
            ``cases.free`` returns for the ascent to work. An identity's part is
            ``(error, tolerance, reference)``: ``error`` = ‖printed formula − truth‖, ``reference``
            = ‖truth‖, so the result can report the relative error of the formula, not only
            error/tolerance (which says only whether it fails).
        cases: the :class:`CaseSpace` the claim is checked on.
        explanation: when violated, which step or assumption of the paper breaks.
        notes: anything a reader of the verdict should know (tightness, readings chosen).
        vacuous: optional ``case → bool``, True when the bound exceeds every value the
            measured quantity can take for that case.
        tolerance: relative slack on ratio 1, see :data:`DEFAULT_TOLERANCE`.
        supremum: the supremum of measured/bound over the assumptions where it is known in closed
            form or by a construction (:class:`Supremum`), so the report can say how close the
            search came and a test can require it to come within 1 %.
        exact: optional ``() → ExactVerdict``: a proof or an exact (rational or symbolic)
            counterexample by sympy, for algebraic and combinatorial claims. An exact ``violated``
            decides the printed form fails even where floating point cannot (a strict inequality
            attained with equality).
        readings: the other fair readings of the printed text (:class:`Reading`), each checked and
            reported with its own verdict and ratio.
    """

    id: str
    source: str
    statement: str
    assumptions: tuple[Assumption, ...]
    measure: str
    bound: str
    evaluate: Callable[[Any], dict[str, tuple[Tensor, Tensor]]]
    cases: CaseSpace
    explanation: str = ""
    notes: str = ""
    vacuous: Callable[[Any], bool] | None = None
    tolerance: float = DEFAULT_TOLERANCE
    supremum: Supremum | None = None
    exact: Callable[[], ExactVerdict] | None = None
    readings: tuple[Reading, ...] = ()

    @property
    def paper(self) -> str:
        """The paper's file stem, the id's first component (``sgornn`` for ``sgornn.theorem2``)."""
        return self.id.split(".", 1)[0]


@dataclass(frozen=True)
class Profile:
    """How hard the search works.

    Attributes:
        name: ``"quick"`` or ``"full"`` (the key into each claim's ``cases.sizes``).
        n_random: random cases drawn per claim.
        restarts: adversarial ascent starts per claim.
        ascent_steps: projected Adam steps per start.
        lr: Adam learning rate of the ascent.
        cma_evaluations: CMA-ES's evaluations per claim (claims with more than 20 free scalars at the smallest
            size; :mod:`rnnaudit.bounds.global_search`); 0: no CMA-ES.
        global_seconds: wall-clock limit of the global optimiser per claim (differential evolution or CMA-ES), a
            guard against a claim whose evaluations are unexpectedly slow; a run it stops says so in results.json.
    """

    name: str
    n_random: int
    restarts: int
    ascent_steps: int
    lr: float = 0.05
    cma_evaluations: int = 0
    global_seconds: float = 60.0


PROFILES = {
    "quick": Profile("quick", n_random=24, restarts=3, ascent_steps=40, cma_evaluations=60, global_seconds=10.0),
    "full": Profile("full", n_random=200, restarts=10, ascent_steps=200, cma_evaluations=2000,
                    global_seconds=300.0),
}


# ---------------------------------------------------------------------------------------- ratios
def safe_ratio(measured: Tensor, bound: Tensor) -> Tensor:
    """measured/bound elementwise, with m/0 = 0 for m ≤ 0 (the inequality m ≤ 0 holds, e.g. a gradient at
    T = 1 with h_0 = 0, or a lower end σ* − r − σ_min written as a non-positive measurement) and
    m/0 = +inf for m > 0. Differentiable where bound ≠ 0."""
    zero_bound = bound == 0
    safe = torch.where(zero_bound, torch.ones_like(bound), bound)
    ratio = measured / safe
    return torch.where(zero_bound, torch.where(measured <= 0, torch.zeros_like(ratio),
                                               torch.full_like(ratio, math.inf)), ratio)


def worst_pair(measured: Tensor, bound: Tensor) -> tuple[Tensor, Tensor]:
    """The (measured, bound) pair of largest :func:`safe_ratio` among same-shaped tensors (e.g. over
    time steps or pairs (s, t)), as 0-d tensors that stay differentiable for the ascent."""
    m, b = measured.reshape(-1), bound.reshape(-1)
    with torch.no_grad():
        k = int(safe_ratio(m, b).argmax())
    return m[k], b[k]
