"""spectral_rnn.md, Sec. 5, Lemma 1: V^(k) = H_n(v_n) … H_k(v_k) share their first columns.

As printed the lemma asserts equal columns i ≤ min(n − k1, n − k2). Theorem 4's proof (App. A.5) uses it to
drop v_1, …, v_{n−m}: it needs the first m = n − k2 + 1 columns of V^(1) and V^(k2), one more than the lemma
gives. The stronger statement, i ≤ n − max(k1, k2) + 1, is true (H_j(v_j) fixes e_i for i ≤ n − j), and it is
checked as the second part; the proof step is sound once the lemma is read that way.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim
from rnnaudit.bounds.spectral_rnn.cases import A_F64, MATRIX_SIZES, MatrixCase, draw, gauss, randint, to_case
from rnnaudit.bounds.spectral_rnn.reflectors import RECON_C, U64
from rnnaudit.cells import reflector_product

__all__ = ["lemma1", "READINGS", "A_K_RANGE"]

#: The column ranges checked: (name, i_max(n, k1, k2)).
READINGS = (("as printed: columns i ≤ min(n − k1, n − k2)", lambda n, k1, k2: min(n - k1, n - k2)),
            ("as Theorem 4's proof uses it: columns i ≤ n − max(k1, k2) + 1", lambda n, k1, k2: n - max(k1, k2) + 1))


def _measure(case: MatrixCase) -> dict[str, tuple[Tensor, Tensor, Tensor]]:
    V_hat = case.A.detach()  # (n, n): column j is v̂_{n−j}
    n = V_hat.shape[0]
    k1, k2 = n - case.m1 + 1, n - case.m2 + 1
    V1, V2 = reflector_product(V_hat[:, : case.m1]), reflector_product(V_hat[:, : case.m2])
    tol = RECON_C * n * n * U64 * math.sqrt(n) * torch.ones((), dtype=V_hat.dtype, device=V_hat.device)
    parts = {}
    for name, i_max in READINGS:
        i = max(i_max(n, k1, k2), 0)
        # (error, tolerance, ‖truth‖ = √i for i orthonormal columns)
        parts[name] = (torch.linalg.matrix_norm(V1[:, :i] - V2[:, :i]), tol, torch.linalg.matrix_norm(V1[:, :i]))
    return parts


def _sample(gen, h, T, device, dtype) -> MatrixCase:
    """v_1, …, v_n Gaussian (some set to 0: H = I), k1, k2 uniform in [1, n] (k1 = 1 in a third of the cases, as
    in Theorem 4's proof)."""
    n = h
    V = torch.tril(gauss(gen, n, n))
    for j in range(n):
        if draw(gen) < 0.15:
            V[:, j] = 0.0
    k1 = 1 if draw(gen) < 1 / 3 else randint(gen, 1, n)
    k2 = randint(gen, 1, n)
    return MatrixCase(to_case(V, device, dtype), n - k1 + 1, n - k2 + 1)


A_K_RANGE = Assumption("k1, k2 ∈ [n]", lambda c: (1 <= c.m1 <= c.A.shape[0] and 1 <= c.m2 <= c.A.shape[0],
                                                 f"m1 = {c.m1}, m2 = {c.m2}, n = {c.A.shape[0]}"))

_VS = CaseSpace(case_type=MatrixCase, sample=_sample, sizes=MATRIX_SIZES)

lemma1 = Claim(
    id="spectral_rnn.lemma1",
    source="spectral_rnn.md, Sec. 5, Lemma 1 (used in App. A.5, proof of Theorem 4)",
    statement="For V^(k) = H_n^n(v_n) … H_k^n(v_k): V^(k1)_{*,i} = V^(k2)_{*,i} for all k1, k2 ∈ [n] and "
              "i ≤ min(n − k1, n − k2)",
    assumptions=(A_K_RANGE, A_F64),
    measure="‖V^(k1)[:, :i] − V^(k2)[:, :i]‖_F by householder_product, for the printed i and for the i Theorem 4's "
            "proof needs",
    bound="30 n² u √n",
    evaluate=_measure,
    cases=_VS,
    explanation="Would mean a reflector H_j(v_j), j < k, moves a column e_i with i ≤ n − j.",
    notes="Holds in both readings. Decision: not counted as an error of the lemma: the printed range is true, and is one column short of what Theorem 4's proof uses (V_L has "
          "n − k2 + 1 = m columns); the second part checks the stronger, true range n − max(k1, k2) + 1, which "
          "closes that gap. The gap is Theorem 4's: its proof uses Lemma 1 for one column more than the lemma "
          "states (recorded here, since spectral_rnn.theorem4 checks the theorem, not its proof's use of the "
          "lemma). Column n − max(k1, k2) + 2 differs in general (a reflector with j = max − 1 moves it).",
)
