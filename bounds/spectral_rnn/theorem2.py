"""spectral_rnn.md, Theorem 2 (proof: App. A.3): the image of M_{1,1} is ℝ^{n×n}.

Checked constructively: σ, U, V from the SVD and u, v from Proposition 1 rebuild W, by
householder_product and by the reflector recurrence of Algorithm 1, up to a rounding-error tolerance.
"""

from __future__ import annotations

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim
from rnnaudit.bounds.spectral_rnn.cases import A_F64, MATRIX_SIZES, MatrixCase, sample_matrix, to_case
from rnnaudit.bounds.spectral_rnn.reflectors import measure_svd_reconstruction

__all__ = ["theorem2", "A_SQUARE", "A_M11_FULL"]


def _sample(gen, h, T, device, dtype) -> MatrixCase:
    return MatrixCase(to_case(sample_matrix(gen, h, h), device, dtype), h, h)


A_SQUARE = Assumption("A ∈ ℝ^{n×n}", lambda c: (c.A.shape[0] == c.A.shape[1], f"A is {tuple(c.A.shape)}"))
A_M11_FULL = Assumption("k1 = k2 = 1 (the map M_{1,1})", lambda c: (
    c.m1 == c.A.shape[0] and c.m2 == c.A.shape[1], f"k1 = {c.A.shape[0] - c.m1 + 1}, k2 = {c.A.shape[1] - c.m2 + 1}"))

_SQUARE_MATRICES = CaseSpace(case_type=MatrixCase, sample=_sample, sizes=MATRIX_SIZES)

theorem2 = Claim(
    id="spectral_rnn.theorem2",
    source="spectral_rnn.md, Theorem 2 (proof: App. A.3)",
    statement="The image of M_{1,1} is ℝ^{n×n}: every W = H_n(u_n)…H_1(u_1) diag(σ) H_1(v_1)…H_n(v_n)",
    assumptions=(A_SQUARE, A_M11_FULL, A_F64),
    measure="‖W − M_{1,1}(u, v, σ)‖_F with σ, U, V from the SVD and u, v from Proposition 1 (householder_product "
            "and the reflector recurrence of Algorithm 1)",
    bound="30 n² u ‖W‖_F",
    evaluate=measure_svd_reconstruction,
    cases=_SQUARE_MATRICES,
    explanation="With fewer reflectors (k1, k2 > 2) the parametrisation has fewer than n² degrees of freedom and "
                "generic matrices are out of reach.",
    notes="Samples include rank-deficient, zero, ill-conditioned (σ down to 1e-12) and repeated-σ matrices. σ is "
          "free in ℝⁿ here (eq. 3), not eq. 7's σ ∈ [σ* − r, σ* + r].",
)
