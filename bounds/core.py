"""Shared machinery for claim checks: random cases, adversarial ascent, verdicts, counterexamples.

A claim (:class:`Claim`) says only what is particular to it: its statement and source, its
assumptions as named predicates, how to draw a case that satisfies them, how to measure the
bounded quantity and evaluate the bound, and how to project a case back onto the
assumptions. :func:`check_claim` does the rest, in float64 by default:

1. draws ``n_random`` cases over the claim's (h, T) grid and measures measured/bound;
2. runs projected gradient ascent on log(measured/bound) from ``restarts`` random starts,
   projecting back onto the assumptions after every step, and records every iterate;
3. gives the verdict: ``violated`` if the worst ratio exceeds ``1 + tolerance``,
   ``vacuous`` if the claim's own test says the bound exceeds any possible value in every
   case, ``inconclusive`` if no case could be measured, else ``holds``;
4. saves the smallest violating case (fewest T·h) as a reloadable ``.pt`` file.

Identities (a closed-form gradient against autograd, a parameter-count formula, a constructive
theorem's reconstruction) fit the same mould: measured = the error, bound = the stated
tolerance, so ratio > 1 means the identity fails. When a statement is wrong and a corrected form
suggests itself, the corrected form is a second claim with id ``<id>.corrected``, checked the same
way, and the original's ``explanation`` points to it.

Every recorded case is re-checked against the assumption predicates, so a "violated" verdict
from :func:`check_claim` is always a counterexample *inside* the assumptions. Cases fed by hand
through :func:`evaluate_cases` are measured as given (this is how the tests prove a check can
fail: a case outside the assumptions must come back ``violated``), and their failed
assumptions are listed.
"""

from __future__ import annotations

import math
import statistics
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import torch
from torch import Tensor

__all__ = ["Assumption", "Claim", "Profile", "PROFILES", "CaseRecord", "ClaimResult", "check_claim",
           "evaluate_cases", "measure_case", "nothing_free", "no_projection", "load_params", "save_counterexample", "load_counterexample", "VERDICTS"]

VERDICTS = ("holds", "violated", "vacuous", "inconclusive")

#: Relative slack before a ratio counts as a violation. Every measured quantity here is a
#: float64 computation of O(T·h) operations with T·h ≤ 10⁶ in the shipped profiles, so its
#: rounding error is below T·h·2⁻⁵³ ≈ 1e-10 relative; 1e-9 leaves a 10× margin and is still
#: a million times smaller than any violation worth reporting.
DEFAULT_TOLERANCE = 1e-9


@dataclass(frozen=True)
class Assumption:
    """A named, checkable hypothesis of a claim.

    Attributes:
        name: the hypothesis as the paper writes it, e.g. ``"β ≤ 1 − α"``.
        check: case → (holds, detail); ``detail`` shows the measured value.
    """

    name: str
    check: Callable[[Any], tuple[bool, str]]


@dataclass(frozen=True)
class Profile:
    """How hard :func:`check_claim` searches.

    Attributes:
        name: ``"quick"`` or ``"full"``.
        n_random: random cases drawn per claim.
        restarts: adversarial ascent starts per claim.
        ascent_steps: projected Adam steps per start.
        lr: Adam learning rate of the ascent.
    """

    name: str
    n_random: int
    restarts: int
    ascent_steps: int
    lr: float = 0.05


PROFILES = {
    "quick": Profile("quick", n_random=24, restarts=3, ascent_steps=40),
    "full": Profile("full", n_random=200, restarts=10, ascent_steps=200),
}


def nothing_free(case) -> list[Tensor]:
    """Default ``Claim.free``: the assumptions leave nothing for the ascent to move."""
    return []


def no_projection(case) -> None:
    """Default ``Claim.project``: nothing constrains the free tensors."""


def load_params(module: torch.nn.Module, params: dict, device, dtype) -> None:
    """Load a saved state dict into ``module``, floating tensors cast to ``dtype`` on ``device``
    and integer buffers (e.g. permutations) moved to ``device`` as they are. For the cases'
    ``from_state``."""
    module.load_state_dict({k: v.to(device=device, dtype=dtype) if v.is_floating_point() else v.to(device)
                            for k, v in params.items()})


