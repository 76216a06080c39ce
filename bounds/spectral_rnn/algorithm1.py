"""spectral_rnn.md, Appendix B, Algorithm 1: the local forward/backward pass of h̃ = W h, as printed and
corrected.

As printed, the u loop calls Hgrad(h_k^(u), u_k, g) with h_k^(u) = Hprod(h_{k−1}^(u), u_k), the reflector's
*output*; Hgrad needs its input (the v loop rightly passes h_{k+1}^(v)). ``spectral_rnn.algorithm1.corrected``
passes h_{k−1}^(u) (``cells.spectral.householder_backward``).
"""

from __future__ import annotations

import torch
from torch import Tensor

from rnnaudit.bounds.core import CaseSpace, Claim, Reading
from rnnaudit.bounds.spectral_rnn.cases import A_F64, SpectralCellCase
from rnnaudit.bounds.spectral_rnn.eq13 import (
    A_NONZERO_U,
    gradient_cases,
    gradient_scales,
    identity_part,
    local_reference,
)
from rnnaudit.cells import householder_backward, householder_forward, reflect_grad, unpack_reflectors

__all__ = ["algorithm1", "algorithm1_corrected", "algorithm1_backward_printed"]


def algorithm1_backward_printed(g: Tensor, U_hat: Tensor, trace) -> Tensor:
    """The u-loop of Algorithm 1 as printed: Hgrad(h_k^(u), u_k, g) with h_k^(u) = Hprod(h_{k−1}^(u), u_k), the
    reflector's *output*, and Hgrad = Algorithm 3 with α from the h it is given (``reflect_grad``), so that only
    Algorithm 1's own argument differs from the corrected pass.

    Args:
        g: (batch, n) ∂L/∂h̃. U_hat: (n, m1). trace: ``cells.spectral.ReflectorTrace`` of the forward pass.

    Returns:
        G^(u) (n, m1) (padded layout). Source: spectral_rnn.md Algorithm 1 (backward, u loop).
    """
    n, m1 = U_hat.shape
    G = torch.zeros_like(U_hat)
    for j in range(m1):  # k = n − j; trace.hu[m1 − j] = h_k^(u), the output; the input is hu[m1 − 1 − j]
        g, G[:, j] = reflect_grad(trace.hu[m1 - j], U_hat[:, j], g)
    rows, cols = torch.arange(n, device=G.device), torch.arange(m1, device=G.device)
    return G * (rows[:, None] >= cols[None, :])  # the padding entries are structural zeros


def _u_part(G: Tensor, case: SpectralCellCase, ref: dict) -> tuple[Tensor, Tensor, Tensor]:
    """∂L/∂U (all m1 reflectors at once) against autograd: ‖G − G_ref‖_F relative to ‖G_ref‖_F + S, S the
    size of eq. 13's terms over every reflector."""
    cell = case.cell
    hg, _, s = gradient_scales(case)
    U_hat = cell.U_hat.detach()
    ref_U = unpack_reflectors(ref["U"], cell.hidden_size, cell.m1)
    S = 8 * s * hg * torch.linalg.vector_norm(1 / torch.linalg.vector_norm(U_hat, dim=0))
    return identity_part(G, ref_U, S)


def _forward(case: SpectralCellCase):
    cell = case.cell
    U_hat, sigma = cell.U_hat.detach(), cell.sigma.detach()
    V_hat = None if cell.V is None else cell.V_hat.detach()
    _, trace = householder_forward(case.h, U_hat, sigma, V_hat)
    return U_hat, sigma, V_hat, trace


def _measure_printed(case: SpectralCellCase) -> dict[str, tuple[Tensor, Tensor, Tensor]]:
    U_hat, _, _, trace = _forward(case)
    ref = local_reference(case)
    return {"∂L/∂U by the printed u loop (Hgrad given h_k^(u), the output) = autograd":
            _u_part(algorithm1_backward_printed(case.g, U_hat, trace), case, ref)}


def _measure_corrected(case: SpectralCellCase) -> dict[str, tuple[Tensor, Tensor, Tensor]]:
    cell = case.cell
    U_hat, sigma, V_hat, trace = _forward(case)
    ref = local_reference(case)
    alg = householder_backward(case.g, U_hat, sigma, V_hat, trace, r=cell.r, sigma_hat=cell.sigma_hat.detach())
    hg, g_norm, s = gradient_scales(case)
    parts = {"∂L/∂U (Hgrad given h_(k−1)^(u), the input) = autograd": _u_part(alg["U"], case, ref),
             "∂L/∂h^(t−1) = autograd": identity_part(alg["h"], ref["h"], 3 * s * g_norm),
             "∂L/∂σ̂ = autograd": identity_part(alg["sigma_hat"], ref["sigma_hat"], cell.r * hg)}
    if V_hat is not None:
        ref_V = unpack_reflectors(ref["V"], cell.hidden_size, cell.m2)
        S = 8 * s * hg * torch.linalg.vector_norm(1 / torch.linalg.vector_norm(V_hat, dim=0))
        parts["∂L/∂V = autograd"] = identity_part(alg["V"], ref_V, S)
    return parts


