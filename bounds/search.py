"""The shared search behind every claim: random cases, adversarial ascent, verdicts, counterexamples.

:func:`check_claim` checks one :class:`~rnnaudit.bounds.core.Claim`, in float64 by default:

1. draws ``n_random`` cases over the claim's (h, T) grid, adds the claim's structured
   constructions (``cases.starts``) at every size, and measures measured/bound;
2. runs projected gradient ascent on log(measured/bound) from ``restarts`` starts, projecting
   back onto the assumptions after every step, and records every iterate; at the smallest size, also a
   global optimiser (:mod:`rnnaudit.bounds.global_search`: differential evolution with the same budget for at
   most 20 free scalars, CMA-ES with the profile's ``cma_evaluations`` for more), whose cases are recorded and
   re-checked the same way; every record names the method that found it (results.json's ``worst_found_by``);
3. decides whether the printed form fails: the worst ratio exceeds ``1 + tolerance``, or the
   claim's exact (sympy) test gives an exact counterexample (a strict inequality attained with
   equality fails exactly even where floating point cannot tell);
4. checks each of the claim's other fair readings (:class:`~rnnaudit.bounds.core.Reading`) the same
   way and gives the headline verdict (docs/verdicts.md): ``misprinted`` if the printed form fails and
   some reading holds, ``false`` if it fails and none holds; otherwise ``vacuous`` if the claim's own
   test says the bound exceeds any possible value in every case, ``inconclusive`` if no case could be
   measured, else ``holds``;
5. saves the smallest failing case (fewest T·h) and the worst (largest ratio) of the printed form as
   reloadable ``.pt`` files; claims with an ``exact`` test also get a sympy verdict.

A NaN measurement on finite inputs that satisfy the assumptions is a violation, not a missing value: the
statement claims a number and the model gave none (e.g. h_t = 0/0 where a stabiliser underflows). It is recorded
with ratio +inf and reported as "NaN" (:attr:`~rnnaudit.bounds.results.CaseRecord.not_a_number`). A case whose own
inputs (weights, inputs, states) are not finite, e.g. an ascent step that diverged, is outside every claim's
hypotheses and counts as failing an assumption.

Every recorded case is re-checked against the assumption predicates, so a failing verdict from
:func:`check_claim` is always a counterexample *inside* the assumptions. Cases fed by hand
through :func:`evaluate_cases` are measured as given (this is how the tests prove a check can
fail: a case outside the assumptions must come back ``false``), and their failed
assumptions are listed.
"""

from __future__ import annotations

import math
import zlib
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Callable, Iterator

import torch

from rnnaudit.atomic import atomic_path
from rnnaudit.bounds.cases import _MODULE, case_from_state, case_state, copy_case
from rnnaudit.bounds.core import FAILING, PROFILES, Claim, ExactVerdict, Profile, Reading, safe_ratio
from rnnaudit.bounds.global_search import global_search, method_summary
from rnnaudit.bounds.results import CaseRecord, ClaimResult, ReadingResult

__all__ = ["check_claim", "evaluate_cases", "measure_case", "claim_generator", "save_counterexample",
           "COUNTEREXAMPLE_FORMAT", "headline", "named_starts"]

#: The ``format`` key of a counterexample file written by :func:`save_counterexample`.
COUNTEREXAMPLE_FORMAT = "rnnaudit-counterexample-2"


def _ratio(parts: dict) -> tuple[torch.Tensor, dict[str, float]]:
    ratios = {k: safe_ratio(v[0], v[1]) for k, v in parts.items()}
    worst = torch.stack(list(ratios.values())).max()
    return worst, {k: float(v.detach()) for k, v in ratios.items()}


def _errors(parts: dict) -> dict[str, tuple[float, float]]:
    """(absolute error, ‖truth‖) of every identity part (a part with a third, reference, entry)."""
    return {k: (float(v[0].detach()), float(v[2].detach()) if torch.is_tensor(v[2]) else float(v[2]))
            for k, v in parts.items() if len(v) == 3}


def measure_case(claim: Claim, case, reading: Reading | None = None) -> tuple[float, dict[str, float]]:
    """measured/bound of one case, as the checks compute it: (worst ratio, ratio of each part); under
    ``reading`` (one of ``claim.readings``) when given, else as printed."""
    worst, parts = _ratio((claim.evaluate if reading is None else reading.evaluate)(case))
    return float(worst.detach()), parts


def _non_finite_inputs(case) -> list[str]:
    """Names of the case's floating-point fields (and a module's parameters) that hold a NaN or an infinity."""
    try:
        state = case_state(case)
    except TypeError:  # a case type with no saved form: nothing to inspect
        return []
    bad: list[str] = []

    def visit(name, value):
        if isinstance(value, torch.Tensor):
            if value.is_floating_point() or value.is_complex():
                if not bool(torch.isfinite(value).all()):
                    bad.append(name)
        elif isinstance(value, dict):
            for k, v in value.items():
                if k != _MODULE:
                    visit(f"{name}.{k}" if name else str(k), v)
        elif isinstance(value, (list, tuple)):
            for i, v in enumerate(value):
                visit(f"{name}[{i}]", v)

    visit("", state)
    return bad


