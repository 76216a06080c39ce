"""The exact fast path of the Jacobian maps for diagonal recurrences (fixed or input-dependent).

For a step whose Jacobian is diagonal, ∂h_t/∂h_{t−1} = diag(a_t) (a diagonal SSM; Mamba's selective scan,
Gu & Dao 2023, arXiv 2312.00752, Alg. 2, with Ā_t = exp(Δ_t A) per state; minGRU/minLSTM, Feng et al. 2024,
arXiv 2410.01201, whose gates do not see h; the LRU's diag(λ), Orvieto et al. 2023, arXiv 2303.06349, eq. (1)),

    ∂h_t/∂h_s = Π_{k=s+1..t} diag(a_k),   ‖∂h_t/∂h_s‖₂ = max_i Π_k |a_{k,i}|,
    σ_min = min_i Π_k |a_{k,i}|,          ‖∂h_t/∂h_s‖_F = (m Σ_i Π_k |a_{k,i}|²)^½,

with no matrix product: T·N work for the prefix products and one max (min, sum) over i per pair. A complex
state z ∈ ℂᴺ is probed as (Re z, Im z) ∈ ℝ²ᴺ (:mod:`cells.real_view`); a holomorphic diagonal step has the real
Jacobian diag(a) realified, whose coordinate i is the 2 × 2 block |a_i|·(rotation): the same 2-norm and σ_min,
and multiplicity m = 2 in the Frobenius norm (m = 1 for a real state).

Diagonality is never guessed. Either the cell declares it (a method ``diagonal_jacobian(x_t, h) -> (batch, N)``
taking the state as its step does, complex for a complex state; a cell that is itself the real view of a complex
state of width N says so by an attribute ``complex_width = N``; :func:`declares_diagonal`), and the declaration is checked along one seeded random
direction per step by forward mode (:data:`DECLARATION_RTOL`), or the one-step Jacobians, formed by the general
path, are checked to be exactly diagonal (exact zeros off the diagonal; for the real view of a complex state, the
exact pattern of a realified complex diagonal): :func:`diagonal_of`.

Arithmetic: each |a_{k,i}| is split into a mantissa in [½, 1) and an exponent (``frexp``); the prefix products
P_t = Π_{k ≤ t} |a_k| are kept as mantissa M_t and integer exponent E_t (a cumulative product of at most
:data:`_BLOCK` mantissas ≥ 2⁻¹⁰⁰⁰ never leaves the normal range), so no value under- or overflows however long
the sequence, and a zero factor is counted apart (the product over a window holding one is exactly 0). A pair's
value is 2^d with d = ℓ_t − ℓ_s, ℓ_t = E_t + log₂ M_t; its relative error is at most :func:`diagonal_rtol`
(c_t + c_s + 4 + ln2·(|d| + 4 + |ℓ_t| + |ℓ_s|))·u with c_t = t + ⌈t/_BLOCK⌉ the roundings in M_t (u = 2⁻⁵³):
1e-13 or better for t, s ≤ 100 and values above 1e-40. The |ℓ| term is the rounding of ℓ_t itself; where
max|ℓ| exceeds :data:`_COMBINED_MAX` the difference is taken as (E_t − E_s) + (log₂ M_t − log₂ M_s) instead (two
more passes over the pairs), exact in its integer part, and the term drops out.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor
from torch.func import jvp

__all__ = ["declares_diagonal", "diagonal_of", "declared_moduli", "diagonal_maps", "diagonal_rtol",
           "DECLARATION_RTOL"]

#: Largest relative disagreement, along one random direction v per step, between the step's Jacobian J v (forward
#: mode) and a declared diag(a) v, for the declaration to stand. Both are computed in float64 from the same
#: operations or the same formula (a hook computing a by another route, e.g. exp(Δ A) against the step's own
#: exp, differs by a few ulps, u ≈ 1.1e-16): 1e-8 leaves a margin of about 10⁷ u above rounding, while any
#: coupling between coordinates larger than 1e-8 of the largest |a| is caught.
DECLARATION_RTOL = 1e-8
#: Steps per cumulative product of mantissas: each is ≥ ½, so a product of 1000 is ≥ 2⁻¹⁰⁰⁰, above float64's
#: smallest normal 2⁻¹⁰²² (no subnormal, no loss of relative accuracy).
_BLOCK = 1000
#: Elements of the (chunk, s, N) difference array of one chunk of rows t (128 MiB of float64).
_CHUNK_ELEMENTS = 2 ** 24
#: Largest max|ℓ_t| (log₂ of a prefix product) for which d = ℓ_t − ℓ_s is formed from ℓ itself (one pass): its
#: rounding then adds at most ln2·2·4096·u ≈ 6.3e-13 to the relative error; beyond, the exact split form is used.
_COMBINED_MAX = 4096.0
_U = 2.0 ** -53


def declares_diagonal(cell) -> bool:
    """Whether ``cell`` (a wrapped cell) declares its step's Jacobian diagonal: a ``declares_diagonal()`` method
    saying so (:class:`cells.adapters.StepCell`, :class:`cells.real_view.RealView`), or a ``diagonal_jacobian``
    method on a cell of the package's own kind."""
    said = getattr(cell, "declares_diagonal", None)
    if callable(said):
        return bool(said())
    return callable(getattr(cell, "diagonal_jacobian", None))


