"""spectral_rnn.md, App. A.4, the constructions of Theorem 3's proof as printed (eq. 18–21): the reflectors of eq. 18
(k2 ≥ k1 − 1) or eq. 20 (else), with the zero range "v_t = 0, t = k2 + k1 − 2, …, n" (and the same for u).

As printed the zero range starts one index too early: it overwrites v_{k1+k2−2} = a_1 and drops H_1(a_1), so the
construction fails whenever that slot is used and a_1 ≠ 0 (generically, det A = (−1)^n: half of the Haar samples).
Started at k1 + k2 − 1, the construction rebuilds A (spectral_rnn.theorem3, which holds).
"""

from __future__ import annotations

import torch
from torch import Tensor

from rnnaudit.bounds.core import Claim, Reading
from rnnaudit.bounds.spectral_rnn.cases import A_F64, A_ORTH
from rnnaudit.bounds.spectral_rnn.reflectors import defect_allowance, recon_tol, reflector_matrix
from rnnaudit.bounds.spectral_rnn.theorem3 import _ORTHOGONAL_K1K2, A_K1K2, theorem3_reflectors

__all__ = ["theorem3_construction", "measure_construction"]


def measure_construction(case, zero_from: str = "printed") -> dict[str, tuple[Tensor, Tensor, Tensor]]:
    """‖A − M_{k1,k2}(u, v, 1)‖_F for the reflectors of eq. 18/20 with the zero range as printed (``"printed"``) or
    from k1 + k2 − 1 (``"corrected"``), against spectral_rnn.theorem3's tolerance."""
    A = case.A.detach()
    n = A.shape[0]
    k1, k2 = n - case.m1 + 1, n - case.m2 + 1
    U_hat, V_hat = theorem3_reflectors(A, k1, k2, zero_from=zero_from)
    name = "eq. 18 (k2 ≥ k1 − 1)" if k2 >= k1 - 1 else "eq. 20 (k2 < k1 − 1)"
    error = torch.linalg.matrix_norm(A - reflector_matrix(U_hat, None, V_hat, n, n))
    return {f"A = M_(k1,k2)(u, v, 1) by {name}": (error, recon_tol(A) + defect_allowance(A),
                                                   torch.linalg.matrix_norm(A))}


theorem3_construction = Claim(
    id="spectral_rnn.theorem3_construction",
    source="spectral_rnn.md, App. A.4, proof of Theorem 3, eq. 18–21 (the zero ranges of u and v)",
    statement="The reflectors of eq. 18 (k2 ≥ k1 − 1) or eq. 20 (else), a_k zero-padded, with 'v_t = 0, t = k2 + k1 "
              "− 2, …, n' (and u likewise), give M_{k1,k2}(u, v, 1) = A for every orthogonal A, k1 + k2 ≤ n + 2",
    assumptions=(A_ORTH, A_K1K2, A_F64),
    measure="‖A − M_{k1,k2}(u, v, 1)‖_F (householder_product) with the zero range as printed",
    bound="30 n² u ‖A‖_F + 2‖AᵀA − I‖_F, as spectral_rnn.theorem3",
    evaluate=measure_construction,
    cases=_ORTHOGONAL_K1K2,
    explanation="The printed zero range starts at k1 + k2 − 2 and overwrites v_{k1+k2−2} = a_1 (eq. 20: u's b_1): the "
                "construction drops H_1(a_1) and fails whenever that slot is used and a_1 ≠ 0, which for Haar A is "
                "the half with det A = (−1)^n. Theorem 3 itself holds (spectral_rnn.theorem3).",
    notes="eq. 18/20 also assign the length-k vector a_k to the length-(k1 + k2 − k − 1) slot v_{k1+k2−k−1}; "
          "zero-padding a_k on top is the only typable reading and is used in both forms here.",
    readings=(Reading("the zero range from k1 + k2 − 1",
                      "as printed, with 'v_t = 0, t = k2 + k1 − 1, …, n' (and u likewise)",
                      "the slot v_{k1+k2−2} is where eq. 18/20 put a_1 (k = 1), so the zero range can only start after "
                      "it; the proof's count of k1 + k2 − 2 non-trivial reflectors needs it",
                      lambda case: measure_construction(case, zero_from="corrected")),),
)
