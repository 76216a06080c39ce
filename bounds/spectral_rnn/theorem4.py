"""spectral_rnn.md, Theorem 4 with Lemma 1 (Sec. 5, eq. 15; proof: App. A.5): M^{m,n} with 2 min(m, n)
reflectors reaches every m × n matrix.

Checked constructively as Theorem 2, with min(m, n) of Proposition 1's reflectors of each SVD
factor, and Lemma 1 on the columns of V the proof needs.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, Reading
from rnnaudit.bounds.spectral_rnn.cases import A_F64, MATRIX_SIZES, MatrixCase, draw, randint, sample_matrix, to_case
from rnnaudit.bounds.spectral_rnn.reflectors import RECON_C, U64, measure_svd_reconstruction, proposition1_reflectors
from rnnaudit.cells import reflector_product

__all__ = ["theorem4", "A_THM4_K"]


def _sample(gen, h, T, device, dtype) -> MatrixCase:
    """One side is h, the other uniform in [1, h]; wide and tall equally often."""
    other = randint(gen, 1, h)
    p, q = (other, h) if draw(gen) < 0.5 else (h, other)
    r = min(p, q)
    return MatrixCase(to_case(sample_matrix(gen, p, q), device, dtype), r, r)


def _measure(case: MatrixCase) -> dict[str, tuple[Tensor, Tensor]]:
    parts = measure_svd_reconstruction(case)
    A = case.A.detach()
    p, q = A.shape
    # Lemma 1 on the right factor: V^(1) (all q reflectors) and V^(k2) share their first q − k2 + 1 columns.
    _, _, Vh = torch.linalg.svd(A)
    b, _ = proposition1_reflectors(Vh.mT)
    full, part = reflector_product(b), reflector_product(b[:, : case.m2])
    i = case.m2  # = q − k2 + 1 columns
    diff = torch.linalg.matrix_norm(full[:, :i] - part[:, :i]) if i > 0 else torch.zeros((), dtype=A.dtype)
    parts["Lemma 1 through column n − k + 1 (the column Theorem 4's proof needs)"] = (
        diff, RECON_C * q * q * U64 * math.sqrt(max(i, 1)) * torch.ones((), dtype=A.dtype, device=A.device),
        torch.linalg.matrix_norm(full[:, :i]) if i > 0 else torch.zeros((), dtype=A.dtype))  # = √i: unit columns
    return parts


def _measure_printed(case: MatrixCase) -> dict[str, tuple[Tensor, Tensor]]:
    """The reading's parts, and the printed second case's index: M^{m,n}_{n−m+1, 1} needs the reflectors
    H^m_k for k = n − m + 1, …, m. H^m_0 exists (eq. 1: ℝ⁰ holds only u = 0, the 'otherwise' case, so H^m_0 = I),
    and at m = n + 1 the printed map is defined and onto (H^m_m … H^m_1 reach every U, with m + n reflectors rather
    than 2 min(m, n)); for m ≥ n + 2 the m − n − 1 of them with k ≤ −1 (u_k ∈ ℝ^k) do not exist (measured: how
    many, bound 0)."""
    parts = _measure(case)
    m, n = case.A.shape
    parts["the printed M^{m,n}_{n−m+1, 1} names only reflectors H^m_k with k ≥ 0"] = (
        torch.tensor(float(max(0, m - n - 1)), dtype=case.A.dtype), torch.zeros((), dtype=case.A.dtype))
    return parts


A_THM4_K = Assumption("k1, k2 as in Theorem 4 (min(m, n) reflectors on each side)", lambda c: (
    c.m1 == c.m2 == min(c.A.shape), f"m1 = {c.m1}, m2 = {c.m2}, min(m, n) = {min(c.A.shape)}"))

def _starts(h: int, T: int, device="cpu", dtype=torch.float64) -> list[MatrixCase]:
    """A tall h × ⌊h/2⌋ matrix (I's first columns plus 0.1 everywhere) for h ≥ 2: the second case of the statement,
    where the printed k1 = n − m + 1 ≤ −1 from h = 3 on (h = 2 gives 2 × 1, k1 = 0, where the printed map is
    defined)."""
    if h < 2:
        return []
    n = h // 2
    A = torch.eye(h, dtype=torch.float64)[:, :n] + 0.1
    return [MatrixCase(to_case(A, device, dtype), n, n)]


_RECTANGULAR_MATRICES = CaseSpace(case_type=MatrixCase, sample=_sample, sizes=MATRIX_SIZES, starts=_starts)

theorem4 = Claim(
    id="spectral_rnn.theorem4",
    source="spectral_rnn.md, Theorem 4 and Lemma 1 (Sec. 5, eq. 15; proof: App. A.5)",
    statement="If m ≤ n, the image of M^{m,n}_{1, n−m+1} is ℝ^{m×n}; else the image of M^{m,n}_{n−m+1, 1} "
              "is ℝ^{m×n} (2 min(m, n) reflectors)",
    assumptions=(A_THM4_K, A_F64),
    measure="‖A − M(u, v, σ)‖_F with min(m, n) Proposition 1 reflectors of each SVD factor (householder_product "
            "and householder_forward); Lemma 1 on the first n − k2 + 1 columns of V",
    bound="30 max(m, n)² u ‖A‖_F",
    evaluate=_measure_printed,
    cases=_RECTANGULAR_MATRICES,
    explanation="The statement's second case prints M^{m,n}_{n−m+1, 1}: for m ≥ n + 2 its k1 = n − m + 1 ≤ −1 "
                "names reflectors H^m_k with k ≤ −1 (u_k ∈ ℝ^k), which do not exist, so the printed case says nothing "
                "(a sign slip: the "
                "proof uses k1 = m − n + 1, min(m, n) reflectors on each side, and with it the theorem holds, the "
                "reading). With fewer than min(m, n) reflectors on a side, that side's first min(m, n) singular "
                "vectors cannot all be reached (the column count of Lemma 1).",
    notes="Misprinted: the printed k1 = n − m + 1 fails for every tall case with m ≥ n + 2, the reading "
          "k1 = m − n + 1 holds. At m = n + 1 the printed k1 = 0 is defined (eq. 1 gives H^m_0 = I, since ℝ⁰ holds "
          "only u = 0) and the printed map is onto, with m + n reflectors instead of 2 min(m, n); the check counts "
          "only the reflectors with k ≤ −1, so m = n + 1 holds as printed. "
          "Decision: App. A.5's U = H^m_n(u_n)… for U ∈ ℝ^{m×m} (and eq. 15's first factor H^n_m) is read "
          "H^m_m(u_m) without a verdict of its own: it is in the proof and the definition, not in a statement, and "
          "the only typable reading is the one the check uses. "
          "Lemma 1 as printed asserts equal columns only for i ≤ min(n − k1, n − k2), one column short of what the "
          "proof uses (V_L has n − k2 + 1 = m columns); the lemma is true through i = n − max(k1, k2) + 1, which "
          "is the part checked.",
    readings=(Reading(
        "k1 read as m − n + 1 (the proof's)",
        "If m ≤ n, the image of M^{m,n}_{1, n−m+1} is ℝ^{m×n}; else the image of M^{m,n}_{m−n+1, 1} is ℝ^{m×n} "
        "(min(m, n) reflectors on each side)",
        "App. A.5's proof builds the tall case with k1 = m − n + 1 (min(m, n) reflectors of the m × m factor U), the "
        "count the statement's '2 min(m, n) reflectors' and Sec. 5's 'mn input dimensions' give",
        _measure),),
)
