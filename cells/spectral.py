"""Spectral-RNN, oRNN and the SVD-parametrised linear layer (spectral_rnn.md, Zhang, Lei & Dhillon 2018).

    W = H_n(u_n) … H_{k1}(u_{k1}) diag(σ) H_{k2}(v_{k2}) … H_n(v_n),   k1 = n − m1 + 1, k2 = n − m2 + 1  (eq. 6)
    σ_i = 2r (sigmoid(σ̂_i) − 1/2) + σ*                                                                (eq. 7)
    h_t = φ(W h_{t−1} + M x_t + b),   ŷ_t = Y h_t                                                      (eq. 4–5)

H_k(u_k) (u_k ∈ ℝ^k) reflects the last k of n coordinates (eq. 1, written with the zero-padded û_k = (0_{n−k}; u_k)
in eq. 8). Layout used throughout, that of Algorithm 1: the reflectors of one orthogonal factor are the columns of a
zero-padded matrix ``U_hat = (û_n | û_{n−1} | … | û_{k1})`` of shape (n, m1), column j holding û_{n−j}, whose
entries above the diagonal are structural zeros. Modules store only the free entries, packed column after column
(u_n, u_{n−1}, …, u_{k1}: Σ_{k=k1}^{n} k scalars), so that ``parameter_count`` equals the count of Sec. 4.

Fast path. Sec. 4.2 points to the level-3 BLAS, blocked Householder form (Andrew & Dingle, 2014) for GPUs. With
τ_j = 2/‖û_j‖², a product of reflectors is I − Y T Yᵀ (compact WY; Schreiber & Van Loan 1989), Y the padded
reflector matrix itself and T upper triangular with T⁻¹ = triu(YᵀY, 1) + diag(‖û_j‖²/2) (:func:`compact_wy`).
Multiplying the U and V forms out gives W = Σ̂ − Q Pᵀ with P, Q of width m1 + m2 (:func:`wy_factors`, built
once per forward pass by differentiable ops), so a time step costs σ ∘ h and two (batch × n)·(n × (m1 + m2))
matmuls, O(n(m1 + m2)) per sequence element as in Table 1, with no per-reflector loop. The time loop is one
autograd node with hand-written BPTT (:func:`wy_recurrence`), a handful of kernels per step in each direction.
``SpectralRNN.forward`` uses it by default; ``method="wy_autograd"`` records the same steps op by op,
``method="reflectors"`` runs eq. 8 / Algorithm 1 one reflector at a time, ``method="dense"`` forms W.

Reading notes (the tests pin each one down):
  * eq. 1 as transcribed reads "I_{k−2} uuᵀ/‖u‖²"; the reflector is I_k − 2uuᵀ/‖u‖² (eq. 8, Algorithm 2).
  * Algorithm 3 computes α from h̄ before h̄ is defined; α = 2 u_kᵀh/‖u_k‖² with h the reflector's input (eq. 13).
  * Algorithm 1 passes h_k^(u) (the reflector's output) to Hgrad for u_k; the input h_{k−1}^(u) is right.
  * Sec. 4.1 writes h̃^(t) = W h^(t); it is W h^(t−1) (Algorithm 1's output).
  * Sec. 6 gives M ∈ ℝ^{n_i×n}; M x must type-check, so M ∈ ℝ^{n×n_i} as in Appendix A.6.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import torch
from torch import Tensor, nn

from rnnaudit.cells._validate import check_sequence, check_sizes, check_state, require_finite
from rnnaudit.cells.base import LEAKY_RELU_SLOPE, RecurrentCell, get_activation

__all__ = [
    "householder_matrix", "reflect", "reflect_grad", "pack_reflectors", "unpack_reflectors", "reflector_product",
    "ReflectorTrace", "householder_forward", "householder_backward", "compact_wy", "WYFactors", "wy_factors",
    "wy_apply", "wy_recurrence", "sigma_from_hat",
    "spectral_rnn_parameter_count", "ornn_parameter_count", "SpectralRNN", "ORNN", "SpectralLinear",
]


# ---------------------------------------------------------------------------------------------- reflectors
def _scale(u_hat: Tensor) -> Tensor:
    """2/‖û‖² over the last dim, and 0 where û = 0 so that H(0) = I (eq. 1, "otherwise I_n")."""
    sq = (u_hat * u_hat).sum(-1)
    nonzero = sq > 0
    return torch.where(nonzero, 2 / torch.where(nonzero, sq, torch.ones_like(sq)), torch.zeros_like(sq))


def _check_same(name: str, t: Tensor, ref: Tensor, ref_name: str) -> None:
    if t.dtype != ref.dtype or t.device != ref.device:
        raise ValueError(f"{name} has dtype {t.dtype} on {t.device} but {ref_name} has {ref.dtype} on {ref.device}")


def _check_hat(name: str, u_hat: Tensor) -> None:
    """A zero-padded reflector matrix (n, m), m ≤ n, zero above the diagonal (column j is û_{n−j})."""
    if not isinstance(u_hat, Tensor) or u_hat.dim() != 2 or u_hat.shape[1] > u_hat.shape[0]:
        shape = tuple(u_hat.shape) if isinstance(u_hat, Tensor) else type(u_hat).__name__
        raise ValueError(f"{name} must be a (n, m) matrix of zero-padded reflectors with m <= n, got {shape}")
    require_finite(name, u_hat)
    if bool(torch.triu(u_hat, 1).any()):
        raise ValueError(f"{name} must be zero above the diagonal (column j is û_(n−j), padded with j zeros)")


def householder_matrix(u: Tensor, n: int) -> Tensor:
    """Dense n × n reflector H_k^n(u) = diag(I_{n−k}, I_k − 2uuᵀ/‖u‖²), and I_n for u = 0 (eq. 1, eq. 8).

    Args:
        u: (k,) with 1 ≤ k ≤ n; any float dtype/device (the result has the same).
        n: size of the matrix.

    Raises:
        ValueError: u not 1-D, k outside [1, n], NaN/Inf in u.
    """
    if not isinstance(u, Tensor) or u.dim() != 1 or not 1 <= u.shape[0] <= n:
        raise ValueError(f"u must be a 1-D tensor of length k in [1, n={n}], got "
                         f"{tuple(u.shape) if isinstance(u, Tensor) else type(u).__name__}")
    require_finite("u", u)
    u_hat = torch.cat([u.new_zeros(n - u.shape[0]), u])
    return torch.eye(n, dtype=u.dtype, device=u.device) - _scale(u_hat) * torch.outer(u_hat, u_hat)


def reflect(h: Tensor, u_hat: Tensor) -> Tensor:
    """Hprod (Algorithm 2, eq. 8): H_k(u_k) h = h − α û_k with α = 2 û_kᵀh/‖û_k‖², for every row of h.

    Args:
        h: (..., n). u_hat: (n,) zero-padded reflector û_k (u_hat = 0 gives the identity).

    Returns:
        (..., n), dtype/device of h. No argument checks (inner loop; see :func:`householder_forward`).
    """
    alpha = (h @ u_hat) * _scale(u_hat)
    return h - alpha[..., None] * u_hat


def reflect_grad(h: Tensor, u_hat: Tensor, g: Tensor) -> tuple[Tensor, Tensor]:
    """Hgrad (Algorithm 3, eq. 12–13) for ĥ = H_k(u_k) h given g = ∂L/∂ĥ.

    With α = 2 û_kᵀh/‖û_k‖² and β = 2 û_kᵀg/‖û_k‖² (α from the reflector's *input* h: Algorithm 3 as printed
    uses h̄, undefined at that line; eq. 13 settles it):
        ∂L/∂h = g − β û_k                      (eq. 12)
        ∂L/∂û_k = −α g − β h + αβ û_k          (eq. 13)

    Args:
        h: (..., n) reflector input. u_hat: (n,). g: (..., n).

    Returns:
        (∂L/∂h of shape (..., n), ∂L/∂û_k of shape (n,) summed over the leading dims of h since û_k is shared).
        ∂L/∂u_k ∈ ℝ^k is the last k entries; the first n − k belong to the padding and are discarded by callers.
    """
    c = _scale(u_hat)
    alpha, beta = c * (h @ u_hat), c * (g @ u_hat)
    h_bar = g - beta[..., None] * u_hat
    u_bar = -alpha[..., None] * g - beta[..., None] * h + (alpha * beta)[..., None] * u_hat
    return h_bar, u_bar.reshape(-1, u_hat.shape[0]).sum(0)


def _trapezoid(n: int, m: int, device) -> tuple[Tensor, Tensor]:
    """(rows, cols) of the free entries of an (n, m) padded reflector matrix, column after column."""
    cols, rows = torch.triu_indices(m, n, device=device)
    return rows, cols


def unpack_reflectors(packed: Tensor, n: int, m: int) -> Tensor:
    """Packed (u_n, u_{n−1}, …, u_{n−m+1}) → zero-padded (û_n | … | û_{n−m+1}), shape (n, m) (Algorithm 1 layout).

    Differentiable (index_put), so the padded matrix can be built from a packed Parameter inside the graph.

    Raises:
        ValueError: m outside [0, n] or ``packed`` not of length m n − m(m−1)/2.
    """
    if not 0 <= m <= n:
        raise ValueError(f"m must lie in [0, n={n}], got {m}")
    size = m * n - m * (m - 1) // 2
    if packed.dim() != 1 or packed.shape[0] != size:
        raise ValueError(f"packed must be 1-D of length m*n - m(m-1)/2 = {size}, got shape {tuple(packed.shape)}")
    return packed.new_zeros(n, m).index_put(_trapezoid(n, m, packed.device), packed)


def pack_reflectors(u_hat: Tensor) -> Tensor:
    """Inverse of :func:`unpack_reflectors`: the free entries of an (n, m) padded matrix, column after column.

    Raises:
        ValueError: not a 2-D (n, m) tensor with m ≤ n.
    """
    if u_hat.dim() != 2 or u_hat.shape[1] > u_hat.shape[0]:
        raise ValueError(f"u_hat must have shape (n, m) with m <= n, got {tuple(u_hat.shape)}")
    return u_hat[_trapezoid(*u_hat.shape, u_hat.device)]


def reflector_product(u_hat: Tensor) -> Tensor:
    """Dense orthogonal H_n(u_n) H_{n−1}(u_{n−1}) … H_{n−m+1}(u_{n−m+1}), shape (n, n) (eq. 2; U of eq. 6).

    Uses ``torch.linalg.householder_product``, whose j-th reflector I − τ_j v_j v_jᵀ acts on rows j.. with
    v_j[j] = 1: exactly the support of û_{n−j}, in the same left-to-right order. So v_j = û_{n−j}/û_{n−j}[j] and
    τ_j = 2 û_{n−j}[j]²/‖û_{n−j}‖² (τ_j = 0 for û = 0). A reflector with û ≠ 0 but û[j] = 0 has no such form;
    then the reflectors are applied to I one by one (eq. 8).

    Args:
        u_hat: (n, m), m ≤ n, Algorithm 1 layout.

    Raises:
        ValueError: bad shape, nonzero entries above the diagonal, NaN/Inf.
    """
    _check_hat("u_hat", u_hat)
    n, m = u_hat.shape
    eye = torch.eye(n, dtype=u_hat.dtype, device=u_hat.device)
    if m == 0:
        return eye
    lead, sq = torch.diagonal(u_hat), (u_hat * u_hat).sum(0)
    if bool(((lead == 0) & (sq > 0)).any()):
        out = eye  # rows e_i; the rightmost reflector acts first, so apply columns m−1 … 0
        for j in reversed(range(m)):
            out = reflect(out, u_hat[:, j])
        return out.mT
    safe_lead = torch.where(lead == 0, torch.ones_like(lead), lead)
    tau = lead ** 2 * _scale(u_hat.mT)
    # householder_product returns only as many columns as it is given; τ = 0 columns complete Q to n × n.
    return torch.linalg.householder_product(torch.cat([u_hat / safe_lead, u_hat.new_zeros(n, n - m)], 1),
                                            torch.cat([tau, tau.new_zeros(n - m)]))


# ------------------------------------------------------------------------------- Algorithm 1 (local FP/BP)
class ReflectorTrace(NamedTuple):
    """Intermediate states of Algorithm 1's forward pass (each of shape (..., ·)).

    hv: [h^(v)_{n+1} = h, h^(v)_n, …, h^(v)_{k2}] (length m2 + 1, in the input dimension).
    hu: [h^(u)_{k1−1} = Σ̂ h^(v)_{k2}, h^(u)_{k1}, …, h^(u)_n = W h] (length m1 + 1, in the output dimension).
    """

    hv: list
    hu: list


def _apply_sigma(z: Tensor, sigma: Tensor | None, n_out: int) -> Tensor:
    """Σ̂ z for Σ̂ = diag(σ) (square) or (diag(σ)|0) / (diag(σ)|0)ᵀ (eq. 15): scale, truncate or zero-pad."""
    if sigma is None:
        return z
    p = sigma.shape[0]
    z = z[..., :p] * sigma
    return torch.cat([z, z.new_zeros(*z.shape[:-1], n_out - p)], -1) if n_out > p else z


def _check_svd_factors(U_hat: Tensor, sigma: Tensor | None, V_hat: Tensor | None) -> tuple[int, int]:
    _check_hat("U_hat", U_hat)
    n_out = U_hat.shape[0]
    n_in = n_out if V_hat is None else V_hat.shape[0]
    if V_hat is not None:
        _check_hat("V_hat", V_hat)
        _check_same("V_hat", V_hat, U_hat, "U_hat")
    if sigma is None:
        if n_in != n_out:
            raise ValueError(f"sigma=None (an orthogonal map) needs a square map, got {n_out} x {n_in}")
    else:
        if sigma.dim() != 1 or sigma.shape[0] != min(n_in, n_out):
            raise ValueError(f"sigma must have shape ({min(n_in, n_out)},), got {tuple(sigma.shape)}")
        _check_same("sigma", sigma, U_hat, "U_hat")
        require_finite("sigma", sigma)
    return n_out, n_in


def householder_forward(h: Tensor, U_hat: Tensor, sigma: Tensor | None = None,
                        V_hat: Tensor | None = None) -> tuple[Tensor, ReflectorTrace]:
    """Algorithm 1, forward part: h̃ = W h with W = U Σ̂ Vᵀ applied by the reflector recurrence (eq. 8).

    Vᵀ h = H_{k2}(v_{k2}) … H_n(v_n) h (v_n first), then Σ̂, then U = H_n(u_n) … H_{k1}(u_{k1}) (u_{k1} first).

    Args:
        h: (..., n_in). U_hat: (n_out, m1) padded u's. sigma: (min(n_in, n_out),) or None for Σ̂ = I (oRNN).
        V_hat: (n_in, m2) padded v's or None (no right factor, m2 = 0).

    Returns:
        (h̃ of shape (..., n_out), :class:`ReflectorTrace` for :func:`householder_backward`).

    Raises:
        ValueError: shape, dtype or device mismatch, U_hat/V_hat nonzero above the diagonal, NaN/Inf.
    """
    n_out, n_in = _check_svd_factors(U_hat, sigma, V_hat)
    if not isinstance(h, Tensor) or h.dim() < 1 or h.shape[-1] != n_in:
        raise ValueError(f"h must have last dimension {n_in}, got "
                         f"{tuple(h.shape) if isinstance(h, Tensor) else type(h).__name__}")
    _check_same("h", h, U_hat, "U_hat")
    require_finite("h", h)
    return _reflector_chain(h, U_hat, sigma, V_hat, n_out)


def _reflector_chain(h: Tensor, U_hat: Tensor, sigma: Tensor | None, V_hat: Tensor | None,
                     n_out: int) -> tuple[Tensor, ReflectorTrace]:
    """Unchecked body of :func:`householder_forward` (the recurrence calls it once per time step)."""
    hv = [h]
    for j in range(0 if V_hat is None else V_hat.shape[1]):  # k = n, n−1, …, k2
        hv.append(reflect(hv[-1], V_hat[:, j]))
    hu = [_apply_sigma(hv[-1], sigma, n_out)]
    for j in reversed(range(U_hat.shape[1])):  # k = k1, …, n
        hu.append(reflect(hu[-1], U_hat[:, j]))
    return hu[-1], ReflectorTrace(hv, hu)


def householder_backward(g: Tensor, U_hat: Tensor, sigma: Tensor | None, V_hat: Tensor | None,
                         trace: ReflectorTrace, *, r: float | None = None,
                         sigma_hat: Tensor | None = None) -> dict[str, Tensor]:
    """Algorithm 1, backward part (Hgrad = Algorithm 3 per reflector, eq. 9–13) for h̃ = W h.

    Args:
        g: ∂L/∂h̃, shape (..., n_out), same leading dims as the ``h`` given to :func:`householder_forward`.
        U_hat, sigma, V_hat, trace: as given to / returned by :func:`householder_forward`.
        r, sigma_hat: eq. 7's r and σ̂ (n,); when given, ∂L/∂σ̂ = 2r f'(σ̂) ∘ ∂L/∂σ is returned too.

    Returns:
        {"h": ∂L/∂h (..., n_in), "U": G^(u) (n_out, m1), "V": G^(v) (n_in, m2) if V_hat is not None,
         "sigma": ∂L/∂σ if sigma is not None, "sigma_hat": ∂L/∂σ̂ if sigma_hat is given}. Parameter gradients
        are summed over the leading dims; G^(u), G^(v) use the padded layout, structural zeros get 0.

    Raises:
        ValueError: mismatched shapes (see :func:`householder_forward`); sigma_hat without r or sigma.
    """
    n_out, n_in = _check_svd_factors(U_hat, sigma, V_hat)
    if g.shape != trace.hu[-1].shape:
        raise ValueError(f"g must have the shape of W h, {tuple(trace.hu[-1].shape)}, got {tuple(g.shape)}")
    _check_same("g", g, U_hat, "U_hat")
    m1 = U_hat.shape[1]
    G_u = torch.zeros_like(U_hat)
    for j in range(m1):  # k = n, …, k1; the input of H_k(u_k) is h^(u)_{k−1} = hu[m1 − 1 − j]
        g, G_u[:, j] = reflect_grad(trace.hu[m1 - 1 - j], U_hat[:, j], g)
    out = {"U": torch.tril(G_u)}
    if sigma is not None:
        p = sigma.shape[0]
        out["sigma"] = (g[..., :p] * trace.hv[-1][..., :p]).reshape(-1, p).sum(0)
        g = g[..., :p] * sigma
        g = torch.cat([g, g.new_zeros(*g.shape[:-1], n_in - p)], -1) if n_in > p else g
        if sigma_hat is not None:
            if r is None:
                raise ValueError("r must be given with sigma_hat (eq. 7: dσ/dσ̂ = 2r f'(σ̂))")
            s = torch.sigmoid(sigma_hat)
            out["sigma_hat"] = 2 * r * s * (1 - s) * out["sigma"]
    elif sigma_hat is not None:
        raise ValueError("sigma_hat given but sigma is None (no diagonal factor)")
    if V_hat is not None:
        G_v = torch.zeros_like(V_hat)
        for j in reversed(range(V_hat.shape[1])):  # k = k2, …, n; the input of H_k(v_k) is h^(v)_{k+1} = hv[j]
            g, G_v[:, j] = reflect_grad(trace.hv[j], V_hat[:, j], g)
        out["V"] = torch.tril(G_v)
    out["h"] = g
    return out


# -------------------------------------------------------------------------- compact WY (Sec. 4.2, level 3)
def _wy_inverse_factor(Y: Tensor) -> Tensor:
    """S = T⁻¹ = triu(YᵀY, 1) + diag(‖ŷ_j‖²/2), upper triangular (m, m), for H(ŷ_1)…H(ŷ_m) = I − Y T Yᵀ.

    Why this is T⁻¹: appending H_j = I − τ_j ŷ_j ŷ_jᵀ turns T into [[T, −τ_j T Yᵀŷ_j], [0, τ_j]], whose inverse
    is [[T⁻¹, Yᵀŷ_j], [0, 1/τ_j]]. A zero column (H = I, τ = 0) gets diagonal 1 instead of 0: its row and
    column of S are otherwise zero, so S stays block diagonal and the other blocks of T are unchanged, while
    Y's zero column removes that block from Y T Yᵀ.
    """
    sq = (Y * Y).sum(0)
    diag = torch.where(sq > 0, sq / 2, torch.ones_like(sq))
    return torch.triu(Y.mT @ Y, 1) + torch.diag_embed(diag)


def compact_wy(u_hat: Tensor) -> Tensor:
    """T of the compact WY form H_n(u_n) H_{n−1}(u_{n−1}) … H_{n−m+1}(u_{n−m+1}) = I − Û T Ûᵀ.

    Û = ``u_hat`` itself (no normalisation, so zero leading entries and zero reflectors are fine, unlike
    LAPACK's unit-lower V); T is (m, m) upper triangular. Source: spectral_rnn.md Sec. 4.2 (blocked, level 3
    BLAS Householder products) with eq. 2 / eq. 8's reflectors; T as LAPACK's ``larft`` stores it, obtained by
    one triangular solve against I of the closed form T⁻¹ = triu(ÛᵀÛ, 1) + diag(‖û‖²/2) (the forward pass
    never forms T: it solves against Û directly, :func:`wy_factors`).

    Args:
        u_hat: (n, m), m ≤ n, Algorithm 1 layout; any float dtype/device (T has the same).

    Raises:
        ValueError: bad shape, nonzero entries above the diagonal, NaN/Inf.
    """
    _check_hat("u_hat", u_hat)
    S = _wy_inverse_factor(u_hat)
    return torch.linalg.solve_triangular(S, torch.eye(S.shape[0], dtype=S.dtype, device=S.device), upper=True)


class WYFactors(NamedTuple):
    """W = Σ̂ − Q Pᵀ (eq. 6 / eq. 15 via :func:`wy_factors`): P (n_in, m1 + m2), Q (n_out, m1 + m2), σ
    (min(n_in, n_out),) or None for Σ̂ = I, and n_out; tensors share the reflectors' dtype and device."""

    P: Tensor
    Q: Tensor
    sigma: Tensor | None
    n_out: int