def _complex_width(cell) -> int | None:
    return getattr(cell, "complex_width", None)


def declared_moduli(cell, x: Tensor, hs: Tensor, *, seed: int = 0) -> tuple[Tensor, int]:
    """|a_t| (T, N) float64 along one trajectory from the cell's declared ``diagonal_jacobian``, and the
    multiplicity m (2 for the real view of a complex state, else 1), after checking the declaration.

    Args:
        cell: a wrapped cell with :func:`declares_diagonal`. x: (T, n) one sequence. hs: (T + 1, S) its states
            h_0..h_T in the cell's (real) view.
        seed: of the random direction of the check.

    Returns:
        (moduli (T, N), m).

    Raises:
        ValueError: the declared a has the wrong shape, is not finite, or disagrees with the step's Jacobian
            along the random direction by more than :data:`DECLARATION_RTOL` (naming the step).
    """
    from rnnaudit.cells.real_view import RealView, to_complex, to_real

    T = x.shape[0]
    cw = _complex_width(cell)
    rows = hs[:-1]
    with torch.no_grad():
        # the hook takes the state as the cell's own step does: complex z behind a RealView, real h otherwise (also for
        # a cell that is its own real view and names its complex width N: then a is complex, (batch, N))
        a = cell.diagonal_jacobian(x, to_complex(rows) if isinstance(cell, RealView) else rows)
        width = cw if cw is not None else cell.hidden_size
        if not isinstance(a, Tensor) or tuple(a.shape) != (T, width):
            shape = tuple(a.shape) if isinstance(a, Tensor) else type(a).__name__
            raise ValueError(f"{type(cell).__name__}.diagonal_jacobian(x_t, h) must return (batch, {width}), "
                             f"got {shape}")
        if not torch.isfinite(a).all():
            raise ValueError(f"{type(cell).__name__}.diagonal_jacobian returned NaN/Inf entries")
        g = torch.Generator(device="cpu").manual_seed(seed)
        v = torch.randn(rows.shape, generator=g, dtype=rows.dtype).to(rows.device)
        _, Jv = jvp(lambda hh: cell.step(x, hh), (rows.clone(),), (v,))
        av = to_real(a * to_complex(v)) if cw is not None else a * v
        scale = (a.abs().amax(-1, keepdim=True) * v.abs().amax(-1, keepdim=True)).clamp_min(torch.finfo(x.dtype).tiny)
        err = ((Jv - av).abs().amax(-1, keepdim=True) / scale).squeeze(-1)
        worst = int(err.argmax())
        if float(err[worst]) > DECLARATION_RTOL:
            raise ValueError(f"{type(cell).__name__} declares a diagonal Jacobian, but at step {worst + 1} its step's "
                             f"Jacobian J v differs from diag(a) v by {float(err[worst]):.3g} (relative to "
                             f"max|a|·max|v|), above {DECLARATION_RTOL:g}: the step couples coordinates")
    return a.abs().to(torch.float64), 2 if cw is not None else 1


