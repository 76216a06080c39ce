"""spectral_rnn.md, Theorem 1 (proof: App. A.1 Proposition 1, App. A.2): the image of M_1 is O(n).

Checked constructively: Proposition 1's reflectors of an orthogonal A rebuild A, by
householder_product and by the reflector recurrence of Algorithm 1, up to a rounding-error
tolerance; R = I in A = QR; and M_1 of random reflectors is orthogonal.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim
from rnnaudit.bounds.spectral_rnn.cases import (A_F64, A_ORTH, MATRIX_SIZES, MatrixCase, random_reflectors,
                                                sample_orthogonal, to_case)
from rnnaudit.bounds.spectral_rnn.reflectors import (RECON_C, U64, defect_allowance, defect_F, proposition1_reflectors,
                                                     recon_tol, recurrence_matrix)
from rnnaudit.cells import reflector_product

__all__ = ["theorem1", "A_M1_FULL"]


def _sample(gen, h, T, device, dtype) -> MatrixCase:
    A = sample_orthogonal(gen, h)
    return MatrixCase(to_case(A, device, dtype), h, 0, to_case(random_reflectors(gen, h, h), device, dtype))


def _measure(case: MatrixCase) -> dict[str, tuple[Tensor, Tensor]]:
    A = case.A.detach()
    n = A.shape[0]
    a, R = proposition1_reflectors(A)
    a = a[:, : case.m1]
    eye = torch.eye(n, dtype=A.dtype, device=A.device)
    tol = recon_tol(A) + defect_allowance(A)
    norm_A, norm_I = torch.linalg.matrix_norm(A), torch.linalg.matrix_norm(eye)
    # identity parts (error, tolerance, ‖truth‖): the report shows error/‖truth‖ as the relative error
    parts = {
        "A = M_1(a) rebuilt by householder_product (Prop. 1 reflectors)": (
            torch.linalg.matrix_norm(A - reflector_product(a)), tol, norm_A),
        "A = M_1(a) applied by the reflector recurrence (eq. 8, Algorithm 1)": (
            torch.linalg.matrix_norm(A - recurrence_matrix(a, None, None, n)), tol, norm_A),
        "R = I in A = QR (App. A.2)": (torch.linalg.matrix_norm(R - eye), tol, norm_I),
    }
    if case.u_rand is not None:
        Q = reflector_product(case.u_rand.detach())
        parts["M_1(u) ∈ O(n) for random u (image ⊆ O(n))"] = (
            defect_F(Q), RECON_C * n * n * U64 * math.sqrt(n) * torch.ones((), dtype=A.dtype, device=A.device), norm_I)
    return parts


A_M1_FULL = Assumption("k = 1: all n reflectors (the map M_1)", lambda c: (
    c.m1 == c.A.shape[0], f"m = {c.m1} reflectors, k = {c.A.shape[0] - c.m1 + 1}"))

_ORTHOGONAL_MATRICES = CaseSpace(case_type=MatrixCase, sample=_sample, sizes=MATRIX_SIZES)

theorem1 = Claim(
    id="spectral_rnn.theorem1",
    source="spectral_rnn.md, Theorem 1 (proof: App. A.1 Proposition 1, App. A.2)",
    statement="The image of M_1 (u_1, …, u_n) ↦ H_n(u_n) … H_1(u_1) is the set of all n × n orthogonal matrices",
    assumptions=(A_ORTH, A_M1_FULL, A_F64),
    measure="‖A − M_1(a)‖_F with a from Proposition 1's construction (rebuilt by householder_product and by the "
            "reflector recurrence), ‖R − I‖_F, and ‖QᵀQ − I‖_F for Q = M_1(u) with random u",
    bound="30 n² u ‖A‖_F + 2‖AᵀA − I‖_F (rounding of Householder QR and rebuild, u = 2⁻⁵³; the defect term "
          "capped at 2√n·1e-10, the predicate's limit)",
    evaluate=_measure,
    cases=_ORTHOGONAL_MATRICES,
    explanation="Outside O(n) Proposition 1 still factors A = QR but R ≠ I, so M_1(a) = Q ≠ A; with k > 1 "
                "(fewer than n reflectors) the last columns of A are not reached.",
    notes="The reflector is I_k − 2uuᵀ/‖u‖² (eq. 8, Algorithm 2; the markdown copy's eq. 1 is a conversion "
          "artefact, see spectral_rnn.eq1's decision). Decision: the cancellation below is a matter of floating "
          "point, not an error of the paper, whose formula is exact in exact arithmetic. Proposition 1's "
          "u = B_1 − ‖B_1‖e_1 is evaluated without cancellation "
          "(−‖B_{2:,1}‖²/(B_11 + ‖B_1‖) when B_11 > 0); the literal difference loses up to all digits of u's first "
          "entry for columns near e_1, so near-identity A = exp(10⁻⁹S) are rebuilt only to ≈ 2e-8 instead of 1e-15 "
          "(proposition1_reflectors(stable=False)).",
)