def wy_factors(U_hat: Tensor, sigma: Tensor | None = None, V_hat: Tensor | None = None) -> WYFactors:
    """W = U Σ̂ Vᵀ of eq. 6 / eq. 15 as a diagonal plus rank-(m1 + m2) term, W = Σ̂ − Q Pᵀ, from compact WY.

    With U = I − Y_u T_u Y_uᵀ, V = I − Y_v T_v Y_vᵀ (:func:`compact_wy`, Y = the padded reflectors) and
    A_u = Y_u T_u, multiplying out gives
        W = Σ̂ − A_u (Σ̂ᵀY_u)ᵀ − (Σ̂Y_v − A_u Y_uᵀΣ̂Y_v) T_vᵀ Y_vᵀ,
    i.e. P = (Σ̂ᵀY_u | Y_v) and Q = (A_u | (Σ̂Y_v − A_u Y_uᵀΣ̂Y_v) T_vᵀ). T_u, T_v enter only through
    triangular solves with T⁻¹. Cost O(n (m1 + m2)²), once per forward pass; differentiable.

    Args:
        U_hat: (n_out, m1) padded u's. sigma: (min(n_in, n_out),) or None for Σ̂ = I (oRNN, square only).
        V_hat: (n_in, m2) padded v's or None (m2 = 0).

    Returns:
        :class:`WYFactors` for :func:`wy_apply`.

    Raises:
        ValueError: as :func:`householder_forward` (shapes, dtype/device mix, nonzero above the diagonal, NaN/Inf).
    """
    n_out, n_in = _check_svd_factors(U_hat, sigma, V_hat)
    Y_u = U_hat
    A_u = torch.linalg.solve_triangular(_wy_inverse_factor(Y_u), Y_u, upper=True, left=False)  # X T⁻¹ = Y_u
    P, Q = [_apply_sigma(Y_u.mT, sigma, n_in).mT], [A_u]
    if V_hat is not None and V_hat.shape[1] > 0:
        Y_v = V_hat
        sigma_Y_v = _apply_sigma(Y_v.mT, sigma, n_out).mT
        rhs = sigma_Y_v - A_u @ (Y_u.mT @ sigma_Y_v)
        P.append(Y_v)  # X T_v⁻ᵀ = rhs, T_v⁻ᵀ lower triangular
        Q.append(torch.linalg.solve_triangular(_wy_inverse_factor(Y_v).mT, rhs, upper=False, left=False))
    return WYFactors(torch.cat(P, 1), torch.cat(Q, 1), sigma, n_out)