def _record(claim: Claim, case, origin: str, method: str = "") -> CaseRecord:
    return _measured_record(claim, case, origin, method)[0]


def _measured_record(claim: Claim, case, origin: str, method: str = "") -> tuple[CaseRecord, dict | None]:
    """The case's record and the evaluation it was measured from (None when the measurement failed): the ascent
    differentiates that same evaluation, so each iterate is evaluated once, not once to record and once to step."""
    h, T = case.size()
    failed = []
    for a in claim.assumptions:
        try:
            ok, detail = a.check(case)
        except (RuntimeError, ValueError, ArithmeticError) as err:
            # a predicate that cannot be evaluated (e.g. an eigensolve on a NaN an ascent step produced)
            # cannot vouch for the case: it counts as failed, so the case never becomes a counterexample
            ok, detail = False, f"could not be evaluated: {' '.join(str(err).split())[:200]}"
        if not ok:
            failed.append(f"{a.name} ({detail})")
    errors = {}
    evaluated = None
    try:
        evaluated = claim.evaluate(case)
        worst, parts = _ratio(evaluated)
        ratio, errors = float(worst.detach()), _errors(evaluated)
    except (RuntimeError, ValueError) as err:  # a case the probes cannot measure is recorded, not fatal
        ratio, parts, evaluated = float("nan"), {"error": float("nan")}, None
        failed.append(f"measurement failed: {err}")
    not_a_number = False
    if math.isnan(ratio) and not failed:
        bad = _non_finite_inputs(case)
        if bad:
            failed.append(f"the case's inputs are finite (not finite: {', '.join(bad[:4])})")
        else:  # the assumptions hold and the quantity the statement bounds is NaN: a violation
            not_a_number = True
            ratio = math.inf
            parts = {k: (math.inf if math.isnan(v) else v) for k, v in parts.items()}
    vac = bool(claim.vacuous(case)) if claim.vacuous is not None else False
    return (CaseRecord(h, T, ratio, parts, failed, origin, vac, errors, case, method or origin, not_a_number),
            evaluated)


def _printed_verdict(claim: Claim, records: list[CaseRecord], exact: ExactVerdict | None) -> str:
    """``"fails"``, ``"vacuous"``, ``"inconclusive"`` or ``"holds"`` of the statement as evaluated.

    An exact counterexample decides ``"fails"`` whatever the floating-point cases say: a strict
    inequality attained with equality under the paper's own settings is measured as ratio 1."""
    measured = [r for r in records if not math.isnan(r.ratio)]
    if exact is not None and exact.verdict == "violated":
        return "fails"
    if not measured:
        return "inconclusive"
    if max(r.ratio for r in measured) > 1 + claim.tolerance:
        return "fails"
    if claim.vacuous is not None and all(r.vacuous for r in measured):
        return "vacuous"
    return "holds"


def headline(printed: str, readings: list[ReadingResult]) -> str:
    """The claim's verdict from its printed form's (``"fails"`` or a verdict) and its readings': ``misprinted``
    when the printed form fails and some reading holds (or holds vacuously), ``false`` when none does."""
    if printed != "fails":
        return printed
    return "misprinted" if any(r.verdict in ("holds", "vacuous") for r in readings) else "false"


def _reading_claim(claim: Claim, reading: Reading) -> Claim:
    """The claim as this reading states it: its own statement, evaluation and (optionally) cases and exact test."""
    return replace(claim, id=f"{claim.id}[{reading.name}]", statement=reading.statement, evaluate=reading.evaluate,
                   cases=reading.cases or claim.cases, exact=reading.exact, readings=(), supremum=None,
                   assumptions=claim.assumptions if reading.assumptions is None else reading.assumptions)


def _reading_result(reading: Reading, result: ClaimResult) -> ReadingResult:
    return ReadingResult(reading, "holds" if result.verdict == "holds" else result.verdict, result.worst_ratio,
                         result.exact, len(result.ratios))


