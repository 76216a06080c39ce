"""A second, gradient-free search beside the projected ascent over a case's free parameters, so a reader sees
whether two independent methods find the same worst ratio.

:func:`global_search` minimises −log(measured/bound) over the free scalars (the entries of the tensors
``claim.cases.free`` returns) of the best random or structured case at the profile's smallest size:

- at most :data:`MAX_FREE_PARAMETERS` of them: ``scipy.optimize.differential_evolution`` (Storn & Price 1997),
  its population in a box around that case (every coordinate ±max(1, the case's largest free entry in absolute
  value)), seeded with the case itself;
- more, up to :data:`MAX_CMA_PARAMETERS`: CMA-ES (Hansen & Ostermeier 2001, the ``cma`` package) from that case,
  step size σ₀ = :data:`CMA_SIGMA` × max(1, its largest free entry), with a diagonal covariance above
  :data:`CMA_FULL_COVARIANCE` parameters (sep-CMA-ES, Ros & Hansen 2008: O(n) per sample instead of O(n²));
  its budget is the profile's ``cma_evaluations`` and its wall time at most ``global_seconds``;
- each candidate is written into the case's free tensors and projected onto the assumptions by the
  claim's own ``cases.project``, then measured and re-checked against every assumption by the same
  recorder as the ascent's iterates (``_record`` of :mod:`rnnaudit.bounds.search`), so a case the
  optimiser finds counts towards the verdict only when it lies inside the assumptions;
- differential evolution's budget is the ascent's in the same profile, ``restarts × ascent_steps`` evaluations,
  with no polishing step (which would spend evaluations outside the budget); it is also stopped after
  ``global_seconds`` of wall time. Either stop by the clock is recorded (``stopped: "time"``), since it is the one
  thing that makes a run depend on the machine's load.

:func:`method_summary` gives results.json's ``search`` entry: the best ratio per claim part found by
each method; :func:`disagreements` lists the parts where they differ by more than
:data:`AGREEMENT_LOG_TOL` in log ratio.
"""

from __future__ import annotations

import inspect
import math
import time
import zlib
from dataclasses import dataclass
from typing import Callable

import numpy as np
import torch
from scipy.optimize import differential_evolution

from rnnaudit.bounds.cases import copy_case
from rnnaudit.bounds.core import Claim, Profile
from rnnaudit.bounds.results import CaseRecord, json_number

__all__ = ["MAX_FREE_PARAMETERS", "MAX_CMA_PARAMETERS", "CMA_FULL_COVARIANCE", "CMA_SIGMA", "AGREEMENT_LOG_TOL",
           "GlobalRun", "global_search", "method_summary", "disagreements", "free_parameter_count"]

#: Claims whose case has at most this many free scalars at the smallest size get differential evolution (more get
#: CMA-ES): with the quick profile's 120 evaluations a population of 2·20 still sees three generations.
MAX_FREE_PARAMETERS = 20

#: Above this many free scalars CMA-ES is not run: one evaluation at the smallest size then moves more numbers than a
#: budget of a few hundred evaluations can explore, and its sampling alone costs O(n) per candidate.
MAX_CMA_PARAMETERS = 5000

#: Above this many free scalars CMA-ES keeps a diagonal covariance (sep-CMA-ES): the full one costs O(n²) memory and
#: O(n²) per sample, and with ≤ a few hundred evaluations it could not be learned anyway (it needs O(n²) samples).
CMA_FULL_COVARIANCE = 100

#: CMA-ES's initial step size, as a fraction of max(1, the start's largest free entry): a quarter of the box that
#: differential evolution searches, so the first generations stay near the start they polish.
CMA_SIGMA = 0.25

#: Two methods agree on a part when their best ratios differ by at most 1 % in log: |ln r₁ − ln r₂| ≤ 0.01.
#: An infinite ratio agrees only with another infinite one, a zero ratio only with another zero.
AGREEMENT_LOG_TOL = 0.01

#: Objective value of a candidate that cannot be measured or lands outside the assumptions (DE minimises).
_REJECTED = 1e6

_DE_RANDOM = "rng" if "rng" in inspect.signature(differential_evolution).parameters else "seed"


@dataclass
class GlobalRun:
    """What the global optimiser did for one claim.

    Attributes:
        free_parameters: free scalars of the case it searched (or of the case that made the claim ineligible).
        size: that case's (h, T).
        budget: evaluations allowed. evaluations: evaluations made.
        rejected: evaluations whose projected case failed an assumption or could not be measured (not recorded).
        eligible: free_parameters is between 1 and :data:`MAX_CMA_PARAMETERS` and the budget is positive.
        method: ``"differential_evolution"`` (at most :data:`MAX_FREE_PARAMETERS` free scalars) or ``"cma"``.
        stopped: ``"budget"`` (or the optimiser's own convergence test) or ``"time"`` (the profile's
            ``global_seconds`` ran out first).
    """

    free_parameters: int
    size: tuple[int, int]
    budget: int
    evaluations: int = 0
    eligible: bool = False
    rejected: int = 0
    method: str = "differential_evolution"
    stopped: str = "budget"


