"""Certified spectral norms ‖A_i‖₂ of a batch of blocks A (n, p, q): a lower bound that is a Ritz value and
an upper bound proved from quantities computed in float64, closing to a relative tolerance. The Jacobian
maps (:mod:`analysis.products`) call these once per time step on every product block.

Three ways to certify, cheapest first (B = AAᵀ, λ = λ_max(B) = ‖A‖₂²):

1. **Krylov bound.** Rayleigh–Ritz of B on a block Krylov space [V, BV, …] (V: warm-start rows from the
   previous time step) gives Ritz pairs (θ_i, u_i), θ_1 ≥ θ_2 ≥ …, residual norms ρ_i = ‖Bu_i − θ_iu_i‖,
   and the trace bound c_j = ‖A‖_F² − Σ_{i≤j} θ_i ≥ λ_max(B on the complement of u_1..u_j). The quadratic
   form of B is dominated by the arrowhead matrix [[diag θ, ρ], [ρᵀ, c_j]], so θ_1 ≤ λ ≤ its largest
   eigenvalue (:func:`arrowhead_upper`). Needs a spectrum that decays beyond the block (c_j < θ_1):
   cost O(pqk) per pair.
2. **Gram bound and Cholesky.** Where the spectrum is flat (short gaps of near-orthogonal cells, where
   ‖A‖_F² ≈ p·λ and no trace bound can work) the Gram matrix G = AAᵀ is formed (O(p²q)). Its Frobenius
   norm gives a second complement bound c′_j = (‖G‖_F² − Σ_{i≤j}(θ_i² + 2ρ_i²))^{1/2} (the block
   [[Θ, R], [Rᵀ, C]] of G in the basis [u_1..u_j, complement] has ‖C‖_F² = ‖G‖_F² − ‖Θ‖_F² − 2‖R‖_F²).
   Otherwise one Cholesky factorisation of μI − G at μ = θ_1(1 + rtol)² proves λ < μ (positive definite
   ⇔ λ_max(G) < μ): a third of the flops of an eigensolve.
3. **Shift-invert refinement.** If θ_1 is not yet within rtol, a Cholesky factor of μ₀I − G at a shift
   μ₀ a little above θ_1 drives block inverse iteration (convergence factor (μ₀ − λ_1)/(μ₀ − λ_{k+1}), fast
   because μ₀ is close to λ_1), whose Rayleigh quotients are new Ritz values; then Cholesky at the new
   θ_1(1 + rtol)² as in 2. Only where that fails: the exact top eigenvalue of G (``dsyevr``/``eigvalsh``).

Accuracy: every returned λ̂ is a Ritz value (a Rayleigh quotient of B, so λ̂ ≤ λ up to rounding of
order p·q·u·‖A‖_F²) or an exact eigenvalue to rounding, and λ ≤ λ̂(1 + rtol)² is proved by one of the
three bounds, each with a slack for the rounding of the sums it is built from (see the functions).

On CPU float64 the Gram/Cholesky/eigenvalue kernels run through scipy's LAPACK without the GIL
(:mod:`analysis.lapack`), elsewhere through ``torch.linalg``; the results agree to rounding.

Complex states: a state z ∈ ℂᴺ is probed as the real state (Re z, Im z) ∈ ℝ²ᴺ (:mod:`cells.real_view`, which
:func:`rnnaudit.cells.wrap` returns for a complex cell), so the factors this module multiplies are the real 2N × 2N
Jacobians; where the step is holomorphic (the linear part of an LRU) their 2-norm is the complex Jacobian's.
"""

from __future__ import annotations

import torch
from torch import Tensor

from rnnaudit.analysis import lapack

__all__ = ["arrowhead_upper", "rayleigh_ritz", "krylov", "krylov_top", "gram_top", "exact_top"]

_NEWTON_STEPS = 4  # on the secular equation of the arrowhead bound (monotone from above)
_INVERSE_STEPS = 4  # block inverse-iteration steps of the shift-invert refinement
_NEAR = 0.05  # shifts farther than this (relative) above λ_max converge too slowly to refine with


# ----------------------------------------------------------------------------------------------
# bounds from Ritz pairs
# ----------------------------------------------------------------------------------------------