def _ascent(claim: Claim, case, profile: Profile, records: list[CaseRecord], device, dtype) -> None:
    leaves = claim.cases.free(case)
    if not leaves:  # nothing left free by the assumptions (e.g. an exact identity): random cases only
        return
    for p in leaves:
        p.requires_grad_(True)
    opt = torch.optim.Adam(leaves, lr=profile.lr, maximize=True)
    best_index, best_ratio, best_state = None, -math.inf, None
    opt.zero_grad()
    evaluated = claim.evaluate(case)  # the start's gradient; the start itself is not an ascent record
    for _ in range(profile.ascent_steps):
        worst, _ = _ratio(evaluated)
        if not torch.isfinite(worst) or worst <= 0 or not worst.requires_grad:
            break  # (no gradient: the worst part is measured at moved copies of the case, e.g. a limit reading)
        torch.log(worst).backward()
        opt.step()
        with torch.no_grad():
            claim.cases.project(case)
        opt.zero_grad()
        # the iterate's record and the next step's gradient come from one evaluation of it
        record, evaluated = _measured_record(claim, case, "ascent")
        if record.ratio > best_ratio and not record.failed_assumptions:
            best_index, best_ratio, best_state = len(records), record.ratio, case_state(case)
        record.case = None  # only the best iterate keeps its tensors
        records.append(record)
        if evaluated is None:
            break  # the iterate could not be measured (recorded as such): there is no gradient to follow
    opt.zero_grad()
    if best_index is not None:
        records[best_index].case = case_from_state(claim.cases.case_type, best_state, device, dtype)


def named_starts(starts) -> list[tuple[str, object]]:
    """``(method, case)`` of each structured start a ``CaseSpace.starts`` returned: ``structured:<name>`` for a
    dict's entries, ``structured`` for a list's (unnamed) cases."""
    if isinstance(starts, dict):
        return [(f"structured:{name}", case) for name, case in starts.items()]
    return [("structured", case) for case in starts]


def claim_generator(claim_id: str, seed: int) -> torch.Generator:
    """A torch.Generator seeded from (seed, claim id), so claims are reproducible one by one."""
    return torch.Generator().manual_seed(seed * 1_000_003 + zlib.crc32(claim_id.encode()))


def check_claim(claim: Claim, profile: Profile = PROFILES["quick"], *, seed: int = 0,
                device: str | torch.device = "cpu", dtype: torch.dtype = torch.float64,
                out_dir: str | Path | None = None, progress: Callable[[int], None] | None = None) -> ClaimResult:
    """Check ``claim`` on random and adversarial cases that satisfy its assumptions.

    Args:
        claim: the claim.
        profile: search effort (:data:`rnnaudit.bounds.core.PROFILES`).
        seed: base seed; each claim derives its own generator from it and its id.
        device, dtype: where and in what precision the cases run (float64 by default).
        out_dir: where a counterexample ``<id>.pt`` is written (nothing is written if None).
        progress: called with 1 after each random case and each ascent restart.

    Returns:
        :class:`~rnnaudit.bounds.core.ClaimResult`. Cases that (after projection) fail an
        assumption are dropped from the verdict and counted in ``errors``; that would be a bug
        in the claim's sampler or projection, and is reported rather than hidden.
    """
    if not isinstance(claim, Claim):
        hint = (f" (rnnaudit.bounds.claim_by_id({claim!r}) gives the claim of an id)" if isinstance(claim, str)
                else "")
        raise TypeError(f"claim must be a Claim, got {type(claim).__name__}{hint}")
    with _one_thread():
        return _check_claim(claim, profile, seed=seed, device=device, dtype=dtype, out_dir=out_dir, progress=progress)


@contextmanager
def _one_thread() -> Iterator[None]:
    """torch's intra-op pool and the BLAS/OpenMP pools (threadpoolctl) at one thread inside the block, restored after.

    Why: a claim's cases are small (h ≤ a few hundred), so its thousands of small products, SVDs, QRs and eigensolves
    gain nothing from a second thread, and waking one costs more than the kernel: tiny QRs measured 8× slower on two
    OpenMP threads than on one on a loaded 2-core machine. The arithmetic is the same; only the threads change."""
    from rnnaudit.analysis.cost import single_threaded
    from rnnaudit.analysis.norms import one_thread

    with single_threaded(), one_thread():
        yield