def wy_apply(h: Tensor, factors: WYFactors) -> Tensor:
    """W h = Σ̂ h − Q (Pᵀ h) for every row of h: (..., n_in) → (..., n_out), two matmuls of width m1 + m2.

    W of eq. 6 / eq. 15; same value as :func:`householder_forward` (eq. 8 reflector by reflector) up to
    rounding; dtype/device of h. No argument checks (inner loop); ``factors`` from :func:`wy_factors`.
    """
    return _apply_sigma(h, factors.sigma, factors.n_out) - (h @ factors.P) @ factors.Q.mT


# φ'(z) written through h = φ(z), so the backward needs only the saved outputs (and stays differentiable).
_DERIVATIVE_FROM_OUTPUT = {
    "relu": torch.sign,  # h ≥ 0, so sign(h) is the 0/1 indicator of z > 0 in one op
    "tanh": lambda h: 1 - h * h,
    "identity": lambda h: torch.ones_like(h),
    # h > 0 exactly when z > 0 (slope > 0); at z = 0 autograd's leaky_relu derivative is the slope, and so is this.
    "leaky_relu": lambda h: torch.where(h > 0, torch.ones_like(h), torch.full_like(h, LEAKY_RELU_SLOPE)),
}


class _WYRecurrence(torch.autograd.Function):
    """h_t = φ(pre_t + σ ∘ h_{t−1} − (h_{t−1} P) Qᵀ) for t = 1..T, with hand-written BPTT (see
    :func:`wy_recurrence`). The backward uses differentiable ops on saved inputs/outputs, so it can itself be
    differentiated (``create_graph=True``). States are stacked time-major, so h_1..h_{T−1} (the inputs of
    steps 2..T) are a contiguous slice and the parameter gradients need no copies."""

    @staticmethod
    def forward(ctx, pre, h0, P, Q, sigma, activation):
        # −Qᵀ stored row-major (m, n): addmm with a transposed right operand is markedly slower on CPU BLAS.
        phi, minus_Qt = get_activation(activation), (-Q.mT).contiguous()
        h, states, hP = h0, [], []
        for pre_t in pre.unbind(1):
            base = pre_t + h if sigma is None else torch.addcmul(pre_t, h, sigma)
            hP.append(h @ P)
            h = phi(torch.addmm(base, hP[-1], minus_Qt))
            states.append(h)
        H = torch.stack(states).transpose(0, 1)  # (batch, T, n), a view of the time-major stack
        ctx.activation = activation
        # h_{t−1} P is kept for ∂L/∂Q; being an intermediate, a differentiable backward (create_graph)
        # recomputes it from the saved inputs and output instead.
        ctx.save_for_backward(h0, P, Q, sigma, H, torch.stack(hP))
        return H

    @staticmethod
    def backward(ctx, G):
        h0, P, Q, sigma, H, HP = ctx.saved_tensors
        need_pre, need_h0, need_P, need_Q, need_sigma, _ = ctx.needs_input_grad
        H, G = H.transpose(0, 1), G.transpose(0, 1)  # time-major (T, batch, n)
        D, minus_Pt = _DERIVATIVE_FROM_OUTPUT[ctx.activation](H), (-P.mT).contiguous()
        DG = D * G  # the direct part of gz_t for all t at once: one op per step fewer in the loop
        gh, gz_steps, gzQ_steps = None, [], []
        for t in reversed(range(H.shape[0])):  # gh = ∂L/∂h_t through the later steps
            gz = DG[t] if gh is None else torch.addcmul(DG[t], D[t], gh)
            gzQ = gz @ Q
            gh = torch.addmm(gz if sigma is None else gz * sigma, gzQ, minus_Pt)
            gz_steps.append(gz)
            gzQ_steps.append(gzQ)
        GZ = torch.stack(gz_steps[::-1])
        # Parameter gradients are sums over (t, batch): one large matmul each instead of one per step,
        # split into step 1 (input h0) and steps 2..T (inputs h_1..h_{T−1}).
        H_in, GZ_rest = H[:-1].flatten(0, 1), GZ[1:].flatten(0, 1)
        g_P = g_Q = g_sigma = None
        if need_P:
            GZQ = torch.stack(gzQ_steps[::-1])
            g_P = -(h0.mT @ GZQ[0] + H_in.mT @ GZQ[1:].flatten(0, 1))
        if need_Q:
            if torch.is_grad_enabled():
                g_Q = -(GZ[0].mT @ (h0 @ P) + GZ_rest.mT @ (H_in @ P))
            else:
                g_Q = -(GZ.flatten(0, 1).mT @ HP.flatten(0, 1))
        if need_sigma and sigma is not None:
            g_sigma = (GZ[0] * h0).sum(0) + (GZ_rest * H_in).sum(0)
        return (GZ.transpose(0, 1) if need_pre else None, gh if need_h0 else None, g_P, g_Q, g_sigma, None)


