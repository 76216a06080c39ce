"""spectral_rnn.md, Theorem 3 (proof: App. A.4, eq. 18–21): M_{k1,k2}(…, 1) ⊇ O(n) if k1 + k2 ≤ n + 2.

Checked constructively: the reflectors of eq. 18 (k2 ≥ k1 − 1) or eq. 20 (else), built from
Proposition 1's reflectors of A or Aᵀ by :func:`theorem3_reflectors`, rebuild A up to a
rounding-error tolerance. The printed proof has two slips; both readings are computed.
"""

from __future__ import annotations

import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim
from rnnaudit.bounds.spectral_rnn.cases import (A_F64, A_ORTH, MATRIX_SIZES, MatrixCase, draw, randint,
                                                sample_orthogonal, to_case)
from rnnaudit.bounds.spectral_rnn.reflectors import (defect_allowance, proposition1_reflectors, recon_tol,
                                                     recurrence_matrix, reflector_matrix)

__all__ = ["theorem3", "theorem3_reflectors", "A_K1K2"]


def theorem3_reflectors(A: Tensor, k1: int, k2: int, *, zero_from: str = "corrected") -> tuple[Tensor, Tensor]:
    """Reflectors (U_hat, V_hat) with H_n(u_n)…H_{k1}(u_{k1}) H_{k2}(v_{k2})…H_n(v_n) = A, by eq. 18 or 20.

    a = Prop. 1 reflectors of A (A = H_n(a_n)…H_1(a_1)), b those of Aᵀ (A = H_1(b_1)…H_n(b_n)).
    If k2 ≥ k1 − 1 (eq. 18): u_k = a_k (k ≥ k1), v_{k2+k1−k−1} = a_k (k = k1−1, …, 1), other v's 0.
    Else (eq. 20): v_k = b_k (k ≥ k2), u_{k2+k1−k−1} = b_k (k = k2−1, …, 1), other u's 0.
    Slots beyond n (possible only when k1 + k2 > n + 2, outside the theorem) are dropped.

    Two readings of the printed proof are made explicit:
      * "v_{k2+k1−k−1} = a_k" equates vectors of lengths k2+k1−k−1 and k; a_k is zero-padded on top, which
        leaves H unchanged (H_t((0; a_k)) = H_k(a_k) as n × n matrices). This is the only typable reading.
      * "v_t = 0, t = k2+k1−2, …, n" overwrites v_{k2+k1−2} = a_1; ``zero_from="corrected"`` zeroes
        t ≥ k2 + k1 − 1, ``zero_from="printed"`` zeroes t ≥ k2 + k1 − 2 as printed (and the same for u in
        eq. 20), which drops H_1(a_1).

    Args:
        A: (n, n) orthogonal. k1, k2 ∈ [1, n + 1] (k = n + 1: an empty chain).
        zero_from: "corrected" or "printed".

    Returns:
        (U_hat (n, n − k1 + 1), V_hat (n, n − k2 + 1)) in the ``cells.spectral`` layout.

    Raises:
        ValueError: A not square, k1 or k2 outside [1, n + 1], unknown ``zero_from``.

    Source: spectral_rnn.md, App. A.4, eq. 18–21.
    """
    if not isinstance(A, Tensor) or A.dim() != 2 or A.shape[0] != A.shape[1]:
        raise ValueError("A must be a square matrix (n, n)")
    n = A.shape[0]
    for name, k in (("k1", k1), ("k2", k2)):
        if not 1 <= k <= n + 1:
            raise ValueError(f"{name} must lie in [1, n + 1 = {n + 1}], got {k}")
    if zero_from not in ("corrected", "printed"):
        raise ValueError(f"zero_from must be 'corrected' or 'printed', got {zero_from!r}")
    swap = not k2 >= k1 - 1
    first_k, second_k = (k2, k1) if swap else (k1, k2)
    c, _ = proposition1_reflectors(A.mT if swap else A)
    first = c[:, : n - first_k + 1].clone()  # u_k = a_k, k = n … k1 (column j ↔ index n − j)
    second = A.new_zeros(n, n - second_k + 1)
    for k in range(first_k - 1, 0, -1):
        t = second_k + first_k - k - 1
        if t <= n:  # column n − t of the second chain holds slot t; â_k's support (last k rows) fits as t ≥ k
            second[:, n - t] = c[:, n - k]
    start = second_k + first_k - (2 if zero_from == "printed" else 1)
    for t in range(max(start, second_k), n + 1):
        second[:, n - t] = 0
    return (second, first) if swap else (first, second)