def diagonal_of(J: Tensor, complex_width: int | None = None) -> tuple[Tensor, int] | None:
    """The moduli |a| (…, N) and multiplicity m if every Jacobian of J (…, S, S) is exactly diagonal, else None.

    Real state: every off-diagonal entry is exactly 0. Real view of a complex state of width N = S/2: the four
    N × N blocks are exactly diagonal with [[p, −q], [q, p]] per coordinate (the realification of diag(p + iq),
    a holomorphic diagonal step); then |a| = hypot(p, q) and m = 2.
    """
    if complex_width is None:
        off = J.clone()
        off.diagonal(dim1=-2, dim2=-1).zero_()
        if bool(off.any()):
            return None
        return J.diagonal(dim1=-2, dim2=-1).abs().to(torch.float64), 1
    N = complex_width
    blocks = [J[..., :N, :N], J[..., :N, N:], J[..., N:, :N], J[..., N:, N:]]
    diags = [b.diagonal(dim1=-2, dim2=-1) for b in blocks]
    for b in blocks:
        off = b.clone()
        off.diagonal(dim1=-2, dim2=-1).zero_()
        if bool(off.any()):
            return None
    p, mq, q, p2 = diags
    if not (torch.equal(p, p2) and torch.equal(mq, -q)):
        return None
    return torch.hypot(p, q).to(torch.float64), 2


