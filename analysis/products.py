"""The all-pairs product engine behind the Jacobian maps: the norms of every block
X(t, s) = starts[s] · M_{b+1} ⋯ M_t (b = birth[s] ≤ t) for all t = 0..T, with X(t, ·) = X(t − 1, ·) M_t
formed by one GEMM per time step (T²h³ flops for the T²/2 products of h × h matrices: the floor) and each
spectral norm certified by :mod:`analysis.certificate`.

Per pair, the engine keeps warm-start rows (the top Ritz vectors of X(t − 1, s) in the space of h_s; for
fixed s they settle as t grows, the forward Oseledets directions) and a **mode**, the cheapest path that
certified the pair at t − 1:

* ``VECTOR``: one application of B = XXᵀ to the top vector (2pq flops each way) and the arrowhead bound
  with one Ritz pair; enough for long gaps whose top singular value has separated.
* ``BLOCK``: the same with ``block`` vectors, extended to a block Krylov space of up to ``max_iter``
  blocks while the trace bound leaves room (c_j < θ_1).
* ``GRAM``: flat spectra (short gaps of near-orthogonal cells): the Gram matrix, its Frobenius bound,
  a Cholesky certificate and, where needed, shift-invert refinement (:func:`analysis.certificate.gram_top`).
* ``EXACT``: the exact top eigenvalue of the Gram matrix (:func:`analysis.certificate.exact_top`), for
  pairs whose Gram path needed refinement or the eigenvalue at t − 1: there the refinement's
  factorisations, solves and bookkeeping cost more than ``dsyevr`` itself (measured: SGORNN, h = 128,
  T = 200, one thread: 14.6 s with every such pair refined against 11.2 s with every pair exact).

A pair escalates within the step when its path does not certify (VECTOR → BLOCK → GRAM), steps down
when the bound shows the cheaper path would have sufficed (BLOCK → VECTOR), GRAM and EXACT
pairs retry BLOCK every ``_RETRY_EVERY`` steps (the band of flat spectra moves slowly with t) unless their
stable rank ‖A‖_F²/‖A‖₂² rules the Krylov certificate out (orthogonal cells keep it high at most gaps).

Work for one t is split into chunks of about equal expected cost, each done whole (GEMM, Frobenius and
spectral norms while the chunk is in cache) by one of ``torch.get_num_threads()`` Python threads running
torch single-threaded (torch and the LAPACK kernels of :mod:`analysis.lapack` release the GIL).

Complex states: a state z ∈ ℂᴺ is probed as the real state (Re z, Im z) ∈ ℝ²ᴺ (:mod:`cells.real_view`, which
:func:`rnnaudit.cells.wrap` returns for a complex cell), so the factors this module multiplies are the real 2N × 2N
Jacobians; where the step is holomorphic (the linear part of an LRU) their 2-norm is the complex Jacobian's.
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import torch
from torch import Tensor

from rnnaudit.analysis.certificate import (BY_REFINEMENT, _orthonormal_rows, exact_top, gram_top, krylov, krylov_top,
                                           trace_bounds)

__all__ = ["product_norm_maps", "new_stats"]

VECTOR, BLOCK, GRAM, EXACT = 1, 2, 3, 4
_RETRY_EVERY = 8  # steps between BLOCK re-tries of a GRAM or EXACT pair
# expected cost of a pair in each mode, in GEMMs (chunk balance)
_COST = {VECTOR: 1.0, BLOCK: 1.3, GRAM: 3.0, EXACT: 3.0}


def new_stats() -> dict:
    """Counters of how each (pair, sequence) spectral value was settled (:class:`analysis.jacobian.JacobianMaps`)."""
    return {"iterative": 0, "gram": 0, "cholesky": 0, "shift_invert": 0, "dense": 0, "exact": 0, "dense_small": 0,
            "iterations": 0}


@contextmanager
def _threads(n: int):
    """torch's intra-op pool with n threads inside the block: the engine's own threads each run torch
    single-threaded (OpenMP inside many small kernels only spins on a shared machine)."""
    old = torch.get_num_threads()
    if old == n:
        yield
        return
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(old)


def _ldexp(x: Tensor, e: Tensor) -> Tensor:
    """x·2^e, exact wherever the result is a normal float: in two halves, so that neither power of two
    over- or underflows on its own for |e| up to twice the exponent range."""
    half = torch.div(e, 2, rounding_mode="floor")
    return torch.ldexp(torch.ldexp(x, half), e - half)


def _keep_in_range(X: Tensor, f2: Tensor, expo: Tensor, lam: Tensor | None = None) -> None:
    """Scale the blocks X (n, p, q) whose squared Frobenius norms f2 (n,) lie outside [2^−e, 2^e],
    e = a quarter of the dtype's exponent range (256 for float64), by exact powers of two to a largest entry
    in [1/2, 1); their f2 is recomputed, the exponents taken out are added to ``expo`` (n,) and ``lam``
    (n,), the previous λ of the same blocks (the next hint), is rescaled to match (NaN where the shift is
    too large to be exact). All in place.

    Why: the certificate works with squares of the block (λ = ‖X‖₂², the Gram matrix, ‖G‖_F², squared
    residuals), so ‖X‖ outside about 2^±128 would put those outside the normal floats. Products of
    contracting Jacobians leave that range in a few hundred steps (a default-initialised ``torch.nn.GRU``,
    h = 128: ‖∂h_t/∂h_s‖₂ = 5e-59 at t − s = 300 and 4e-197 at 1000), and an underflowed squared residual
    certifies a wrong value."""
    e = int(math.log2(torch.finfo(X.dtype).max)) // 4
    out = ~((f2 >= 2.0 ** -e) & (f2 <= 2.0 ** e))  # NaN counts as outside
    idx = out.nonzero()[:, 0]
    if not idx.numel():
        return
    Xi, k = _power_of_two_out(X[idx])  # k = 0 for a zero block: left as it is
    X[idx] = Xi
    expo[idx] += k
    f2[idx] = torch.linalg.vector_norm(Xi.reshape(idx.numel(), -1), dim=1).square()
    if lam is not None:
        lam[idx] = torch.where(k.abs() < e, _ldexp(lam[idx], -2 * k), float("nan"))


def _power_of_two_out(X: Tensor) -> tuple[Tensor, Tensor]:
    """(X_i·2^−k_i, k) for blocks X (n, p, q), k_i the exponent of the largest |entry| (which then lies in
    [1/2, 1)); k = 0 for a zero block. Exact: a new tensor."""
    k = torch.frexp(X.abs().amax((1, 2))).exponent.to(torch.int64)
    return _ldexp(X, -k[:, None, None]), k


def _scale_factors(M: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """(M_t·2^−k_t, k, m) for factors M (T, h, h): k_t the exponent of the largest |entry| of M_t, which then
    lies in [1/2, 1), unless that would push the smallest nonzero |entry| below 2^−L; then k_t is lowered to
    keep it at 2^−L, but never so far that the largest exceeds 2^(R − 1). m (T,) is the exponent of the
    largest |entry| after scaling (≤ R; 0 for most factors). Exact: a new tensor. k, m: int64.

    L and R come from the blocks' range (:func:`_keep_in_range`: ‖X‖_F within 2^±127.5 for float64): a
    block's largest entry, at least 2^−128/h, times any nonzero factor entry ≥ 2^−L is a normal float with
    all its digits (L = 969 − 128 − bits(h) for float64), and h products of a block entry ≤ 2^128 and a factor
    entry < 2^R cannot overflow (R = 1023 − 128 − bits(h) − 1). So a factor whose own entries span less than
    L + R bits (about 1e500 at h = 128) is multiplied into any block without loss: a factor of 1e-290 or 1e160,
    and diag(1e300, 1e-30) whose small entry carries the product of a block started on it."""
    fi = torch.finfo(M.dtype)
    e = int(math.log2(fi.max))
    bits = M.shape[-1].bit_length()
    L = -int(math.log2(fi.tiny)) - (round(-math.log2(fi.eps)) + 1) - (e // 8 + 1) - bits
    R = e - (e // 8 + 1) - bits - 1
    a = M.abs()
    big = torch.frexp(a.amax((1, 2))).exponent.to(torch.int64)  # 0 for a zero factor
    small = torch.frexp(torch.where(a > 0, a, a.amax((1, 2), keepdim=True)).amin((1, 2))).exponent.to(torch.int64)
    k = torch.maximum(torch.minimum(big, small + L), big - R)
    return _ldexp(M, -k[:, None, None]), k, big - k


def _keep_near_top(X: Tensor, expo: Tensor, room: int = 0) -> None:
    """For the ``rows`` case: keep the largest |entry| of each block X (n, p, q) within [2^(top − 64), 2^top],
    top = the largest exponent for which one GEMM with a factor of entries below 2^room cannot overflow, by
    exact powers of two added to ``expo`` (n,). In place. The block's own squares are never formed there (only
    the kept columns' copy is certified, scaled on its own), so placing it high leaves the most room below it
    for kept columns much smaller than the rest (a decaying block beside a growing one)."""
    top = int(math.log2(torch.finfo(X.dtype).max)) - X.shape[2].bit_length() - 1 - room  # a GEMM sums q products
    big = X.abs().amax((1, 2))
    idx = (~((big >= 2.0 ** (top - 64)) & (big <= 2.0 ** top)) & (big > 0)).nonzero()[:, 0]
    if idx.numel():
        k = torch.frexp(big[idx]).exponent.to(expo.dtype) - top
        X[idx] = _ldexp(X[idx], -k[:, None, None])
        expo[idx] += k


def _take(X: Tensor, idx: Tensor) -> Tensor:
    """X[idx] for a sorted 1-D index; a view (no copy of the blocks) when idx is a range, the common
    case: the pairs of one mode form runs of consecutive s."""
    n = idx.numel()
    if n and int(idx[-1]) - int(idx[0]) == n - 1:
        return X[int(idx[0]):int(idx[-1]) + 1]
    return X[idx]


def _krylov_path(A: Tensor, V: Tensor, fro2: Tensor, rtol: float, max_iter: int, stats: dict
                 ) -> tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
    """Path 1 for blocks A (n, p, q) from start rows V (n, k, p): Krylov blocks are added, for the pairs not
    yet certified, while some trace bound is below θ_1 (the spectrum decays within reach of the space: more
    blocks can close the bracket) and at most ``max_iter`` blocks.

    Returns:
        ``(done, lam, U, single)``: certified (n,) bool, λ̂ (n,) where done, the top k Ritz vectors (n, k, p)
        (the next start), and where a single vector's trace bound c_1 leaves room (c_1 ≤ θ_1/2)."""
    n, k = V.shape[0], V.shape[1]
    p, q = A.shape[1], A.shape[2]
    done_all = torch.zeros(n, dtype=torch.bool, device=A.device)
    lam = torch.zeros(n, dtype=A.dtype, device=A.device)
    U_all = V.clone()
    single = torch.zeros(n, dtype=torch.bool, device=A.device)
    alive = torch.arange(n, device=A.device)
    A_m, f_m = A, fro2
    Q, Z = krylov(A_m, V, 1)
    blocks = 1
    while True:
        stats["iterations"] += alive.numel()
        theta, rho2, U, _, done = krylov_top(A_m, Q, Z, f_m, rtol)
        c1 = trace_bounds(theta[:, :1], f_m, p, q)[:, 0]
        hit = alive[done]
        done_all[hit], lam[hit] = True, theta[done, 0]
        U_all[alive] = U[:, :k]
        single[alive] = c1 <= theta[:, 0] / 2
        c = trace_bounds(theta, f_m, p, q)
        if blocks >= max_iter or (blocks + 1) * k > p:
            break
        more = (~done & (c.amin(1) < theta[:, 0])).nonzero()[:, 0]
        if not more.numel():
            break
        alive, Q, Z, f_m = alive[more], Q[more], Z[more], f_m[more]
        A_m = A_m[more]
        Q, Z = krylov(A_m, V[:1], 1, Q, Z)
        blocks += 1
    stats["iterative"] += int(done_all.sum())
    return done_all, lam, U_all, single