def _sample(gen, h, T, device, dtype) -> SpectralCellCase:
    return gradient_cases(gen, h, T, device, dtype)


#: n ≥ 2: at n = 1 the only reflector is H = −1 whatever u is, ∂L/∂u ≡ 0, and a relative error is undefined
#: (the printed pass is still wrong there, by 4|hg|/|u|, which the n ≥ 2 cases show as a relative error).
_LOCAL_MAPS = CaseSpace(case_type=SpectralCellCase, sample=_sample,
                        sizes={"quick": [(2, 1), (3, 1), (5, 1), (8, 1), (12, 1)],
                               "full": [(2, 1), (3, 1), (8, 1), (32, 1), (64, 1)]})

algorithm1 = Claim(
    id="spectral_rnn.algorithm1",
    source="spectral_rnn.md, Appendix B, Algorithm 1 (local backward propagation, u loop), as printed",
    statement="for k = n, …, n − m1 + 1: g, G^(u)_{*,n−k+1} ← Hgrad(h_k^(u), u_k, g) computes ∂L/∂U, "
              "with h_k^(u) = Hprod(h_{k−1}^(u), u_k) from the forward loop",
    assumptions=(A_NONZERO_U, A_F64),
    measure="relative error of ∂L/∂U (all m1 reflectors, Frobenius) against autograd through W = U diag(σ) Vᵀ "
            "formed by dense reflector products; Hgrad = Algorithm 3 with α from the h it is given",
    bound="relative error 1e-10 against ‖autograd‖_F + S (S: the size of eq. 13's terms over the reflectors)",
    evaluate=_measure_printed,
    cases=_LOCAL_MAPS,
    explanation="h_k^(u) is the output of H_k(u_k); Hgrad needs its input h_{k−1}^(u). Since H is an involution "
                "the output h − αu_k has α_out = −α, and Hgrad returns αg − β(h − αu_k) − αβu_k = αg − βh instead of "
                "eq. 13's −αg − βh + αβu_k (α, h of the input): ∂L/∂u_k is off by 2αg − αβu_k for every reflector "
                "with α ≠ 0 (relative error O(1); 0.76, 0.21, 2.17 at n = 5, m1 = 3 by finite differences). The "
                "v loop rightly passes h_{k+1}^(v), the input. See spectral_rnn.algorithm1.corrected.",
    notes="Reading: Hgrad is Algorithm 3 with α taken from the h it is given (its corrected form), so the failure "
          "measured is Algorithm 1's own argument, not Algorithm 3's. At n = 1, ∂L/∂u ≡ 0 (H = −1), so the sizes "
          "start at n = 2, where the relative error is finite and O(1).",
    readings=(Reading("h_k^(u) read as the reflector's input h_{k−1}^(u)",
                      "Algorithm 1's u loop calls Hgrad(h_{k−1}^(u), u_k, g), the input of H_k(u_k)",
                      "Hgrad (Algorithm 3, eq. 13) takes the reflector's input h; the v loop of the same algorithm "
                      "passes h_{k+1}^(v), its reflectors' input: the u loop's index is off by one",
                      _measure_corrected),),
)

algorithm1_corrected = Claim(
    id="spectral_rnn.algorithm1.corrected",
    source="spectral_rnn.md, Appendix B, Algorithm 1, corrected by rnnaudit (Hgrad given h_{k−1}^(u))",
    statement="Algorithm 1 with Hgrad(h_{k−1}^(u), u_k, g) in the u loop gives ∂L/∂U, ∂L/∂V, ∂L/∂σ̂ (via eq. 7) "
              "and ∂L/∂h^(t−1)",
    assumptions=(A_NONZERO_U, A_F64),
    measure="relative errors against autograd through the dense W (cells.spectral.householder_backward)",
    bound="relative error 1e-10 against ‖autograd‖ + S",
    evaluate=_measure_corrected,
    cases=_LOCAL_MAPS,
    explanation="Would mean the corrected backward pass is wrong too.",
    notes="Checks ∂L/∂σ̂ = 2r f'(σ̂) ∘ (g ∘ h_{k2}^(v)) (Algorithm 1's Σ̄ and g^(σ̂) lines) and the V chain as well.",
)
