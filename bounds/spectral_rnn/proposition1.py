"""spectral_rnn.md, App. A.1, Proposition 1 (Householder QR): every B ∈ ℝ^{n×n} is H_n(u_n) … H_1(u_1) R with R
upper triangular with *positive* diagonal elements.

False for singular B: any B = QR with Q orthogonal has Π R_ii = |det R| = |det B|, so a singular B forces a
zero on R's diagonal (B = 0, n = 1: H_1^1(u) = ±1 and R = 0). The proof's base case sets u_1 = 0 "if B_11 > 0
and u_1 ≠ 0 otherwise", which gives R_11 = 0 for B_11 = 0; its induction step u = B_1 − ‖B_1‖e_1 gives R_11 =
‖B_1‖ = 0 for a zero column. Theorem 1 applies the proposition only to orthogonal (nonsingular) A, so it is not
affected. ``spectral_rnn.proposition1.corrected``: R with a non-negative diagonal, Π R_ii = |det B|.
"""

from __future__ import annotations

from fractions import Fraction

import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, ExactVerdict, Supremum
from rnnaudit.bounds.spectral_rnn.cases import (A_F64, F64, MatrixCase, gauss, randint, sample_matrix,
                                                sample_orthogonal, t64, to_case)
from rnnaudit.bounds.spectral_rnn.reflectors import RECON_C, U64, proposition1_reflectors, recon_tol
from rnnaudit.cells import reflector_product

__all__ = ["proposition1", "proposition1_corrected", "exact_rank", "exact_proposition1", "A_SQUARE_B"]


def exact_rank(B: Tensor) -> int:
    """The rank of B's stored entries in exact rational arithmetic (every float64 is a dyadic rational):
    Gaussian elimination on :class:`fractions.Fraction`. Decides singularity without a tolerance, so a nearly
    singular B is never taken for a singular one. O(n³) Fraction operations: meant for n ≤ 32."""
    rows = [[Fraction(float(x)) for x in row] for row in B.detach().cpu().tolist()]
    rank, n_cols = 0, len(rows[0]) if rows else 0
    for col in range(n_cols):
        pivot = next((r for r in range(rank, len(rows)) if rows[r][col] != 0), None)
        if pivot is None:
            continue
        rows[rank], rows[pivot] = rows[pivot], rows[rank]
        for r in range(rank + 1, len(rows)):
            if rows[r][col] != 0:
                f = rows[r][col] / rows[rank][col]
                rows[r] = [x - f * y for x, y in zip(rows[r], rows[rank])]
        rank += 1
    return rank


def _factor_parts(case: MatrixCase) -> tuple[dict, Tensor]:
    B = case.A.detach()
    U_hat, R = proposition1_reflectors(B)
    tol = recon_tol(B)
    parts = {"B = H_n(u_n) … H_1(u_1) R (the proof's construction)": (
                 torch.linalg.matrix_norm(B - reflector_product(U_hat) @ R), tol, torch.linalg.matrix_norm(B)),
             "R upper triangular": (torch.linalg.matrix_norm(torch.tril(R, -1)), tol, torch.linalg.matrix_norm(R))}
    return parts, R


def _measure(case: MatrixCase) -> dict[str, tuple[Tensor, ...]]:
    parts, _ = _factor_parts(case)
    n = case.A.shape[0]
    # Π R_ii = |det B| for every B = QR: a singular B forces n − rank(B) zero pivots. Integers: |·| ≤ 1/2 ⇔ 0.
    parts["R has positive diagonal elements: n − rank B (exact) of them must be 0"] = (
        t64(n - exact_rank(case.A), case.A), t64(0.5, case.A))
    return parts


def _measure_corrected(case: MatrixCase) -> dict[str, tuple[Tensor, ...]]:
    parts, R = _factor_parts(case)
    B = case.A.detach()
    d = torch.diagonal(R)
    tol = recon_tol(B)
    parts["R_ii ≥ 0"] = (torch.clamp(-d.min(), min=0), tol, torch.linalg.vector_norm(d))
    # |Π R_ii − |det B|| is the rounding of two products of n factors bounded by the column norms (Hadamard):
    # 30 n² u Π_j ‖B_j‖ covers it as recon_tol covers ‖B − QR‖
    hadamard = torch.prod(torch.linalg.vector_norm(B, dim=0))
    det = torch.linalg.det(B).abs()
    parts["Π R_ii = |det B| (so R_ii > 0 for all i iff B is nonsingular)"] = (
        (torch.prod(d) - det).abs(), RECON_C * B.shape[0] ** 2 * U64 * hadamard, det)
    return parts


def _sample(gen, h, T, device, dtype) -> MatrixCase:
    """General matrices (sample_matrix: Gaussian, rank-deficient products, zero, scaled orthogonal, diagonal,
    ill-conditioned down to σ = 1e-12), orthogonal ones, and exactly singular ones: a zero column, two equal
    columns, small-integer matrices of rank < n."""
    n = h
    kind = randint(gen, 0, 5)
    if kind == 0:
        B = sample_orthogonal(gen, n)
    elif kind == 1:
        B = gauss(gen, n, n)
        B[:, randint(gen, 0, n - 1)] = 0.0
    elif kind == 2 and n > 1:
        B = gauss(gen, n, n)
        i, j = randint(gen, 0, n - 1), randint(gen, 0, n - 2)
        B[:, j if j < i else j + 1] = B[:, i]
    elif kind == 3:
        r = randint(gen, 0, n - 1)
        B = torch.randint(-3, 4, (n, r), generator=gen).to(F64) @ torch.randint(-3, 4, (r, n), generator=gen).to(F64)
    else:
        B = sample_matrix(gen, n, n)
    return MatrixCase(to_case(B, device, dtype), n, 0)