def _spectral(A: Tensor, fro2: Tensor, V: Tensor, mode: Tensor, since: Tensor, werr: Tensor, rtol: float,
              max_iter: int, stats: dict, hint: Tensor | None) -> Tensor:
    """Certified λ_max(A_iA_iᵀ) for one chunk A (n, p, q) of the blocks of one t; ``V`` (n, k, p), ``mode``,
    ``since`` and ``werr`` (n,) are views of the engine's per-pair state and are updated in place; ``hint``
    (n,) estimates λ_max from above (:func:`analysis.certificate.gram_top`)."""
    n = A.shape[0]
    lam = torch.empty(n, dtype=A.dtype, device=A.device)
    due = since % _RETRY_EVERY == _RETRY_EVERY - 1
    since += (mode >= GRAM).to(since.dtype)
    if hint is not None:
        # a Krylov space of K = k·max_iter rows certifies only if the trace left beyond its Ritz values, at
        # least ‖A‖_F² − K·λ, is below about λ: ‖A‖_F² < (K + 1)·λ. The hint is above λ, so a pair failing this
        # with the hint would fail the re-try (up to the (1 + rtol)² of the bound). Only speed depends on it
        K = min(V.shape[1] * max_iter, A.shape[1])
        due &= ~(fro2 >= (K + 1) * hint)
    retry = (mode == GRAM) & due
    escalate = torch.zeros(n, dtype=torch.bool, device=A.device)

    # EXACT: the eigenvalue at once, except when a re-try is due: then the pair tries the cheaper paths
    # again from BLOCK (long gaps leave the flat band for Krylov's; the Gram path does not lead back there)
    idx = ((mode == EXACT) & ~due).nonzero()[:, 0]
    if idx.numel():
        lam[idx] = exact_top(_take(A, idx))
        stats["exact"] += idx.numel()
    retry |= (mode == EXACT) & due

    # VECTOR: a single-vector Krylov space from the top vector of t − 1; failures go on to BLOCK now
    idx = (mode == VECTOR).nonzero()[:, 0]
    if idx.numel():
        done, l_i, U, single = _krylov_path(_take(A, idx), V[idx, :1].contiguous(), fro2[idx], rtol, max_iter, stats)
        lam[idx[done]] = l_i[done]
        V_i = V[idx]
        V_i[:, 0] = U[:, 0]
        V[idx] = _orthonormal_rows(V_i)  # the old rows 1..k−1 completed around the new top vector
        escalate[idx[~done]] = True

    # BLOCK (and GRAM pairs due for a re-try): k vectors; a pair whose single-vector trace bound leaves room
    # steps down to VECTOR, a failure goes on to GRAM now
    idx = ((mode == BLOCK) | retry | escalate).nonzero()[:, 0]
    escalate.zero_()
    if idx.numel():
        done, l_i, U, single = _krylov_path(_take(A, idx), V[idx], fro2[idx], rtol, max_iter, stats)
        lam[idx[done]] = l_i[done]
        V[idx] = U
        mode[idx[done]] = torch.where(single[done], VECTOR, BLOCK).to(mode.dtype)
        escalate[idx[~done]] = True

    idx = (((mode == GRAM) & ~retry) | escalate).nonzero()[:, 0]
    if idx.numel():
        entering = mode[idx] != GRAM
        w_i = werr[idx]
        w_i[entering] = float("nan")
        paths = torch.empty(idx.numel(), dtype=torch.int8, device=A.device)
        g_lam, U, w_i = gram_top(_take(A, idx), V[idx], fro2[idx], rtol, stats, None if hint is None else hint[idx],
                                 w_i, paths)
        lam[idx], V[idx], werr[idx] = g_lam, U, w_i
        since[idx[entering]] = 0
        mode[idx] = torch.where(paths >= BY_REFINEMENT, EXACT, GRAM).to(mode.dtype)
    return lam