@dataclass(frozen=True)
class Claim:
    """One stated result of a paper, as an executable check.

    Attributes:
        id: stable ``<paper>.<label>``, e.g. ``sgornn.theorem2``.
        paper: paper file stem, e.g. ``sgornn``.
        source: paper file and equation/theorem, e.g. ``sgornn.md, Theorem 2, eq. 7–8``.
        statement: the inequality as the paper states it.
        measure: how the left side is measured (which probe).
        bound: the right side, as in the paper.
        assumptions: the claim's hypotheses as predicates.
        sample: ``(generator, h, T, device, dtype) → case`` drawing a case that satisfies the
            assumptions.
        evaluate: ``case → {part: (measured, bound)}``, 0-d tensors; the case's ratio is the
            largest measured/bound over the parts. Must be differentiable in the tensors
            ``free`` returns for the ascent to work.
        sizes: profile name → list of (h, T) the cases are drawn at.
        case_type: the case class, with ``state()`` and ``from_state(dict, device, dtype)``
            for saving and reloading counterexamples, and ``size() → (h, T)``.
        free: ``case → list of leaf tensors`` the ascent may move; by default none (random
            cases only, as for identities).
        project: ``case → None``, moves the free tensors back onto the assumptions in place; by
            default nothing (the free tensors are unconstrained).
        explanation: when violated, which step or assumption of the paper breaks.
        notes: anything a reader of the verdict should know (tightness, readings chosen).
        vacuous: optional ``case → bool``, True when the bound exceeds every value the
            measured quantity can take for that case.
        tolerance: relative slack on ratio 1, see :data:`DEFAULT_TOLERANCE`.
    """

    id: str
    paper: str
    source: str
    statement: str
    measure: str
    bound: str
    assumptions: tuple[Assumption, ...]
    sample: Callable[..., Any]
    evaluate: Callable[[Any], dict[str, tuple[Tensor, Tensor]]]
    sizes: dict[str, list[tuple[int, int]]]
    case_type: type
    free: Callable[[Any], list[Tensor]] = nothing_free
    project: Callable[[Any], None] = no_projection
    explanation: str = ""
    notes: str = ""
    vacuous: Callable[[Any], bool] | None = None
    tolerance: float = DEFAULT_TOLERANCE


@dataclass
class CaseRecord:
    """One measured case: its size, ratio, per-part ratios and failed assumptions."""

    h: int
    T: int
    ratio: float
    parts: dict[str, float]
    failed_assumptions: list[str]
    origin: str  # "random", "ascent", or "given"
    vacuous: bool = False
    case: Any = field(default=None, repr=False)


@dataclass
class ClaimResult:
    """The outcome of checking one claim; :meth:`to_json` gives the results.json entry."""

    claim: Claim
    verdict: str
    records: list[CaseRecord]
    counterexample: str | None = None
    counterexample_case: CaseRecord | None = None
    errors: list[str] = field(default_factory=list)

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
        return {"by_T": {k: _json_number(v) for k, v in sorted(by_T.items(), key=key)},
                "by_h": {k: _json_number(v) for k, v in sorted(by_h.items(), key=key)}}

    def worst_parts(self) -> dict[str, float]:
        """Worst ratio of each part (e.g. eq. 7 and eq. 8 of one theorem) over all cases."""
        out: dict[str, float] = {}
        for r in self.records:
            for k, v in r.parts.items():
                if not math.isnan(v):
                    out[k] = max(out.get(k, 0.0), v)
        return out

    def notes_text(self) -> str:
        parts = []
        if self.verdict == "violated" and self.claim.explanation:
            parts.append(self.claim.explanation)
        if self.counterexample_case is not None:
            ce = self.counterexample_case
            parts.append(f"Smallest counterexample: h = {ce.h}, T = {ce.T}, ratio {ce.ratio:.6g} ({ce.origin}).")
        if self.claim.notes:
            parts.append(self.claim.notes)
        parts.extend(self.errors)
        return " ".join(parts)

    def to_json(self) -> dict:
        c = self.claim
        return {
            "id": c.id, "paper": c.paper, "source": c.source, "statement": c.statement,
            "assumptions": [a.name for a in c.assumptions], "verdict": self.verdict,
            "worst_ratio": _json_number(self.worst_ratio), "n_cases": len(self.ratios),
            "counterexample": self.counterexample, "notes": self.notes_text(),
            "median_ratio": self.median_ratio, "measure": c.measure, "bound": c.bound,
            "worst_parts": {k: _json_number(v) for k, v in self.worst_parts().items()}, "tightness": self.tightness(),
        }


def _json_number(x: float | None):
    """JSON has no infinity: an infinite ratio (positive measured value over a zero bound) is
    written as the string "inf"."""
    return "inf" if x is not None and math.isinf(x) else x


