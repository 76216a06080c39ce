"""spectral_rnn.md, Sec. 4.1 eq. 12–13 and Appendix B Algorithms 1 and 3: the gradients of a reflector
and of the local map h̃ = W h, against autograd.

Eq. 12 and eq. 13 hold; Algorithms 3 and 1 as printed do not (α from an undefined h̄; Hgrad given
the reflector's output). ``spectral_rnn.eq13.corrected`` checks the repaired algorithms
(``cells.spectral.reflect_grad`` and ``householder_backward``).
"""

from __future__ import annotations

import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim
from rnnaudit.bounds.spectral_rnn.cases import (A_F64, F64, GRAD_RTOL, SpectralCellCase, draw, gauss, randint,
                                                t64, to_case)
from rnnaudit.bounds.spectral_rnn.reflectors import dense_w
from rnnaudit.cells import (SpectralRNN, householder_backward, householder_forward, pack_reflectors, reflect_grad,
                            unpack_reflectors)

__all__ = ["eq13", "eq13_corrected", "eq12", "eq13_formula", "algorithm3_printed", "algorithm1_backward_printed",
           "A_NONZERO_U"]


def eq12(h: Tensor, u_hat: Tensor, g: Tensor) -> Tensor:
    """∂L/∂h = g − 2 (ûᵀg / ûᵀû) û for ĥ = H(u) h (eq. 12), written as printed.

    Args:
        h: (..., n) (unused: eq. 12 does not depend on h). u_hat: (n,) nonzero. g: (..., n).

    Returns:
        (..., n). Source: spectral_rnn.md eq. 12.
    """
    q = u_hat @ u_hat
    return g - 2 * (g @ u_hat)[..., None] / q * u_hat


def eq13_formula(h: Tensor, u_hat: Tensor, g: Tensor) -> Tensor:
    """∂L/∂û = −2(ûᵀh/ûᵀû) g − 2(ûᵀg/ûᵀû) h + 4 (ûᵀh)(ûᵀg)/(ûᵀû)² û (eq. 13, last line), summed over the
    leading dims of h and g (û is shared).

    Args:
        h: (..., n) reflector input. u_hat: (n,) nonzero. g: (..., n) ∂L/∂ĥ.

    Returns:
        (n,). Source: spectral_rnn.md eq. 13.
    """
    q = u_hat @ u_hat
    uh, ug = (h @ u_hat)[..., None], (g @ u_hat)[..., None]
    out = -2 * uh / q * g - 2 * ug / q * h + 4 * uh * ug / q ** 2 * u_hat
    return out.reshape(-1, u_hat.shape[0]).sum(0)


def algorithm3_printed(h: Tensor, u_hat: Tensor, g: Tensor) -> tuple[Tensor, Tensor]:
    """Algorithm 3 as printed: α = 2 u_kᵀh̄/‖u_k‖² uses h̄ before its line; the only h̄ the algorithm
    defines is its output h̄ = g − βu_k, so α = −β here (uᵀh̄ = uᵀg − 2uᵀg).

    Returns:
        (h̄ (..., n), ū_k (n,) summed over leading dims). Source: spectral_rnn.md Algorithm 3.
    """
    q = u_hat @ u_hat
    beta = 2 * (g @ u_hat) / q
    h_bar = g - beta[..., None] * u_hat
    alpha = 2 * (h_bar @ u_hat) / q
    u_bar = -alpha[..., None] * g - beta[..., None] * h + (alpha * beta)[..., None] * u_hat
    return h_bar, u_bar.reshape(-1, u_hat.shape[0]).sum(0)