def free_parameter_count(claim: Claim, case) -> int:
    """Scalar entries of the tensors ``claim.cases.free(case)`` returns."""
    return sum(int(t.numel()) for t in claim.cases.free(case))


def _start(records: list[CaseRecord], h: int, T: int, device, dtype):
    """The best measured case inside the assumptions (random or structured) of size (h, T), else of the
    smallest size measured; None when no such case was recorded. The sampler is not called again: a check
    draws exactly the cases its profile says."""
    found = [r for r in records if r.case is not None and not r.failed_assumptions
             and r.origin in ("random", "structured") and math.isfinite(r.ratio)]
    if not found:
        return None
    at = [r for r in found if (r.h, r.T) == (h, T)] or [r for r in found if r.h * r.T == min(q.h * q.T for q in found)]
    return copy_case(max(at, key=lambda r: r.ratio).case, device, dtype)


def global_search(claim: Claim, profile: Profile, *, seed: int, records: list[CaseRecord],
                  record: Callable[..., CaseRecord], device="cpu", dtype=torch.float64, method: str | None = None,
                  budget: int | None = None, size: tuple[int, int] | None = None) -> GlobalRun:
    """Differential evolution or CMA-ES over the free parameters of ``claim``'s case at the profile's smallest size
    (the best recorded case there, or at the smallest size recorded).

    Args:
        claim, profile: as for :func:`rnnaudit.bounds.search.check_claim`; the budget is
            ``profile.restarts × profile.ascent_steps`` evaluations for differential evolution and
            ``profile.cma_evaluations`` for CMA-ES, and either stops after ``profile.global_seconds``.
        seed: the check's seed; the optimiser's own random stream is derived from it and the claim id.
        records: the check's records so far (its start is the best of them at that size); every evaluation
            inside the assumptions is appended to it as a record of origin ``"global"`` and method
            ``"differential_evolution"`` or ``"cma"`` (only the best keeps its case); the others are counted in
            :attr:`GlobalRun.rejected`.
        record: ``(claim, case, origin, method) → CaseRecord``, the check's recorder (measures the case and
            re-checks every assumption).
        method, budget, size: for comparisons (benchmarks/bench_search.py): ``"differential_evolution"`` or
            ``"cma"`` whatever the number of free scalars, that many evaluations, and the start's (h, T) instead of
            the profile's smallest size. None: as above.

    Returns:
        :class:`GlobalRun`; nothing is searched (and nothing appended) when the claim is not eligible.
    """
    stream = seed * 1_000_003 + zlib.crc32(f"{claim.id}/global".encode())
    if method not in (None, "differential_evolution", "cma"):
        raise ValueError(f"method must be 'differential_evolution' or 'cma', got {method!r}")
    smallest = claim.cases.sizes[profile.name][0] if size is None else size
    case = _start(records, *smallest, device, dtype)
    if case is None:
        return GlobalRun(0, smallest, profile.restarts * profile.ascent_steps)
    leaves = claim.cases.free(case)
    n = sum(int(t.numel()) for t in leaves)
    cma_run = n > MAX_FREE_PARAMETERS if method is None else method == "cma"
    if budget is None:
        budget = profile.cma_evaluations if cma_run else profile.restarts * profile.ascent_steps
    run = GlobalRun(n, tuple(case.size()), budget, method="cma" if cma_run else "differential_evolution")
    if not 0 < n <= MAX_CMA_PARAMETERS or run.budget <= 0:
        return run
    run.eligible = True
    for p in leaves:
        p.requires_grad_(True)  # as in the ascent: some measurements differentiate through the free tensors
    x0 = torch.cat([p.detach().reshape(-1) for p in leaves]).to("cpu", torch.float64).numpy()
    scale = max(1.0, float(np.abs(x0).max()))
    best = {"ratio": -math.inf, "index": None, "case": None}
    deadline = time.monotonic() + profile.global_seconds

    def objective(x: np.ndarray) -> float:
        if run.evaluations >= run.budget or time.monotonic() > deadline:
            if run.evaluations < run.budget:
                run.stopped = "time"
            return _REJECTED
        run.evaluations += 1
        with torch.no_grad():
            offset = 0
            for p in leaves:
                k = p.numel()
                p.copy_(torch.as_tensor(x[offset:offset + k], dtype=p.dtype, device=p.device).reshape(p.shape))
                offset += k
            claim.cases.project(case)
        rec = record(claim, case, "global", run.method)
        inside = not rec.failed_assumptions and not math.isnan(rec.ratio)
        if inside and rec.ratio > best["ratio"]:
            best.update(ratio=rec.ratio, index=len(records), case=copy_case(case, device, dtype))
        rec.case = None
        if not inside:  # kept out of the records: the ascent's excluded iterates flag a projection bug, these don't
            run.rejected += 1
            return _REJECTED
        records.append(rec)
        if rec.ratio <= 0:
            return _REJECTED
        return -_REJECTED if math.isinf(rec.ratio) else -math.log(rec.ratio)

    rng = np.random.default_rng(stream)
    if cma_run:
        _cma(objective, x0, scale, run, rng, deadline)
    else:
        population = max(5, min(2 * n, run.budget // 3))
        init = np.vstack([x0, rng.uniform(x0 - scale, x0 + scale, size=(population - 1, n))])
        differential_evolution(objective, list(zip(x0 - scale, x0 + scale)), init=init,
                               maxiter=max(0, run.budget // population - 1), polish=False, tol=0.0,
                               updating="immediate", **{_DE_RANDOM: rng})
    if best["index"] is not None:
        records[best["index"]].case = best["case"]
    return run


def _cma(objective: Callable[[np.ndarray], float], x0: np.ndarray, scale: float, run: GlobalRun,
         rng: np.random.Generator, deadline: float) -> None:
    """CMA-ES (``cma.CMAEvolutionStrategy``, ask and tell) on ``objective`` from ``x0``, whole generations only,
    while the budget and the clock allow. Its samples come from ``rng`` (option ``randn``), never from numpy's
    global state, so runs are reproducible and leave other code's random streams alone; it writes no log files."""
    import cma  # here, not at the top: importing cma loads matplotlib and scipy.stats (seconds), which only a claim
    # with more than 20 free scalars needs

    n = x0.size
    opts = {"randn": lambda *shape: rng.standard_normal(shape), "seed": math.nan, "verbose": -9, "verb_log": 0,
            "verb_disp": 0, "tolfun": 0.0, "tolfunhist": 0.0, "tolx": 0.0, "tolstagnation": run.budget + 1,
            "CMA_diagonal": n > CMA_FULL_COVARIANCE}
    es = cma.CMAEvolutionStrategy(x0, CMA_SIGMA * scale, opts)
    while not es.stop() and run.evaluations + es.popsize <= run.budget:
        if time.monotonic() > deadline:
            run.stopped = "time"
            break
        candidates = es.ask()
        es.tell(candidates, [objective(np.asarray(x, dtype=np.float64)) for x in candidates])


def _best_parts(records: list[CaseRecord], origins: tuple[str, ...]) -> dict[str, float]:
    out: dict[str, float] = {}
    for r in records:
        if r.origin in origins and not r.failed_assumptions:
            for k, v in r.parts.items():
                if not math.isnan(v):
                    out[k] = max(out.get(k, -math.inf), v)
    return out


def method_summary(run: GlobalRun | None, records: list[CaseRecord]) -> dict:
    """results.json's ``search`` entry: the optimiser's size, budget, evaluations, name (``optimiser``:
    ``differential_evolution`` or ``cma``) and what stopped it (``stopped``: ``budget`` or ``time``), and under
    ``methods`` (None for a claim that is not eligible) the best ratio of each part found by each method: ``ascent``
    (projected gradient ascent, every size of the profile), ``global`` (the optimiser, the smallest size) and
    ``sampling`` (the random and structured cases). A method with no measured case has None."""
    if run is None:
        return {"methods": None}
    out = {"free_parameters": run.free_parameters, "size": list(run.size), "budget": run.budget,
           "evaluations": run.evaluations, "rejected": run.rejected, "optimiser": run.method,
           "stopped": run.stopped, "methods": None}
    if run.eligible:
        found = {m: _best_parts(records, o) for m, o in
                 (("ascent", ("ascent",)), ("global", ("global",)), ("sampling", ("random", "structured")))}
        parts = sorted({k for f in found.values() for k in f})
        out["methods"] = {k: {m: json_number(f.get(k)) for m, f in found.items()} for k in parts}
    return out


def _as_float(x) -> float | None:
    return math.inf if x == "inf" else (None if x is None else float(x))


def _agree(a: float, b: float) -> bool:
    if math.isinf(a) or math.isinf(b) or a <= 0 or b <= 0:
        return a == b or (a <= 0 and b <= 0)
    return abs(math.log(a) - math.log(b)) <= AGREEMENT_LOG_TOL


def disagreements(search: dict | None) -> list[tuple[str, float, float]]:
    """(part, ascent's best, optimiser's best) of every part of a results.json ``search`` entry where both
    methods measured a case and their best ratios differ by more than :data:`AGREEMENT_LOG_TOL` in log."""
    methods = (search or {}).get("methods") or {}
    out = []
    for part, found in methods.items():
        a, g = _as_float(found.get("ascent")), _as_float(found.get("global"))
        if a is not None and g is not None and not _agree(a, g):
            out.append((part, a, g))
    return out