def _chunk_edges(mode: Tensor | None, alive: int, chunk: float) -> list[int]:
    """Edges of the chunks of blocks [0, alive) of about ``chunk`` expected cost each (``mode``: the path
    each pair took last; pairs without one count as GRAM)."""
    cost = torch.full((alive,), _COST[GRAM])
    if mode is not None and mode.numel():
        m = mode[:alive].cpu().long()
        table = torch.tensor([_COST[GRAM], _COST[VECTOR], _COST[BLOCK], _COST[GRAM], _COST[EXACT]])
        cost[:m.numel()] = table[m]
    elif mode is None:
        cost.fill_(1.0)
    cum = cost.cumsum(0)
    n_chunks = min(alive, max(1, -(-int(cum[-1]) // int(chunk))))
    cuts = torch.searchsorted(cum, cum[-1] * torch.arange(1, n_chunks) / n_chunks).tolist()
    return sorted({0, alive, *(c + 1 for c in cuts if c + 1 < alive)})


def product_norm_maps(M: Tensor, starts: Tensor, birth: Tensor, *, rows: Tensor | None, want: tuple[str, ...],
                      rtol: float, block: int, max_iter: int, stats: dict, exact: bool = False, chunk: int = 96,
                      window: int = 8, factor_exp: Tensor | None = None, progress=None) -> dict[str, Tensor]:
    """Norms of every block X(t, s) = starts[s] · M_{b+1} ⋯ M_t (b = birth[s] ≤ t), restricted to the
    columns ``rows``, for all t = 0..T (see the module docstring for the method).

    Each factor and each block is kept scaled by an exact power of two (:func:`_scale_factors`,
    :func:`_keep_in_range`; with ``rows``, :func:`_keep_near_top` and a scaled copy of the kept columns), so
    products far below or above 1 are certified to the same relative tolerance; a value outside float64's
    normal range is rounded when it is written to the map (to 0 below about 4.9e-324, to inf above 1.8e308);
    ``"spectral_log2"`` writes log₂ of the spectral norm instead, which holds any magnitude (−inf for 0).
    What a block cannot hold is a part more than about 1e-285 below its own largest entry (1e-600 with
    ``rows``): that part is lost as in any floating-point product, within the forming error
    (t − s)·γ_h·∏‖M_k‖ of :mod:`analysis.jacobian`'s accuracy statement.

    The work is tiled in time and in s: a tile is a chunk of consecutive s advanced through ``window``
    time steps (the blocks of different s never interact), so that its blocks stay in cache across those
    steps instead of streaming the whole (t·p × h) stack through memory at every t; tiles of one window
    are shared among the worker threads.

    Args:
        M: (T, h, h) right factors (J_tᵀ for ∂h/∂h, J_t⁻¹ for inverse products).
        starts: (S, p, h) start blocks; birth: (S,) non-decreasing times in [0, T].
        rows: columns kept (a 1-D long tensor) or None for all.
        want: names among "spectral", "frobenius", "spectral_log2".
        rtol: relative tolerance of the spectral norms. block: Krylov block size k (blocks with
            min(p, q) ≤ k are done exactly). max_iter: Krylov blocks per pair and step before the Gram path.
        stats: counters (:func:`new_stats`) updated in place.
        exact: every spectral norm by the exact top eigenvalue of the Gram matrix instead of a certificate
            (:func:`analysis.certificate.exact_top`; the ``"dense"`` method of :mod:`analysis.map_methods`),
            rtol, block and max_iter unused.
        chunk: target chunk cost in GEMM units; window: time steps per tile.
        factor_exp: (T,) int64 or None: factor t stands for M_t·2^factor_exp[t] (factors kept scaled by
            their caller, e.g. products of many steps, :mod:`analysis.grid_maps`).
        progress: called after each window of time steps with the number of blocks advanced in it.

    Returns:
        name → (T + 1, T + 1) tensor, entry [t, birth[s]] for t ≥ birth[s], zero elsewhere.
    """
    T, h = M.shape[0], M.shape[1]
    S, p = starts.shape[0], starts.shape[1]
    # each factor scaled by a power of two (which goes to the blocks' exponents) so that no GEMM of a block
    # with it under- or overflows (_scale_factors)
    M, m_exp, m_top = _scale_factors(M)
    if factor_exp is not None:
        m_exp = m_exp + factor_exp.to(m_exp)
    room = m_top.clamp_min(0).tolist()  # the next factor's headroom for _keep_near_top
    q = h if rows is None else rows.numel()
    kw = {"dtype": M.dtype, "device": M.device}
    outs = {name: torch.zeros(T + 1, T + 1, **kw) for name in want}
    bufs = [torch.empty(S, p, h, **kw), torch.empty(S, p, h, **kw)]
    k = min(block, p, q)
    spectral = "spectral" in want or "spectral_log2" in want
    iterative = spectral and k < min(p, q) and not exact
    mode = None
    if iterative:
        gen = torch.Generator().manual_seed(0)  # fixed start rows: the maps are deterministic
        fill = torch.linalg.qr(torch.randn(p, k, generator=gen, dtype=torch.float64))[0].mT.contiguous().to(**kw)
        V = torch.empty(S, k, p, **kw)
        mode = torch.full((S,), GRAM, dtype=torch.int8, device=M.device)
        since = torch.zeros(S, dtype=torch.int32, device=M.device)
        werr = torch.full((S, 2), float("nan"), **kw)  # the Gram path's history (certificate.gram_top)
        # ‖M_t‖₂² (to rounding) for the shift hints; with ``rows`` the restricted norms are no product bound
        # (on a copy scaled to entries below 1, whose squares cannot overflow; inf where ‖M_t‖₂² does: no hint)
        if rows is None:
            Mn, kn = _power_of_two_out(M)
            step_norm2 = _ldexp(torch.linalg.eigvalsh(Mn.mT @ Mn)[:, -1] * (1 + 1e-12), 2 * kn)
        else:
            step_norm2 = None
    born = torch.bincount(birth, minlength=T + 1).cumsum(0).tolist()  # born[t]: blocks with birth ≤ t
    birth_list = birth.tolist()
    # CPU: one Python thread per torch thread, each running torch single-threaded; a GPU runs one stream
    workers = max(1, torch.get_num_threads()) if M.device.type == "cpu" else 1
    lam = torch.empty(S, **kw)  # the latest certified λ of each s (scaled as its block): the next step's hint
    expo = torch.zeros(S, dtype=torch.int64, device=M.device)  # the block of s holds X(t, s)·2^−expo[s]

    def step(t: int, lo: int, hi: int, st: dict) -> None:
        # X(t, s) = X(t − 1, s) M_t for the living blocks of [lo, hi), start blocks for newborns; then every
        # norm while they are in cache
        old, alive = (born[t - 1] if t else 0), born[t]
        hi = min(hi, alive)
        if hi <= lo:
            return
        src, dst = bufs[t % 2], bufs[(t + 1) % 2]
        if t and lo < old:
            m_hi = min(hi, old)
            torch.mm(src[lo:m_hi].view(-1, h), M[t - 1], out=dst[lo:m_hi].view(-1, h))
            expo[lo:m_hi] += m_exp[t - 1]
        if hi > old:
            dst[max(lo, old):hi] = starts[max(lo, old):hi]
            expo[max(lo, old):hi] = 0
            if iterative:
                V[max(lo, old):hi] = fill
                mode[max(lo, old):hi] = GRAM
                since[max(lo, old):hi] = 0
        X = dst[lo:hi]
        if rows is None:
            A, scale = X, expo[lo:hi]
            f2 = torch.linalg.vector_norm(X.reshape(hi - lo, -1), dim=1).square()
            _keep_in_range(X, f2, scale, lam[lo:hi])
        else:  # the kept columns can be far smaller than the rest of the block: a copy scaled on its own
            _keep_near_top(X, expo[lo:hi], room[t] if t < T else 0)
            A, k = _power_of_two_out(X.index_select(2, rows))
            scale = expo[lo:hi] + k
            f2 = torch.linalg.vector_norm(A.reshape(hi - lo, -1), dim=1).square()
        if iterative:
            # ‖X(t, s)‖₂ ≤ ‖X(t − 1, s)‖₂ ‖M_t‖₂: the previous value (still in lam) times ‖M_t‖₂² estimates
            # λ_max from above, the first shift of the Gram path (newborns: none)
            hint = None
            if step_norm2 is not None and t and lo < old:
                hint = torch.full((hi - lo,), float("nan"), **kw)
                hint[:min(hi, old) - lo] = lam[lo:min(hi, old)] * step_norm2[t - 1] * (1 + rtol) ** 2
            lam[lo:hi] = _spectral(A, f2, V[lo:hi], mode[lo:hi], since[lo:hi], werr[lo:hi], rtol, max_iter, st, hint)
        elif spectral:
            lam[lo:hi] = exact_top(A)
            st["dense_small"] += hi - lo
        cols = birth[lo:hi]
        if "frobenius" in want:
            outs["frobenius"][t, cols] = _ldexp(f2.sqrt(), scale)
        if "spectral" in want:
            outs["spectral"][t, cols] = _ldexp(lam[lo:hi].clamp_min(0).sqrt(), scale)
        if "spectral_log2" in want:  # the block's power of two added to the log: no over- or underflow
            outs["spectral_log2"][t, cols] = 0.5 * torch.log2(lam[lo:hi].clamp_min(0)) + scale

    def tile(t0: int, t1: int, lo: int, hi: int) -> dict:
        st = new_stats()
        for t in range(max(t0, birth_list[lo]), t1):
            step(t, lo, hi, st)
        return st

    with _threads(1 if M.device.type == "cpu" else torch.get_num_threads()), ThreadPoolExecutor(workers) as pool:
        for t0 in range(0, T + 1, window):
            t1 = min(t0 + window, T + 1)
            edges = _chunk_edges(mode, born[t1 - 1], chunk)
            tiles = [(edges[i], edges[i + 1]) for i in range(len(edges) - 1)]
            for st in pool.map(lambda e: tile(t0, t1, *e), tiles):
                for key, value in st.items():
                    stats[key] += value
            if progress is not None:
                progress(sum(born[t] for t in range(t0, t1)))
    return outs
