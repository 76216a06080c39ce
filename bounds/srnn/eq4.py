"""srnn.md, Sec. 3, eq. 4 and "Analysis of gradient dynamics": W_p is a permutation, hence
orthogonal; its powers neither grow nor shrink a vector.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, ExactVerdict
from rnnaudit.bounds.srnn.cases import f64
from rnnaudit.cells import orthogonality_defect, shift, shift_matrix

__all__ = ["PermutationCase", "sample_permutation_case", "measure_eq4", "eq4", "EXACT_RTOL"]

#: 0/1 matrices multiply exactly in floating point; a permutation's defect and the change of
#: ‖y‖ under it are 0 up to the order of one sum of d_h squares (d_h·2⁻⁵³ ≤ 1e-13 relative for
#: d_h ≤ 1024). 1e-12 leaves a 10× margin; a non-permutation shows an O(1) defect.
EXACT_RTOL = 1e-12


@dataclass
class PermutationCase:
    """A candidate W_p of srnn.md eq. 3 with a vector it acts on for T steps.

    Attributes:
        W_p: (d_h, d_h). y: (d_h,). T: number of applications.
    """

    W_p: Tensor
    y: Tensor
    T: int

    def size(self) -> tuple[int, int]:
        """(d_h, T)."""
        return self.W_p.shape[0], self.T


def sample_permutation_case(gen: torch.Generator, h: int, T: int, device="cpu",
                            dtype=torch.float64) -> PermutationCase:
    """W_p is eq. 4's shift (half the cases) or a uniformly random permutation ("without loss of
    generality, the permutation can be chosen as the shift"); y is Gaussian or, as an edge case,
    one-hot. ``h`` = d_h ≥ 1."""
    if float(torch.rand((), generator=gen)) < 0.5:
        W_p = shift_matrix(h, dtype=torch.float64)
    else:
        W_p = torch.eye(h, dtype=torch.float64)[torch.randperm(h, generator=gen)]
    y = torch.randn(h, generator=gen, dtype=torch.float64)
    if float(torch.rand((), generator=gen)) < 0.25:
        y = torch.zeros(h, dtype=torch.float64)
        y[int(torch.randint(0, h, (), generator=gen))] = 1.0
    return PermutationCase(W_p.to(device=device, dtype=dtype), y.to(device=device, dtype=dtype), T)


def _is_permutation(W: Tensor) -> tuple[bool, str]:
    W = W.detach()
    zero_one = bool(((W == 0) | (W == 1)).all())
    sums_ok = bool((W.sum(0) == 1).all() and (W.sum(1) == 1).all())
    return zero_one and sums_ok, f"0/1 entries: {zero_one}, one 1 per row and column: {sums_ok}"


A_PERMUTATION = Assumption("W_p is a permutation matrix (eq. 3–4)", lambda c: _is_permutation(c.W_p))


def _eq4_printed(d_h: int, like: Tensor) -> Tensor:
    """Eq. 4 entry by entry: ones at (i, i+1) and at (d_h, 1) (1-based), zeros elsewhere."""
    W = torch.zeros(d_h, d_h, dtype=like.dtype, device=like.device)
    idx = torch.arange(d_h - 1, device=like.device)
    W[idx, idx + 1] = 1
    W[d_h - 1, 0] = 1
    return W


def measure_eq4(case: PermutationCase, printed=_eq4_printed) -> dict[str, tuple[Tensor, Tensor, Tensor]]:
    """The three identity parts of :data:`eq4`; ``printed`` (d_h, like) → eq. 4's matrix written out (a test
    passes a wrong one to see the check fail)."""
    W, y = case.W_p, case.y
    d_h = W.shape[0]
    norm_y = torch.linalg.vector_norm(y)
    v, drift = y, y.new_zeros(())
    for _ in range(case.T):
        v = W @ v
        drift = torch.maximum(drift, (torch.linalg.vector_norm(v) - norm_y).abs())
    P = printed(d_h, W)
    cell_gap = torch.maximum((shift_matrix(d_h, dtype=W.dtype, device=W.device) - P).abs().max(),
                             (shift(y) - P @ y).abs().max())
    one = f64(1.0, W)
    return {
        "‖W_pᵀW_p − I‖₂ = 0": (orthogonality_defect(W), f64(EXACT_RTOL, W), one),
        "‖W_pᵏ y‖₂ = ‖y‖₂ for k = 1..T": (drift, EXACT_RTOL * norm_y, norm_y),
        "cells.srnn.shift is eq. 4's matrix": (cell_gap, EXACT_RTOL * (1 + y.abs().max()), one + y.abs().max()),
    }


def _exact_eq4() -> ExactVerdict:
    """Eq. 4's matrix in exact integers for d_h = 1..8: W_pᵀW_p = I and W_p y = (y_2, …, y_{d_h}, y_1)."""
    import sympy as sp

    for n in range(1, 9):
        W = sp.zeros(n, n)
        for i in range(n - 1):
            W[i, i + 1] = 1
        W[n - 1, 0] = 1
        y = sp.Matrix(sp.symbols(f"y1:{n + 1}"))
        if W.T * W != sp.eye(n) or list(W * y) != list(y[1:]) + [y[0]]:
            return ExactVerdict("violated", f"eq. 4's matrix at d_h = {n}: W_pᵀW_p = {W.T * W}, W_p y = {list(W * y)}.")
    return ExactVerdict("proved", "eq. 4's matrix (ones at (i, i+1) and (d_h, 1)) satisfies W_pᵀW_p = I and "
                                  "W_p y = (y_2, …, y_{d_h}, y_1) exactly for d_h = 1..8 (sympy); in general every "
                                  "permutation matrix has one 1 per row and column, so W_pᵀW_p = I.")


_PERMUTATIONS = CaseSpace(case_type=PermutationCase, sample=sample_permutation_case,
                          sizes={"quick": [(1, 1), (2, 3), (5, 8), (16, 20), (128, 50)],
                                 "full": [(1, 1), (2, 3), (5, 8), (16, 20), (128, 50), (1024, 200)]})

eq4 = Claim(
    id="srnn.eq4",
    source="srnn.md, Sec. 3, eq. 4 and 'Analysis of gradient dynamics'",
    statement="W_p (eq. 4, a permutation) is orthogonal, so successive applications of W_p neither increase "
              "nor decrease the norm of the hidden state",
    assumptions=(A_PERMUTATION,),
    measure="‖W_pᵀW_p − I‖₂; max over k ≤ T of |‖W_pᵏy‖₂ − ‖y‖₂|; distance of cells.srnn.shift/shift_matrix "
            "from eq. 4 written out entry by entry",
    bound="0, up to the rounding of one sum of d_h squares (EXACT_RTOL = 1e-12, relative)",
    evaluate=measure_eq4,
    exact=_exact_eq4,
    cases=_PERMUTATIONS,
    explanation="A permutation matrix has exactly one 1 in every row and column, so W_pᵀW_p = I; anything else "
                "(a repeated or absent target, a scaled shift) is not norm-preserving.",
    notes="Half the cases use eq. 4's shift, half a uniformly random permutation (the text's 'without loss of "
          "generality'). The cell applies W_p with torch.roll; the third part pins that to eq. 4.",
)
