"""spectral_rnn.md, Sec. 4.1 eq. 12–13: the gradients of one Householder reflector, against autograd.

Both equations hold. Appendix B's Algorithms 3 and 1, which are meant to compute them, do not as
printed: they are checked by their own claims (``algorithm3``, ``algorithm1``), so that each failure
has its own verdict, relative error and counterexamples. This module also holds what the three
share: the gradient case family, the autograd references and the relative-error parts.
"""

from __future__ import annotations

import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim
from rnnaudit.bounds.spectral_rnn.cases import (A_F64, F64, GRAD_RTOL, SpectralCellCase, draw, gauss, randint, t64,
                                                to_case)
from rnnaudit.bounds.spectral_rnn.reflectors import dense_w
from rnnaudit.cells import SpectralRNN, pack_reflectors, unpack_reflectors

__all__ = ["eq13", "eq12", "eq13_formula", "A_NONZERO_U", "identity_part", "stacked_part", "reflector_columns",
           "reflector_reference", "local_reference", "gradient_scales", "gradient_cases", "REFLECTOR_GRADIENTS"]


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


def identity_part(mine: Tensor, ref: Tensor, S: Tensor | float) -> tuple[Tensor, Tensor, Tensor]:
    """An identity part ``(error, tolerance, reference)`` for a gradient formula against autograd.

    error = ‖mine − ref‖/(‖ref‖ + S) and reference = ‖ref‖/(‖ref‖ + S): their ratio is the relative
    error ‖mine − ref‖/‖ref‖ the report shows; error/tolerance (GRAD_RTOL) is the verdict criterion, where
    S is the size of the formula's terms before cancellation (so a truth that cancels to ≈ 0 is not
    held to a relative accuracy rounding cannot give).
    """
    num = torch.linalg.vector_norm(mine - ref)
    ref_n = torch.linalg.vector_norm(ref)
    den = ref_n + S
    safe = torch.where(den == 0, torch.ones_like(den), den)
    err = torch.where(num == 0, torch.zeros_like(num), num / safe)
    return err, t64(GRAD_RTOL, ref), ref_n / safe


def stacked_part(terms: list[tuple[Tensor, Tensor, Tensor]]) -> tuple[Tensor, Tensor, Tensor]:
    """One identity part for several reflectors at once: the (mine, ref, S) of each are stacked, so the relative
    error is ‖all formulas − all truths‖/‖all truths‖. A single k = 1 reflector has ∂L/∂u ≡ 0 (H_1 = diag(I, −1)
    whatever u is), where a per-reflector relative error is undefined; stacked with u_n (k = n ≥ 2) it is not."""
    mine = torch.cat([t[0].reshape(-1) for t in terms])
    ref = torch.cat([t[1].reshape(-1) for t in terms])
    S = torch.linalg.vector_norm(torch.stack([torch.as_tensor(t[2], dtype=ref.dtype) for t in terms]))
    return identity_part(mine, ref, S)


def reflector_columns(cell: SpectralRNN) -> list[Tensor]:
    """The padded reflectors û of the cell: U's columns, then V's."""
    U_hat, V_hat = cell.U_hat.detach(), cell.V_hat
    cols = [U_hat[:, j] for j in range(U_hat.shape[1])]
    if V_hat is not None:
        cols += [V_hat.detach()[:, j] for j in range(V_hat.shape[1])]
    return cols


def reflector_reference(h: Tensor, u_hat: Tensor, g: Tensor) -> tuple[Tensor, Tensor]:
    """autograd of L = Σ_b g_bᵀ H(û) h_b through the dense H = I − 2ûûᵀ/ûᵀû (independent of Hprod):
    (∂L/∂h (..., n), ∂L/∂û (n,))."""
    h, u = h.detach().clone().requires_grad_(), u_hat.detach().clone().requires_grad_()
    H = torch.eye(u.shape[0], dtype=u.dtype, device=u.device) - 2 * torch.outer(u, u) / (u @ u)
    return torch.autograd.grad(((h @ H.mT) * g).sum(), (h, u))


def local_reference(case: SpectralCellCase) -> dict[str, Tensor]:
    """autograd of L = Σ_b g_bᵀ W h_b with W = U diag(σ) Vᵀ formed by dense reflector products (independent of
    the reflector recurrence) with respect to packed U, V, σ̂ and h: {"h", "U", "sigma_hat", "V"}."""
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