def wy_recurrence(pre: Tensor, h0: Tensor, factors: WYFactors, activation: str = "relu") -> Tensor:
    """Eq. 4 for all t with W h = σ ∘ h − Q (Pᵀ h) (:func:`wy_factors`), as one autograd node.

    h_t = φ(W h_{t−1} + pre_t), pre_t = M x_t + b. Forward: per step one σ ∘ h and two (batch × n)·(n × m)
    matmuls, m = m1 + m2 (Table 1's O(nm)). Backward (BPTT, eq. 9–13 summed over t, in matrix form): per step
    gz_t = (∂L/∂h_t) ∘ φ'(z_t), ∂L/∂h_{t−1} += σ ∘ gz_t − P (Qᵀ gz_t), again two width-m matmuls; the
    gradients of P, Q, σ are sums over (batch, t) done afterwards as single large matmuls. That is 4 ops per
    step in each direction, against about 11 per step in the backward when autograd records the loop
    (``method="wy_autograd"``): what counts when a step is launch-bound, as on a GPU.
    First and second derivatives (``create_graph=True``) are supported; forward-mode AD is not (use
    ``SpectralRNN.forward(..., method="wy_autograd")``).

    Args:
        pre: (batch, T, n) pre-activations M x_t + b. h0: (batch, n). factors: square, from :func:`wy_factors`.
        activation: "relu", "tanh", "identity" or "leaky_relu".

    Returns:
        (batch, T, n) hidden states, dtype/device of ``pre``: a transposed view of a time-major buffer (as
        torch.nn.RNN's batch_first output), so ``.view`` needs ``.contiguous()`` first.

    Raises:
        ValueError: unknown ``activation``. Shapes are not checked here (``SpectralRNN.forward`` does).
    """
    P, Q, sigma, _ = factors
    return _WYRecurrence.apply(pre, h0, P, Q, sigma, activation)