def arrowhead_upper(theta: Tensor, rho2: Tensor, c: Tensor, enough: Tensor | None = None) -> Tensor:
    """Upper bound on λ_max(B) from Ritz values θ (n, K) (descending), squared residual norms ρ² (n, K) of
    orthonormal Ritz vectors, and bounds c (n, K) with c[:, j−1] ≥ λ_max(B on the complement of
    u_1..u_j).

    For the leading j Ritz vectors and a unit x = Σ y_iu_i + z, z ⟂ u_1..u_j,
    xᵀBx ≤ Σ θ_i y_i² + 2‖z‖ Σ |y_i| ρ_i + c_j ‖z‖² (cross terms u_iᵀBu_l vanish and r_i ⟂ u_l), the
    quadratic form of the arrowhead H_j = [[diag θ, ρ], [ρᵀ, c_j]]. So λ_max(B) ≤ λ_max(H_j), the largest
    root of f(λ) = λ − c_j − Σ_{i≤j} ρ_i²/(λ − θ_i). f is increasing and concave right of θ_1, so Newton
    started above the root (at the 2 × 2 bound λ_max([[θ_1, ‖ρ‖], [‖ρ‖, c_j]]), which replaces every θ_i
    by θ_1) stays above it. The bound returned is the minimum over j.

    Args:
        enough: (n,) optional; rows whose 2 × 2 bound is already ≤ enough skip the Newton refinement
            (their bound is then the 2 × 2 one, still an upper bound).

    Returns:
        (n,) upper bounds, ≥ θ_1. Same dtype/device as θ.
    """
    n, K = theta.shape
    eps, tiny = torch.finfo(theta.dtype).eps, torch.finfo(theta.dtype).tiny
    a = theta[:, 0]
    half = (a[:, None] - c) / 2
    two_by_two = (a[:, None] + c) / 2 + torch.sqrt(half.square() + rho2.cumsum(1))
    out = two_by_two.amin(1)
    rows = None
    if enough is not None:
        rows = (out > enough).nonzero()[:, 0]
        if not rows.numel():
            return out
        theta, rho2, c, two_by_two, a = theta[rows], rho2[rows], c[rows], two_by_two[rows], a[rows]
    lower = torch.ones(K, K, dtype=torch.bool, device=theta.device).tril()
    r2 = rho2[:, None, :] * lower
    floor = a[:, None] * (1 + 4 * eps)  # the root lies above θ_1: never cross the pole
    lam = two_by_two
    for _ in range(_NEWTON_STEPS):
        d = (lam[:, :, None] - theta[:, None, :]).clamp_min(tiny)
        q = r2 / d
        f = lam - c - q.sum(-1)
        fp = 1 + (q / d).sum(-1)
        lam = torch.maximum(lam - (f / fp).clamp_min(0), floor)
    # accept λ where it provably lies at or above the largest root: λ > θ_1 and f(λ) ≥ 0 (after a
    # margin of a few ulps against the rounding of the last step); otherwise the 2 × 2 bound
    lam = lam * (1 + 8 * eps)
    d = lam[:, :, None] - theta[:, None, :]
    f = lam - c - (r2 / d.clamp_min(tiny)).sum(-1)
    valid = (d[:, :, 0] > 0) & (f >= 0)
    refined = torch.where(valid, torch.minimum(lam, two_by_two), two_by_two).amin(1)
    if rows is None:
        return refined
    out[rows] = refined
    return out


def rayleigh_ritz(Q: Tensor, Z: Tensor, power: bool = False) -> tuple[Tensor, Tensor, Tensor]:
    """Ritz pairs of a symmetric B on span(rows of Q) for Q (n, K, p) with orthonormal rows and Z = QB.

    Returns:
        ``(theta, rho2, U)``: Ritz values (n, K) descending (clamped at 0: B is PSD), squared residual
        norms ‖Bu_i − θ_iu_i‖² (n, K), and the Ritz vectors as rows (n, K, p), or with ``power`` the
        orthonormalised rows of UB instead: one more step of block power iteration, for free, as the
        next start (its first row is Bu_1/‖Bu_1‖).
    """
    H = Z @ Q.mT
    theta, W = torch.linalg.eigh((H + H.mT) / 2)  # ascending
    theta, W = theta.flip(-1).clamp_min(0), W.flip(-1).mT.contiguous()
    U, BU = W @ Q, W @ Z
    rho2 = (BU - theta[:, :, None] * U).square().sum(-1)
    return theta, rho2, (_orthonormal_rows(BU) if power else U)