def _safe_ratio(measured: Tensor, bound: Tensor) -> Tensor:
    """measured/bound, with 0/0 = 0 (the inequality 0 ≤ 0 holds, e.g. a gradient at T = 1 with
    h_0 = 0) and m/0 = +inf for m > 0."""
    zero_bound = bound == 0
    safe = torch.where(zero_bound, torch.ones_like(bound), bound)
    ratio = measured / safe
    return torch.where(zero_bound, torch.where(measured == 0, torch.zeros_like(ratio),
                                               torch.full_like(ratio, math.inf)), ratio)


def _ratio(parts: dict[str, tuple[Tensor, Tensor]]) -> tuple[Tensor, dict[str, float]]:
    ratios = {k: _safe_ratio(m, b) for k, (m, b) in parts.items()}
    worst = torch.stack(list(ratios.values())).max()
    return worst, {k: float(v.detach()) for k, v in ratios.items()}


def measure_case(claim: Claim, case) -> tuple[float, dict[str, float]]:
    """measured/bound of one case, as the checks compute it: (worst ratio, ratio of each part)."""
    worst, parts = _ratio(claim.evaluate(case))
    return float(worst.detach()), parts


def _record(claim: Claim, case, origin: str) -> CaseRecord:
    h, T = case.size()
    failed = []
    for a in claim.assumptions:
        ok, detail = a.check(case)
        if not ok:
            failed.append(f"{a.name} ({detail})")
    try:
        ratio, parts = measure_case(claim, case)
    except (RuntimeError, ValueError) as err:  # a case the probes cannot measure is recorded, not fatal
        ratio, parts = float("nan"), {"error": float("nan")}
        failed.append(f"measurement failed: {err}")
    vac = bool(claim.vacuous(case)) if claim.vacuous is not None else False
    return CaseRecord(h, T, ratio, parts, failed, origin, vac, case)


def _verdict(claim: Claim, records: list[CaseRecord]) -> str:
    measured = [r for r in records if not math.isnan(r.ratio)]
    if not measured:
        return "inconclusive"
    if max(r.ratio for r in measured) > 1 + claim.tolerance:
        return "violated"
    if claim.vacuous is not None and all(r.vacuous for r in measured):
        return "vacuous"
    return "holds"


def _ascent(claim: Claim, case, profile: Profile, records: list[CaseRecord], device, dtype) -> None:
    leaves = claim.free(case)
    if not leaves:  # nothing left free by the assumptions (e.g. an exact identity): random cases only
        return
    for p in leaves:
        p.requires_grad_(True)
    opt = torch.optim.Adam(leaves, lr=profile.lr, maximize=True)
    best_index, best_ratio, best_state = None, -math.inf, None
    for _ in range(profile.ascent_steps):
        opt.zero_grad()
        worst, _ = _ratio(claim.evaluate(case))
        if not torch.isfinite(worst) or worst <= 0:
            break
        torch.log(worst).backward()
        opt.step()
        with torch.no_grad():
            claim.project(case)
        record = _record(claim, case, "ascent")
        if record.ratio > best_ratio and not record.failed_assumptions:
            best_index, best_ratio, best_state = len(records), record.ratio, case.state()
        record.case = None  # only the best iterate keeps its tensors
        records.append(record)
    opt.zero_grad()
    if best_index is not None:
        records[best_index].case = claim.case_type.from_state(best_state, device, dtype)


def claim_generator(claim_id: str, seed: int) -> torch.Generator:
    """A torch.Generator seeded from (seed, claim id), so claims are reproducible one by one."""
    return torch.Generator().manual_seed(seed * 1_000_003 + zlib.crc32(claim_id.encode()))