# ------------------------------------------------------------------------------------------ parametrisation
def sigma_from_hat(sigma_hat: Tensor, r: float, sigma_star: float) -> Tensor:
    """σ_i = 2r (sigmoid(σ̂_i) − 0.5) + σ* ∈ [σ* − r, σ* + r] (eq. 7). Shape and dtype of ``sigma_hat``."""
    return 2 * r * (torch.sigmoid(sigma_hat) - 0.5) + sigma_star


def _check_count_args(n: int, n_i: int, n_y: int, **ms: int) -> None:
    if n < 1:
        raise ValueError(f"n (hidden_size) must be >= 1, got {n}")
    for name, m in ms.items():
        if not 0 <= m <= n:
            raise ValueError(f"{name} (number of reflectors) must lie in [0, n={n}], got {m}")
    if n_i < 1:
        raise ValueError(f"n_i (input_size) must be >= 1, got {n_i}")
    if n_y < 0:
        raise ValueError(f"n_y (output_size) must be >= 0, got {n_y}")


def spectral_rnn_parameter_count(n: int, m1: int, m2: int, n_i: int, n_y: int, *, bias: bool = True) -> int:
    """Spectral-RNN parameter count of Sec. 4: (n_y + n_i + m1 + m2 + 2) n − (m1² + m2² − m1 − m2)/2.

    u's: Σ_{k=k1}^n k = m1 n − m1(m1−1)/2 (same for v's), σ̂: n, M: n n_i, b: n, Y: n_y n (no readout bias).
    ``bias=False`` drops b's n. m1 = m2 = n gives (n_y + n_i + n + 3) n (Sec. 4).

    Raises:
        ValueError: n < 1, m1 or m2 outside [0, n], n_i < 1, n_y < 0.
    """
    _check_count_args(n, n_i, n_y, m1=m1, m2=m2)
    return (n_y + n_i + m1 + m2 + 2) * n - (m1 * m1 + m2 * m2 - m1 - m2) // 2 - (0 if bias else n)