def _prefix(mod: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """(E, F, Z), each (T + 1, N): P_t = 2^{E_t + F_t} (E integer-valued float64, F = log₂ M_t ∈ [−1, 0)) of the
    nonzero factors, and Z_t the number of zero factors among the first t."""
    T, N = mod.shape
    zero = mod == 0
    m, e = torch.frexp(torch.where(zero, torch.ones_like(mod), mod))
    E = torch.zeros(T + 1, N, dtype=torch.float64, device=mod.device)
    M = torch.ones(T + 1, N, dtype=torch.float64, device=mod.device)
    cm, ce = torch.ones(N, dtype=torch.float64, device=mod.device), torch.zeros(N, dtype=torch.float64,
                                                                             device=mod.device)
    for lo in range(0, T, _BLOCK):
        hi = min(T, lo + _BLOCK)
        blk = torch.cumprod(m[lo:hi], 0) * cm
        bm, be = torch.frexp(blk)
        M[lo + 1:hi + 1] = bm
        E[lo + 1:hi + 1] = ce + torch.cumsum(e[lo:hi].to(torch.float64), 0) + be.to(torch.float64)
        cm, ce = M[hi], E[hi]
    Z = torch.cat([torch.zeros(1, N, dtype=torch.int64, device=mod.device), torch.cumsum(zero.long(), 0)])
    return E, torch.log2(M), Z


def diagonal_rtol(t: int, s: int, log2_value: float, prefix_log2: float = 0.0) -> float:
    """The relative error bound of a fast-path value at the pair (t, s) whose value is 2^log2_value (module
    docstring): (c_t + c_s + 4 + ln2·(|log2_value| + 4 + 2·prefix_log2))·u, c_t = t + ⌈t/_BLOCK⌉, u = 2⁻⁵³, where
    prefix_log2 bounds |ℓ_t|, |ℓ_s| when d was formed from ℓ (0 for the split form). Exact zeros (a zero factor in
    the window) are exact."""
    def c(k):
        return k + (k + _BLOCK - 1) // _BLOCK
    return float((c(t) + c(s) + 4 + math.log(2) * (abs(log2_value) + 4 + 2 * prefix_log2)) * _U)


def diagonal_maps(mod: Tensor, multiplicity: int, norms, steps: Tensor | None = None) -> dict[str, Tensor]:
    """Norm maps of the products Π_{k=s+1..t} diag(a_k) from the moduli |a| (module docstring).

    Args:
        mod: (T, N) float64 moduli |a_{t,i}| ≥ 0 (row t − 1 is step t). multiplicity: m (1 real, 2 for the real view
            of a complex state: the Frobenius norm counts each coordinate's 2 × 2 block).
        norms: any of ``"spectral"``, ``"frobenius"``, ``"smallest"``, ``"smallest_log10"``.
        steps: None (all pairs 0 ≤ s ≤ t ≤ T) or the grid's steps (R,) ascending in [0, T].

    Returns:
        name → (T + 1, T + 1) or (R, R) float64 map indexed [t, s], 0 above the diagonal (``smallest_log10``:
        NaN there, −inf where a zero factor makes the product singular), and ``"rtol"``: the largest relative error
        bound of the map's values (:func:`diagonal_rtol`), a float.
    """
    E, F, Z = _prefix(mod)
    if steps is not None:
        E, F, Z = E[steps], F[steps], Z[steps]
    R, N = E.shape
    L = E + F
    lmax = float(L.abs().max())
    combined = lmax <= _COMBINED_MAX
    widest = 0.0  # the largest finite |d| of a value returned
    out = {nm: torch.zeros(R, R, dtype=torch.float64, device=mod.device) for nm in norms}
    if "smallest_log10" in out:
        out["smallest_log10"].fill_(math.nan)
    chunk = max(1, _CHUNK_ELEMENTS // max(1, R * N))
    any_zero = bool(Z[-1].any())
    buf = torch.empty(min(R, chunk) * R * N, dtype=torch.float64, device=mod.device)  # reused: no page faults
    for t0 in range(0, R, chunk):
        t1 = min(R, t0 + chunk)
        d = buf[:(t1 - t0) * t1 * N].view(t1 - t0, t1, N)
        if combined:
            torch.sub(L[t0:t1, None, :], L[None, :t1, :], out=d)
        else:
            torch.sub(E[t0:t1, None, :], E[None, :t1, :], out=d)
            d.add_(F[t0:t1, None, :]).sub_(F[None, :t1, :])
        if any_zero:
            d.masked_fill_((Z[t0:t1, None, :] - Z[None, :t1, :]) > 0, -math.inf)
        lower = torch.arange(t0, t1, device=mod.device)[:, None] >= torch.arange(t1, device=mod.device)[None, :]
        if "spectral" in out or "frobenius" in out:
            top = d.amax(-1)
            widest = max(widest, _largest_finite(top, lower))
            if "spectral" in out:
                out["spectral"][t0:t1, :t1] = torch.where(lower, torch.exp2(top), 0.0)
            if "frobenius" in out:
                finite = torch.isfinite(top)
                shift = torch.where(finite, top, torch.zeros_like(top))
                ssum = torch.exp2(2 * (d - shift[..., None])).sum(-1)
                fro = torch.exp2(shift) * torch.sqrt(multiplicity * ssum)
                out["frobenius"][t0:t1, :t1] = torch.where(lower & finite, fro, 0.0)
        if "smallest" in out or "smallest_log10" in out:
            low = d.amin(-1)
            widest = max(widest, _largest_finite(low, lower))
            if "smallest" in out:
                out["smallest"][t0:t1, :t1] = torch.where(lower, torch.exp2(low), 0.0)
            if "smallest_log10" in out:
                out["smallest_log10"][t0:t1, :t1] = torch.where(lower, low * math.log10(2), math.nan)
    T = mod.shape[0] if steps is None else int(steps[-1])
    out["rtol"] = diagonal_rtol(T, T, widest, lmax if combined else 0.0)
    return out


def _largest_finite(v: Tensor, mask: Tensor) -> float:
    keep = mask & torch.isfinite(v)
    return float(v[keep].abs().max()) if bool(keep.any()) else 0.0
