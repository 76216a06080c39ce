"""spectral_rnn.md, Appendix B, Algorithm 3 (Hgrad): the gradients of one reflector, as printed and corrected.

As printed, α = 2u_kᵀh̄/‖u_k‖² uses h̄ before any line defines it; the only h̄ the algorithm defines is its
output h̄ = g − βu_k, which makes α = −β and ∂L/∂u_k wrong. ``spectral_rnn.algorithm3.corrected`` takes α
from the reflector input h, as eq. 13 does (``cells.spectral.reflect_grad``).
"""

from __future__ import annotations

import torch
from torch import Tensor

from rnnaudit.bounds.core import Claim, Reading
from rnnaudit.bounds.spectral_rnn.cases import A_F64
from rnnaudit.bounds.spectral_rnn.eq13 import (
    A_NONZERO_U,
    REFLECTOR_GRADIENTS,
    gradient_scales,
    reflector_columns,
    reflector_reference,
    stacked_part,
)
from rnnaudit.cells import reflect_grad

__all__ = ["algorithm3", "algorithm3_corrected", "algorithm3_printed"]


def algorithm3_printed(h: Tensor, u_hat: Tensor, g: Tensor) -> tuple[Tensor, Tensor]:
    """Algorithm 3 as printed: α = 2 u_kᵀh̄/‖u_k‖² uses h̄ before its line; the only h̄ the algorithm
    defines is its output h̄ = g − βu_k, so α = −β here (uᵀh̄ = uᵀg − 2uᵀg).

    Args:
        h: (..., n) reflector input. u_hat: (n,) nonzero. g: (..., n) ∂L/∂h̃.

    Returns:
        (h̄ (..., n), ū_k (n,) summed over leading dims). Source: spectral_rnn.md Algorithm 3.
    """
    q = u_hat @ u_hat
    beta = 2 * (g @ u_hat) / q
    h_bar = g - beta[..., None] * u_hat
    alpha = 2 * (h_bar @ u_hat) / q
    u_bar = -alpha[..., None] * g - beta[..., None] * h + (alpha * beta)[..., None] * u_hat
    return h_bar, u_bar.reshape(-1, u_hat.shape[0]).sum(0)


def _measure(case, hgrad) -> dict[str, tuple[Tensor, Tensor, Tensor]]:
    h, g = case.h, case.g
    hg, g_norm, _ = gradient_scales(case)
    dh, du = [], []
    for u in reflector_columns(case.cell):
        ref_h, ref_u = reflector_reference(h, u, g)
        h_bar, u_bar = hgrad(h, u, g)
        dh.append((h_bar, ref_h, 3 * g_norm))
        du.append((u_bar, ref_u, 8 * hg / torch.linalg.vector_norm(u)))
    return {"h̄ = ∂L/∂h (autograd, every reflector)": stacked_part(dh),
            "ū_k = ∂L/∂u_k (autograd, every reflector)": stacked_part(du)}


algorithm3 = Claim(
    id="spectral_rnn.algorithm3",
    source="spectral_rnn.md, Appendix B, Algorithm 3 (Hgrad), as printed",
    statement="Hgrad(h, u_k, g): α = 2u_kᵀh̄/‖u_k‖², β = 2u_kᵀg/‖u_k‖², h̄ ← g − βu_k, ū_k ← −αg − βh + αβu_k "
              "returns h̄ = ∂L/∂h and ū_k = ∂L/∂u_k for h̃ = H_k(u_k)h",
    assumptions=(A_NONZERO_U, A_F64),
    measure="relative error of h̄ and ū_k against autograd through the dense H = I − 2ûûᵀ/ûᵀû, every reflector of "
            "a Spectral-RNN cell stacked, batch of 3 (h, g)",
    bound="relative error 1e-10 against ‖autograd‖ + S (S: the size of eq. 13's terms)",
    evaluate=lambda c: _measure(c, algorithm3_printed),
    cases=REFLECTOR_GRADIENTS,
    explanation="α uses h̄ before it is defined. Read as the only h̄ the algorithm defines, its output g − βu_k, "
                "α = −β and ū_k = βg − βh − β²u_k instead of eq. 13's −αg − βh + αβu_k (relative error O(1) on "
                "generic cases; h̄ itself is right). See spectral_rnn.algorithm3.corrected.",
    notes="Reading: h̄ in α's line is the algorithm's own output h̄ = g − βu_k (the only h̄ it defines). Any other "
          "reading must supply an h the algorithm's input list names 'h': that is the corrected form. A one-symbol "
          "typo (h̄ for h): eq. 13 is correct, and Sec. 4.2's 'reuse α from forward propagation' implies "
          "α = 2u_kᵀh/‖u_k‖²; severity low, but an implementation that follows the listing gets ū_k wrong (relative "
          "error 0.78 against finite differences).",
    readings=(Reading("h̄ read as h in α", "α = 2u_kᵀh/‖u_k‖² with h the reflector's input",
                      "h̄ is used in α before the algorithm defines it, and eq. 13's ū_k = −αg − βh + αβu_k is "
                      "the derivative only with α = 2u_kᵀh/‖u_k‖², the α of H_k(u_k)h = h − αu_k (eq. 12)",
                      lambda c: _measure(c, reflect_grad)),),
)

algorithm3_corrected = Claim(
    id="spectral_rnn.algorithm3.corrected",
    source="spectral_rnn.md, Appendix B, Algorithm 3, corrected by rnnaudit (α from the reflector input h, eq. 13)",
    statement="Hgrad with α = 2u_kᵀh/‖u_k‖² (h the reflector input) returns ∂L/∂h and ∂L/∂u_k",
    assumptions=(A_NONZERO_U, A_F64),
    measure="as spectral_rnn.algorithm3, with cells.spectral.reflect_grad",
    bound="relative error 1e-10 against ‖autograd‖ + S",
    evaluate=lambda c: _measure(c, reflect_grad),
    cases=REFLECTOR_GRADIENTS,
    explanation="Would mean the corrected Hgrad (reflect_grad) is wrong too.",
    notes="Also the Hgrad that Table 1's flop count runs (table1.sparse_hgrad).",
)
