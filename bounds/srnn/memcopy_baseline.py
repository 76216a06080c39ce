"""srnn.md, Sec. 4 "Copying Memory Problem": the sequence of length T + 20, the target of T + 10 blanks followed by
the 10 symbols, and "the baseline model ... predicts some constant sequence after the appearance of the delimiter
symbol, a_10. The cross-entropy for this solution is 10 ln 8/(T + 20)."
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, ExactVerdict, Supremum
from rnnaudit.bounds.srnn.cases import f64
from rnnaudit.tasks.synthetic import COPY_N_CLASSES, copy_task

__all__ = ["CopyCase", "sample_copy_case", "memcopy_baseline", "BASELINE_RTOL"]

#: The baseline's cross-entropy is a mean of T + 20 terms 0 or ln 8 over the batch: ~(T+20)·batch ulps of ln 8;
#: 1e-12 relative leaves > 100× at the shipped sizes, while a wrong count of steps changes it by ≥ 1/(T+20).
BASELINE_RTOL = 1e-12


@dataclass
class CopyCase:
    """A batch of copy-task sequences (rnnaudit.tasks.synthetic.copy_task, srnn.md's exact layout) and a constant
    distribution q over the 9 output classes (0 blank, 1..8 the symbols) predicted after the delimiter.

    Attributes:
        T: the delay. batch: sequences. seed: seeds the batch. logits: (9,), q = softmax(logits).
    """

    T: int
    batch: int
    seed: int
    logits: Tensor

    def size(self) -> tuple[int, int]:
        """(10 symbols to copy, T)."""
        return 10, self.T


def sample_copy_case(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> CopyCase:
    """64 sequences of delay T, and Gaussian logits for q."""
    logits = torch.randn(COPY_N_CLASSES, generator=gen, dtype=torch.float64)
    return CopyCase(T, 64, int(torch.randint(0, 2**31 - 1, (), generator=gen)), logits.to(device=device, dtype=dtype))


def _starts(h: int, T: int, device="cpu", dtype=torch.float64) -> list[CopyCase]:
    """q uniform over the 8 symbols (the stated baseline: ratio 1) and uniform over all 9 classes."""
    symbols = torch.zeros(COPY_N_CLASSES, dtype=dtype, device=device)
    symbols[0] = -40.0  # blank ruled out (e^−40 ≈ 4e−18)
    return [CopyCase(T, 64, 0, symbols), CopyCase(T, 64, 0, torch.zeros(COPY_N_CLASSES, dtype=dtype, device=device))]


def _layout_errors(x: Tensor, y: Tensor, T: int) -> int:
    """Positions where copy_task's (x, y) differ from Sec. 4's description."""
    bad = int(x.shape[1] != T + 20) + int(y.shape[1] != T + 20)
    symbols = x[:, :10]
    bad += int(((symbols < 1) | (symbols > 8)).sum())  # the first 10 from A = {a_1..a_8}
    bad += int((x[:, 10:T + 9] != 0).sum()) + int((x[:, T + 9] != 9).sum()) + int((x[:, T + 10:] != 0).sum())
    bad += int((y[:, :T + 10] != 0).sum()) + int((y[:, T + 10:] != symbols).sum())
    return bad


def _measure(case: CopyCase) -> dict[str, tuple[Tensor, ...]]:
    x, y = copy_task(case.batch, case.T, generator=torch.Generator().manual_seed(case.seed))
    L = case.T + 20
    # the stated baseline: blank with probability 1 for the first T + 10 outputs, uniform over a_1..a_8 after
    log_p = torch.zeros(case.batch, L, dtype=torch.float64)
    last = y[:, case.T + 10:] >= 1
    log_p[:, case.T + 10:] = torch.where(last, torch.full(last.shape, -math.log(8), dtype=torch.float64),
                                         torch.full(last.shape, -math.inf, dtype=torch.float64))
    ce = -log_p.mean()
    stated = 10 * math.log(8) / L
    # any constant q after the delimiter: the expected cross-entropy, the symbols being uniform on a_1..a_8
    log_q = torch.log_softmax(case.logits, dim=0)
    ce_q = -(10 / L) * log_q[1:].mean()
    like = case.logits
    return {
        "copy_task's sequences have Sec. 4's layout (length T + 20, T + 10 blanks then the 10 symbols)": (
            f64(_layout_errors(x, y, case.T), like), f64(0.5, like)),
        "CE of the baseline (blank, then uniform over the 8 symbols) = 10 ln 8/(T + 20)": (
            (ce - stated).abs().to(like), f64(BASELINE_RTOL * stated, like), f64(stated, like)),
        "no constant prediction after the delimiter does better: 10 ln 8/(T + 20) ≤ E[CE(q)]": (f64(stated, like),
                                                                                                ce_q),
    }


def _exact() -> ExactVerdict:
    """CE of the baseline in sympy, and the minimum of −(1/8) Σ_s ln q_s over the simplex (Lagrange: q_s = 1/8)."""
    import sympy as sp

    T = sp.Symbol("T", positive=True)
    ce = (sp.Integer(0) * (T + 10) + 10 * sp.log(8)) / (T + 20)
    q = sp.symbols("q1:9", positive=True)
    lam = sp.Symbol("lam")
    lagrangian = -sum(sp.log(v) for v in q) / 8 + lam * (sum(q) - 1)
    sol = sp.solve([sp.diff(lagrangian, v) for v in q] + [sum(q) - 1], [*q, lam], dict=True)
    unique_uniform = len(sol) == 1 and all(sol[0][v] == sp.Rational(1, 8) for v in q)
    convex = all(sp.diff(lagrangian, v, 2).subs(sol[0]) > 0 for v in q) if sol else False
    if sp.simplify(ce - 10 * sp.log(8) / (T + 20)) == 0 and unique_uniform and convex:
        return ExactVerdict("proved", "Blank with certainty for the T + 10 known blanks (loss 0) and uniform over the "
                                      "8 symbols for the last 10 (loss ln 8 each) gives 10 ln 8/(T + 20) per step "
                                      "(sympy); −(1/8)Σ ln q_s is strictly convex with its only stationary point on "
                                      "the simplex at q_s = 1/8, so no constant prediction does better (Gibbs).")
    return ExactVerdict("violated", f"CE = {ce}, stationary points {sol}")


A_DESCRIPTION = Assumption("the task of Sec. 4 (8 symbols, blank, delimiter, delay T ≥ 1)",
                           lambda c: (c.T >= 1 and c.logits.numel() == COPY_N_CLASSES, f"T = {c.T}"))

memcopy_baseline = Claim(
    id="srnn.memcopy_baseline",
    source="srnn.md, Sec. 4 'Copying Memory Problem'",
    statement="The sequence has length T + 20 and the target T + 10 blanks followed by the 10 symbols; the baseline "
              "that predicts a constant sequence after the delimiter has cross-entropy 10 ln 8/(T + 20)",
    assumptions=(A_DESCRIPTION,),
    measure="the layout of rnnaudit.tasks.synthetic.copy_task's sequences; the cross-entropy per step of the baseline "
            "on them; the expected cross-entropy of any constant distribution q after the delimiter",
    bound="no layout error (a count < 1/2); 10 ln 8/(T + 20) (identity, BASELINE_RTOL); E[CE(q)]",
    evaluate=_measure,
    cases=CaseSpace(case_type=CopyCase, sample=sample_copy_case, free=lambda c: [c.logits], starts=_starts,
                    sizes={"quick": [(10, 1), (10, 10), (10, 100)], "full": [(10, 1), (10, 10), (10, 100),
                                                                                (10, 1000), (10, 2000)]}),
    explanation="Would mean the task differs from Sec. 4's description or the constant predictor's loss is not the "
                "entropy of the 8 equally likely symbols, averaged over the T + 20 steps.",
    notes="Reading: the cross-entropy is averaged over all T + 20 output steps (as the formula's denominator says) and "
          "the baseline knows that the first T + 10 targets are blank. The third part's supremum 1 is reached by q "
          "uniform over the symbols; the ascent moves q from Gaussian logits towards it.",
    supremum=Supremum(1.0, "Gibbs' inequality: −(1/8)Σ_s ln q_s ≥ ln 8 with equality iff q is uniform on the symbols "
                           "(the first start).", at=(10, 10),
                      part="no constant prediction after the delimiter does better: 10 ln 8/(T + 20) ≤ E[CE(q)]"),
    exact=_exact,
)