def _starts(h, T, device, dtype) -> list[MatrixCase]:
    """B = 0 (every pivot vanishes: n − rank B = n), B = I (u = 0 throughout) and a rank-one matrix of ones."""
    conv = lambda X: to_case(X, device, dtype)  # noqa: E731
    return [MatrixCase(conv(torch.zeros(h, h, dtype=F64)), h, 0), MatrixCase(conv(torch.eye(h, dtype=F64)), h, 0),
            MatrixCase(conv(torch.ones(h, h, dtype=F64)), h, 0)]


def exact_proposition1() -> ExactVerdict:
    """The exact counterexample B = [[1, 1], [1, 1]] by sympy: det B = 0; the proof's u_2 = B_1 − ‖B_1‖e_1 gives
    H B = [[√2, √2], [0, 0]], and no factorization can do better since Π R_ii = |det B| = 0."""
    import sympy as sp

    B = sp.Matrix([[1, 1], [1, 1]])
    b1 = B[:, 0]
    u = b1 - b1.norm() * sp.Matrix([1, 0])
    H = sp.eye(2) - 2 * u * u.T / (u.T * u)[0]
    R = (H * B).applyfunc(sp.nsimplify)
    if R[1, 0] != 0 or sp.simplify(H * R - B) != sp.zeros(2, 2):
        return ExactVerdict("proved", f"the construction gave R = {R.tolist()} (no counterexample)")
    return ExactVerdict("violated", f"B = [[1, 1], [1, 1]] (det B = {B.det()}): the proof's construction gives "
                                    f"R = {R.tolist()}, R_22 = {R[1, 1]}; every B = QR has Π R_ii = |det B| = 0, "
                                    f"so no R with positive diagonal exists (n = 1: B = [0] gives R = ±0)")


A_SQUARE_B = Assumption("B ∈ ℝ^{n×n}", lambda c: (c.A.dim() == 2 and c.A.shape[0] == c.A.shape[1]
                                                 and bool(torch.isfinite(c.A).all()), f"B is {tuple(c.A.shape)}"))

_SQUARE = CaseSpace(case_type=MatrixCase, sample=_sample, starts=_starts,
                    sizes={"quick": [(1, 1), (2, 1), (3, 1), (5, 1), (8, 1)],
                           "full": [(1, 1), (2, 1), (3, 1), (5, 1), (8, 1), (16, 1), (32, 1)]})

proposition1 = Claim(
    id="spectral_rnn.proposition1",
    source="spectral_rnn.md, App. A.1, Proposition 1 and its proof",
    statement="For every B ∈ ℝ^{n×n} there are an upper triangular R with positive diagonal elements and u_i ∈ ℝ^i "
              "with B = H_n^n(u_n) … H_1^n(u_1) R",
    assumptions=(A_SQUARE_B, A_F64),
    measure="the proof's construction (proposition1_reflectors): ‖B − H_n … H_1 R‖_F, ‖strict lower part of R‖_F; and "
            "n − rank B in exact rational arithmetic, the number of R_ii that must vanish in any B = QR "
            "(Π R_ii = |det B|)",
    bound="30 n² u ‖B‖_F (reconstruction, triangularity); 1/2 (an integer count that must be 0)",
    evaluate=_measure,
    cases=_SQUARE,
    explanation="A singular B has no such R: Π R_ii = |det B| = 0 forces a zero diagonal entry (the missing "
                "hypothesis: B nonsingular). The proof's base case (u_1 = 0 iff B_11 > 0) and its step "
                "u = B_1 − ‖B_1‖e_1 give R_ii = 0 there. Theorem 1 uses the proposition only for orthogonal A and "
                "is unaffected. See spectral_rnn.proposition1.corrected.",
    notes="Ratio 2(n − rank B): the number of forced zero pivots, doubled; its supremum 2n is reached by B = 0 (a "
          "structured start). Singularity is decided exactly (Fractions), so nearly singular B (σ_min = 1e-12) count "
          "as nonsingular, as they are.",
    supremum=Supremum(lambda h, T: 2.0 * h, "n − rank B ≤ n with equality only at B = 0; ratio (n − rank B)/(1/2)",
                      at=(8, 1), part="R has positive diagonal elements: n − rank B (exact) of them must be 0"),
    exact=exact_proposition1,
)

proposition1_corrected = Claim(
    id="spectral_rnn.proposition1.corrected",
    source="spectral_rnn.md, App. A.1, Proposition 1, corrected by rnnaudit (non-negative diagonal)",
    statement="For every B ∈ ℝ^{n×n}, B = H_n^n(u_n) … H_1^n(u_1) R with R upper triangular with non-negative diagonal "
              "and Π R_ii = |det B| (so the diagonal is positive iff B is nonsingular)",
    assumptions=(A_SQUARE_B, A_F64),
    measure="the proof's construction: reconstruction, triangularity, min(0, min R_ii), |Π R_ii − |det B||",
    bound="30 n² u ‖B‖_F; 30 n² u Π_j ‖B_j‖ (Hadamard) for the determinant",
    evaluate=_measure_corrected,
    cases=_SQUARE,
    explanation="Would mean the proof's construction does not give a QR factorization with R_ii = ‖x_i‖ ≥ 0.",
    notes="With B nonsingular (e.g. orthogonal, as in Theorem 1) the diagonal is positive and the proposition as "
          "printed holds.",
)