def _slack(p: int, q: int, k: int, fro2: Tensor) -> Tensor:
    """Rounding allowance on c_j: the sums ‖A‖_F² and Σθ_i carry errors of at most (pq + k)·u·‖A‖_F²."""
    return (p * q + k) * torch.finfo(fro2.dtype).eps * fro2


def trace_bounds(theta: Tensor, fro2: Tensor, p: int, q: int) -> Tensor:
    """c_j = ‖A‖_F² − Σ_{i≤j} θ_i (+ rounding slack) for j = 1..K: tr(B on the complement of u_1..u_j),
    which bounds its largest eigenvalue since B is PSD. (n, K)."""
    K = theta.shape[1]
    return (fro2[:, None] - theta.cumsum(1)).clamp_min(0) + _slack(p, q, K, fro2)[:, None]


def gram_bounds(theta: Tensor, rho2: Tensor, gram_fro2: Tensor, p: int) -> Tensor:
    """c′_j = (‖G‖_F² − Σ_{i≤j}(θ_i² + 2ρ_i²))^{1/2} ≥ ‖C_j‖_F ≥ λ_max(C_j), C_j = G on the complement of
    u_1..u_j (module docstring), with a rounding slack of (p² + K)·u·‖G‖_F² inside the root. (n, K)."""
    K = theta.shape[1]
    eps = torch.finfo(theta.dtype).eps
    inner = gram_fro2[:, None] - (theta.square() + 2 * rho2).cumsum(1)
    return (inner.clamp_min(0) + (p * p + K) * eps * gram_fro2[:, None]).sqrt()


# ----------------------------------------------------------------------------------------------
# path 1: block Krylov on A Aᵀ
# ----------------------------------------------------------------------------------------------

def _orthonormal_rows(W: Tensor) -> Tensor:
    """Orthonormal basis (rows) of the row space of W (n, k, p) by Householder QR: orthonormal even
    where W is rank deficient, which is all the bounds need."""
    return torch.linalg.qr(W.mT)[0].mT.contiguous()


def krylov(A: Tensor, V: Tensor, m: int, Q: Tensor | None = None, Z: Tensor | None = None
           ) -> tuple[Tensor, Tensor]:
    """Orthonormal rows Q of the block Krylov space span[V, VB, …, VB^{m−1}] of B = AAᵀ, and Z = QB.

    Args:
        A: (n, p, q). V: (n, k, p) orthonormal rows, the start block (only its shape is used when
            extending).
        m: number of blocks to add (= applications of B).
        Q, Z: a space (n, j·k, p) from an earlier call to extend by m blocks.

    Returns:
        ``(Q, Z)``: (n, (j + m)·k, p) each. A new block is the last k rows of the Householder QR of
        [basis; block], hence orthonormal to the basis to rounding even where the block is (nearly)
        in its span, as when the Krylov space is invariant.

    Raises:
        ValueError: the space would have more than p rows.
    """
    k = V.shape[1]
    Qs, Zs = ([], []) if Q is None else ([Q], [Z])
    if (0 if Q is None else Q.shape[1]) + m * k > A.shape[1]:
        raise ValueError(f"a Krylov space of {m} more blocks of {k} does not fit in dimension p = {A.shape[1]}")
    for _ in range(m):
        if Qs:
            basis = torch.cat(Qs, 1)
            W = Zs[-1][:, -k:]
            W = W - (W @ basis.mT) @ basis  # the span is the same; this keeps the QR well scaled
            V = _orthonormal_rows(torch.cat([basis, W], 1))[:, -k:].contiguous()
        Qs.append(V)
        Zs.append((V @ A) @ A.mT)
    return torch.cat(Qs, 1), torch.cat(Zs, 1)