def ornn_parameter_count(n: int, m: int, n_i: int, n_y: int, *, bias: bool = True) -> int:
    """oRNN (σ = 1, one chain of m reflectors): Sec. 4's count with m1 = m, m2 = 0 and no σ̂,
    (n_y + n_i + m + 1) n − (m² − m)/2. Not printed in the paper; Table 4's oRNN column follows it.

    Raises:
        ValueError: as :func:`spectral_rnn_parameter_count`.
    """
    _check_count_args(n, n_i, n_y, m=m)
    return spectral_rnn_parameter_count(n, m, 0, n_i, n_y, bias=bias) - n


def _placed(t: Tensor, kw) -> nn.Parameter:
    # Drawn on the CPU in float64 so a CPU generator seeds the same cell on any device and dtype.
    return nn.Parameter(t.to(dtype=kw["dtype"] or torch.get_default_dtype(), device=kw["device"]))


def _reflector_parameter(n: int, m: int, generator, kw) -> nn.Parameter:
    """Packed u_n, …, u_{n−m+1}, each N(0, I): a uniformly random reflector direction."""
    return _placed(torch.randn(m * n - m * (m - 1) // 2, generator=generator, dtype=torch.float64), kw)


def _glorot(rows: int, cols: int, generator, kw) -> nn.Parameter:
    return _placed(nn.init.xavier_uniform_(torch.empty(rows, cols, dtype=torch.float64), generator=generator), kw)


def _check_sigma_args(r: float, sigma_star: float) -> None:
    if not (math.isfinite(r) and r >= 0):
        raise ValueError(f"r (half-width of the singular value range, eq. 7) must be finite and >= 0, got {r}")
    if not math.isfinite(sigma_star):
        raise ValueError(f"sigma_star (centre of the singular value range, eq. 7) must be finite, got {sigma_star}")


# ------------------------------------------------------------------------------------------------ cells
class SpectralRNN(RecurrentCell):
    r"""Spectral-RNN cell (spectral_rnn.md Sec. 4, eq. 4–8).

    .. math:: h_t = \phi(W h_{t-1} + M x_t + b),\quad W = \mathcal{H}_n(u_n)\cdots\mathcal{H}_{k_1}(u_{k_1})
              \,\mathrm{diag}(\sigma)\,\mathcal{H}_{k_2}(v_{k_2})\cdots\mathcal{H}_n(v_n)

    W h is applied through the reflectors, by default in compact WY form (:func:`wy_factors`, two width-(m1 + m2)
    matmuls per step), or one reflector at a time (eq. 8, ``forward(..., method="reflectors")``); W is formed
    only by :meth:`recurrent_matrix` (and ``method="dense"``). Its singular values are |σ_i|, σ from eq. 7.

    Args:
        input_size: n_i. hidden_size: n.
        m1, m2: reflectors in U and V, each in [0, n] (k1 = n − m1 + 1, k2 = n − m2 + 1). Default n/4 each
            (floor, at least 1), the public code's ``n_r = n_h // 4``.
        r, sigma_star: eq. 7's half-width r ≥ 0 and centre σ* (defaults 0.01 and 1, the public code's).
        activation: φ by name (:func:`cells.base.get_activation`); ReLU as in the public code by default.
            Sec. 7 uses ``"leaky_relu"`` "in most cases" (slope not stated: :data:`cells.base.LEAKY_RELU_SLOPE`),
            which the ``spectral_rnn-*`` training presets set.
        bias: include b. output_size: n_y > 0 adds the readout Y (eq. 5, no bias); None/0 leaves it out.
        generator, dtype, device: initialisation RNG (u, v ~ N(0, I); M, Y Glorot-uniform; σ̂ = 0, i.e.
            σ = σ*; b = 0) and parameter placement.

    Parameters (packed storage, see the module docstring): U (m1 n − m1(m1−1)/2,), V (m2 n − m2(m2−1)/2,),
    sigma_hat (n,), M (n, n_i), b (n,), Y (n_y, n). Count: :func:`spectral_rnn_parameter_count`.

    Raises:
        ValueError: sizes < 1, m1 or m2 outside [0, n], r < 0, non-finite σ*, unknown activation.
    """

    def __init__(self, input_size: int, hidden_size: int, m1: int | None = None, m2: int | None = None, *,
                 r: float = 0.01, sigma_star: float = 1.0, activation: str = "relu", bias: bool = True,
                 output_size: int | None = None, generator: torch.Generator | None = None,
                 dtype: torch.dtype | None = None, device: torch.device | str | None = None):
        super().__init__()
        check_sizes(input_size=input_size, hidden_size=hidden_size)
        default_m = max(1, hidden_size // 4)
        m1 = default_m if m1 is None else m1
        m2 = default_m if m2 is None else m2
        _check_count_args(hidden_size, input_size, output_size or 0, m1=m1, m2=m2)
        _check_sigma_args(r, sigma_star)
        get_activation(activation)
        n, kw = hidden_size, {"dtype": dtype, "device": device}
        self.input_size, self.hidden_size, self.output_size = input_size, n, output_size or 0
        self.m1, self.m2, self.r, self.sigma_star, self.activation = m1, m2, r, sigma_star, activation
        self.U = _reflector_parameter(n, m1, generator, kw)
        self.V = _reflector_parameter(n, m2, generator, kw) if m2 else None
        self.sigma_hat = nn.Parameter(torch.zeros(n, **kw)) if self._has_sigma() else None
        self.M = _glorot(n, input_size, generator, kw)
        self.b = nn.Parameter(torch.zeros(n, **kw)) if bias else None
        self.Y = _glorot(output_size, n, generator, kw) if output_size else None

    def _has_sigma(self) -> bool:
        return True

    @property
    def U_hat(self) -> Tensor:
        """(û_n | … | û_{k1}), shape (n, m1): Algorithm 1's U, zero-padded (eq. 8)."""
        return unpack_reflectors(self.U, self.hidden_size, self.m1)

    @property
    def V_hat(self) -> Tensor | None:
        """(v̂_n | … | v̂_{k2}), shape (n, m2), or None when m2 = 0."""
        return None if self.V is None else unpack_reflectors(self.V, self.hidden_size, self.m2)

    @property
    def sigma(self) -> Tensor | None:
        """σ of eq. 7, shape (n,) (None for oRNN, where σ = 1)."""
        return None if self.sigma_hat is None else sigma_from_hat(self.sigma_hat, self.r, self.sigma_star)

    def recurrent_matrix(self) -> Tensor:
        """Dense W = U diag(σ) Vᵀ, shape (n, n), U and V via :func:`reflector_product` (householder_product)."""
        W = reflector_product(self.U_hat)
        if self.sigma_hat is not None:
            W = W * self.sigma
        return W if self.V is None else W @ reflector_product(self.V_hat).mT

    METHODS = ("wy", "wy_autograd", "reflectors", "dense")

    def _transition(self, method: str):
        """z(pre_t, h) = W h + pre_t for the chosen way of applying W, its factors built once per call.

        "wy", "wy_autograd": Σ̂ h − Q (Pᵀ h) (:func:`wy_factors`); "reflectors": eq. 8 reflector by reflector
        (Algorithm 1's forward); "dense": W from :meth:`recurrent_matrix`.
        """
        if method in ("wy", "wy_autograd"):
            P, Q, sigma, _ = wy_factors(self.U_hat, self.sigma, self.V_hat)
            minus_Qt = (-Q.mT).contiguous()  # the minus sign folded into the one addmm per step, row-major
            if sigma is None:
                return lambda pre_t, h: torch.addmm(pre_t + h, h @ P, minus_Qt)
            return lambda pre_t, h: torch.addmm(torch.addcmul(pre_t, h, sigma), h @ P, minus_Qt)
        if method == "reflectors":
            factors, n = (self.U_hat, self.sigma, self.V_hat), self.hidden_size
            _check_svd_factors(*factors)  # once, not per step
            return lambda pre_t, h: _reflector_chain(h, *factors, n)[0] + pre_t
        if method == "dense":
            Wt = self.recurrent_matrix().mT
            return lambda pre_t, h: torch.addmm(pre_t, h, Wt)
        raise ValueError(f"method must be one of {self.METHODS}, got {method!r}")

    def _bias(self, mx: Tensor) -> Tensor:
        return mx if self.b is None else mx + self.b

    def step(self, x_t: Tensor, h: Tensor, *, method: str = "wy") -> Tensor:
        """One step of eq. 4: x_t (batch, n_i), h (batch, n) → (batch, n); ``method`` as in :meth:`forward`
        (for a single step "wy" is recorded by autograd op by op, i.e. it is "wy_autograd", so every AD mode and
        torch.func transform applies).

        Raises:
            ValueError: wrong shapes, dtype mismatch, NaN/Inf (argument named), unknown ``method``.
        """
        if not isinstance(x_t, Tensor) or x_t.dim() != 2:
            raise ValueError(f"x_t must have shape (batch, {self.input_size}), got "
                             f"{tuple(x_t.shape) if isinstance(x_t, Tensor) else type(x_t).__name__}")
        check_sequence(x_t[:, None], self.input_size, self._dtype(), name="x_t")
        check_state(h, x_t.shape[0], self.hidden_size, self._dtype(), name="h")
        transition = self._transition(method)
        return get_activation(self.activation)(transition(self._bias(x_t @ self.M.mT), h))

    def forward(self, x: Tensor, h0: Tensor | None = None, *, method: str = "wy") -> Tensor:
        """Hidden states h_1..h_T (batch, T, n) for x (batch, T, n_i), eq. 4.

        ``method`` says how W h^(t−1) is applied; all four give the same states up to rounding:
          * "wy" (default): compact WY, W = Σ̂ − Q Pᵀ built once from the reflectors (:func:`wy_factors`), then
            two (batch × n)·(n × (m1 + m2)) matmuls per step: Table 1's O(n (m1 + m2)) without a Python loop
            over reflectors (Sec. 4.2's level-3 BLAS remark); the time loop is one autograd node with
            hand-written BPTT (:func:`wy_recurrence`; first and second derivatives, no forward-mode AD).
          * "wy_autograd": the same per-step computation recorded op by op by autograd (any AD mode).
          * "reflectors": eq. 8 / Algorithm 1's forward, m1 + m2 reflections per step (the paper's algorithm).
          * "dense": W formed once by :meth:`recurrent_matrix`, an n × n matmul per step.
        The last three are plain autograd (∂/∂ is BPTT through that computation).

        Raises:
            ValueError: wrong shape/width/dtype, T = 0, NaN/Inf in x or h0, unknown ``method``.
        """
        h = self.initial_state(x, h0)
        pre = self._bias(x @ self.M.mT)
        if method == "wy":
            return wy_recurrence(pre, h, wy_factors(self.U_hat, self.sigma, self.V_hat), self.activation)
        transition, phi = self._transition(method), get_activation(self.activation)
        states = []
        for pre_t in pre.unbind(1):  # unbind: one backward node; pre[:, t] would cost O(T) each in backward
            h = phi(transition(pre_t, h))
            states.append(h)
        return torch.stack(states, dim=1)

    def forward_dense(self, x: Tensor, h0: Tensor | None = None) -> Tensor:
        """:meth:`forward` with ``method="dense"`` (W formed once by :meth:`recurrent_matrix`)."""
        return self.forward(x, h0, method="dense")

    def readout(self, h: Tensor) -> Tensor:
        """ŷ = Y h (eq. 5) for h (..., n) → (..., n_y).

        Raises:
            ValueError: the cell was built without ``output_size``.
        """
        if self.Y is None:
            raise ValueError("readout needs output_size (n_y) > 0 at construction")
        return h @ self.Y.mT

    def config(self) -> dict:
        """Constructor arguments of this cell's structure (:meth:`rnnaudit.cells.base.RecurrentCell.config`)."""
        out = {"input_size": self.input_size, "hidden_size": self.hidden_size, "activation": self.activation,
               "bias": self.b is not None, "output_size": self.output_size or None}
        if type(self) is ORNN:
            return {**out, "m": self.m1}
        return {**out, "m1": self.m1, "m2": self.m2, "r": self.r, "sigma_star": self.sigma_star}

    def parameters_by_role(self) -> dict[str, Tensor]:
        """{"U", "V", "sigma_hat", "M", "b", "Y"} (U, V packed; absent ones omitted)."""
        roles = {"U": self.U, "V": self.V, "sigma_hat": self.sigma_hat, "M": self.M, "b": self.b, "Y": self.Y}
        return {k: v for k, v in roles.items() if v is not None}


class ORNN(SpectralRNN):
    r"""oRNN (Mhammedi et al., 2017), the σ = 1 special case of Spectral-RNN (spectral_rnn.md Sec. 4):
    :math:`W = \mathcal{H}_n(u_n)\cdots\mathcal{H}_{n-m+1}(u_{n-m+1})`, orthogonal, m reflectors in [0, n].

    Same arguments as :class:`SpectralRNN` with ``m`` for (m1, m2) = (m, 0) and no r, σ*. Default
    m = n/2 (floor, at least 1), the total of Spectral-RNN's default m1 + m2 (App. C.1 compares oRNN with m
    against Spectral-RNN with m1 + m2 = m). Roles {"U", "M", "b", "Y"}; count :func:`ornn_parameter_count`.
    """

    def __init__(self, input_size: int, hidden_size: int, m: int | None = None, *, activation: str = "relu",
                 bias: bool = True, output_size: int | None = None, generator: torch.Generator | None = None,
                 dtype: torch.dtype | None = None, device: torch.device | str | None = None):
        check_sizes(input_size=input_size, hidden_size=hidden_size)
        m = max(1, hidden_size // 2) if m is None else m
        super().__init__(input_size, hidden_size, m, 0, activation=activation, bias=bias, output_size=output_size,
                         generator=generator, dtype=dtype, device=device)

    def _has_sigma(self) -> bool:
        return False


class SpectralLinear(nn.Module):
    r"""SVD-parametrised dense layer, eq. 15: y = W x + b with W = U Σ̂ Vᵀ ∈ ℝ^{out×in},
    U = H^{out}_{out}(u_{out}) … H^{out}_{k1}(u_{k1}), V = H^{in}_{in}(v_{in}) … H^{in}_{k2}(v_{k2}),
    Σ̂ = (diag(σ)|0) or its transpose, σ ∈ ℝ^{min(out,in)} from eq. 7.

    Args:
        in_features, out_features: sizes (≥ 1).
        m1, m2: reflectors of U (≤ out) and V (≤ in); default min(out, in) each, the smallest choice whose
            image is every out × in matrix (Theorem 4, Lemma 1: V's first min columns need only that many).
        r, sigma_star: eq. 7 (defaults 0.01, 1). bias: include b. generator, dtype, device: as SpectralRNN.

    Forward: x (..., in) → (..., out), applied by reflectors (Algorithm 1 also serves here, Sec. 5).

    Raises:
        ValueError: bad sizes, m1 > out, m2 > in, r < 0; in forward, wrong width/dtype or NaN/Inf.
    """

    def __init__(self, in_features: int, out_features: int, m1: int | None = None, m2: int | None = None, *,
                 r: float = 0.01, sigma_star: float = 1.0, bias: bool = True,
                 generator: torch.Generator | None = None, dtype: torch.dtype | None = None,
                 device: torch.device | str | None = None):
        super().__init__()
        check_sizes(in_features=in_features, out_features=out_features)
        p = min(in_features, out_features)
        m1, m2 = (p if m1 is None else m1), (p if m2 is None else m2)
        if not 0 <= m1 <= out_features:
            raise ValueError(f"m1 (reflectors of U) must lie in [0, out_features={out_features}], got {m1}")
        if not 0 <= m2 <= in_features:
            raise ValueError(f"m2 (reflectors of V) must lie in [0, in_features={in_features}], got {m2}")
        _check_sigma_args(r, sigma_star)
        kw = {"dtype": dtype, "device": device}
        self.in_features, self.out_features, self.m1, self.m2 = in_features, out_features, m1, m2
        self.r, self.sigma_star = r, sigma_star
        self.U = _reflector_parameter(out_features, m1, generator, kw)
        self.V = _reflector_parameter(in_features, m2, generator, kw)
        self.sigma_hat = nn.Parameter(torch.zeros(p, **kw))
        self.b = nn.Parameter(torch.zeros(out_features, **kw)) if bias else None

    @property
    def sigma(self) -> Tensor:
        """σ (min(out, in),), eq. 7."""
        return sigma_from_hat(self.sigma_hat, self.r, self.sigma_star)

    def factors(self) -> tuple[Tensor, Tensor, Tensor]:
        """(U_hat (out, m1), σ, V_hat (in, m2)) for :func:`householder_forward`."""
        return (unpack_reflectors(self.U, self.out_features, self.m1), self.sigma,
                unpack_reflectors(self.V, self.in_features, self.m2))

    def weight(self) -> Tensor:
        """Dense W = U Σ̂ Vᵀ, shape (out, in)."""
        U_hat, sigma, V_hat = self.factors()
        p = sigma.shape[0]
        return (reflector_product(U_hat)[:, :p] * sigma) @ reflector_product(V_hat)[:, :p].mT

    def forward(self, x: Tensor) -> Tensor:
        """y = W x + b for every row of x (..., in) → (..., out).

        Raises:
            ValueError: last dim ≠ in_features, dtype differs from the parameters', NaN/Inf.
        """
        if not isinstance(x, Tensor) or x.dim() < 1 or x.shape[-1] != self.in_features:
            raise ValueError(f"x must have last dimension in_features={self.in_features}, got "
                             f"{tuple(x.shape) if isinstance(x, Tensor) else type(x).__name__}")
        if x.dtype != self.sigma_hat.dtype:
            raise ValueError(f"x has dtype {x.dtype} but the layer's parameters are {self.sigma_hat.dtype}")
        y = householder_forward(x, *self.factors())[0]
        return y if self.b is None else y + self.b

    def parameters_by_role(self) -> dict[str, Tensor]:
        """{"U", "V", "sigma_hat", "b"} (U, V packed)."""
        roles = {"U": self.U, "V": self.V, "sigma_hat": self.sigma_hat, "b": self.b}
        return {k: v for k, v in roles.items() if v is not None}