def gradient_scales(case: SpectralCellCase) -> tuple[Tensor, Tensor, float]:
    """(Σ_b ‖h_b‖‖g_b‖, ‖g‖, s = max(1, max|σ|)): the sizes the identity parts' S are made of."""
    hn, gn = torch.linalg.vector_norm(case.h, dim=-1), torch.linalg.vector_norm(case.g, dim=-1)
    s = max(1.0, float(case.cell.sigma.detach().abs().max()))
    return (hn * gn).sum(), torch.linalg.vector_norm(case.g), s


def _measure(case: SpectralCellCase) -> dict[str, tuple[Tensor, Tensor, Tensor]]:
    h, g = case.h, case.g
    hg, g_norm, _ = gradient_scales(case)
    e12, e13 = [], []
    for u in reflector_columns(case.cell):
        ref_h, ref_u = reflector_reference(h, u, g)
        e12.append((eq12(h, u, g), ref_h, 3 * g_norm))
        e13.append((eq13_formula(h, u, g), ref_u, 8 * hg / torch.linalg.vector_norm(u)))
    return {"eq. 12: ∂L/∂h = autograd (every reflector)": stacked_part(e12),
            "eq. 13: ∂L/∂û_k = autograd (every reflector)": stacked_part(e13)}


def gradient_cases(gen, h, T, device, dtype, *, m1_min: int = 1) -> SpectralCellCase:
    """m1 ∈ [m1_min, n], m2 ∈ [0, n], r ∈ [0, 0.5], σ* ∈ [0.5, 1.5], σ̂ ~ N(0, 4), a batch of 3 (h, g); edge
    cases: a reflector scaled to 1e-6, a reflector with zero leading entry, a batch row h ⟂ û_n, and k = 1
    reflectors (m = n)."""
    n = h
    m1, m2 = randint(gen, min(m1_min, n), n), randint(gen, 0, n)
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
    all(bool(u.abs().sum() > 0) for u in reflector_columns(c.cell)), "some reflector is 0"))

#: The reflector-gradient cases of eq. 12–13 and Algorithm 3. n ≥ 2: at n = 1 the only reflector is H = −1
#: whatever u is, ∂L/∂u ≡ 0 and a relative error is undefined (k = 1 reflectors inside n ≥ 2 cells still occur).
REFLECTOR_GRADIENTS = CaseSpace(case_type=SpectralCellCase, sample=gradient_cases,
                                sizes={"quick": [(2, 1), (3, 1), (5, 1), (8, 1), (12, 1)],
                                       "full": [(2, 1), (3, 1), (8, 1), (32, 1), (64, 1)]})

eq13 = Claim(
    id="spectral_rnn.eq13",
    source="spectral_rnn.md, Sec. 4.1 eq. 12–13",
    statement="For ĥ = H(u_k) h and g = ∂L/∂ĥ: ∂L/∂h = g − 2(ûᵀg/ûᵀû)û (eq. 12); ∂L/∂û = −2(ûᵀh/ûᵀû)g − "
              "2(ûᵀg/ûᵀû)h + 4(ûᵀh)(ûᵀg)/(ûᵀû)² û (eq. 13)",
    assumptions=(A_NONZERO_U, A_F64),
    measure="relative error of the printed formulas against autograd through the dense H = I − 2ûûᵀ/ûᵀû, every "
            "reflector of a Spectral-RNN cell stacked, summed over a batch of 3 (h, g)",
    bound="relative error 1e-10 against ‖autograd‖ + S (S: the size of the formula's terms before cancellation)",
    evaluate=_measure,
    cases=REFLECTOR_GRADIENTS,
    explanation="Would mean eq. 12 or eq. 13 is not the gradient of ĥ = H(u)h.",
    notes="Eq. 12 and eq. 13 hold. Appendix B's Algorithms 3 and 1, meant to compute them, are wrong as printed: see "
          "spectral_rnn.algorithm3 and spectral_rnn.algorithm1 (and their .corrected forms). eq. 9–11 are definitions. "
          "Decision: Sec. 4.1's h̃^(t) = W h^(t) (Algorithm 1: W h^(t−1), the reading used) gets no verdict of its "
          "own: an index in a sentence that defines notation; eq. 12–13 do not depend on it.",
)
