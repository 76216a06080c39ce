"""Jacobian maps of a recurrent cell along a trajectory: ‖∂h_t/∂h_s‖ for all 0 ≤ s ≤ t ≤ T
(the heatmaps behind sgornn.md Sec. 2.2 and Theorem 2) and ‖∂h_τ/∂x_t‖ for all 1 ≤ t ≤ τ ≤ T
(enrnn.md Sec. 6, Fig. 4–5, optionally restricted to a block of h such as h^(S) or h^(L)).

How it is computed
------------------
1. Per-step Jacobians J_t = ∂h_t/∂h_{t−1} and K_t = ∂h_t/∂x_t for all t at once by forward-mode
   ``torch.func`` (``vmap`` over the basis directions of a ``jvp`` of the cell's batched
   :meth:`~cells.base.RecurrentCell.step` on the whole trajectory): h + n directional derivatives,
   no per-t and no per-(s, t) autograd call.
2. Products. With X(t, s) = ∂h_t/∂h_sᵀ = J_{s+1}ᵀ ⋯ J_tᵀ, all s < t are stacked into one
   (t·h, h) matrix, and X(t, ·) = X(t − 1, ·) J_tᵀ is **one GEMM per t** (BLAS-3 speed). Input
   maps are the same with start blocks K_tᵀ (n × h) instead of I.
3. Norms of every block.
   * Frobenius: exact (a sum of squares of the formed product).
   * Spectral: block subspace iteration on B = PᵀP (block size ``block``), warm-started for a fixed
     s from the block of (t − 1, s): for fixed s the top right singular vectors of ∂h_t/∂h_s settle
     as t grows (forward Oseledets directions), so a warm-up step and one certified step per
     (s, t) usually suffice for long gaps. Each value comes with a **certificate**. With Ritz pairs (θ_i, u_i) of
     the block, residual norms ρ_i = ‖Bu_i − θ_iu_i‖ and the trace bound c_j = ‖P‖_F² − Σ_{i≤j} θ_i
     on the complement of u_1..u_j, the quadratic form of B is dominated by the arrowhead matrix
     [[diag θ, ρ], [ρᵀ, c_j]], so θ_1 ≤ λ_max(B) ≤ (largest root of λ − c_j − Σ ρ_i²/(λ − θ_i)),
     found by monotone Newton steps from above (the simpler 2 × 2 bound
     λ_max([[θ_1, ‖ρ‖], [‖ρ‖, c_j]]) is the starting point). Pairs whose bracket stays wider than
     ``rtol`` get a Cholesky factorisation of μI − B at μ = θ_1(1 + rtol)² if their Ritz value has
     settled (positive definite ⇔ ‖P‖² < μ), else the exact top eigenvalue of the Gram matrix
     (``torch.linalg.eigvalsh``). The cheap certificate needs the spectrum to decay beyond the
     block (c_j < θ_1): short gaps t − s of near-orthogonal cells (SGORNN, FastRNN at
     initialisation) have flat spectra, no O(h²k) certificate exists there, and that band of
     roughly T·(50–150) pairs is what the eigensolves are spent on (``stats``). A pair whose s
     needed the eigensolve at t − 1 gets it directly at t, and the iterations are re-tried for it
     every 8 steps.
   * Smallest singular value: σ_min(P) = 1/‖P⁻¹‖₂ with P⁻¹ = J_{s+1}⁻¹ ⋯ J_t⁻¹, the same machinery
     on the inverse factors (their product is again one GEMM per t). This keeps relative accuracy
     where σ_min ≪ u·σ_max, which the formed product P cannot resolve.

Every function takes a :class:`~rnnaudit.cells.base.RecurrentCell` or anything
:func:`rnnaudit.cells.wrap` accepts (``torch.nn.RNN``/``GRU``/``LSTM`` and their ``*Cell``, wrapped on
the fly: the state is then the packed state of :class:`rnnaudit.cells.adapters.TorchRecurrent`).

Accuracy guaranteed (``spectral``): for each pair the returned σ̂ is a Ritz value, so
σ̂ ≤ ‖P̂‖₂ ≤ σ̂ (1 + rtol) where P̂ is the product as formed in floating point, up to rounding of
order h·u (u = unit roundoff) in the Gram/bound arithmetic. Forming the product itself is
backward stable factor by factor: ‖P̂ − P‖₂ ≲ (t − s)·γ_h·∏‖J_k‖₂, the same for any method that
multiplies the per-step Jacobians (autograd included). ``smallest`` is 1/(certified lower bound of
‖P̂⁻¹‖₂), so σ_min ≤ σ̂_min ≤ σ_min (1 + rtol) for the product of the computed inverse factors (each
J_k⁻¹ carries relative error ~κ(J_k)·u); it is 0 where a factor is numerically singular
(σ_min(J_k) ≤ h·u·‖J_k‖), since then the product is singular too.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass

import torch
from torch import Tensor
from torch.func import jvp, vmap

from rnnaudit.cells.adapters import wrap
from rnnaudit.cells.base import RecurrentCell

__all__ = ["step_jacobians", "input_jacobians", "hidden_jacobian_norms", "hidden_jacobian_maps",
           "input_jacobian_maps", "JacobianMaps", "pair_jacobian"]

_NORMS = ("spectral", "frobenius", "smallest")
_NEWTON_STEPS = 4  # on the secular equation of the certificate (monotone from above)
_RETRY_EVERY = 8  # t-steps between re-tries of the iterations for an s that needed the eigensolve
_JVP_ROWS = 128  # trajectory rows per forward-mode pass (memory ~ rows · h² · 8 bytes per intermediate)


# ----------------------------------------------------------------------------------------------
# per-step Jacobians
# ----------------------------------------------------------------------------------------------

def _sequences(cell: RecurrentCell, x: Tensor, *, single: bool) -> Tensor:
    """x as (batch, T, n); with ``single`` only one sequence is accepted."""
    if not isinstance(x, Tensor):
        raise ValueError(f"x must be a Tensor, got {type(x).__name__}")
    if x.dim() == 2:
        x = x[None]
    if x.dim() != 3:
        raise ValueError(f"x must have shape (T, n) or (batch, T, n), got {tuple(x.shape)}")
    if single and x.shape[0] != 1:
        raise ValueError(f"x must be one sequence, shape (T, n) or (1, T, n), got {tuple(x.shape)}")
    cell.initial_state(x, None)  # width, dtype, T = 0, NaN/Inf → ValueError naming x
    return x


def _initial_states(cell: RecurrentCell, x: Tensor, h0: Tensor | None) -> Tensor:
    """h0 as (batch, h): None → zeros, (h,) → shared by all sequences, (batch, h) as is."""
    if h0 is not None and isinstance(h0, Tensor) and h0.dim() == 1:
        h0 = h0[None].expand(x.shape[0], -1)
    return cell.initial_state(x, h0)


def _jacobians_at(cell: RecurrentCell, xr: Tensor, hr: Tensor, *, inputs: bool) -> tuple[Tensor, Tensor | None]:
    """∂step/∂h (rows, h, h) and ∂step/∂x (rows, h, n) or None at the rows xr (rows, n), hr (rows, h).

    The step is evaluated on all rows at once (rows of a step are independent by the
    RecurrentCell contract) and differentiated along every basis direction with forward mode,
    vmapped over the directions.
    """
    h, n = hr.shape[1], xr.shape[1]
    with torch.no_grad():
        eye_h = torch.eye(h, dtype=xr.dtype, device=xr.device)
        eye_n = torch.eye(n, dtype=xr.dtype, device=xr.device)
        Js, Ks = [], []
        # rows in pieces: the h tangent copies of a piece stay in cache through the cell's ops
        for lo in range(0, xr.shape[0], _JVP_ROWS):
            xc, hc = xr[lo:lo + _JVP_ROWS], hr[lo:lo + _JVP_ROWS]
            Js.append(vmap(lambda v: jvp(lambda hh: cell.step(xc, hh), (hc,), (v.expand_as(hc),))[1])(eye_h))
            if inputs:
                Ks.append(vmap(lambda v: jvp(lambda xx: cell.step(xx, hc), (xc,), (v.expand_as(xc),))[1])(eye_n))
        # (direction j, row, output i) → row, i, j: column j of every J_t
        J = torch.cat(Js, dim=1).permute(1, 2, 0)
        K = torch.cat(Ks, dim=1).permute(1, 2, 0) if inputs else None
    return J, K


def _trajectory_jacobians(cell: RecurrentCell, x: Tensor, h0: Tensor, *, inputs: bool
                          ) -> tuple[Tensor, Tensor | None, Tensor]:
    """J (batch, T, h, h), K (batch, T, h, n) or None, hs (batch, T + 1, h) for x (batch, T, n)."""
    B, T, n = x.shape
    with torch.no_grad():
        hs = torch.cat([h0[:, None], cell(x, h0)], dim=1)
    h = hs.shape[2]
    J, K = _jacobians_at(cell, x.reshape(B * T, n), hs[:, :-1].reshape(B * T, h), inputs=inputs)
    return J.reshape(B, T, h, h), (K.reshape(B, T, h, n) if inputs else None), hs


def step_jacobians(cell: RecurrentCell, x: Tensor, h0: Tensor | None = None) -> tuple[Tensor, Tensor]:
    """Per-step Jacobians along one trajectory.

    Args:
        cell: any :class:`cells.base.RecurrentCell`.
        x: one input sequence, shape (T, n) or (1, T, n), the cell's dtype.
        h0: initial state (h,), zeros by default.

    Returns:
        ``(J, hs)``: J of shape (T, h, h) with ``J[t-1] = ∂h_t/∂h_{t−1}``, and the hidden
        states hs of shape (T + 1, h) with ``hs[0] = h_0``. Same dtype/device as x.

    Raises:
        ValueError: x not a single sequence; the cell's own input errors.
    """
    cell = wrap(cell)
    x = _sequences(cell, x, single=True)
    J, _, hs = _trajectory_jacobians(cell, x, _initial_states(cell, x, h0), inputs=False)
    return J[0], hs[0]


def input_jacobians(cell: RecurrentCell, x: Tensor, h0: Tensor | None = None) -> Tensor:
    """K of shape (T, h, n) with ``K[t-1] = ∂h_t/∂x_t`` along one trajectory (enrnn.md Sec. 8.3:
    ∂h_t/∂x_t = G_t U for the ENRNN, G_t the diagonal of σ′).

    Raises:
        ValueError: as :func:`step_jacobians`.
    """
    cell = wrap(cell)
    x = _sequences(cell, x, single=True)
    _, K, _ = _trajectory_jacobians(cell, x, _initial_states(cell, x, h0), inputs=True)
    return K[0]


def pair_jacobian(cell: RecurrentCell, x: Tensor, s: int, t: int, h0: Tensor | None = None) -> Tensor:
    """∂h_t/∂h_s (h, h) for one pair 0 ≤ s ≤ t ≤ T by one ``torch.autograd.functional.jacobian`` call
    through t − s steps: the reference ("naive") method the fast maps are checked and timed against.

    Raises:
        ValueError: x not a single sequence, or not 0 ≤ s ≤ t ≤ T.
    """
    cell = wrap(cell)
    x = _sequences(cell, x, single=True)[0]
    T = x.shape[0]
    if not (isinstance(s, int) and isinstance(t, int) and 0 <= s <= t <= T):
        raise ValueError(f"need integers 0 <= s <= t <= T = {T}, got s={s!r}, t={t!r}")
    with torch.no_grad():
        h0b = None if h0 is None else h0[None]
        states = torch.cat([cell.initial_state(x[None], h0b), cell(x[None], h0b)[0]])

    def h_t_from_h_s(hs: Tensor) -> Tensor:
        h = hs[None]
        for k in range(s, t):
            h = cell.step(x[k][None], h)
        return h[0]

    return torch.autograd.functional.jacobian(h_t_from_h_s, states[s].clone())


# ----------------------------------------------------------------------------------------------
# norms of all products: the engine
# ----------------------------------------------------------------------------------------------


@contextmanager
def _threads(n: int):
    """Run torch's intra-op pool with n threads inside the block.

    Batched small-matrix kernels (k × k eigensolves, h × k products, QR of h × k blocks, LAPACK on
    128 × 128 Gram matrices) gain nothing from OpenMP, and on a shared machine its spin-waits make
    them an order of magnitude slower; only the product GEMMs use the caller's thread count.
    """
    old = torch.get_num_threads()
    if old == n:
        yield
        return
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(old)


def _ritz_step(A: Tensor, U: Tensor, fro2: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """One block-iteration step on B = A Aᵀ for A (n, p, q), U (n, p, k) orthonormal.

    Rayleigh–Ritz in span(U) gives Ritz pairs (θ_i, u_i), θ_1 ≥ … ≥ θ_k, with residuals
    r_i = Bu_i − θ_iu_i ⟂ span(U), ρ_i = ‖r_i‖. For the leading j Ritz vectors and a unit
    x = Σ y_iu_i + z with z ⟂ u_1..u_j,

        xᵀBx ≤ Σ θ_i y_i² + 2‖z‖ Σ |y_i| ρ_i + c_j ‖z‖²,   c_j = ‖A‖_F² − Σ_{i≤j} θ_i ≥ λ_max(B on z's space),

    (cross terms u_iᵀBu_l vanish, r_i ⟂ u_l), a quadratic form in (|y|, ‖z‖) whose matrix is the
    arrowhead H_j = [[diag θ, ρ], [ρᵀ, c_j]]. So λ_max(B) ≤ λ_max(H_j), the largest root of the
    secular equation f(λ) = λ − c_j − Σ_{i≤j} ρ_i²/(λ − θ_i). f is increasing and concave right of
    θ_1, so Newton started above the root (at the 2 × 2 bound of the module docstring, which replaces
    every θ_i by θ_1) stays above it: every iterate is an upper bound. The bound used is the
    minimum over j; slowly converging lower Ritz vectors only cost ρ_i²/(θ_1 − θ_i).

    Returns:
        ``(a, upper, Z)``: a = θ_1 ≤ λ_max(B) ≤ upper, and Z = B·[u_1 … u_k], whose orthonormalisation
        is the next block.
    """
    Y = A.mT @ U                            # (n, q, k)
    Z = A @ Y                               # (n, p, k) = BU
    theta, W = torch.linalg.eigh(Y.mT @ Y)  # UᵀBU = W diag(θ) Wᵀ, ascending
    theta, W = theta.flip(-1).clamp_min(0), W.flip(-1)
    Z = Z @ W                               # B u_i
    rho2 = (Z - (U @ W) * theta[:, None, :]).square().sum(1)  # ρ_i²
    p, q, k = A.shape[1], A.shape[2], U.shape[2]
    eps = torch.finfo(A.dtype).eps
    slack = (p * q + k) * eps * fro2[:, None]  # rounding of the sums below
    c = (fro2[:, None] - theta.cumsum(1)).clamp_min(0) + slack            # (n, k): c_j
    a = theta[:, 0]
    b2 = rho2.cumsum(1)
    half = (a[:, None] - c) / 2
    two_by_two = (a[:, None] + c) / 2 + torch.sqrt(half.square() + b2)     # ≥ λ_max(H_j)
    # Newton on f_j from above; terms[n, j, i] for i ≤ j. Iterates are floored at θ_1 (the root
    # lies above it), so the pole at θ_1 is never crossed even when rounding would
    lower = torch.ones(k, k, dtype=torch.bool, device=A.device).tril()
    r2 = rho2[:, None, :] * lower
    floor = a[:, None] * (1 + 4 * eps)
    lam = two_by_two
    for _ in range(_NEWTON_STEPS):
        d = (lam[:, :, None] - theta[:, None, :]).clamp_min(torch.finfo(A.dtype).tiny)
        f = lam - c - (r2 / d).sum(-1)
        fp = 1 + (r2 / d.square()).sum(-1)
        lam = torch.maximum(lam - (f / fp).clamp_min(0), floor)
    # accept λ where it provably lies at or above the largest root: λ > θ_1 and f(λ) ≥ 0 (after a
    # margin of a few ulps against the rounding of the last step); otherwise the 2 × 2 bound
    lam = lam * (1 + 8 * eps)
    d = lam[:, :, None] - theta[:, None, :]
    f = lam - c - (r2 / d.clamp_min(torch.finfo(A.dtype).tiny)).sum(-1)
    valid = (d[:, :, 0] > 0) & (f >= 0)
    upper = torch.where(valid, torch.minimum(lam, two_by_two), two_by_two).amin(1)
    return a, upper, Z


def _next_block(Z: Tensor) -> Tensor:
    """Orthonormal basis of span(Z) (Householder QR: orthonormal even when Z is rank deficient,
    which is all the certificate needs)."""
    return torch.linalg.qr(Z)[0]


def _gram(A: Tensor) -> Tensor:
    """The smaller Gram matrix of A (n, p, q): same nonzero eigenvalues as AᵀA."""
    return A @ A.mT if A.shape[1] <= A.shape[2] else A.mT @ A


def _dense_top(A: Tensor) -> Tensor:
    """λ_max(AᵀA) = ‖A‖₂² exactly (to rounding) for A (n, p, q), by ``torch.linalg.eigvalsh`` of the
    smaller Gram matrix."""
    return torch.linalg.eigvalsh(_gram(A))[:, -1].clamp_min(0)


def _cholesky_certifies(A: Tensor, mu: Tensor) -> Tensor:
    """True where μ_i I − A_iA_iᵀ is positive definite, i.e. ‖A_i‖₂² < μ_i (one Cholesky each:
    a third of the flops of an eigensolve, and a proof of the upper bound)."""
    G = _gram(A)
    eye = torch.eye(G.shape[-1], dtype=G.dtype, device=G.device)
    return torch.linalg.cholesky_ex(mu[:, None, None] * eye - G)[1] == 0


def _take(X: Tensor, idx: Tensor) -> Tensor:
    """X[idx] for a sorted 1-D index; a view (no copy of the blocks) when idx is a range, the
    common case: the pairs of one path form runs of consecutive s."""
    n = idx.numel()
    if n and int(idx[-1]) - int(idx[0]) == n - 1:
        return X[int(idx[0]):int(idx[-1]) + 1]
    return X[idx]


def _settle(A: Tensor, fro2: Tensor, U: Tensor, a: Tensor, upper: Tensor, rtol: float, max_iter: int,
            stats: dict) -> tuple[Tensor, Tensor, Tensor]:
    """Finish pairs the certified step left open: A (n, p, q), their blocks U (n, p, k) and brackets
    a ≤ λ_max(AAᵀ) ≤ upper (n,).

    Pairs whose bracket can still close (within a factor 2) are iterated while the bracket
    upper/a − 1 shrinks fast enough to reach the target within ``max_iter`` steps (geometric
    extrapolation). Then, where the Ritz value has settled to rtol between the last two steps, one
    Cholesky of μI − B with μ = a(1 + rtol)² proves the upper bound; what is left, and the pairs
    whose bracket is wider than a factor 2, get the exact Gram eigenvalue.

    Returns:
        ``(lam, dense, U)``: λ_max (n,), where the exact eigenvalue was needed (n,) bool, and the
        advanced blocks (n, p, k).
    """
    target = (1 + rtol) ** 2 - 1
    tiny = torch.finfo(A.dtype).tiny
    out, U = a.clone(), U.clone()
    gap = upper / a.clamp_min(tiny) - 1
    # a bracket wider than a factor 2 in λ means no trace bound c_j is below a (flat spectrum):
    # more iterations of this block cannot close it, so those pairs go to the exact eigenvalue now
    dense = gap >= 1
    idx = dense.nonzero()[:, 0]
    if idx.numel():
        out[idx] = _dense_top(_take(A, idx))
        stats["dense"] += idx.numel()
    idx = (~dense).nonzero()[:, 0]
    A_s, U_s, f_s, a_s, gap = _take(A, idx), U[idx], fro2[idx], a[idx], gap[idx]
    for it in range(1, max_iter):
        if not idx.numel():
            break
        new_a, new_up, Z = _ritz_step(A_s, U_s, f_s)
        U_s = _next_block(Z)
        U[idx] = U_s
        stats["iterations"] += idx.numel()
        new_gap = new_up / new_a.clamp_min(tiny) - 1
        done = new_up <= new_a * (1 + target)
        out[idx[done]] = new_a[done]
        stats["iterative"] += int(done.sum())
        rate = (new_gap / gap).clamp(min=1e-300, max=1.0)
        need = torch.log(target / new_gap) / torch.log(rate.clamp(max=1 - 1e-12))
        keep = ~done & (new_gap < 1) & (rate < 0.9) & (need <= max_iter - 1 - it)
        rest = ~done & ~keep
        if bool(rest.any()):
            # where the Ritz value has settled to rtol (Ritz values only increase), one Cholesky
            # of μI − B at μ = a(1 + rtol)² usually proves the bound at a third of an eigensolve
            settled = rest & ((new_a - a_s).abs() <= rtol * new_a)
            stats["cholesky_tries"] += int(settled.sum())
            chol_ok = torch.zeros_like(settled)
            if bool(settled.any()):
                chol_ok[settled] = _cholesky_certifies(A_s[settled], new_a[settled] * (1 + target))
            out[idx[chol_ok]] = new_a[chol_ok]
            stats["cholesky"] += int(chol_ok.sum())
            exact = rest & ~chol_ok
            if bool(exact.any()):
                dense[idx[exact]] = True
                out[idx[exact]] = _dense_top(A_s[exact])
                stats["dense"] += int(exact.sum())
        if not bool(keep.all()):
            A_s = A_s[keep]
        idx, U_s, f_s, a_s, gap = idx[keep], U_s[keep], f_s[keep], new_a[keep], new_gap[keep]
    if idx.numel():
        dense[idx] = True
        out[idx] = _dense_top(A_s)
        stats["dense"] += idx.numel()
    return out, dense, U


def _chunk_top(A: Tensor, fro2: Tensor, U: Tensor, was_dense: Tensor, retry: Tensor, rtol: float,
               max_iter: int, stats: dict) -> Tensor:
    """Certified λ_max(A_iA_iᵀ) = ‖A_i‖₂² for a chunk A (n, p, q) of the blocks of one t.

    ``U`` (n, p, k) holds the warm-start blocks from t − 1 and ``was_dense`` (n,) whether the pair
    of that s needed the exact eigenvalue at t − 1; both are views of the engine's state and are
    updated in place. A pair with ``was_dense`` gets the exact eigenvalue directly, except where
    ``retry``: the band of pairs without a cheap certificate moves slowly with t, and iterations
    spent inside it are wasted. Every other pair gets one warm-up step of block iteration (no
    certificate: after A changed by one factor the old block's residuals are too large for rtol
    anyway) and one certified step (:func:`_ritz_step`); those still open go to :func:`_settle`.
    """
    lam = torch.empty(A.shape[0], dtype=A.dtype, device=A.device)
    direct = was_dense & ~retry
    idx = direct.nonzero()[:, 0]
    if idx.numel():
        lam[idx] = _dense_top(_take(A, idx))
        stats["dense"] += idx.numel()
    idx = (~direct).nonzero()[:, 0]
    if not idx.numel():
        return lam
    A_i, f_i = _take(A, idx), fro2[idx]
    W = _next_block(A_i @ (A_i.mT @ _take(U, idx)))
    a, up, Z = _ritz_step(A_i, W, f_i)
    W = _next_block(Z)
    stats["iterations"] += 2 * idx.numel()
    ok = up <= a * (1 + rtol) ** 2
    stats["iterative"] += int(ok.sum())
    dense = torch.zeros_like(ok)
    open_ = (~ok).nonzero()[:, 0]
    if open_.numel():
        a[open_], dense[open_], W[open_] = _settle(_take(A_i, open_), f_i[open_], W[open_], a[open_], up[open_],
                                                    rtol, max_iter, stats)
    lam[idx], was_dense[idx], U[idx] = a, dense, W
    return lam


def _chunk_edges(was_dense: Tensor | None, alive: int, workers: int, chunk: int) -> list[int]:
    """Edges of the chunks of blocks [0, alive) for one t, of about equal cost.

    A pair that took the exact eigenvalue at t − 1 (``was_dense``, length ≤ alive; newborns are
    iterated) will most likely take it again, at about 5× the cost of an iterated pair: weighting
    by that keeps the band of exact eigensolves (s near t, the last blocks) from landing on one
    thread while the others idle.
    """
    cost = torch.ones(alive)
    if was_dense is not None and was_dense.numel():
        cost[:was_dense.numel()] += 4 * was_dense.cpu()
    cum = cost.cumsum(0)
    n_chunks = min(alive, max(2 * workers, -(-int(cum[-1]) // chunk)))
    cuts = torch.searchsorted(cum, cum[-1] * torch.arange(1, n_chunks) / n_chunks).tolist()
    return sorted({0, alive, *(c + 1 for c in cuts if c + 1 < alive)})


def _product_norm_maps(M: Tensor, starts: Tensor, birth: Tensor, *, rows: Tensor | None, want: tuple[str, ...],
                       rtol: float, block: int, max_iter: int, stats: dict, chunk: int = 128) -> dict[str, Tensor]:
    """Norms of every block X(t, s) = starts[s] · M_{b+1} ⋯ M_t (b = birth[s] ≤ t), restricted to the
    columns ``rows``, for all t = 0..T.

    Work for one t is split into chunks of about ``chunk`` iterated blocks (pairs due for the exact
    eigenvalue weigh 5), each done whole by one of ``torch.get_num_threads()`` Python threads:
    GEMM, Frobenius norms and the spectral norms (:func:`_chunk_top`). Each thread runs torch
    single-threaded (torch releases the GIL inside its kernels).

    Args:
        M: (T, h, h) right factors (J_tᵀ for ∂h/∂h, J_t⁻¹ for inverse products).
        starts: (S, p, h) start blocks; birth: (S,) non-decreasing times in [0, T].
        want: names among "spectral", "frobenius".

    Returns:
        name → (T + 1, T + 1) tensor, entry [t, birth[s]] for t ≥ birth[s], zero elsewhere.
    """
    T, h = M.shape[0], M.shape[1]
    S, p = starts.shape[0], starts.shape[1]
    q = h if rows is None else rows.numel()
    kw = {"dtype": M.dtype, "device": M.device}
    outs = {name: torch.zeros(T + 1, T + 1, **kw) for name in want}
    bufs = [torch.empty(S, p, h, **kw), torch.empty(S, p, h, **kw)]
    k = min(block, p, q)
    iterative = "spectral" in want and k < min(p, q)
    if iterative:
        gen = torch.Generator().manual_seed(0)  # fixed start blocks: the maps are deterministic
        fill = torch.linalg.qr(torch.randn(p, k, generator=gen, dtype=torch.float64))[0].to(**kw)
        U = torch.empty(S, p, k, **kw)
        was_dense = torch.zeros(S, dtype=torch.bool, device=M.device)
    counts = torch.bincount(birth, minlength=T + 1).tolist()
    workers = max(1, torch.get_num_threads())
    fro2, lam = torch.empty(S, **kw), torch.empty(S, **kw)
    if iterative:
        retry = torch.zeros(S, dtype=torch.bool, device=M.device)

    def advance(t: int, old: int, lo: int, hi: int, src: Tensor, dst: Tensor) -> dict:
        # X(t, s) = X(t − 1, s) M_t for living blocks (one GEMM per chunk), start blocks for
        # newborns; then every norm of the chunk while it is still in cache
        st = _new_stats()
        if t and lo < old:
            m_hi = min(hi, old)
            torch.mm(src[lo:m_hi].view(-1, h), M[t - 1], out=dst[lo:m_hi].view(-1, h))
        if hi > old:
            dst[max(lo, old):hi] = starts[max(lo, old):hi]
            if iterative:
                U[max(lo, old):hi] = fill
                was_dense[max(lo, old):hi] = False
        A = dst[lo:hi] if rows is None else dst[lo:hi].index_select(2, rows)
        fro2[lo:hi] = torch.linalg.vector_norm(A.reshape(hi - lo, -1), dim=1).square()
        if iterative:
            lam[lo:hi] = _chunk_top(A, fro2[lo:hi], U[lo:hi], was_dense[lo:hi], retry[lo:hi], rtol, max_iter, st)
        elif "spectral" in want:
            lam[lo:hi] = _dense_top(A)
            st["dense_small"] += hi - lo
        return st

    alive = 0
    with _threads(1), ThreadPoolExecutor(workers) as pool:
        for t in range(T + 1):
            old, alive = alive, alive + counts[t]
            if not alive:
                continue
            src, dst = bufs[t % 2], bufs[(t + 1) % 2]
            if iterative:
                torch.eq(torch.remainder(t - birth[:alive], _RETRY_EVERY), 0, out=retry[:alive])
            edges = _chunk_edges(was_dense[:old] if iterative else None, alive, workers, chunk)
            for st in pool.map(lambda i: advance(t, old, edges[i], edges[i + 1], src, dst), range(len(edges) - 1)):
                for key, value in st.items():
                    stats[key] += value
            cols = birth[:alive]
            if "frobenius" in want:
                outs["frobenius"][t, cols] = fro2[:alive].sqrt()
            if "spectral" in want:
                outs["spectral"][t, cols] = lam[:alive].clamp_min(0).sqrt()
    return outs


# ----------------------------------------------------------------------------------------------
# public maps
# ----------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class JacobianMaps:
    """Norm maps returned by :func:`hidden_jacobian_maps` and :func:`input_jacobian_maps`.

    Attributes:
        spectral, frobenius, smallest: (T + 1, T + 1) tensors (or (batch, T + 1, T + 1) with
            ``reduce="none"``), ``None`` when not requested; entry [t, s] for s ≤ t, 0 above the
            diagonal. ``smallest`` is σ_min (the vanishing side).
        stats: how many (pair, sequence) spectral norms each path settled: ``iterative``
            (certified by the bound), ``dense`` (exact Gram eigenvalue after the iteration could not
            certify), ``dense_small`` (blocks no larger than ``block``: exact directly), and
            ``iterations`` (block-iteration steps summed over pairs: two for every iterated pair,
            more where the certificate needed them).
    """

    spectral: Tensor | None
    frobenius: Tensor | None
    smallest: Tensor | None
    stats: dict


def _new_stats() -> dict:
    return {"iterative": 0, "cholesky": 0, "dense": 0, "dense_small": 0, "iterations": 0, "cholesky_tries": 0}


def _check_options(norms, rtol, block, max_iter, reduce) -> tuple[str, ...]:
    if isinstance(norms, str):
        norms = (norms,)
    norms = tuple(norms)
    if not norms or any(nm not in _NORMS for nm in norms) or len(set(norms)) != len(norms):
        raise ValueError(f"norms must be distinct names from {_NORMS}, got {norms!r}")
    if isinstance(rtol, bool) or not isinstance(rtol, (int, float)) or not 0 < rtol < 1:
        raise ValueError(f"rtol (relative tolerance of the spectral norms) must be in (0, 1), got {rtol!r}")
    for name, value in (("block", block), ("max_iter", max_iter)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be an int >= 1, got {value!r}")
    if reduce not in ("mean", "none"):
        raise ValueError(f"reduce must be 'mean' (average over the batch) or 'none', got {reduce!r}")
    return norms


def _index(name: str, idx, h: int, device) -> Tensor | None:
    """A 1-D set of distinct hidden coordinates in [0, h) as a long tensor (None = all)."""
    if idx is None:
        return None
    if isinstance(idx, slice):
        idx = range(h)[idx]
    t = torch.as_tensor(list(idx) if not isinstance(idx, Tensor) else idx, device=device)
    if t.dim() != 1 or t.numel() == 0 or t.is_floating_point() or t.dtype == torch.bool:
        raise ValueError(f"{name} must be a non-empty 1-D set of integer hidden indices, got {idx!r}")
    t = t.long()
    if int(t.min()) < 0 or int(t.max()) >= h or t.unique().numel() != t.numel():
        raise ValueError(f"{name} must hold distinct indices in [0, {h}), got {t.tolist()}")
    return t


def _reduce(per_seq: list[Tensor], reduce: str) -> Tensor:
    stacked = torch.stack(per_seq)
    return stacked.mean(0) if reduce == "mean" else stacked


def _inverse_factors(J: Tensor) -> Tensor:
    """J_k⁻¹ for J (T, h, h); 0 where J_k is numerically singular (σ_min ≤ h·u·σ_max).

    σ_min(P) = 1/‖P⁻¹‖ needs the inverse factors themselves, so this is one of the places where
    the algorithm is about the inverse; a zero factor makes every product through it 0, and
    σ_min := 0 there, which is exact for a singular factor.
    """
    sv = torch.linalg.svdvals(J)
    singular = sv[:, -1] <= J.shape[-1] * torch.finfo(J.dtype).eps * sv[:, 0]
    eye = torch.eye(J.shape[-1], dtype=J.dtype, device=J.device).expand_as(J)
    inv, _ = torch.linalg.solve_ex(J, eye)
    return torch.where(singular[:, None, None], torch.zeros_like(inv), inv)


def hidden_jacobian_maps(cell: RecurrentCell, x: Tensor, h0: Tensor | None = None, *,
                         norms=("spectral", "frobenius"), rows=None, cols=None, reduce: str = "mean",
                         rtol: float = 1e-10, block: int = 8, max_iter: int = 6) -> JacobianMaps:
    """Maps of ‖∂h_t/∂h_s‖ for all 0 ≤ s ≤ t ≤ T (sgornn.md Sec. 2.2, enrnn.md Sec. 8.3 eq. for
    ∂h^(S)_{t+τ}/∂h^(S)_t): spectral norm, Frobenius norm and smallest singular value, for one
    sequence or averaged over a batch (the mean of the per-sequence norms).

    See the module docstring for the method and the accuracy guaranteed: every spectral value is
    a certified lower bound within relative ``rtol`` of the 2-norm of the formed product.

    Args:
        cell: any :class:`cells.base.RecurrentCell`, or a torch.nn RNN/GRU/LSTM (or ``*Cell``), wrapped by
            :func:`rnnaudit.cells.wrap` (its packed state: the layers' h, and c for an LSTM).
        x: (T, n) or (batch, T, n), the cell's dtype.
        h0: (h,) shared or (batch, h); zeros by default.
        norms: any of ``"spectral"``, ``"frobenius"``, ``"smallest"``.
        rows, cols: restrict to the block ∂h_t[rows]/∂h_s[cols] (e.g. ENRNN's h^(S) coordinates
            ``range(q, n)``); ``"smallest"`` needs the full square Jacobian.
        reduce: ``"mean"`` over the batch, or ``"none"`` to keep (batch, T + 1, T + 1).
        rtol: relative tolerance of the spectral values (and of 1/‖P⁻¹‖ for ``smallest``).
        block: subspace-iteration block size k (blocks with min(p, q) ≤ k are done exactly).
        max_iter: iterations per pair and t before falling back to the exact Gram eigenvalue.

    Returns:
        :class:`JacobianMaps` with (T + 1, T + 1) maps indexed [t, s] (h_0 is index 0).
        Cost: O(T² h³) flops in T GEMMs for the products, O(T² h² k) for the iterations, plus
        O(h³) per pair the certificate could not settle (``stats["dense"]``).

    Raises:
        ValueError: bad x/h0 (shape, width, dtype, T = 0, NaN/Inf), bad options, ``smallest``
            with rows/cols.
    """
    cell = wrap(cell)
    norms = _check_options(norms, rtol, block, max_iter, reduce)
    x = _sequences(cell, x, single=False)
    h = cell.hidden_size
    r_idx, c_idx = _index("rows", rows, h, x.device), _index("cols", cols, h, x.device)
    if "smallest" in norms and (r_idx is not None or c_idx is not None):
        raise ValueError("norms='smallest' needs the full square Jacobian (rows=None, cols=None)")
    J, _, _ = _trajectory_jacobians(cell, x, _initial_states(cell, x, h0), inputs=False)
    B, T = J.shape[0], J.shape[1]
    eye = torch.eye(h, dtype=x.dtype, device=x.device)
    start = eye if c_idx is None else eye[c_idx]
    starts = start.expand(T + 1, *start.shape)
    birth = torch.arange(T + 1, device=x.device)
    stats = _new_stats()
    direct = [nm for nm in norms if nm != "smallest"]
    per = {nm: [] for nm in norms}
    opts = dict(rtol=rtol, block=block, max_iter=max_iter, stats=stats)
    for i in range(B):
        if direct:
            maps = _product_norm_maps(J[i].mT.contiguous(), starts, birth, rows=r_idx, want=tuple(direct), **opts)
            for nm in direct:
                per[nm].append(maps[nm])
        if "smallest" in norms:
            inv = _product_norm_maps(_inverse_factors(J[i]), starts, birth, rows=None, want=("spectral",), **opts)
            s = inv["spectral"]
            lower = torch.ones(T + 1, T + 1, dtype=torch.bool, device=x.device).tril()
            per["smallest"].append(torch.where(lower & (s > 0), 1 / s, torch.zeros_like(s)))
    out = {nm: _reduce(per[nm], reduce) for nm in norms}
    return JacobianMaps(out.get("spectral"), out.get("frobenius"), out.get("smallest"), stats)


def input_jacobian_maps(cell: RecurrentCell, x: Tensor, h0: Tensor | None = None, *,
                        norms=("spectral",), rows=None, reduce: str = "mean", rtol: float = 1e-10,
                        block: int = 8, max_iter: int = 6) -> JacobianMaps:
    """Maps of ‖∂h_τ[rows]/∂x_t‖ for all 1 ≤ t ≤ τ ≤ T (enrnn.md Sec. 6, Fig. 4–5: x-axis t,
    y-axis τ; ``rows`` = the h^(S) or h^(L) coordinates), one sequence or batch-averaged.

    ∂h_τ/∂x_t = J_τ ⋯ J_{t+1} K_t with K_t = ∂h_t/∂x_t (h × n); the (n × h) blocks K_tᵀJ_{t+1}ᵀ⋯J_τᵀ are
    advanced by one GEMM per τ like the hidden map. For n ≤ ``block`` (the usual case) every
    norm is exact (n × n Gram eigenvalue); otherwise as :func:`hidden_jacobian_maps`.

    Args:
        norms: ``"spectral"`` and/or ``"frobenius"``.
        others: as :func:`hidden_jacobian_maps`.

    Returns:
        :class:`JacobianMaps` with (T + 1, T + 1) maps indexed [τ, t] in the paper's time steps:
        row 0 and column 0 are 0 (h_0 depends on no input, and there is no x_0).

    Raises:
        ValueError: as :func:`hidden_jacobian_maps`; ``"smallest"`` is not offered (K_t is h × n).
    """
    cell = wrap(cell)
    norms = _check_options(norms, rtol, block, max_iter, reduce)
    if "smallest" in norms:
        raise ValueError("norms='smallest' is not offered for input maps (∂h_τ/∂x_t is h × n, not square)")
    x = _sequences(cell, x, single=False)
    r_idx = _index("rows", rows, cell.hidden_size, x.device)
    J, K, _ = _trajectory_jacobians(cell, x, _initial_states(cell, x, h0), inputs=True)
    B, T = J.shape[0], J.shape[1]
    birth = torch.arange(1, T + 1, device=x.device)
    stats = _new_stats()
    per = {nm: [] for nm in norms}
    for i in range(B):
        maps = _product_norm_maps(J[i].mT.contiguous(), K[i].mT.contiguous(), birth, rows=r_idx, want=norms,
                                  rtol=rtol, block=block, max_iter=max_iter, stats=stats)
        for nm in norms:
            per[nm].append(maps[nm])
    out = {nm: _reduce(per[nm], reduce) for nm in norms}
    return JacobianMaps(out.get("spectral"), out.get("frobenius"), None, stats)


def hidden_jacobian_norms(cell: RecurrentCell, x: Tensor, h0: Tensor | None = None, *, ord=2,
                          rtol: float = 1e-10) -> Tensor:
    """Matrix of norms ‖∂h_t/∂h_s‖ for all 0 ≤ s ≤ t ≤ T along one sequence.

    Args:
        cell: any :class:`cells.base.RecurrentCell`.
        x: one sequence, shape (T, n) or (1, T, n).
        h0: initial state (h,), zeros by default.
        ord: ``2`` (spectral norm, default; certified within relative ``rtol``, see the module
            docstring) or ``"fro"`` (exact).
        rtol: tolerance of the spectral norms.

    Returns:
        Tensor M of shape (T + 1, T + 1), dtype of x: ``M[t, s] = ‖∂h_t/∂h_s‖`` for s ≤ t
        (so ``M[t, t] = ‖I‖``), and 0 above the diagonal, where h_t does not depend on h_s.
        Index 0 is h_0. Cost: see :func:`hidden_jacobian_maps`.

    Raises:
        ValueError: bad ``ord``, x not a single sequence, or see :func:`hidden_jacobian_maps`.
    """
    cell = wrap(cell)
    if ord not in (2, "fro"):
        raise ValueError(f"ord must be 2 or 'fro', got {ord!r}")
    _sequences(cell, x, single=True)
    name = "spectral" if ord == 2 else "frobenius"
    maps = hidden_jacobian_maps(cell, x, h0, norms=(name,), rtol=rtol)
    return getattr(maps, name)