def _check_claim(claim: Claim, profile: Profile, *, seed: int, device, dtype, out_dir, progress) -> ClaimResult:
    gen = claim_generator(claim.id, seed)
    sizes = claim.cases.sizes[profile.name]
    records: list[CaseRecord] = []
    for i in range(profile.n_random):
        h, T = sizes[i % len(sizes)]
        records.append(_record(claim, claim.cases.sample(gen, h, T, device, dtype), "random"))
        if progress:
            progress(1)
    if claim.cases.starts is not None:
        for h, T in sizes:
            records += [_record(claim, case, "structured", name)
                        for name, case in named_starts(claim.cases.starts(h, T, device, dtype))]
    best_starts = sorted((r for r in records if math.isfinite(r.ratio)), key=lambda r: -r.ratio)
    for r in range(profile.restarts):
        # half the restarts polish the worst random cases, half start afresh at the largest sizes
        if r % 2 == 0 and best_starts:
            case = copy_case(best_starts[(r // 2) % len(best_starts)].case, device, dtype)
        else:
            h, T = sizes[-1 - (r // 2) % len(sizes)]
            case = claim.cases.sample(gen, h, T, device, dtype)
        _ascent(claim, case, profile, records, device, dtype)
        if progress:
            progress(1)
    run = global_search(claim, profile, seed=seed, records=records, record=_record, device=device, dtype=dtype)
    outside = [r for r in records if r.failed_assumptions and not math.isnan(r.ratio)]
    errors = [f"{len(outside)} case(s) left the assumptions and were excluded "
              f"(first: {outside[0].failed_assumptions[0]})."] if outside else []
    kept = [r for r in records if not r.failed_assumptions or math.isnan(r.ratio)]
    exact = claim.exact() if claim.exact else None
    readings = [_reading_result(rd, _check_claim(_reading_claim(claim, rd), profile, seed=seed, device=device,
                                                  dtype=dtype, out_dir=None, progress=None))
                for rd in claim.readings]
    verdict = headline(_printed_verdict(claim, kept, exact), readings)
    result = ClaimResult(claim, verdict, kept, errors=errors, exact=exact, readings=readings,
                         search=method_summary(run, kept))
    if verdict in FAILING:
        _attach_counterexample(result, out_dir)
    keep = (result.counterexample_case, result.worst_counterexample_case)
    for r in result.records:
        r.case = r.case if any(r is k for k in keep) else None
    return result


def evaluate_cases(claim: Claim, cases: list, *, out_dir: str | Path | None = None) -> ClaimResult:
    """Measure hand-made ``cases`` as given, whether or not they satisfy the assumptions.

    Returns:
        :class:`~rnnaudit.bounds.core.ClaimResult` whose verdict is computed from these cases
        alone (the claim's readings that share its case family are measured on them too; the exact
        verdict is reported but does not decide); each record lists the assumptions its case fails.
    """
    records = [_record(claim, c, "given") for c in cases]
    # a reading with a case family of its own cannot be measured on the claim's cases: it is left out here
    readings = [_reading_result(rd, evaluate_cases(_reading_claim(claim, rd), cases)) for rd in claim.readings
                if rd.cases is None]
    # hand-fed cases are about the floating-point evaluation: the exact verdict is reported, not applied
    verdict = headline(_printed_verdict(claim, records, None), readings)
    result = ClaimResult(claim, verdict, records, exact=claim.exact() if claim.exact else None, readings=readings)
    failed = sorted({a for r in records for a in r.failed_assumptions})
    if failed:
        result.errors.append("Cases outside the assumptions: " + "; ".join(failed) + ".")
    if result.verdict in FAILING:
        _attach_counterexample(result, out_dir)
    return result


def _attach_counterexample(result: ClaimResult, out_dir: str | Path | None) -> None:
    """Keep two violating cases: the smallest (fewest T·h, the easiest to read) and the worst (largest
    ratio, the most convincing); write both when ``out_dir`` is given (the worst only when it is
    another case)."""
    claim = result.claim
    violating = [r for r in result.records if r.ratio > 1 + claim.tolerance]
    if not violating:  # failed exactly only (a strict inequality attained): the cases of largest ratio
        top = max((r.ratio for r in result.records if not math.isnan(r.ratio)), default=None)
        violating = [r for r in result.records if top is not None and r.ratio == top]
        if not violating:
            return
    with_case = [r for r in violating if r.case is not None] or violating
    smallest = min(with_case, key=lambda r: (r.h * r.T, -r.ratio))
    worst = max(with_case, key=lambda r: (r.ratio, -r.h * r.T))
    result.counterexample_case, result.worst_counterexample_case = smallest, worst
    if out_dir is None:
        return
    if smallest.case is not None:
        result.counterexample = str(Path(out_dir) / f"{claim.id}.pt")
        save_counterexample(result.counterexample, claim, smallest)
    if worst is smallest:
        result.worst_counterexample = result.counterexample
    elif worst.case is not None:
        result.worst_counterexample = str(Path(out_dir) / f"{claim.id}.worst.pt")
        save_counterexample(result.worst_counterexample, claim, worst)


def save_counterexample(path: str | Path, claim: Claim, record: CaseRecord) -> None:
    """Write a reloadable counterexample: the case's state (:func:`rnnaudit.bounds.cases.case_state`)
    plus the claim id and measured ratio, as a dict of tensors and plain values (loadable with
    ``torch.load(..., weights_only=True)``; reloaded by :func:`rnnaudit.bounds.load_counterexample`).
    Written atomically."""
    payload = {"format": COUNTEREXAMPLE_FORMAT, "claim_id": claim.id, "ratio": record.ratio, "parts": record.parts,
               "failed_assumptions": record.failed_assumptions, "case": case_state(record.case)}
    with atomic_path(path) as tmp:
        torch.save(payload, tmp)
