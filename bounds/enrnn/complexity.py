"""enrnn.md, Sec. 3.2: the Schur decomposition of T costs O((n − q)³) per iteration, a standard RNN O(BLn²),
and "this additional complexity ... will be comparable to a standard RNN when n − q ≤ BL which is typically
the case". Read with unit constants: (n − q)³ ≤ BLn² whenever n − q ≤ BL, and the paper's configurations
satisfy n − q ≤ BL."""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp
import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, ExactVerdict, Supremum

__all__ = ["CostCase", "sample_cost_case", "complexity", "PAPER_CONFIGS"]

#: (experiment, n, q, B, L) where enrnn.md states B and L: copying (Sec. 5.2: batch 20, length T + 20 with
#: T = 2000) and character PTB (Sec. 5.4: batch 32, unrolled 50 steps). Adding and TIMIT do not state B or L.
PAPER_CONFIGS = (("copying (Sec. 5.2)", 192, 172, 20, 2020), ("character PTB (Sec. 5.4)", 1030, 310, 32, 50))


@dataclass
class CostCase:
    """Sizes n (hidden), q (long-term block), B (batch), L (sequence length), all ≥ 0 integers."""

    n: int
    q: int
    B: int
    L: int

    def size(self) -> tuple[int, int]:
        """(n, L)."""
        return self.n, self.L


def _t(x: float) -> Tensor:
    return torch.tensor(float(x), dtype=torch.float64)


def sample_cost_case(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> CostCase:
    """n uniform in [1, h], q in [0, n], B in [1, 64], L the smallest length with BL ≥ n − q plus a random
    extra in [0, T] (so n − q ≤ BL, often with equality)."""
    n = int(torch.randint(1, h + 1, (), generator=gen))
    q = int(torch.randint(0, n + 1, (), generator=gen))
    B = int(torch.randint(1, 65, (), generator=gen))
    L = max(1, -(-(n - q) // B)) + int(torch.randint(0, T + 1, (), generator=gen))
    return CostCase(n, q, B, L)


def _starts(h: int, T: int, device="cpu", dtype=torch.float64) -> list[CostCase]:
    """q = 0 and BL = n (B = 1, L = n): (n − q)³ = BLn², the equality case."""
    return [CostCase(h, 0, 1, h)]


def _measure(c: CostCase) -> dict[str, tuple[Tensor, Tensor]]:
    p = c.n - c.q
    parts = {"(n − q)³ ≤ BLn² when n − q ≤ BL": (_t(p**3), _t(c.B * c.L * c.n**2))}
    for name, n, q, B, L in PAPER_CONFIGS:
        parts[f"{name}: n − q = {n - q} ≤ BL = {B * L}"] = (_t(n - q), _t(B * L))
    return parts


def _exact() -> ExactVerdict:
    """With p = n − q ≥ 0, s = BL − p ≥ 0, q ≥ 0: BLn² − (n − q)³ = (p + s)(p + q)² − p³ expands to a polynomial
    in p, q, s with non-negative coefficients, hence ≥ 0."""
    p, q, s = sp.symbols("p q s", nonnegative=True)
    poly = sp.Poly(sp.expand((p + s) * (p + q) ** 2 - p**3), p, q, s)
    ok = all(coef >= 0 for coef in poly.coeffs())
    return ExactVerdict("proved" if ok else "violated",
                        f"BLn² − (n − q)³ = {poly.as_expr()} with p = n − q, s = BL − p, all coefficients ≥ 0")


def _within(c: CostCase) -> tuple[bool, str]:
    return 0 <= c.q <= c.n and c.n - c.q <= c.B * c.L, f"n − q = {c.n - c.q}, BL = {c.B * c.L}"


A_SMALL_BLOCK = Assumption("0 ≤ q ≤ n and n − q ≤ BL (Sec. 3.2)", _within)

complexity = Claim(
    id="enrnn.complexity",
    source="enrnn.md, Sec. 3.2 (complexity)",
    statement="The Schur decomposition's O((n − q)³) per iteration is comparable to a standard RNN's O(BLn²) when "
              "n − q ≤ BL, which is typically the case",
    assumptions=(A_SMALL_BLOCK,),
    measure="(n − q)³; and n − q in the configurations of Sec. 5 that state B and L",
    bound="BLn²; BL",
    evaluate=_measure,
    cases=CaseSpace(case_type=CostCase, sample=sample_cost_case, starts=_starts,
                    sizes={"quick": [(8, 4), (64, 32), (1030, 64)],
                           "full": [(8, 4), (64, 32), (1030, 64), (4096, 512)]}),
    explanation="Would mean (n − q)³ > BLn² although n − q ≤ BL and n − q ≤ n.",
    notes="Uniform reading, constants 1 (both O(·) hide constants of order 10 for the Schur decomposition, "
          "~25(n − q)³ flops, against 2BLn² for the matrix products of the RNN, so 'comparable' is within that "
          "factor); it implies the asymptotic reading (the ratio stays bounded as the sizes grow). The PTB model "
          "uses n − q = 720 of BL = 1,600; the copying model 20 of 40,400. Decision: O((n − q)²) for the power "
          "method is per iteration, as stated, and gets no verdict: the iteration count is not given.",
    supremum=Supremum(1.0, "(n − q)³ = (n − q)(n − q)² ≤ BL·n², with equality iff q = 0 and BL = n (structured start)",
                      at=(64, 32)),
    exact=_exact,
)