def krylov_top(A: Tensor, Q: Tensor, Z: Tensor, fro2: Tensor, rtol: float
               ) -> tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
    """Certificate of path 1 on a Krylov space (Q, Z) from :func:`krylov`.

    Returns:
        ``(theta, rho2, U, upper, done)``: Ritz values/residuals/vectors as :func:`rayleigh_ritz`, the
        certified upper bound (n,) on λ_max(AAᵀ), and done = upper ≤ θ_1 (1 + rtol)² (n,) bool.
    """
    theta, rho2, U = rayleigh_ritz(Q, Z)
    enough = theta[:, 0] * (1 + rtol) ** 2
    upper = arrowhead_upper(theta, rho2, trace_bounds(theta, fro2, A.shape[1], A.shape[2]), enough)
    return theta, rho2, U, upper, upper <= enough


# ----------------------------------------------------------------------------------------------
# paths 2 and 3: the Gram matrix
# ----------------------------------------------------------------------------------------------

class _TorchKernels:
    """Device-generic Gram/Cholesky/eigenvalue kernels (``torch.linalg``)."""

    @staticmethod
    def gram(A: Tensor) -> tuple[Tensor, Tensor]:
        G = A @ A.mT
        return G, G.reshape(G.shape[0], -1).square().sum(1)

    @staticmethod
    def times(G: Tensor, V: Tensor) -> Tensor:
        return V @ G

    @staticmethod
    def cholesky(S: Tensor) -> tuple[Tensor, Tensor]:
        L, info = torch.linalg.cholesky_ex(S)
        return info == 0, L

    @staticmethod
    def solve(L: Tensor, V: Tensor) -> Tensor:
        return torch.cholesky_solve(V.mT, L).mT.contiguous()

    @staticmethod
    def top(G: Tensor) -> Tensor:
        return torch.linalg.eigvalsh(G)[:, -1]


class _LapackKernels:
    """The same through scipy's LAPACK without the GIL (:mod:`analysis.lapack`); G holds one triangle."""

    @staticmethod
    def gram(A: Tensor) -> tuple[Tensor, Tensor]:
        return lapack.gram(A.contiguous())

    @staticmethod
    def times(G: Tensor, V: Tensor) -> Tensor:
        return lapack.symmetric_times(G, V.contiguous())

    @staticmethod
    def cholesky(S: Tensor) -> tuple[Tensor, Tensor]:
        return lapack.cholesky(S), S

    @staticmethod
    def solve(L: Tensor, V: Tensor) -> Tensor:
        V = V.contiguous().clone()
        lapack.cholesky_solve(L, V)
        return V

    @staticmethod
    def top(G: Tensor) -> Tensor:
        return lapack.top_eigenvalue(G)


# Below this Gram order torch's batched kernels (one call for the whole batch) beat the per-matrix LAPACK
# calls, whose Python-side cost per matrix (~10 µs) then exceeds the flops: measured on a 2-core AMD EPYC,
# one thread, Gram and top eigenvalue per matrix: p = 16: 17 µs LAPACK, 8 µs eigvalsh; p = 32: 42 / 30 µs;
# p = 48: 79 / 81 µs; p = 128: 463 / 657 µs.
_LAPACK_FROM = 40


def _kernels(A: Tensor):
    """The kernels for blocks A (n, p, q): scipy's LAPACK per matrix for CPU float64 with p ≥ _LAPACK_FROM,
    torch's batched ``torch.linalg`` otherwise."""
    return _LapackKernels if A.shape[1] >= _LAPACK_FROM and lapack.available(A) else _TorchKernels


def _shifted(G: Tensor, mu: Tensor) -> Tensor:
    """μ_i I − G_i, a new C-contiguous tensor."""
    S = -G
    S.diagonal(dim1=1, dim2=2).add_(mu[:, None])
    return S


#: How :func:`gram_top` settled a pair (its ``paths`` output).
BY_GRAM_BOUND, BY_CHOLESKY, BY_REFINEMENT, BY_EIGENVALUE = 1, 2, 3, 4