def algorithm1_backward_printed(g: Tensor, U_hat: Tensor, trace) -> Tensor:
    """The u-loop of Algorithm 1 as printed: Hgrad(h_k^(u), u_k, g) with h_k^(u) = Hprod(h_{k−1}^(u), u_k),
    the reflector's *output*.

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


def _rel(mine: Tensor, ref: Tensor, S: Tensor) -> Tensor:
    num = torch.linalg.vector_norm(mine - ref)
    den = torch.linalg.vector_norm(ref) + S
    return torch.where(num == 0, torch.zeros_like(num), num / torch.where(den == 0, torch.ones_like(den), den))


def _columns(cell: SpectralRNN) -> list[Tensor]:
    U_hat, V_hat = cell.U_hat.detach(), cell.V_hat
    cols = [U_hat[:, j] for j in range(U_hat.shape[1])]
    if V_hat is not None:
        cols += [V_hat.detach()[:, j] for j in range(V_hat.shape[1])]
    return cols


def _reflector_reference(h: Tensor, u_hat: Tensor, g: Tensor) -> tuple[Tensor, Tensor]:
    """autograd of L = Σ_b g_bᵀ H(û) h_b through the dense H = I − 2ûûᵀ/ûᵀû (independent of Hprod)."""
    h, u = h.detach().clone().requires_grad_(), u_hat.detach().clone().requires_grad_()
    H = torch.eye(u.shape[0], dtype=u.dtype, device=u.device) - 2 * torch.outer(u, u) / (u @ u)
    return torch.autograd.grad(((h @ H.mT) * g).sum(), (h, u))


def _local_reference(case: SpectralCellCase) -> dict[str, Tensor]:
    """autograd of L = Σ_b g_bᵀ W h_b with W = U diag(σ) Vᵀ formed by dense reflector products (independent of
    the reflector recurrence) with respect to packed U, V, σ̂ and h."""
    cell = case.cell
    n = cell.hidden_size
    U = cell.U.detach().clone().requires_grad_()
    V = None if cell.V is None else cell.V.detach().clone().requires_grad_()
    sh = cell.sigma_hat.detach().clone().requires_grad_()
    h = case.h.detach().clone().requires_grad_()
    sigma = 2 * cell.r * (torch.sigmoid(sh) - 0.5) + cell.sigma_star
    W = dense_w(unpack_reflectors(U, n, cell.m1), sigma, None if V is None else unpack_reflectors(V, n, cell.m2))
    leaves = [h, U, sh] + ([V] if V is not None else [])
    grads = torch.autograd.grad(((h @ W.mT) * case.g).sum(), leaves)
    return dict(zip(["h", "U", "sigma_hat", "V"], grads))


def _scales(case: SpectralCellCase) -> tuple[Tensor, Tensor, float]:
    hn, gn = torch.linalg.vector_norm(case.h, dim=-1), torch.linalg.vector_norm(case.g, dim=-1)
    s = max(1.0, float(case.cell.sigma.detach().abs().max()))
    return (hn * gn).sum(), torch.linalg.vector_norm(case.g), s


def _measure(case: SpectralCellCase, printed: bool) -> dict[str, tuple[Tensor, Tensor]]:
    cell, h, g = case.cell, case.h, case.g
    hg, g_norm, s = _scales(case)
    e12, e13, e3 = [], [], []
    for u in _columns(cell):
        ref_h, ref_u = _reflector_reference(h, u, g)
        S_u = 8 * hg / torch.linalg.vector_norm(u)
        e12.append(_rel(eq12(h, u, g), ref_h, 3 * g_norm))
        e13.append(_rel(eq13_formula(h, u, g), ref_u, S_u))
        h_bar, u_bar = algorithm3_printed(h, u, g) if printed else reflect_grad(h, u, g)
        e3.append(torch.maximum(_rel(h_bar, ref_h, 3 * g_norm), _rel(u_bar, ref_u, S_u)))
    tol = t64(GRAD_RTOL, h)
    parts = {"eq. 12: ∂L/∂h = autograd": (torch.stack(e12).max(), tol),
             "eq. 13: ∂L/∂û_k = autograd": (torch.stack(e13).max(), tol)}
    a3 = "Algorithm 3 as printed (α from h̄, the only h̄ it defines: h̄ = g − βu)" if printed else \
        "Algorithm 3 with α = 2u_kᵀh/‖u_k‖², h the reflector input (reflect_grad)"
    parts[a3 + " = autograd"] = (torch.stack(e3).max(), tol)

    ref = _local_reference(case)
    U_hat, sigma, V_hat = cell.U_hat.detach(), cell.sigma.detach(), None if cell.V is None else cell.V_hat.detach()
    _, trace = householder_forward(h, U_hat, sigma, V_hat)
    if printed:  # only the u loop differs from the corrected Algorithm 1
        alg = {"U": algorithm1_backward_printed(g, U_hat, trace)}
    else:
        alg = householder_backward(g, U_hat, sigma, V_hat, trace, r=cell.r, sigma_hat=cell.sigma_hat.detach())
    n = cell.hidden_size
    ref_U = unpack_reflectors(ref["U"], n, cell.m1)
    errs = [_rel(alg["U"][:, j], ref_U[:, j], 8 * s * hg / torch.linalg.vector_norm(U_hat[:, j]))
            for j in range(cell.m1)]
    name = ("Algorithm 1 as printed (Hgrad(h_k^(u), u_k, g): the reflector output) = autograd" if printed else
            "Algorithm 1 with Hgrad(h_(k−1)^(u), u_k, g) (householder_backward): ∂L/∂{h, U, V, σ̂} = autograd")
    if not printed:
        errs.append(_rel(alg["h"], ref["h"], 3 * s * g_norm))
        errs.append(_rel(alg["sigma_hat"], ref["sigma_hat"], cell.r * hg))
        if V_hat is not None:
            ref_V = unpack_reflectors(ref["V"], n, cell.m2)
            errs += [_rel(alg["V"][:, j], ref_V[:, j], 8 * s * hg / torch.linalg.vector_norm(V_hat[:, j]))
                     for j in range(cell.m2)]
    parts[name] = (torch.stack(errs).max() if errs else torch.zeros_like(tol), tol)
    return parts


def _sample(gen, h, T, device, dtype) -> SpectralCellCase:
    """m1 ∈ [1, n], m2 ∈ [0, n], r ∈ [0, 0.5], σ* ∈ [0.5, 1.5], σ̂ ~ N(0, 4), a batch of 3 (h, g); edge
    cases: a reflector scaled to 1e-6, a reflector with zero leading entry, a batch row h ⟂ û_n, and k = 1
    reflectors (m = n)."""
    n = h
    m1, m2 = randint(gen, 1, n), randint(gen, 0, n)
    if draw(gen) < 0.25:
        m1 = n
    cell = SpectralRNN(1, n, m1, m2, r=0.5 * draw(gen), sigma_star=0.5 + draw(gen), bias=False, generator=gen,
                       dtype=F64)
    U_hat = cell.U_hat.detach().clone()
    kind = randint(gen, 0, 3)
    if kind == 1:
        U_hat[:, randint(gen, 0, m1 - 1)] *= 1e-6
    elif kind == 2 and n > 1:
        j = randint(gen, 0, min(m1, n - 1) - 1)
        U_hat[j, j] = 0.0
    hs, gs = gauss(gen, 3, n), gauss(gen, 3, n)
    if kind == 3:
        u = U_hat[:, 0]
        hs[0] = hs[0] - (hs[0] @ u) / (u @ u) * u
    with torch.no_grad():
        cell.U.copy_(pack_reflectors(U_hat))
        cell.sigma_hat.copy_(2 * gauss(gen, n))
    return SpectralCellCase(cell.to(device=device, dtype=dtype), to_case(hs, device, dtype), to_case(gs, device, dtype))


A_NONZERO_U = Assumption("û_k ≠ 0 for every reflector (eq. 12–13 divide by ûᵀû)", lambda c: (
    all(bool(u.abs().sum() > 0) for u in _columns(c.cell)), "some reflector is 0"))

_REFLECTOR_GRADIENTS = CaseSpace(case_type=SpectralCellCase, sample=_sample,
                                 sizes={"quick": [(1, 1), (2, 1), (5, 1), (8, 1), (12, 1)],
                                        "full": [(1, 1), (2, 1), (8, 1), (32, 1), (64, 1)]})

eq13 = Claim(
    id="spectral_rnn.eq13",
    source="spectral_rnn.md, Sec. 4.1 eq. 12–13, Appendix B Algorithms 1 and 3 (as printed)",
    statement="∂L/∂h = g − 2(ûᵀg/ûᵀû)û (eq. 12); ∂L/∂û = −2(ûᵀh/ûᵀû)g − 2(ûᵀg/ûᵀû)h + 4(ûᵀh)(ûᵀg)/(ûᵀû)² û "
              "(eq. 13); Algorithm 3 (α = 2u_kᵀh̄/‖u_k‖²) and Algorithm 1 (Hgrad(h_k^(u), u_k, g)) compute them",
    assumptions=(A_NONZERO_U, A_F64),
    measure="relative error against autograd through the dense H = I − 2ûûᵀ/ûᵀû (per reflector) and through "
            "W = U diag(σ) Vᵀ formed by dense reflector products (whole local map)",
    bound="relative error 1e-10 against ‖autograd‖ + S (S: the size of eq. 13's terms)",
    evaluate=lambda c: _measure(c, printed=True),
    cases=_REFLECTOR_GRADIENTS,
    explanation="eq. 12 and eq. 13 hold; the algorithms as printed do not. Algorithm 3's α uses h̄ before it is "
                "defined (read as its output h̄ = g − βu, α = −β, ∂L/∂u is wrong); Algorithm 1 passes h_k^(u), "
                "the reflector's output, to Hgrad for u_k, which flips the sign of α (α_out = −α_in) and gives "
                "αg − βh − αβu instead of −αg − βh + αβu; its v loop correctly passes the input h_{k+1}^(v). "
                "See spectral_rnn.eq13.corrected.",
    notes="∂L/∂h does not depend on h, so only the u-gradients are affected. Sec. 4.1 also writes h̃^(t) = W h^(t) "
          "(Algorithm 1: W h^(t−1)).",
)

eq13_corrected = Claim(
    id="spectral_rnn.eq13.corrected",
    source="spectral_rnn.md, eq. 12–13, Algorithms 1 and 3, corrected by rnnaudit (cells.spectral)",
    statement="eq. 12, eq. 13, Algorithm 3 with α = 2u_kᵀh/‖u_k‖² (h the reflector input) and Algorithm 1 with "
              "Hgrad(h_{k−1}^(u), u_k, g) give ∂L/∂h, ∂L/∂u_k, ∂L/∂v_k and ∂L/∂σ̂",
    assumptions=(A_NONZERO_U, A_F64),
    measure="as spectral_rnn.eq13, with reflect_grad and householder_backward",
    bound="relative error 1e-10 against ‖autograd‖ + S",
    evaluate=lambda c: _measure(c, printed=False),
    cases=_REFLECTOR_GRADIENTS,
    explanation="Would mean the corrected backward pass is wrong too.",
    notes="Checks ∂L/∂σ̂ = 2r f'(σ̂) ∘ (g ∘ h_{k2}^(v)) and the V chain as well.",
)