def check_claim(claim: Claim, profile: Profile = PROFILES["quick"], *, seed: int = 0,
                device: str | torch.device = "cpu", dtype: torch.dtype = torch.float64,
                out_dir: str | Path | None = None, progress: Callable[[int], None] | None = None) -> ClaimResult:
    """Check ``claim`` on random and adversarial cases that satisfy its assumptions.

    Args:
        claim: the claim.
        profile: search effort (:data:`PROFILES`).
        seed: base seed; each claim derives its own generator from it and its id.
        device, dtype: where and in what precision the cases run (float64 by default).
        out_dir: where a counterexample ``<id>.pt`` is written (nothing is written if None).
        progress: called with 1 after each random case and each ascent restart.

    Returns:
        :class:`ClaimResult`. Cases that (after projection) fail an assumption are dropped
        from the verdict and counted in ``errors``; that would be a bug in the claim's
        sampler or projection, and is reported rather than hidden.
    """
    gen = claim_generator(claim.id, seed)
    sizes = claim.sizes[profile.name]
    records: list[CaseRecord] = []
    for i in range(profile.n_random):
        h, T = sizes[i % len(sizes)]
        records.append(_record(claim, claim.sample(gen, h, T, device, dtype), "random"))
        if progress:
            progress(1)
    best_starts = sorted((r for r in records if math.isfinite(r.ratio)), key=lambda r: -r.ratio)
    for r in range(profile.restarts):
        # half the restarts polish the worst random cases, half start afresh at the largest sizes
        if r % 2 == 0 and best_starts:
            start = best_starts[(r // 2) % len(best_starts)]
            case = claim.case_type.from_state(start.case.state(), device, dtype)
        else:
            h, T = sizes[-1 - (r // 2) % len(sizes)]
            case = claim.sample(gen, h, T, device, dtype)
        _ascent(claim, case, profile, records, device, dtype)
        if progress:
            progress(1)
    outside = [r for r in records if r.failed_assumptions and not math.isnan(r.ratio)]
    errors = [f"{len(outside)} case(s) left the assumptions and were excluded "
              f"(first: {outside[0].failed_assumptions[0]})."] if outside else []
    kept = [r for r in records if not r.failed_assumptions or math.isnan(r.ratio)]
    verdict = _verdict(claim, kept)
    result = ClaimResult(claim, verdict, kept, errors=errors)
    if verdict == "violated":
        _attach_counterexample(result, out_dir)
    for r in result.records:
        r.case = None if r is not result.counterexample_case else r.case
    return result


def evaluate_cases(claim: Claim, cases: list, *, out_dir: str | Path | None = None) -> ClaimResult:
    """Measure hand-made ``cases`` as given, whether or not they satisfy the assumptions.

    Returns:
        :class:`ClaimResult` whose verdict is computed from these cases alone; each record
        lists the assumptions its case fails.
    """
    records = [_record(claim, c, "given") for c in cases]
    result = ClaimResult(claim, _verdict(claim, records), records)
    failed = sorted({a for r in records for a in r.failed_assumptions})
    if failed:
        result.errors.append("Cases outside the assumptions: " + "; ".join(failed) + ".")
    if result.verdict == "violated":
        _attach_counterexample(result, out_dir)
    return result


def _attach_counterexample(result: ClaimResult, out_dir: str | Path | None) -> None:
    claim = result.claim
    violating = [r for r in result.records if r.ratio > 1 + claim.tolerance]
    with_case = [r for r in violating if r.case is not None] or violating
    smallest = min(with_case, key=lambda r: (r.h * r.T, -r.ratio))
    result.counterexample_case = smallest
    if out_dir is not None and smallest.case is not None:
        path = Path(out_dir) / f"{claim.id}.pt"
        save_counterexample(path, claim, smallest)
        result.counterexample = str(path)


def save_counterexample(path: str | Path, claim: Claim, record: CaseRecord) -> None:
    """Write a reloadable counterexample: the case's tensors and config plus the claim id and
    measured ratio, as a dict of tensors and plain values (loadable with ``weights_only=True``).
    Written atomically."""
    from rnnaudit.atomic import atomic_path

    payload = {"claim_id": claim.id, "ratio": record.ratio, "parts": record.parts,
               "failed_assumptions": record.failed_assumptions, "case": record.case.state()}
    with atomic_path(path) as tmp:
        torch.save(payload, tmp)


def load_counterexample(path: str | Path, *, device: str | torch.device = "cpu",
                        dtype: torch.dtype = torch.float64) -> tuple[str, Any, float]:
    """Reload a counterexample file: returns ``(claim_id, case, recorded_ratio)``.

    The file is untrusted input: it is read with ``torch.load(..., weights_only=True)``.

    Raises:
        ValueError: the file is not a counterexample written by :func:`save_counterexample`,
            or names a claim this version does not know.
    """
    from rnnaudit.bounds.registry import claim_by_id

    payload = torch.load(path, map_location=device, weights_only=True)
    if not isinstance(payload, dict) or not {"claim_id", "case", "ratio"} <= payload.keys():
        raise ValueError(f"{path} is not an rnnaudit counterexample (missing claim_id/case/ratio)")
    claim = claim_by_id(payload["claim_id"])
    return claim.id, claim.case_type.from_state(payload["case"], device, dtype), float(payload["ratio"])