def gram_top(A: Tensor, V: Tensor, fro2: Tensor, rtol: float, stats: dict, hint: Tensor | None = None,
             history: Tensor | None = None, paths: Tensor | None = None) -> tuple[Tensor, Tensor, Tensor]:
    """Certified λ_max(A_iA_iᵀ) for pairs whose spectrum is too flat for path 1 (paths 2 and 3).

    Args:
        A: (n, p, q). V: (n, k, p) orthonormal warm-start rows (e.g. the top Ritz vectors of the same
            pair at the previous time step, or of path 1 at this one). fro2: ‖A_i‖_F² (n,).
        rtol: the relative tolerance on ‖A_i‖₂. stats: counters updated in place
            (``gram``, ``cholesky``, ``shift_invert``, ``dense``).
        hint: (n,) an estimate from above of λ_max (NaN where none), e.g. ‖M_t‖₂² times the previous
            value of the same product: the first shift of path 3. Only speed depends on it: a hint below
            λ_max makes that factorisation fail, and the certified upper bound is used instead.
        history: (n, 2) as returned by the previous call for the same pairs (NaN where unknown): the
            relative error of the warm-start Ritz value, and how far the hint was above λ̂. Where the
            former was well inside rtol, path 2 is tried at once; where the latter was large, path 3
            (whose convergence needs a shift close to λ_max) is skipped.
        paths: optional (n,) integer tensor, filled in place with how each pair was settled:
            :data:`BY_GRAM_BOUND`, :data:`BY_CHOLESKY` (path 2), :data:`BY_REFINEMENT` (path 3) or
            :data:`BY_EIGENVALUE` (the exact eigenvalue); the engine uses it to pick the next step's path.

    Returns:
        ``(lam, U, history)``: λ̂ (n,) with λ̂ ≤ λ_max ≤ λ̂ (1 + rtol)² (module docstring), refined
        warm-start rows (n, k, p) for the next time step, and this step's history (n, 2); the exact
        eigenvalue's use is counted in ``stats["dense"]``.
    """
    ops = _kernels(A)
    n, p, q = A.shape
    G, g2 = ops.gram(A)
    eps, tiny = torch.finfo(A.dtype).eps, torch.finfo(A.dtype).tiny
    lam = torch.empty(n, dtype=A.dtype, device=A.device)
    U = V.clone()
    target = (1 + rtol) ** 2
    hint = torch.full((n,), float("nan"), dtype=A.dtype, device=A.device) if hint is None else hint
    history = torch.full((n, 2), float("nan"), dtype=A.dtype, device=A.device) if history is None else history

    theta, rho2, W = rayleigh_ritz(V, ops.times(G, V), power=True)
    c = torch.minimum(trace_bounds(theta, fro2, p, q), gram_bounds(theta, rho2, g2, p))
    warm = theta[:, 0]
    upper = arrowhead_upper(theta, rho2, c, warm * target)
    done = upper <= warm * target
    lam[done], U[done] = warm[done], W[done]
    stats["gram"] += int(done.sum())
    how = torch.full((n,), BY_CHOLESKY, dtype=torch.int8, device=A.device)
    how[done] = BY_GRAM_BOUND
    # Cholesky of μI − G at μ = θ_1 (1 + rtol)² less the rounding of G and of the factorisation ((p + q + 2)·u·‖A‖_F²
    # bounds both), so that success proves λ_max below the shift itself. Tried at once where the warm start was
    # well within rtol at the previous step (the error moves slowly with t) or nothing is known; the others are
    # refined first (path 3)
    room = (p + q + 2) * eps * fro2
    direct = ~done & ~(4 * history[:, 0] > target - 1)
    idx = direct.nonzero()[:, 0]
    if idx.numel():
        ok, _ = ops.cholesky(_shifted(G[idx], warm[idx] * target - room[idx]))
        lam[idx[ok]], U[idx[ok]] = warm[idx[ok]], W[idx[ok]]
        stats["cholesky"] += int(ok.sum())
        done[idx[ok]] = True

    idx = (~done).nonzero()[:, 0]
    if idx.numel():
        # path 3: block inverse iteration with (μ₀I − G)⁻¹ at μ₀ = the hint where it was close at the previous
        # step (or nothing is known), else the certified upper bound where that is close to θ_1; each step's
        # Rayleigh quotients are Ritz values of G. Then Cholesky at the refined θ_1 (1 + rtol)² as in path 2
        Gi, a, Wi, room_i = G[idx], warm[idx], W[idx], room[idx]
        safe = upper[idx] * (1 + 4 * eps) + room_i
        h_i = hint[idx]
        trusted = (h_i > a * (1 + 64 * eps)) & ~(history[idx, 1] > _NEAR)
        mu0 = torch.where(trusted, torch.minimum(h_i, safe), safe)
        # steps the refinement would need: the Rayleigh quotient's error (at most μ₀ − θ_1 to start) shrinks by
        # r² per step, r = (μ₀ − λ_1)/(μ₀ − λ_{k+1}), with μ₀ − λ_1 ≈ how far the hint was above λ̂ at the previous
        # step (else μ₀ − θ_1) and λ_{k+1} ≈ θ_k; where more than _INVERSE_STEPS, the factorisation would be wasted
        # and the exact eigenvalue is cheaper
        th_k = theta[idx, -1]
        above = torch.where(trusted & history[idx, 1].isfinite(), history[idx, 1].clamp_min(eps) * mu0, mu0 - a)
        r2 = (above / (mu0 - th_k).clamp_min(tiny)).clamp(max=1 - 1e-12).square()
        need = torch.log((target - 1) * a / 4 / (mu0 - a).clamp_min(tiny)).clamp(max=0) / torch.log(r2)
        tried = (trusted | (safe <= a * (1 + _NEAR))) & (need <= _INVERSE_STEPS)
        ok0 = torch.zeros_like(tried)
        L = torch.empty_like(Gi)
        sel = tried.nonzero()[:, 0]
        if sel.numel():
            ok0[sel], L[sel] = ops.cholesky(_shifted(Gi[sel], mu0[sel]))
        bad = (tried & ~ok0 & trusted).nonzero()[:, 0]
        if bad.numel():  # the hint was below λ_max; the certified bound is above it
            ok0[bad], L[bad] = ops.cholesky(_shifted(Gi[bad], safe[bad]))
        stats["shift_invert"] += int(ok0.sum())
        rows = ok0.nonzero()[:, 0]
        certified = torch.zeros_like(ok0)
        if rows.numel():
            Wk, Gk, Lk, best = Wi[rows], Gi[rows], L[rows], a[rows]
            for _ in range(_INVERSE_STEPS):
                Wk = _orthonormal_rows(ops.solve(Lk, Wk))
                th, _, Wk = rayleigh_ritz(Wk, ops.times(Gk, Wk))
                now = torch.maximum(best, th[:, 0])
                # the Rayleigh quotient's error shrinks by the square of (μ₀ − λ_1)/(μ₀ − λ_{k+1}) per step: an
                # increase below rtol/8 leaves it far inside rtol
                settled = bool(((now - best) <= now * (target - 1) / 8).all())
                best = now
                if settled:
                    break
            ok1, _ = ops.cholesky(_shifted(Gk, best * target - room_i[rows]))
            hit = rows[ok1]
            lam[idx[hit]], U[idx[hit]] = best[ok1], Wk[ok1]
            how[idx[hit]] = BY_REFINEMENT
            stats["cholesky"] += int(ok1.sum())
            certified[hit] = True
            Wi[rows] = Wk
        rest = (~certified).nonzero()[:, 0]
        if rest.numel():
            lam[idx[rest]] = ops.top(Gi[rest]).clamp_min(0)
            U[idx[rest]] = Wi[rest]
            how[idx[rest]] = BY_EIGENVALUE
            stats["dense"] += rest.numel()
    if paths is not None:
        paths.copy_(how)
    new = torch.stack([(lam - warm) / lam.clamp_min(tiny), hint / lam.clamp_min(tiny) - 1], 1)
    return lam, U, new


def exact_top(A: Tensor) -> Tensor:
    """λ_max(A_iA_iᵀ) = ‖A_i‖₂² exactly (to rounding: |λ̂ − λ| ≲ d·u·‖A_i‖₂², d the smaller dimension) for
    A (n, p, q), by the top eigenvalue of the smaller Gram matrix (scipy's ``dsyrk`` and ``dsyevr`` on CPU
    float64 from order 40, ``torch.linalg.eigvalsh`` on the whole batch elsewhere)."""
    if A.shape[2] < A.shape[1]:
        A = A.mT
    ops = _kernels(A)
    if ops is _LapackKernels:
        return ops.top(ops.gram(A.contiguous())[0]).clamp_min(0)
    return torch.linalg.eigvalsh(A @ A.mT)[:, -1].clamp_min(0)