def _sample(gen, h, T, device, dtype) -> MatrixCase:
    """k1 uniform in [1, n + 1], k2 on the boundary k1 + k2 = n + 2 in half the cases, else below it."""
    n = h
    k1 = randint(gen, 1, n + 1)
    k2_max = min(n + 1, n + 2 - k1)
    k2 = k2_max if draw(gen) < 0.5 else randint(gen, 1, k2_max)
    return MatrixCase(to_case(sample_orthogonal(gen, n), device, dtype), n - k1 + 1, n - k2 + 1)


def _measure(case: MatrixCase) -> dict[str, tuple[Tensor, Tensor]]:
    A = case.A.detach()
    n = A.shape[0]
    k1, k2 = n - case.m1 + 1, n - case.m2 + 1
    U_hat, V_hat = theorem3_reflectors(A, k1, k2)
    ones = torch.ones(n, dtype=A.dtype, device=A.device)
    tol = recon_tol(A) + defect_allowance(A)
    name = "eq. 18 (k2 ≥ k1 − 1)" if k2 >= k1 - 1 else "eq. 20 (k2 < k1 − 1)"
    norm_A = torch.linalg.matrix_norm(A)  # identity parts: the report's relative error is error/‖A‖_F
    return {f"A = M_(k1,k2)(u, v, 1) by {name}, householder_product": (
                torch.linalg.matrix_norm(A - reflector_matrix(U_hat, None, V_hat, n, n)), tol, norm_A),
            f"A = M_(k1,k2)(u, v, 1) by {name}, reflector recurrence": (
                torch.linalg.matrix_norm(A - recurrence_matrix(U_hat, ones, V_hat, n)), tol, norm_A)}


A_K1K2 = Assumption("k1 + k2 ≤ n + 2 (m1 + m2 ≥ n)", lambda c: (
    c.m1 + c.m2 >= c.A.shape[0], f"k1 + k2 = {2 * c.A.shape[0] + 2 - c.m1 - c.m2}, n + 2 = {c.A.shape[0] + 2}"))

_ORTHOGONAL_K1K2 = CaseSpace(case_type=MatrixCase, sample=_sample, sizes=MATRIX_SIZES)

theorem3 = Claim(
    id="spectral_rnn.theorem3",
    source="spectral_rnn.md, Theorem 3 (proof: App. A.4, eq. 18–21)",
    statement="The image of M_{k1,k2} includes every n × n orthogonal matrix if k1 + k2 ≤ n + 2 (σ = 1)",
    assumptions=(A_ORTH, A_K1K2, A_F64),
    measure="‖A − M_{k1,k2}(u, v, 1)‖_F with u, v from eq. 18 (k2 ≥ k1 − 1) or eq. 20 (else), a_k zero-padded and "
            "the zero range starting at k1 + k2 − 1",
    bound="30 n² u ‖A‖_F + 2‖AᵀA − I‖_F (the defect term capped at 2√n·1e-10)",
    evaluate=_measure,
    cases=_ORTHOGONAL_K1K2,
    explanation="k1 + k2 ≤ n + 2 is also necessary: with fewer than n reflectors, an orthogonal A without "
                "eigenvalue 1 (generic) is out of reach (Cartan–Dieudonné: it needs n reflections).",
    notes="Two slips in the printed proof, shown by spectral_rnn.theorem3_construction (misprinted; both readings "
          "computed by theorem3_reflectors). Their zero range 'v_t = 0, t = k2 + k1 − 2, …, n' overwrites v_{k1+k2−2} = a_1; as "
          "printed, the construction drops H_1(a_1) (eq. 20: H_1(b_1)) and fails whenever that slot is used and "
          "a_1 ≠ 0, i.e. det A = (−1)^n generically: half of Haar samples "
          "(tests/bounds/spectral_rnn/test_theorem3.py); zeroing from k1 + k2 − 1 is right. The theorem holds. Decision: "
          "the other slip, eq. 18/20 assigning the length-k vector a_k to the length-(k1 + k2 − k − 1) slot "
          "v_{k1+k2−k−1}, has no value to measure (an untypable assignment); it is read as zero-padding a_k on top, "
          "the only typable reading, in both forms of theorem3_construction.",
)
