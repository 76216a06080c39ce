"""ε-pseudospectra, transient growth and the Kreiss constant of a recurrent matrix A.

enrnn.md Sec. 2: a non-normal recurrent matrix with spectrum inside the unit disc can still
amplify inputs for a while, "as determined by the pseudo spectrum", before the asymptotic decay
set by the spectrum. These probes quantify that statement:

* σ_min(zI − A) on a grid: the ε-pseudospectrum is Λ_ε(A) = {z : σ_min(zI − A) < ε}
  = {z : ‖(zI − A)^{-1}‖₂ > 1/ε}. Computed by the EigTool method (Trefethen 1999; Wright &
  Trefethen 2001): one complex Schur form A = U T U^H, then for each z inverse Lanczos on
  ((zI − T)^H (zI − T))^{-1}, which costs two triangular solves, O(n²), per step instead of an
  O(n³) SVD per point. The solves are vectorised over many grid points at once: the shifts only
  change the diagonal, so a blocked back substitution does the off-diagonal work as matrix
  products shared by all shifts; a handful of points are solved one at a time with
  scipy.linalg.solve_triangular.
  For a normal A (Schur factor T diagonal up to rounding) none of this is needed:
  σ_min(zI − A) = min_i |z − λ_i| exactly, and an orthogonal recurrent matrix, the core case of
  the papers, is normal. The Schur factor T = D + N tells how far A is from normal: Henrici's
  departure ‖N‖_F (the same for every Schur form), and by Weyl's inequality for singular values
  |σ_min(zI − T) − σ_min(zI − D)| ≤ ‖N‖₂ ≤ ‖N‖_F, so the distance formula is off by at most
  ‖N‖_F (plus the Schur form's own backward error, which the Lanczos route on T carries as well). It is used
  everywhere when ‖N‖_F ≤ normal_tol·‖A‖_F (:data:`NORMAL_TOL`).
  A nearly normal A (an orthogonal matrix stored in float32 and read in float64: ‖N‖_F ≈ 1e-7·‖A‖_F) is not
  normal to that tolerance, but the same inequality certifies the formula point by point: with δ ≥ ‖N‖_F plus
  the Schur form's backward error (:meth:`_ShiftedSchur.weyl_radius`) and d = min_i |z − λ_i|,
  |σ_min(zI − A) − d| ≤ δ, so σ_min ≥ d − δ and the relative error |d − σ_min|/σ_min ≤ δ/(d − δ), which is
  ≤ rtol wherever d ≥ δ(1 + rtol)/rtol. ``pseudospectrum(..., distance_rtol=rtol)`` takes the formula at those
  points and inverse Lanczos only at the others (those near an eigenvalue): method ``"mixed"``.
* transient growth: the curve ‖A^k‖₂, k = 0..K, and its peak.
* Kreiss constant K(A) = sup_{|z|>1} (|z| − 1)‖(zI − A)^{-1}‖₂, with the Kreiss matrix theorem
  K(A) ≤ sup_k ‖A^k‖₂ ≤ e·n·K(A).

Matrices are validated by :func:`analysis.spectra.as_square_matrix`. The work is done on the
CPU in complex128 whatever A's dtype; results are returned in A's real dtype on A's device.

Complex matrices: a complex recurrent matrix (an LRU's diag(λ), a complex cell's W) is probed as it is, in
complex arithmetic. The state it acts on is probed as the real state (Re z, Im z) ∈ ℝ²ᴺ (:mod:`cells.real_view`),
whose linear map is the realification [[Re W, −Im W], [Im W, Re W]]: its eigenvalues are λ(W) ∪ conj(λ(W)), its
singular values those of W each twice, and its pseudospectrum at z is the smaller of W's and conj(W)'s, so the
spectra of W itself are the ones shown (without the conjugate copies).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import scipy.linalg
import torch
from torch import Tensor

from rnnaudit.analysis.norms import power_of_two_scale
from rnnaudit.analysis.spectra import as_square_matrix
from rnnaudit.limits import check_sizes

__all__ = ["sigma_min", "sigma_min_dense", "pseudospectrum", "PseudospectrumGrid", "transient_growth",
           "TransientGrowth", "kreiss_constant", "KreissEstimate", "NORMAL_TOL", "pseudospectral_abscissa",
           "pseudospectral_radius"]

#: A counts as normal when its Schur factor's strictly upper part has ‖N‖_F ≤ NORMAL_TOL·‖A‖_F; then
#: σ_min(zI − A) is taken as min_i |z − λ_i|, off by at most ‖N‖₂ ≤ ‖N‖_F (Weyl). The complex Schur
#: form is itself only backward stable: it is the exact Schur form of A + E with ‖E‖_F ≈ p(n)·u·‖A‖_F,
#: p(n) a modest multiple of n (measured: ‖N‖_F/‖A‖_F = 4e-15 ≈ 40u for an orthogonal 128×128 φ(Θ)).
#: So the Lanczos route on T already carries an error of that size; 1e-12 (≈ 9000u) admits the
#: rounding of the Schur form up to n of several thousand, and adds an error of at most
#: 1e-12·‖A‖_F, well below any ε a pseudospectrum plot or check uses.
NORMAL_TOL = 1e-12
#: Dense n × n complex128 arrays the Schur route holds at once (for the memory check before anything is allocated):
#: the input's complex copy, the Schur factor T and the unitary U with LAPACK's workspace, the solver's copies of T,
#: N and N^H, and the matrix of the single-point solves; two more for the products of the backward-error bound
#: (:meth:`_ShiftedSchur.weyl_radius`).
_SCHUR_COPIES = 12
#: The same for the outermost extent: the Schur route, and the (2n) × (2n) matrix of :func:`_outermost` with its
#: eigenvalue workspace (4 n × n arrays each).
_OUTERMOST_COPIES = 24
#: Bytes per grid point of :func:`pseudospectrum` and :func:`kreiss_constant`: the complex point, σ_min, the
#: Lanczos step count and the returned tensors' copies.
_POINT_BYTES = 48
#: Points per chunk of the distance formula: a (chunk, n) complex array of about 32 MiB at most.
_DISTANCE_ENTRIES = 1 << 21
#: Unit roundoff of float64.
_U = float(np.finfo(np.float64).eps) / 2
#: Relative rounding of the computed distance d̂ = fl(min_i |z − λ_i|) = d(1 + θ), |θ| ≤ _DISTANCE_ROUNDING: the
#: complex difference z − λ_i is rounded componentwise (relative u on its modulus) and the modulus (hypot) adds at
#: most 2u more; the minimum is exact. 5u covers both with room.
_DISTANCE_ROUNDING = 5 * _U


def _gamma(k: int) -> float:
    """Higham's γ_k = ku/(1 − ku) (Accuracy and Stability of Numerical Algorithms, 2002, Lemma 3.1): the relative
    error bound of a k-term sum or inner product in float64."""
    return k * _U / (1 - k * _U)

#: Up to this many points per call are solved one by one with scipy.linalg.solve_triangular;
#: beyond it the blocked multi-shift solve amortises its Python overhead over the points.
_SMALL_BATCH = 8
#: Diagonal block size of the blocked multi-shift solves (rows done one by one inside a block), from n =
#: :data:`_BLAS_ROWS_N` on, where the rows inside a block are BLAS calls.
_BLOCK = 32
#: The same below it, where each row is a numpy loop: smaller blocks move most of the work into the matrix
#: products shared by all shifts (measured for n = 64: 1.8 s instead of 3.6 s for 101 × 51 points, load 11, block 8
#: against 32; block 4 against 8 on a 101 × 51 grid, alternated in one process at load 3.5: 1.03 s against 1.33 s at
#: n = 64, 0.38 s both at n = 32, 1.81 s against 1.87 s at n = 100; block 2 was slower again).
_SMALL_N_BLOCK = 4
#: From this n on, row updates inside diagonal blocks use BLAS (see _ShiftedSchur.__init__); below it BLAS is held to
#: one thread (threadpoolctl), since waking its threads for the small products costs more than they save, and far
#: more on a loaded machine (n = 64: 6.4 s with OpenBLAS's 2 threads, 2.9 s with one, at load 11).
_BLAS_ROWS_N = 128
#: Newton iterations of :meth:`_ShiftedSchur._largest_ritz` before a column falls back to a dense eigvalsh (measured
#: on a 64-wide grid's tridiagonals of up to 20 steps: at most 49 from Gershgorin's bound).
_RITZ_NEWTON_STEPS = 100
#: Complex entries of the (n, chunk) Lanczos arrays when ``chunk`` is left to :func:`_default_chunk`: about 6 such
#: arrays are live (48 MiB), and a larger chunk spreads the per-row Python work of the solves over more shifts.
_LANCZOS_ENTRIES = 1 << 19


def _real_dtype(A: Tensor) -> torch.dtype:
    return A.real.dtype if A.is_complex() else A.dtype


def _check_normal_tol(normal_tol: float) -> None:
    if isinstance(normal_tol, bool) or not isinstance(normal_tol, (int, float)) or not 0 <= normal_tol < 1:
        raise ValueError(f"normal_tol must be a number in [0, 1), got {normal_tol!r}")


def _check_distance_rtol(distance_rtol) -> None:
    if distance_rtol is None:
        return
    if isinstance(distance_rtol, bool) or not isinstance(distance_rtol, (int, float)) or not 0 < distance_rtol < 1:
        raise ValueError(f"distance_rtol must be None or a number in (0, 1), got {distance_rtol!r}")


def _check_tol(tol: float, maxiter: int, chunk: int | None) -> None:
    if not (isinstance(tol, (int, float)) and 0 < tol < 1):
        raise ValueError(f"tol must be a number in (0, 1), got {tol!r}")
    if isinstance(maxiter, bool) or not isinstance(maxiter, int) or maxiter < 2:
        raise ValueError(f"maxiter must be an integer >= 2, got {maxiter!r}")
    if chunk is not None and (isinstance(chunk, bool) or not isinstance(chunk, int) or chunk < 1):
        raise ValueError(f"chunk must be a positive integer or None, got {chunk!r}")


def _default_chunk(n: int) -> int:
    """Points per Lanczos batch: (n, chunk) arrays of :data:`_LANCZOS_ENTRIES` entries, at least 1024 points."""
    return max(1024, _LANCZOS_ENTRIES // max(n, 1))


def _check_points(name: str, count: int, device=None) -> None:
    """Raise ValueError unless ``count`` grid points (:data:`_POINT_BYTES` each) fit the memory limit; checked
    before the grid is built."""
    from rnnaudit.analysis.grid_maps import default_memory_limit

    limit = min(default_memory_limit("cpu"), default_memory_limit(device))
    if count * _POINT_BYTES > limit:
        raise ValueError(f"{name}: {count} grid points need about {count * _POINT_BYTES / 2**30:.3g} GiB, above the "
                         f"memory limit of {limit / 2**30:.3g} GiB")


def _as_points(z, name: str = "z") -> np.ndarray:
    arr = z.detach().cpu().numpy() if isinstance(z, Tensor) else np.asarray(z)
    if arr.dtype.kind not in "biufc":
        raise ValueError(f"{name} must hold real or complex numbers, got dtype {arr.dtype}")
    _check_points(name, arr.size)
    arr = arr.astype(np.complex128)
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} must be finite, found {(~np.isfinite(arr)).sum()} NaN/Inf entries")
    return arr


def _einsum_rowdot(u: np.ndarray, X: np.ndarray) -> np.ndarray:
    return np.einsum("k,kg->g", u, X)


def _colvdot_real(Q: np.ndarray, W: np.ndarray) -> np.ndarray:
    """Re(q_g^H w_g) for every column g, without temporaries (complex viewed as (re, im) pairs)."""
    n, G = Q.shape
    return np.einsum("igk,igk->g", Q.view(np.float64).reshape(n, G, 2), W.view(np.float64).reshape(n, G, 2))


def _colnorm(W: np.ndarray) -> np.ndarray:
    """‖w_g‖₂ for every column g of a C-contiguous complex array."""
    return np.sqrt(_colvdot_real(W, W))


def _fro(M: np.ndarray) -> float:
    """‖M‖_F without under- or overflow of the squares (scaled by a power of two first,
    :func:`rnnaudit.analysis.norms.power_of_two_scale`, as LAPACK's dlassq scales): numpy's norm reads a matrix of
    entries below ~1e−162 as 0 and above ~1e154 as inf, which would pass a non-normal A as normal (0 ≤ 0,
    inf ≤ inf) and certify every grid point with δ = 0."""
    unit = float(power_of_two_scale(torch.from_numpy(M)))
    return float(np.linalg.norm(M / unit)) * unit


def _solver_in_range(A: Tensor) -> tuple["_ShiftedSchur", float]:
    """(the solver of A/s, s): s = 1 for an A whose largest entry lies in [2^−64, 2^64] (or is 0), else the power of
    two that brings it to [1, 2) (:func:`rnnaudit.analysis.norms.power_of_two_scale`). Inverse Lanczos squares
    1/σ_min, so ‖A‖ ≳ 1e80 read β = 0 (an invariant subspace) after one step; σ_min(zI − A) = s·σ_min((z/s)I − A/s)
    exactly for a power of two s, so the caller divides its points by s and multiplies σ_min by s."""
    unit = float(power_of_two_scale(A))
    if 2.0 ** -64 <= unit <= 2.0 ** 64:
        return _ShiftedSchur(A), 1.0
    return _ShiftedSchur(A / unit), unit


class _ShiftedSchur:
    """σ_min(zI − A) for many z from one complex Schur form A = U T U^H (σ_min(zI − A) = σ_min(zI − T))."""

    def __init__(self, A: Tensor):
        self._A = A.detach().cpu().numpy().astype(np.complex128)
        T, self.U = scipy.linalg.schur(self._A, output="complex")
        self._weyl_radius = None
        self.n = T.shape[0]
        self.t = np.ascontiguousarray(np.diag(T))
        self.T = np.ascontiguousarray(T)
        self.N = np.ascontiguousarray(np.triu(T, 1))  # strictly upper part N of T = D + N, shared by all shifts
        self.NH = np.ascontiguousarray(self.N.conj().T)  # N^H, the strictly lower part of (T − zI)^H
        self.departure = _fro(self.N)  # Henrici's ‖N‖_F, from the Schur factor
        self.scale = _fro(self.T)  # ‖A‖_F (unitary invariance)
        # Row updates inside diagonal blocks: BLAS gemv is ~5× faster single-threaded, but for
        # small n the work is too little to pay for waking BLAS threads (on a loaded machine
        # multi-threaded OpenBLAS gemv was ~1000× slower here), so einsum's own loop is used.
        self._rowdot = np.dot if self.n >= _BLAS_ROWS_N else _einsum_rowdot
        self._block = _BLOCK if self.n >= _BLAS_ROWS_N else _SMALL_N_BLOCK

    # -- blocked multi-shift triangular solves: column g of B uses the shift z_g ------------------
    def _upper(self, Dinv: np.ndarray, B: np.ndarray, lo: int, hi: int) -> None:
        """In place: B[lo:hi] ← (T − diag(z))[lo:hi, lo:hi]^{-1} B[lo:hi], Dinv = 1/(t_ii − z_g)."""
        if hi - lo <= self._block:
            for i in range(hi - 1, lo - 1, -1):
                if i + 1 < hi:
                    B[i] -= self._rowdot(self.N[i, i + 1:hi], B[i + 1:hi])
                B[i] *= Dinv[i]
            return
        mid = (lo + hi) // 2
        self._upper(Dinv, B, mid, hi)
        B[lo:mid] -= self.N[lo:mid, mid:hi] @ B[mid:hi]  # shared by all shifts: one matrix product
        self._upper(Dinv, B, lo, mid)

    def _lower(self, DinvH: np.ndarray, B: np.ndarray, lo: int, hi: int) -> None:
        """In place: B[lo:hi] ← ((T − diag(z))^H)[lo:hi, lo:hi]^{-1} B[lo:hi], DinvH = conj(Dinv)."""
        if hi - lo <= self._block:
            for i in range(lo, hi):
                if i > lo:
                    B[i] -= self._rowdot(self.NH[i, lo:i], B[lo:i])
                B[i] *= DinvH[i]
            return
        mid = (lo + hi) // 2
        self._lower(DinvH, B, lo, mid)
        B[mid:hi] -= self.NH[mid:hi, lo:mid] @ B[lo:mid]
        self._lower(DinvH, B, mid, hi)

    def _apply_blocked(self, z: np.ndarray, Dinv: np.ndarray, DinvH: np.ndarray, Q: np.ndarray) -> np.ndarray:
        """Column g of the result is (T − z_g I)^{-1}(T − z_g I)^{-H} q_g (blocked, all columns at once)."""
        W = Q.copy()
        self._lower(DinvH, W, 0, self.n)
        self._upper(Dinv, W, 0, self.n)
        return W

    def _apply_single(self, z: np.ndarray, Dinv: np.ndarray, DinvH: np.ndarray, Q: np.ndarray) -> np.ndarray:
        """Same as :meth:`_apply_blocked`, one column at a time with scipy.linalg.solve_triangular."""
        W = np.empty_like(Q)
        M = self.T.copy()
        idx = np.arange(self.n)
        for g in range(Q.shape[1]):
            M[idx, idx] = self.t - z[g]
            y = scipy.linalg.solve_triangular(M, Q[:, g], trans="C", check_finite=False)
            W[:, g] = scipy.linalg.solve_triangular(M, y, check_finite=False)
        return W

    def is_normal(self, normal_tol: float) -> bool:
        """‖N‖_F ≤ normal_tol·‖A‖_F: the distance formula is then within normal_tol·‖A‖_F of σ_min.
        normal_tol = 0 never takes the formula."""
        return normal_tol > 0 and self.departure <= normal_tol * self.scale

    def weyl_radius(self) -> float:
        """δ ≥ |σ_min(zI − A) − min_i |z − t_ii|| for every z, from the computed Schur form A ≈ U T U^H.

        Let Q be the unitary polar factor of the computed U and ω = ‖U^H U − I‖₂; then ‖U − Q‖₂ ≤ ω (each singular
        value s of U has |s − 1| ≤ |s² − 1|), and A = Q T Q^H + E with E = R + (U − Q) T U^H + Q T (U − Q)^H,
        R = A − U T U^H, so ‖E‖₂ ≤ ‖R‖_F + ω(2 + ω)‖T‖_F. By Weyl's inequality for singular values
        σ_min(zI − A) is within ‖E‖₂ of σ_min(zI − T), which is within ‖N‖₂ ≤ ‖N‖_F of σ_min(zI − D) =
        min_i |z − t_ii| (T = D + N). So δ = ‖N‖_F + ‖R‖_F + ω(2 + ω)‖T‖_F, each computed norm raised by its own
        rounding bound: a product of n-term inner products errs by γ_n entrywise in absolute value, so
        |fl(U T U^H) − U T U^H| ≤ γ_{2n}|U||T||U^H| (Frobenius ≤ γ_{2n}‖U‖_F²‖T‖_F, ‖U‖_F computed), likewise
        for U^H U, and a Frobenius norm of k entries errs relatively by at most γ_{k+1}. Computed once (two
        products of O(n³), as much as the Schur form's own back-transformation), on first use.

        Source: Weyl (1912) for singular values, Horn & Johnson, Topics in Matrix Analysis (1991), Thm. 3.3.16;
        Higham (2002), Sec. 3.5 (rounding of matrix products).
        """
        if self._weyl_radius is None:
            n, U, T = self.n, self.U, self.T
            grow = 1 + _gamma(n * n + 1)  # rounding of each Frobenius norm of n² entries
            t_norm = self.scale * grow
            u_norm2 = (float(np.linalg.norm(U)) * grow) ** 2  # ‖U‖_F², bounding the products' rounding
            omega = (float(np.linalg.norm(U.conj().T @ U - np.eye(n))) * grow
                     + _gamma(n + 1) * (u_norm2 + math.sqrt(n)))
            residual_hat = _fro(self._A - (U @ T) @ U.conj().T) * grow
            a_norm = _fro(self._A) * grow
            residual = residual_hat + _gamma(2 * n + 1) * (a_norm + u_norm2 * t_norm)
            departure = self.departure * grow
            self._weyl_radius = (departure + residual + omega * (2 + omega) * t_norm) * (1 + 4 * _U)
        return self._weyl_radius

    def certified_distance(self, z: np.ndarray, distance_rtol: float) -> tuple[np.ndarray, np.ndarray]:
        """(d̂, mask): d̂ = fl(min_i |z − λ_i|) for a flat complex array z, and where ``mask`` is True, d̂ equals
        σ_min(zI − A) to relative error ≤ distance_rtol.

        With δ = :meth:`weyl_radius` and |d̂ − d| ≤ ε_d·d (ε_d = :data:`_DISTANCE_ROUNDING`), the returned d̂ is
        within e = δ + 2ε_d·d̂ of σ_min, so σ_min ≥ d̂ − e and |d̂ − σ_min|/σ_min ≤ e/(d̂ − e), which is ≤ rtol exactly
        when e(1 + rtol) ≤ rtol·d̂: the test applied (it fails where d̂ ≤ e, at and near the eigenvalues).
        """
        d = self.distance(z)
        err = self.weyl_radius() + 2 * _DISTANCE_ROUNDING * d
        return d, err * (1 + distance_rtol) <= distance_rtol * d

    def distance(self, z: np.ndarray) -> np.ndarray:
        """min_i |z − λ_i| for a flat complex array z: σ_min(zI − D), D = diag(T)."""
        out = np.empty(z.size)
        step = max(1, _DISTANCE_ENTRIES // self.n)
        for lo in range(0, z.size, step):
            out[lo:lo + step] = np.abs(z[lo:lo + step, None] - self.t[None, :]).min(axis=1)
        return out

    # -- inverse Lanczos ----------------------------------------------------------------------------
    def sigma_min(self, z: np.ndarray, tol: float, maxiter: int, chunk: int | None, rng: np.random.Generator,
                  normal_tol: float = 0.0, progress=None) -> tuple[np.ndarray, np.ndarray]:
        """σ_min(zI − T) and the Lanczos steps used (0 for the distance formula), for a flat complex
        array z, ``chunk`` points at a time (None: :func:`_default_chunk`); ``progress(k)`` after each k points
        done."""
        sig, steps, _ = self.sigma_min_routed(z, tol, maxiter, chunk, rng, normal_tol, None, progress)
        return sig, steps

    def sigma_min_routed(self, z: np.ndarray, tol: float, maxiter: int, chunk: int | None,
                         rng: np.random.Generator, normal_tol: float = 0.0, distance_rtol: float | None = None,
                         progress=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """As :meth:`sigma_min`, also returning the boolean mask of the points given by the distance formula: all
        of them when A is normal to within ``normal_tol``; else, with ``distance_rtol``, those
        :meth:`certified_distance` certifies, the rest by inverse Lanczos."""
        if self.is_normal(normal_tol):
            sig = self.distance(z)
            if progress is not None:
                progress(z.size)
            return sig, np.zeros(z.size, dtype=np.int64), np.ones(z.size, dtype=bool)
        from threadpoolctl import threadpool_limits

        sig = np.empty(z.size)
        steps = np.zeros(z.size, dtype=np.int64)
        if distance_rtol is None:
            by_distance = np.zeros(z.size, dtype=bool)
        else:
            sig, by_distance = self.certified_distance(z, distance_rtol)
            if progress is not None and by_distance.any():
                progress(int(by_distance.sum()))
        rest = np.flatnonzero(~by_distance)
        zr = z[rest]
        chunk = _default_chunk(self.n) if chunk is None else chunk
        with threadpool_limits(1 if self.n < _BLAS_ROWS_N else None, user_api="blas"):
            for lo in range(0, zr.size, chunk):
                idx = rest[lo:lo + chunk]
                sig[idx], steps[idx] = self._lanczos(zr[lo:lo + chunk], tol, maxiter, rng)
                if progress is not None:
                    progress(idx.size)
        return sig, steps, by_distance

    def _lanczos(self, z: np.ndarray, tol: float, maxiter: int,
                 rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """Lanczos for λ_max of B_z = (T − zI)^{-1}(T − zI)^{-H}, λ_max = 1/σ_min², all z at once.

        Without reorthogonalisation: the largest Ritz value converges (monotonically from
        below) even after orthogonality is lost, which only adds spurious copies of it. A point
        stops when its largest Ritz value changes by ≤ tol relatively between two steps.
        Converged columns are dropped from the batch once they are ≥ 1/8 of it (dropping
        copies every batch array, so it is not done for every single column).
        """
        n, G = self.n, z.size
        sig = np.full(G, np.nan)
        steps = np.zeros(G, dtype=np.int64)
        D = self.t[:, None] - z[None, :]
        exact = (D == 0).any(axis=0)  # z is an eigenvalue: zI − T singular
        sig[exact] = 0.0
        active = np.flatnonzero(~exact)
        if active.size == 0:
            return sig, steps
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            Dinv = 1.0 / D[:, active]
        DinvH = Dinv.conj()
        zs = z[active]
        Q = rng.standard_normal((n, active.size)) + 1j * rng.standard_normal((n, active.size))
        Q /= _colnorm(Q)
        buf = np.zeros_like(Q)  # holds q_{k−1}, then scratch for α_k q_k
        alphas = np.empty((maxiter, active.size))
        betas = np.empty((maxiter, active.size))
        theta_prev = np.zeros(active.size)
        finished = np.zeros(active.size, dtype=bool)  # converged, still in the batch
        apply = self._apply_single if active.size <= _SMALL_BATCH else self._apply_blocked
        for k in range(maxiter):
            with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                W = apply(zs, Dinv, DinvH, Q)
                if k > 0:  # w −= β_{k−1} q_{k−1}, in place in the q_{k−1} buffer
                    W -= np.multiply(buf, betas[k - 1], out=buf)
                alpha = _colvdot_real(Q, W)
                W -= np.multiply(Q, alpha, out=buf)
                beta = _colnorm(W)
            alphas[k], betas[k] = alpha, beta
            theta = self._largest_ritz(alphas[:k + 1], betas[:k])
            bad = ~np.isfinite(theta) | ~np.isfinite(beta)
            # β = 0: the Krylov space is invariant and θ is exact.
            done = bad | (np.abs(theta - theta_prev) <= tol * theta) | (beta <= 1e-15 * theta)
            if k == maxiter - 1:  # not converged: marked NaN, recomputed densely below
                bad |= ~done
                done[:] = True
            new = done & ~finished
            if new.any():
                idx = active[new]
                with np.errstate(divide="ignore"):
                    sig[idx] = np.where(bad[new], np.nan, 1.0 / np.sqrt(theta[new]))
                steps[idx] = k + 1
                finished |= new
            if finished.all():
                break
            if finished.sum() * 8 >= finished.size:
                keep = np.flatnonzero(~finished)
                # np.take keeps the column blocks C-contiguous (W[:, keep] would not).
                Q, W, Dinv, DinvH = (np.take(a, keep, axis=1) for a in (Q, W, Dinv, DinvH))
                active, zs, beta, theta = active[keep], zs[keep], beta[keep], theta[keep]
                alphas, betas = alphas[:, keep], betas[:, keep]
                finished = finished[keep]
                if active.size <= _SMALL_BATCH:
                    apply = self._apply_single
            with np.errstate(divide="ignore", invalid="ignore"):
                # Finished columns may divide by β = 0; their values are no longer read.
                W /= np.where(beta == 0, 1.0, beta)
            buf, Q = Q, W
            theta_prev = theta
        # Overflow (σ_min below ~1e-150) or non-convergence: fall back to a dense SVD there.
        for i in np.flatnonzero(np.isnan(sig)):
            sig[i] = scipy.linalg.svdvals(self.T - z[i] * np.eye(n))[-1]
        return sig, steps

    @staticmethod
    def _largest_ritz(alphas: np.ndarray, betas: np.ndarray) -> np.ndarray:
        """Largest eigenvalue of each tridiagonal (alphas[:, g], betas[:, g]); NaN where the tridiagonal is not
        finite (overflow).

        Newton's method on p(λ) = det(T − λI) from Gershgorin's upper bound, all columns at once: p has only real
        roots, so from above its largest root Newton's iterates decrease monotonically to it (Stoer &
        Bulirsch, Introduction to Numerical Analysis, Sec. 5.5); p'/p = Σ d_i'/d_i comes from the LDLᵀ pivots
        d_i = α_i − λ − β_{i−1}²/d_{i−1} (the Sturm recurrence, backward stable), on the column scaled by its
        bound so nothing overflows. A column stops when the step falls to 4u of λ. O(m) vector operations per
        iteration instead of a dense m × m eigvalsh per column (2.5× faster on a 64-wide grid); a column that
        has not converged in :data:`_RITZ_NEWTON_STEPS` iterations, or breaks down, takes eigvalsh.
        """
        m, G = alphas.shape
        theta = np.full(G, np.nan)
        finite = np.isfinite(alphas).all(axis=0)
        if m > 1:
            finite &= np.isfinite(betas).all(axis=0)
        cols = np.flatnonzero(finite)
        a, b = alphas[:, cols], np.abs(betas[:, cols])
        bound = a.copy()
        if m > 1:
            bound[:-1] += b
            bound[1:] += b
        scale = np.abs(bound).max(axis=0)
        scale[scale == 0] = 1.0
        a = a / scale
        b2 = (b / scale) ** 2
        lam = bound.max(axis=0) / scale
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            for _ in range(_RITZ_NEWTON_STEPS):
                d = a[0] - lam
                dp = np.full_like(lam, -1.0)
                ratio = dp / d
                for i in range(1, m):
                    r = b2[i - 1] / d
                    dp = r * dp / d - 1.0
                    d = a[i] - lam - r
                    ratio += dp / d
                step = 1.0 / ratio
                new = lam - step
                # the step may turn negative by rounding at the root (where d_m = 0 it is exactly 0)
                done = np.abs(step) <= 4 * _U * np.abs(new)
                if done.any():
                    theta[cols[done]] = new[done] * scale[done]
                    keep = ~done
                    cols, a, b2, new, scale = cols[keep], a[:, keep], b2[:, keep], new[keep], scale[keep]
                lam = new
                if cols.size == 0:
                    break
        bad = np.concatenate([cols, np.flatnonzero(finite & ~np.isfinite(theta))])
        if bad.size:  # not converged, or a pivot broke down: the dense route
            bad = np.unique(bad)
            Tm = np.zeros((bad.size, m, m))
            i = np.arange(m)
            Tm[:, i, i] = alphas[:, bad].T
            Tm[:, i[:-1], i[1:]] = betas[:, bad].T
            Tm[:, i[1:], i[:-1]] = betas[:, bad].T
            theta[bad] = np.linalg.eigvalsh(Tm)[:, -1]
        return theta


def sigma_min(A, z, *, tol: float = 1e-11, maxiter: int = 200, chunk: int | None = None, seed: int = 0,
              normal_tol: float = NORMAL_TOL) -> Tensor:
    """σ_min(zI − A) = 1/‖(zI − A)^{-1}‖₂ at arbitrary complex points, by the EigTool method, or
    exactly as min_i |z − λ_i| when A is normal to within ``normal_tol`` (see the module docstring).

    One complex Schur form (scipy.linalg.schur(A, output='complex')); then, for all points of a
    chunk at once, inverse Lanczos on ((zI − T)^H(zI − T))^{-1} with two triangular solves per
    step. Accuracy: each point stops when its Ritz value changes by ≤ tol relatively; with the
    default tol the result agrees with a dense SVD to about 1e-12 relatively (6e-13 at worst over
    the 400 sampled points of benchmarks/bench_pseudospectra.py, n = 256). The absolute error is
    ≈ u·‖A‖₂ as for the dense SVD, so the relative error grows where σ_min ≪ u·‖A‖₂.
    A point equal to an eigenvalue of the Schur factor gets 0; points whose iteration
    overflows (σ_min ≲ 1e-77: the Lanczos vectors grow like 1/σ_min² and their norms are taken through
    squares) fall back to a dense SVD.

    Args:
        A: (n, n) real or complex matrix (tensor, array, or RecurrentCell).
        z: complex points, any shape (tensor, array or scalar).
        tol: relative stopping tolerance on the Lanczos Ritz value 1/σ_min², in (0, 1).
        maxiter: maximum Lanczos steps per point (≥ 2).
        chunk: points processed together (memory ≈ 6·n·chunk complex128 numbers); None (default):
            max(1024, 2¹⁹/n) points, about 48 MiB.
        seed: seed of the random Lanczos start vectors (results are deterministic).
        normal_tol: A counts as normal when Henrici's departure ‖N‖_F ≤ normal_tol·‖A‖_F
            (default :data:`NORMAL_TOL`; 0 always takes the Lanczos route).

    Returns:
        real tensor of z's shape, A's real dtype, on A's device.

    Raises:
        ValueError: bad A (see :func:`analysis.spectra.as_square_matrix`), non-finite z, bad
            tol/maxiter/chunk/normal_tol.

    Source: enrnn.md Sec. 2 (pseudospectra); T. G. Wright & L. N. Trefethen, "Large-scale
    computation of pseudospectra using ARPACK and eigs", SIAM J. Sci. Comput. 23 (2001) and
    L. N. Trefethen, "Computation of pseudospectra", Acta Numerica 8 (1999), Sec. 3.
    """
    _check_tol(tol, maxiter, chunk)
    _check_normal_tol(normal_tol)
    A = as_square_matrix(A, copies=_SCHUR_COPIES)
    zz = _as_points(z)
    solver, unit = _solver_in_range(A)
    sig, _ = solver.sigma_min(zz.ravel() / unit, tol, maxiter, chunk, np.random.default_rng(seed), normal_tol)
    return torch.as_tensor(sig.reshape(zz.shape) * unit, dtype=_real_dtype(A), device=A.device)


def sigma_min_dense(A, z) -> Tensor:
    """Reference σ_min(zI − A): one dense scipy.linalg.svdvals per point (O(n³) each).

    Args:
        A: (n, n) real or complex matrix. z: complex points, any shape.

    Returns:
        real tensor of z's shape, A's real dtype, on A's device (computed in complex128).

    Raises:
        ValueError: bad A or non-finite z.
    """
    A = as_square_matrix(A, copies=_SCHUR_COPIES)
    zz = _as_points(z)
    An = A.detach().cpu().numpy().astype(np.complex128)
    eye = np.eye(An.shape[0])
    sig = np.array([scipy.linalg.svdvals(zi * eye - An)[-1] for zi in zz.ravel()])
    return torch.as_tensor(sig.reshape(zz.shape), dtype=_real_dtype(A), device=A.device)


@dataclass
class PseudospectrumGrid:
    """σ_min(zI − A) on the grid z = x_j + i·y_i (see :func:`pseudospectrum`).

    ``sigma[i, j]`` belongs to (x[j], y[i]), the layout of ``matplotlib.pyplot.contour(x, y,
    sigma)``; the ε-pseudospectrum is the region where ``sigma < ε``. ``departure`` is Henrici's
    departure from normality ‖N‖_F of the Schur factor; ``method`` is ``"normal"`` where sigma is
    the exact distance min_i |z − λ_i| everywhere (A normal to within the tolerance), ``"mixed"`` where it is
    that distance at the points of ``from_distance`` (certified to relative error ``distance_rtol``) and inverse
    Lanczos at the others, else ``"lanczos"``. ``from_distance`` (bool, sigma's shape) marks the points given by
    the distance formula (all of them for ``"normal"``, none for ``"lanczos"``); ``weyl_radius`` is the δ of the
    certificate, |σ_min(zI − A) − min_i |z − λ_i|| ≤ δ at every z (NaN when not computed).
    """

    x: Tensor
    y: Tensor
    sigma: Tensor
    eigenvalues: Tensor
    lanczos_steps: Tensor = field(repr=False)
    departure: float = math.nan
    method: str = "lanczos"
    from_distance: Tensor | None = field(default=None, repr=False)
    distance_rtol: float | None = None
    weyl_radius: float = math.nan

    def contains(self, eps: float) -> Tensor:
        """Boolean mask (len(y), len(x)) of grid points inside Λ_ε(A), i.e. σ_min < eps.

        Raises:
            ValueError: eps <= 0.
        """
        if not eps > 0:
            raise ValueError(f"eps must be > 0, got {eps!r}")
        return self.sigma < eps


def _scaled(progress, computed: int, total: int):
    """``progress`` of ``computed`` points reported as the ``total`` grid points they stand for (the sum is total)."""
    state = {"done": 0, "told": 0}

    def tell(k: int) -> None:
        state["done"] += k
        told = state["done"] * total // computed
        progress(told - state["told"])
        state["told"] = told

    return tell


def pseudospectrum(A, x, y, *, tol: float = 1e-11, maxiter: int = 200, chunk: int | None = None,
                   seed: int = 0, normal_tol: float = NORMAL_TOL, distance_rtol: float | None = None,
                   progress=None) -> PseudospectrumGrid:
    """σ_min(zI − A) on a rectangular grid, for ε-pseudospectrum contour plots.

    A normal A (orthogonal, unitary, symmetric: ‖N‖_F ≤ normal_tol·‖A‖_F) takes the exact
    distance formula min_i |z − λ_i|, O(n) per point; any other the EigTool route of
    :func:`sigma_min`, or, with ``distance_rtol``, the distance formula wherever Weyl's inequality certifies it
    to that relative error and the EigTool route elsewhere (see the module docstring: a point at distance
    d ≥ δ(1 + rtol)/rtol from the spectrum, δ ≥ ‖N‖_F plus the Schur form's backward error). For a real A,
    σ_min(z̄I − A) = σ_min(zI − A), so each |y| is computed once and the rows y and −y hold the same values.

    Args:
        A: (n, n) real or complex matrix (tensor, array, or RecurrentCell).
        x: real parts, 1-D (nx ≥ 1). y: imaginary parts, 1-D (ny ≥ 1).
        tol, maxiter, chunk, seed, normal_tol: see :func:`sigma_min`.
        distance_rtol: relative error in (0, 1) allowed at the points given by the distance formula, or None
            (default: inverse Lanczos at every point of a matrix that is not normal to within ``normal_tol``).
            Not read for a matrix normal to within ``normal_tol``: there every point takes the formula, within
            normal_tol·‖A‖_F absolutely (``method`` "normal"), not certified to a relative error.
        progress: optional callable, called with the number of grid points finished after each
            chunk (they sum to nx·ny), e.g. ``tqdm(total=nx * ny).update``.

    Returns:
        :class:`PseudospectrumGrid` with x, y (A's real dtype), sigma (ny, nx), the eigenvalues
        (diagonal of the Schur factor, complex), the Lanczos steps per point (0 for the distance
        formula), the departure from normality, the method, the mask of the points given by the distance
        formula and, with ``distance_rtol``, the certificate's δ; on A's device.

    Raises:
        ValueError: x or y not 1-D, empty, complex or non-finite; distance_rtol not None or in (0, 1); see
            :func:`sigma_min`.
        TypeError: progress not callable.

    Source: enrnn.md Sec. 2; EigTool (Wright 2002) grid computation, Trefethen (1999) Sec. 3; Weyl's inequality
    for singular values (Horn & Johnson, Topics in Matrix Analysis, 1991, Thm. 3.3.16).
    """
    _check_tol(tol, maxiter, chunk)
    _check_normal_tol(normal_tol)
    _check_distance_rtol(distance_rtol)
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be a callable taking a number of points, got {type(progress).__name__}")
    axes = []
    for name, v in (("x", x), ("y", y)):
        if isinstance(v, (str, bytes, dict, set)) or v is None:
            raise TypeError(f"{name} must be a 1-D array of real numbers, got {type(v).__name__}")
        arr = v.detach().cpu().numpy() if isinstance(v, Tensor) else np.asarray(v)
        if arr.ndim != 1 or arr.size == 0:
            raise ValueError(f"{name} must be a non-empty 1-D array of real numbers, got shape {arr.shape}")
        if arr.dtype.kind not in "biuf":
            raise ValueError(f"{name} must be real, got dtype {arr.dtype}")
        axes.append(arr)
    _check_points("the grid x × y", axes[0].size * axes[1].size)
    for name, arr in zip("xy", axes):
        if not np.isfinite(arr).all():
            raise ValueError(f"{name} must be finite")
    axes = [arr.astype(np.float64) for arr in axes]
    A = as_square_matrix(A, copies=_SCHUR_COPIES)
    xa, ya = axes
    # A real: conj(zI − A) = z̄I − A has the same singular values, so the rows y and −y are equal; each |y| is
    # computed once (half the work on a grid symmetric about the real axis, and a figure symmetric exactly)
    rows, inverse = (np.unique(np.abs(ya), return_inverse=True) if not A.is_complex()
                     else (ya, np.arange(ya.size)))
    Z = xa[None, :] + 1j * rows[:, None]
    solver, unit = _solver_in_range(A)
    sig, steps, by_distance = solver.sigma_min_routed(
        Z.ravel() / unit, tol, maxiter, chunk, np.random.default_rng(seed), normal_tol, distance_rtol,
        None if progress is None else _scaled(progress, Z.size, xa.size * ya.size))
    sig = sig * unit
    shape = (ya.size, xa.size)
    sig, steps, by_distance = (a.reshape(Z.shape)[inverse.ravel()] for a in (sig, steps, by_distance))
    rd, dev = _real_dtype(A), A.device
    normal = solver.is_normal(normal_tol)
    mixed = not normal and distance_rtol is not None
    return PseudospectrumGrid(
        x=torch.as_tensor(xa, dtype=rd, device=dev), y=torch.as_tensor(ya, dtype=rd, device=dev),
        sigma=torch.as_tensor(sig.reshape(shape), dtype=rd, device=dev),
        eigenvalues=torch.as_tensor(solver.t * unit, device=dev),
        lanczos_steps=torch.as_tensor(steps.reshape(shape), device=dev),
        departure=solver.departure * unit, method="normal" if normal else "mixed" if mixed else "lanczos",
        from_distance=torch.as_tensor(by_distance.reshape(shape), device=dev),
        distance_rtol=float(distance_rtol) if mixed else None,
        weyl_radius=solver.weyl_radius() * unit if mixed else math.nan)


@dataclass
class TransientGrowth:
    """‖A^k‖₂ for k = 0..K (``curve[k]``), its maximum ``peak`` and the first k attaining it."""

    curve: Tensor
    peak: float
    k_peak: int


def transient_growth(A, K: int, *, batch: int = 64, allow_large: bool = False) -> TransientGrowth:
    """Transient growth curve ‖A^k‖₂, k = 0..K, and max_k ‖A^k‖₂.

    For ρ(A) < 1 the curve eventually decays like ρ^k; a non-normal A can first rise above 1
    (enrnn.md Sec. 2, "transient amplification"). Powers are formed by repeated multiplication
    and their spectral norms taken by torch.linalg.matrix_norm(ord=2) in batches, so memory is
    O(batch·n²). Powers may overflow to inf (ρ > 1, large K) or underflow to 0, as in floating
    point arithmetic; the curve then reports inf/0.

    Args:
        A: (n, n) real or complex matrix. K: largest power (≥ 0). batch: powers per norm call.
        allow_large: lift the limit on K (:data:`rnnaudit.limits.LIMITS` ``.T``: K products of n × n
            matrices and a curve of K + 1 entries; K = 10¹² would run for days and hold 8 TB).

    Returns:
        :class:`TransientGrowth` with curve (K + 1,) in A's real dtype on A's device.

    Raises:
        ValueError: K not a non-negative integer, batch < 1; see
            :func:`analysis.spectra.as_square_matrix`.
        rnnaudit.limits.TooLargeError: K above the limit.
    """
    if isinstance(K, bool) or not isinstance(K, int) or K < 0:
        raise ValueError(f"K must be a non-negative integer, got {K!r}")
    if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
        raise ValueError(f"batch must be a positive integer, got {batch!r}")
    check_sizes("transient_growth: K + 1 powers", allow_large=allow_large, T=K + 1)
    # a block of min(batch, K + 1) powers and their stack (float64: half a complex128 array each), and A
    A = as_square_matrix(A, copies=min(batch, K + 1) + 4)
    n = A.shape[0]
    P = torch.eye(n, dtype=A.dtype, device=A.device)
    norms = []
    for start in range(0, K + 1, batch):
        block = []
        for _ in range(start, min(K + 1, start + batch)):
            block.append(P)
            P = P @ A
        stacked = torch.stack(block)
        # a power whose entries overflowed has a norm above the largest float: inf, as the docstring says
        finite = torch.isfinite(stacked).flatten(1).all(1)
        block_norms = torch.full(finite.shape, torch.inf, dtype=_real_dtype(A), device=A.device)
        if finite.any():
            block_norms[finite] = torch.linalg.matrix_norm(stacked[finite], ord=2)
        norms.append(block_norms)
    curve = torch.cat(norms)
    k_peak = int(torch.argmax(torch.nan_to_num(curve, nan=-1.0)))
    return TransientGrowth(curve=curve, peak=float(curve[k_peak]), k_peak=k_peak)


@dataclass
class KreissEstimate:
    """Result of :func:`kreiss_constant`: ``value`` (lower estimate of K(A)), the maximiser ``z``
    ((|z| − 1)/σ_min(zI − A) = value; ``None`` when value is the |z| → ∞ limit 1 or K = ∞),
    and the spectral radius ``rho``."""

    value: float
    z: complex | None
    rho: float


def kreiss_constant(A, *, n_radii: int = 48, n_angles: int = 96, refine: int = 3, rho_tol: float = 1e-10,
                    tol: float = 1e-13, seed: int = 0, normal_tol: float = NORMAL_TOL) -> KreissEstimate:
    """Lower estimate of the Kreiss constant K(A) = sup_{|z|>1} (|z| − 1)·‖(zI − A)^{-1}‖₂.

    The sup is estimated by maximising f(z) = (|z| − 1)/σ_min(zI − A) over a polar grid
    |z| = 1 + s (s log-spaced from s_lo = min(1e-2, max(1e-8, (1 − ρ)/100)) to 100·max(1, ‖A‖₂))
    × equally spaced angles, then refining the ``refine`` best grid points by Nelder–Mead in
    (log s, arg z). Every value returned is f at an actual point (or the limit f → 1 as
    |z| → ∞), so **the result is a lower estimate of the supremum** (up to the rounding of f:
    |z| − 1 carries an absolute error of about 2u from |z| and σ_min one of about u·‖A‖₂, so f is
    off relatively by ≲ (2 + ‖A‖₂)·u/s, ≈ 3.3e-8 at s = 1e-8 for ‖A‖₂ = 1), never an upper bound; it
    is exact only if the maximiser is found. K(A) ≥ 1 always (the |z| → ∞ limit); K(A) = 1 for a
    normal A with ρ(A) ≤ 1, returned exactly as 1 (without the grid) when A is normal to within
    ``normal_tol`` and ρ(A) ≤ 1 + rho_tol: then f(z) = (|z| − 1)/min_i |z − λ_i| ≤ 1 everywhere;
    K(A) = ∞ if ρ(A) > 1, which is returned as ``inf`` when ρ(A) > 1 + rho_tol (rho_tol absorbs
    the rounding of eigenvalues on the unit circle). If ρ(A) = 1 with a defective unimodular
    eigenvalue, K(A) = ∞ too but the estimate is only large (≈ 1/s_lo = 1e8 for J_2(1)).

    Kreiss matrix theorem: K(A) ≤ sup_{k≥0} ‖A^k‖₂ ≤ e·n·K(A).

    Args:
        A: (n, n) real or complex matrix.
        n_radii, n_angles: polar grid size (≥ 2 and ≥ 4). refine: grid maxima to refine (≥ 0).
        rho_tol: tolerance above 1 on ρ(A) before K is declared infinite (≥ 0).
        tol, seed, normal_tol: passed to the σ_min computation (see :func:`sigma_min`).

    Returns:
        :class:`KreissEstimate`.

    Raises:
        ValueError: bad grid sizes, refine < 0, rho_tol < 0; see :func:`sigma_min`.

    Source: enrnn.md Sec. 2 (transient amplification); H.-O. Kreiss (1962); Trefethen &
    Embree, "Spectra and Pseudospectra" (2005), Thm. 18.1 (e·n bound by Spijker 1991).
    """
    for name, v, lo in (("n_radii", n_radii, 2), ("n_angles", n_angles, 4), ("refine", refine, 0)):
        if isinstance(v, bool) or not isinstance(v, int) or v < lo:
            raise ValueError(f"{name} must be an integer >= {lo}, got {v!r}")
    if isinstance(rho_tol, bool) or not isinstance(rho_tol, (int, float)) or not 0 <= rho_tol < math.inf:
        raise ValueError(f"rho_tol must be a finite number >= 0, got {rho_tol!r}")
    _check_tol(tol, 200, 1)
    _check_normal_tol(normal_tol)
    _check_points("the grid n_radii × n_angles", n_radii * n_angles)
    A = as_square_matrix(A, copies=_SCHUR_COPIES)
    solver = _ShiftedSchur(A)
    rho = float(np.abs(solver.t).max())
    if rho > 1 + rho_tol:
        return KreissEstimate(value=math.inf, z=complex(solver.t[np.argmax(np.abs(solver.t))]), rho=rho)
    if solver.is_normal(normal_tol):  # |z| − 1 ≤ min_i |z − λ_i| for ρ ≤ 1: the sup is the |z| → ∞ limit
        return KreissEstimate(value=1.0, z=None, rho=rho)
    rng = np.random.default_rng(seed)
    norm = float(scipy.linalg.norm(solver.T, 2))

    def points(log_s: np.ndarray, phi: np.ndarray) -> np.ndarray:
        return (1 + np.exp(log_s)) * np.exp(1j * phi)

    def f(z: np.ndarray) -> np.ndarray:
        # |z| − 1 of the rounded point, so that each value is exactly f at a representable z.
        sig, _ = solver.sigma_min(z.ravel(), tol, 200, 1024, rng, normal_tol)
        with np.errstate(divide="ignore"):
            return ((np.abs(z.ravel()) - 1) / sig).reshape(z.shape)

    # Below s ≈ 1e-8 rounding of |z| − 1 and of σ_min (≈ u) would dominate f.
    s_lo = min(1e-2, max(1e-8, (1 - rho) / 100))
    log_s_range = (math.log(s_lo), math.log(100 * max(1.0, norm)))
    LS, PH = np.meshgrid(np.linspace(*log_s_range, n_radii),
                         np.arange(n_angles) * (2 * math.pi / n_angles), indexing="ij")
    Z = points(LS, PH)
    vals = f(Z)
    best, best_z = 1.0, None  # the |z| → ∞ limit
    flat = int(np.argmax(vals))
    if vals.flat[flat] > best:
        best, best_z = float(vals.flat[flat]), complex(Z.flat[flat])
    from scipy.optimize import minimize  # here: its import costs more than a 64-wide spectrum, which never needs it

    for flat in np.argsort(vals.ravel())[::-1][:refine]:
        res = minimize(lambda p: -float(f(points(p[:1], p[1:]))[0]),
                       np.array([LS.flat[flat], PH.flat[flat]]), method="Nelder-Mead",
                       bounds=[log_s_range, (None, None)],
                       options={"xatol": 1e-10, "fatol": 1e-14 * max(1.0, vals.flat[flat]), "maxiter": 400})
        z = points(res.x[:1], res.x[1:])
        v = float(f(z)[0])
        if v > best:
            best, best_z = v, complex(z[0])
    return KreissEstimate(value=best, z=best_z, rho=rho)


# ------------------------------------------------------------------------- pseudospectral abscissa and radius
#: Imaginary parts below this multiple of √u·(‖A‖_F + ε) count as rounding of a real eigenvalue of the
#: Hamiltonian-like matrix of :func:`_outermost`: where a line only touches Λ_ε (a double eigenvalue) rounding
#: splits the pair by O(√u) of the scale, which must not hide the touching point.
_REAL_EIG_TOL = 1e2


def _outermost(B: np.ndarray, eps: float, scale: float) -> float:
    """The largest real x with ε a singular value of xI − B (−inf if none): the largest real eigenvalue of
    [[B, −εI], [−εI, B^H]] (for (B − xI)v = εu, (B − xI)^H u = εv). It is the rightmost point of Λ_ε(B) on the
    real axis: σ_min(xI − B) → ∞ as x → ∞ and never equals ε beyond it."""
    n = B.shape[0]
    eye = np.eye(n)
    H = np.block([[B, -eps * eye], [-eps * eye, B.conj().T]])
    mu = np.linalg.eigvals(H)
    real = mu[np.abs(mu.imag) <= _REAL_EIG_TOL * math.sqrt(np.finfo(float).eps) * scale]
    return float(real.real.max()) if real.size else -math.inf


def _maximise(f, lo: float, hi: float, n_grid: int, seeds: np.ndarray, refine: int) -> tuple[float, float]:
    """max of the scalar function f on [lo, hi]: a grid of n_grid points plus ``seeds``, then bounded Brent
    refinement around the ``refine`` best points (one grid step either side)."""
    ts = np.unique(np.concatenate([np.linspace(lo, hi, n_grid), seeds[(seeds >= lo) & (seeds <= hi)]]))
    vals = np.array([f(t) for t in ts])
    best_t, best = float(ts[int(np.argmax(vals))]), float(vals.max())
    step = (hi - lo) / max(1, n_grid - 1)
    from scipy.optimize import minimize_scalar  # as in kreiss_constant: only the refining searches need it

    for i in np.argsort(vals)[::-1][:refine]:
        if not np.isfinite(vals[i]):
            continue
        a, b = max(lo, ts[i] - step), min(hi, ts[i] + step)
        if b <= a:
            continue
        res = minimize_scalar(lambda t: -f(t), bounds=(a, b), method="bounded",
                              options={"xatol": 1e-12 * max(1.0, abs(ts[i]))})
        if -res.fun > best:
            best_t, best = float(res.x), float(-res.fun)
    return best_t, best


def _check_eps(eps) -> float:
    if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not 0 < eps < math.inf:
        raise ValueError(f"eps must be a finite number > 0, got {eps!r}")
    return float(eps)


def _check_grid(n_grid, refine) -> None:
    for name, v, low in (("n_grid", n_grid, 2), ("refine", refine, 0)):
        if isinstance(v, bool) or not isinstance(v, int) or v < low:
            raise ValueError(f"{name} must be an integer >= {low}, got {v!r}")


def _outermost_setup(A, eps, n_grid, refine, normal_tol):
    """The checked arguments of the outermost-extent functions and A's Schur solver: (A, eps, solver)."""
    eps = _check_eps(eps)
    _check_grid(n_grid, refine)
    _check_normal_tol(normal_tol)
    A = as_square_matrix(A, copies=_OUTERMOST_COPIES)
    return A, eps, _ShiftedSchur(A)


def pseudospectral_abscissa(A, eps: float, *, n_grid: int = 256, refine: int = 4,
                            normal_tol: float = NORMAL_TOL) -> Tensor:
    """ε-pseudospectral abscissa α_ε(A) = max{Re z : σ_min(zI − A) ≤ ε}, the rightmost extent of Λ_ε(A).

    For a normal A (to within ``normal_tol``, as :func:`sigma_min`) Λ_ε(A) is the union of the discs of radius
    ε about the eigenvalues and α_ε = max_i Re λ_i + ε, returned as that sum. Otherwise, on each horizontal line
    Im z = y the rightmost point of Λ_ε is the largest real eigenvalue x(y) of the 2n × 2n matrix
    [[A − iyI, −εI], [−εI, A^H + iyI]] (the horizontal search of the criss-cross method), and α_ε = max_y x(y)
    over the lines that can meet Λ_ε (|y − Im λ_i| ≤ ε + ‖N‖_F for some eigenvalue, by Weyl's inequality):
    a grid of ``n_grid`` lines plus the eigenvalues' own, refined by bounded Brent steps around the ``refine``
    best. Every value returned is x(y) at an actual line, so it is a lower estimate of α_ε, exact when the best
    line is found (the criss-cross method of Burke, Lewis & Overton 2003 certifies it; this search does not).

    Args:
        A: (n, n) real or complex matrix (tensor, array, or RecurrentCell). eps: ε > 0.
        n_grid: horizontal lines of the grid (≥ 2). refine: best lines refined (≥ 0).
        normal_tol: as for :func:`sigma_min` (0: never the normal formula).

    Returns:
        0-d tensor, A's real dtype, on A's device.

    Raises:
        ValueError: bad A (see :func:`analysis.spectra.as_square_matrix`), eps not a finite number > 0, bad
            n_grid, refine or normal_tol.

    Source: enrnn.md Sec. 2 (pseudospectra); Trefethen & Embree, "Spectra and Pseudospectra" (2005), Ch. 14;
    J. V. Burke, A. S. Lewis & M. L. Overton, IMA J. Numer. Anal. 23 (2003) (the Hamiltonian test);
    EigTool's ``psa``.
    """
    A, eps, solver = _outermost_setup(A, eps, n_grid, refine, normal_tol)
    lam = solver.t
    if solver.is_normal(normal_tol):
        value = float(lam.real.max()) + eps
    else:
        An = solver.T  # unitarily similar to A: the same Λ_ε
        reach = eps + solver.departure
        scale = solver.scale + eps
        _, value = _maximise(lambda y: _outermost(An - 1j * y * np.eye(solver.n), eps, scale),
                             float(lam.imag.min()) - reach, float(lam.imag.max()) + reach, n_grid,
                             lam.imag[lam.real >= lam.real.max() - reach], refine)
    return torch.tensor(value, dtype=_real_dtype(A), device=A.device)


def pseudospectral_radius(A, eps: float, *, n_grid: int = 256, refine: int = 4,
                          normal_tol: float = NORMAL_TOL) -> Tensor:
    """ε-pseudospectral radius ρ_ε(A) = max{|z| : σ_min(zI − A) ≤ ε}, the outermost extent of Λ_ε(A).

    For a normal A (to within ``normal_tol``) ρ_ε = ρ(A) + ε, returned as that sum. Otherwise, on each ray
    arg z = θ the outermost point of Λ_ε is r(θ) = the largest real eigenvalue of [[B, −εI], [−εI, B^H]] with
    B = e^{−iθ}A (σ_min(re^{iθ}I − A) = σ_min(rI − B)), and ρ_ε = max_θ r(θ): a grid of ``n_grid`` angles plus
    the eigenvalues' own, refined by bounded Brent steps around the ``refine`` best. A lower estimate of ρ_ε,
    exact when the best ray is found (the criss-cross method of Mengi & Overton 2005 certifies it).

    Args:
        A: (n, n) real or complex matrix (tensor, array, or RecurrentCell). eps: ε > 0.
        n_grid: rays of the grid (≥ 2). refine: best rays refined (≥ 0).
        normal_tol: as for :func:`sigma_min` (0: never the normal formula).

    Returns:
        0-d tensor, A's real dtype, on A's device.

    Raises:
        ValueError: as :func:`pseudospectral_abscissa`.

    Source: enrnn.md Sec. 2 (transient growth "as determined by the pseudo spectrum": sup_k ‖A^k‖ ≥
    (ρ_ε − 1)/ε, Trefethen & Embree (2005), Thm. 16.4); E. Mengi & M. L. Overton, IMA J. Numer. Anal. 25 (2005);
    EigTool's ``psr``.
    """
    A, eps, solver = _outermost_setup(A, eps, n_grid, refine, normal_tol)
    lam = solver.t
    if solver.is_normal(normal_tol):
        value = float(np.abs(lam).max()) + eps
    else:
        An, scale = solver.T, solver.scale + eps
        _, value = _maximise(lambda th: _outermost(np.exp(-1j * th) * An, eps, scale), 0.0, 2 * math.pi,
                             n_grid, np.mod(np.angle(lam), 2 * math.pi), refine)
    return torch.tensor(value, dtype=_real_dtype(A), device=A.device)
