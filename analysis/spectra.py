"""Spectral probes of a square recurrent matrix W: eigenvalues, singular values, distance from
orthogonality, departure from normality and the numerical range.

Why these numbers: enrnn.md Sec. 2 argues that the eigenvalues of W, not its singular values,
govern the long-run dynamics of an RNN, while a non-normal W can amplify inputs transiently
("the spectrum of a matrix is within the unit disk but the pseudo spectrum may extend outside
it"). The eigenvalues give the asymptotics; Henrici's departure from normality and the
numerical range W(A) = {x^H A x : ‖x‖ = 1} measure how far the short-term behaviour can differ
from them (e.g. ‖A^k‖ ≤ 2 w(A)^k with w the numerical radius). The ε-pseudospectra, transient
growth and Kreiss constant live in :mod:`analysis.pseudospectra`.

All functions take a dense (n, n) tensor, real or complex, on any device; results keep the
input's device and (real) precision. Array-likes (NumPy arrays, nested lists) are accepted and
become float64 / complex128 tensors, integer or boolean entries become float64.

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

from rnnaudit.cells._validate import require_finite
from rnnaudit.cells.adapters import SUPPORTED_MODULES, wrap
from rnnaudit.cells.base import RecurrentCell
from rnnaudit.cells.linalg import eigvals

__all__ = ["as_square_matrix", "eigenvalues", "spectral_radius", "singular_values", "condition_number",
           "orthogonality_distance", "henrici_departure", "schur_departure", "numerical_range",
           "numerical_radius", "SpectralSummary", "spectral_summary", "check_dense_memory", "DENSE_COPIES"]


#: Dense n × n arrays of complex128 (16 bytes an entry) that the probes of one matrix hold at once, for the memory
#: check of :func:`as_square_matrix`, which runs before anything of that size is allocated: the input's float64
#: copy, the eigenvalue and SVD workspaces and the complex Schur form with its unitary factor; the numerical
#: range works on blocks of angles (:data:`_ANGLE_ENTRIES`), a few copies more.
DENSE_COPIES = 8
#: Entries of complex128 per block of rotated matrices e^{iθ}A in :func:`numerical_range` (a block of angles at
#: a time): 64 MiB per array, so the (m, n, n) stack of all m angles is never held (4 GiB at n = 1,000).
_ANGLE_ENTRIES = 1 << 22
#: Most angles of the numerical range: its relative error 1 − cos(π/m) is 1.2e-9 at m = 2¹⁶, far below any
#: tolerance that uses it, and more angles only cost time (one n × n eigh each).
MAX_ANGLES = 1 << 16


def check_dense_memory(name: str, n: int, copies: int, device=None, memory_limit: int | None = None) -> None:
    """Raise unless ``copies`` dense (n, n) complex128 arrays fit the memory limit: checked on the shape alone,
    before anything of that size is allocated (an expanded tensor's few bytes can describe 10¹⁰ entries).

    Args:
        name: the argument, for the message. n: the matrix's order. copies: dense n × n arrays held at once.
        device: where the work runs besides the CPU (the smaller limit counts). memory_limit: bytes; None:
            :func:`analysis.grid_maps.default_memory_limit` (3/4 of the machine's or device's memory).

    Raises:
        ValueError: the estimate above the limit (one line: the size, the estimate and the limit).
    """
    from rnnaudit.analysis.grid_maps import default_memory_limit

    if memory_limit is None:
        devices = {torch.device("cpu"), torch.device(device) if device is not None else torch.device("cpu")}
        memory_limit = min(default_memory_limit(d) for d in devices)
    need = copies * n * n * 16
    if need > memory_limit:
        raise ValueError(f"{name}: a ({n}, {n}) matrix needs about {need / 2**30:.3g} GiB for this computation "
                         f"({copies} dense n × n complex128 arrays), above the memory limit of "
                         f"{memory_limit / 2**30:.3g} GiB")


def as_square_matrix(A, name: str = "A", *, copies: int = DENSE_COPIES) -> Tensor:
    """Validate and return a dense square matrix as a floating or complex tensor.

    The shape is checked first, and the memory the computation needs (``copies`` dense n × n complex128
    arrays, :func:`check_dense_memory`) before anything of that size is allocated: an expanded (zero-stride)
    tensor of a few bytes can describe a 100,000 × 100,000 matrix.

    Args:
        A: (n, n) tensor, NumPy array or nested list, real or complex, n ≥ 1; or a
            :class:`cells.base.RecurrentCell` or a torch.nn RNN/GRU/LSTM (or ``*Cell``), whose
            ``recurrent_matrix()`` is used (detached; a module with several recurrent matrices raises,
            naming them: see :func:`analysis.roles.recurrent_matrix_probes`).
        name: argument name used in error messages.
        copies: dense n × n complex128 arrays the caller's computation holds at once (for the memory check).

    Returns:
        Tensor (n, n) on A's device. Floating/complex tensors keep their dtype; array-likes
        become float64 (complex128 if complex); integer/boolean entries become float64.

    Raises:
        ValueError: not 2-D, not square, empty, or holding NaN/Inf; too large for the memory limit; a cell
            without a single recurrent matrix.
        TypeError: a string, bytes, a dict, a set or None where the matrix belongs.
    """
    if isinstance(A, SUPPORTED_MODULES):
        A = wrap(A)
    if isinstance(A, RecurrentCell):
        A = A.recurrent_matrix().detach()
    if isinstance(A, (str, bytes, dict, set)) or A is None:
        raise TypeError(f"{name} must be a numeric (n, n) matrix, got {type(A).__name__}")
    if not isinstance(A, Tensor):
        try:
            arr = np.asarray(A)
        except (ValueError, TypeError) as err:  # ragged nested lists
            raise ValueError(f"{name} must be a numeric (n, n) matrix: {err}") from None
        if arr.dtype.kind not in "biufc":
            raise ValueError(f"{name} must be a numeric (n, n) matrix, got dtype {arr.dtype}")
        shape = arr.shape
    else:
        shape = tuple(A.shape)
    if len(shape) != 2 or shape[0] != shape[1]:
        raise ValueError(f"{name} must be a square matrix of shape (n, n), got shape {tuple(shape)}")
    if shape[0] == 0:
        raise ValueError(f"{name} must have n >= 1, got shape {tuple(shape)}")
    check_dense_memory(name, shape[0], copies, A.device if isinstance(A, Tensor) else None)
    if not isinstance(A, Tensor):
        A = torch.as_tensor(arr)
    if not (A.is_floating_point() or A.is_complex()):
        A = A.to(torch.float64)
    require_finite(name, A)
    return A.detach()


def _real_dtype(A: Tensor) -> torch.dtype:
    return A.real.dtype if A.is_complex() else A.dtype


def eigenvalues(A) -> Tensor:
    """Eigenvalues λ_i of A (torch.linalg.eigvals), sorted by decreasing |λ|, ties by increasing arg.

    Args:
        A: (n, n) real or complex matrix (see :func:`as_square_matrix`).

    Returns:
        complex tensor (n,) (complex128 for float64 input), on A's device.

    Raises:
        ValueError: see :func:`as_square_matrix`.

    Source: enrnn.md Sec. 2–3 (the spectrum governs the asymptotic dynamics).
    """
    lam = eigvals(as_square_matrix(A))
    # Two stable sorts give a deterministic order: by angle first, then by modulus.
    lam = lam[torch.sort(torch.angle(lam), stable=True).indices]
    return lam[torch.sort(lam.abs(), descending=True, stable=True).indices]


def spectral_radius(A) -> Tensor:
    """ρ(A) = max_i |λ_i| as a 0-d real tensor (A's real dtype and device).

    Raises:
        ValueError: see :func:`as_square_matrix`.

    Source: enrnn.md Sec. 3 (W^{(S)} is normalised so that ρ < 1).
    """
    return eigvals(as_square_matrix(A)).abs().amax()


def singular_values(A) -> Tensor:
    """Singular values σ_1 ≥ … ≥ σ_n ≥ 0 of A (torch.linalg.svdvals), real tensor (n,).

    Raises:
        ValueError: see :func:`as_square_matrix`.
    """
    return torch.linalg.svdvals(as_square_matrix(A))


def condition_number(A) -> Tensor:
    """2-norm condition number κ₂(A) = σ_1/σ_n; ``inf`` when σ_n = 0 exactly (0-d real tensor).

    Raises:
        ValueError: see :func:`as_square_matrix`.
    """
    s = singular_values(A)
    return s[0] / s[-1] if s[-1] > 0 else torch.full((), math.inf, dtype=s.dtype, device=s.device)


def orthogonality_distance(A, ord=2) -> Tensor:
    """Distance from orthogonality ‖A^H A − I‖ (= ‖AᵀA − I‖ for real A; for complex A the
    distance from the unitary group, the relevant notion for complex recurrent matrices).

    Args:
        A: (n, n) matrix.
        ord: ``2`` (spectral norm, default) or ``"fro"`` (Frobenius).

    Returns:
        0-d real tensor; 0 exactly for an orthogonal/unitary A in exact arithmetic.

    Raises:
        ValueError: bad ``ord``; see :func:`as_square_matrix`.

    Source: spectral_rnn.md / enrnn.md Sec. 2 (orthogonal recurrent matrices preserve norms);
    same quantity as :func:`cells.orthogonal.orthogonality_defect` for real A.
    """
    if ord not in (2, "fro"):
        raise ValueError(f"ord must be 2 or 'fro', got {ord!r}")
    A = as_square_matrix(A)
    eye = torch.eye(A.shape[0], dtype=A.dtype, device=A.device)
    gram = A.mH @ A
    if not torch.isfinite(gram).all():  # ‖A‖² overflowed (‖A‖ > ~1e154): the distance is not representable
        return torch.tensor(torch.inf, dtype=gram.real.dtype, device=A.device)
    return torch.linalg.matrix_norm(gram - eye, ord=ord)


def henrici_departure(A) -> Tensor:
    """Henrici's departure from normality dep_F(A) = sqrt(‖A‖_F² − Σ_i |λ_i|²), from the eigenvalues.

    Zero iff A is normal. The subtraction cancels: for a (nearly) normal A the result is only
    accurate to about sqrt(u)·‖A‖_F (u the unit roundoff, ≈ 1.5e-8·‖A‖_F in float64), and
    eigenvalue errors of a strongly non-normal A enter squared. Rounding can make the
    difference negative; it is clamped at 0. :func:`schur_departure` computes the same
    quantity without the cancellation.

    Returns:
        0-d real tensor (A's real dtype, device).

    Raises:
        ValueError: see :func:`as_square_matrix`.

    Source: Henrici (1962); enrnn.md Sec. 2 (non-normality ⇒ transient amplification).
    """
    A = as_square_matrix(A)
    # dep_F is homogeneous of degree 1: computed on A/s so that ‖A‖_F² cannot overflow (or underflow)
    s = A.abs().max()
    if s == 0:
        return torch.zeros((), dtype=A.real.dtype, device=A.device)
    A = A / s
    lam = eigvals(A)
    d2 = torch.linalg.matrix_norm(A) ** 2 - (lam.abs() ** 2).sum()
    return s * d2.clamp_min(0).sqrt()


def schur_departure(A) -> Tensor:
    """Departure from normality ‖N‖_F, where A = Q (D + N) Q^H is the complex Schur form
    (scipy.linalg.schur, output='complex'), D diagonal, N strictly upper triangular.

    ‖N‖_F is the same for every Schur form of A and equals :func:`henrici_departure` in exact
    arithmetic; computed this way it is backward stable (error ≈ u·‖A‖_F, no cancellation), and the
    norm is taken on N scaled by its largest entry, so it neither overflows nor underflows where
    ‖N‖_F itself is a float (``[[1e300, 1e300], [0, 1]]`` gives 1e300, not inf).

    Returns:
        0-d real tensor (A's real dtype, on A's device). Computed on the CPU.

    Raises:
        ValueError: see :func:`as_square_matrix`.

    Source: Henrici (1962); enrnn.md Sec. 3.2 uses the same Schur decomposition for ρ(T).
    """
    A = as_square_matrix(A)
    T, _ = scipy.linalg.schur(A.cpu().numpy(), output="complex")
    N = np.triu(T, 1)
    big = float(np.abs(N).max()) if N.size else 0.0
    val = big * float(np.linalg.norm(N / big)) if 0 < big < math.inf else big
    return torch.tensor(val, dtype=_real_dtype(A), device=A.device)


def _check_angles(n_angles: int) -> None:
    if isinstance(n_angles, bool) or not isinstance(n_angles, int) or not 3 <= n_angles <= MAX_ANGLES:
        raise ValueError(f"n_angles must be an integer in [3, {MAX_ANGLES}], got {n_angles!r}")


def _rotated_hermitian_parts(A: Tensor, n_angles: int):
    """Yield (x_θ, λ_max(H_θ)) blocks over the angles θ_j = 2πj/m, a block of angles at a time (at most
    :data:`_ANGLE_ENTRIES` entries per (block, n, n) array), for H_θ = (e^{iθ}A + e^{−iθ}A^H)/2."""
    _check_angles(n_angles)
    Ac = A if A.is_complex() else A.to(torch.complex128 if A.dtype == torch.float64 else torch.complex64)
    theta = torch.arange(n_angles, dtype=_real_dtype(A), device=A.device) * (2 * math.pi / n_angles)
    block = max(1, _ANGLE_ENTRIES // (A.shape[0] ** 2))
    for lo in range(0, n_angles, block):
        t = theta[lo:lo + block]
        rot = torch.polar(torch.ones_like(t), t)[:, None, None] * Ac  # e^{iθ} A, (block, n, n)
        yield (rot + rot.mH) / 2


def numerical_range(A, n_angles: int = 256) -> Tensor:
    """Boundary points of the numerical range W(A) = {x^H A x : ‖x‖₂ = 1} by the rotation method.

    For each θ_j = 2πj/m, let H_θ = (e^{iθ}A + e^{−iθ}A^H)/2 and x_θ a unit eigenvector for
    λ_max(H_θ) (torch.linalg.eigh, batched over θ). Then p_θ = x_θ^H A x_θ lies on ∂W(A) and
    Re(e^{iθ} p_θ) = λ_max(H_θ) = max_{w∈W(A)} Re(e^{iθ} w) (W(A) is convex, Toeplitz–Hausdorff).
    The polygon through the p_θ is an inner approximation of W(A); the half-planes
    Re(e^{iθ} w) ≤ λ_max(H_θ) bound it from outside.

    Args:
        A: (n, n) real or complex matrix.
        n_angles: number m ≥ 3 of equally spaced angles.

    Returns:
        complex tensor (m,) of boundary points, ordered by θ, on A's device.

    Raises:
        ValueError: n_angles not in [3, 2¹⁶]; see :func:`as_square_matrix`.

    Source: C. R. Johnson, "Numerical determination of the field of values", SIAM J. Numer.
    Anal. 15 (1978); context enrnn.md Sec. 2.
    """
    A = as_square_matrix(A)
    points = []
    for H in _rotated_hermitian_parts(A, n_angles):
        x = torch.linalg.eigh(H)[1][..., -1]  # eigenvalues ascending: last column belongs to λ_max
        points.append(torch.einsum("mi,ij,mj->m", x.conj(), A.to(x.dtype), x))
    return torch.cat(points)


def numerical_radius(A, n_angles: int = 256) -> Tensor:
    """Numerical radius estimate max_j λ_max(H_{θ_j}) ≤ w(A) = max_{w∈W(A)} |w|.

    Exact w(A) is max over all θ; the grid maximum is a lower estimate whose relative error is
    at most 1 − cos(π/m) ≤ π²/(2m²) (W(A) lies in the polygon of supporting half-planes).
    Satisfies ρ(A) ≤ w(A) ≤ ‖A‖₂ ≤ 2 w(A).

    Returns:
        0-d real tensor (A's real dtype, device).

    Raises:
        ValueError: n_angles not in [3, 2¹⁶]; see :func:`as_square_matrix`.
    """
    A = as_square_matrix(A)
    return torch.stack([torch.linalg.eigvalsh(H)[:, -1].amax() for H in _rotated_hermitian_parts(A, n_angles)]
                       ).amax().to(_real_dtype(A))


@dataclass
class SpectralSummary:
    """Spectral probes of one recurrent matrix (see :func:`spectral_summary`).

    Tensors keep the input's device; scalars are Python floats.
    """

    n: int
    eigenvalues: Tensor = field(repr=False)
    singular_values: Tensor = field(repr=False)
    numerical_range: Tensor = field(repr=False)
    spectral_radius: float
    spectral_norm: float
    min_singular_value: float
    condition_number: float
    orthogonality_distance_2: float
    orthogonality_distance_fro: float
    henrici_departure: float
    schur_departure: float
    numerical_radius: float

    def to_dict(self) -> dict:
        """JSON-ready dict: scalars as floats, complex vectors as lists of [re, im]."""
        def cplx(t: Tensor) -> list:
            return [[float(v.real), float(v.imag)] for v in t.cpu()]

        out = {k: v for k, v in self.__dict__.items() if not isinstance(v, Tensor)}
        out["eigenvalues"] = cplx(self.eigenvalues)
        out["singular_values"] = [float(s) for s in self.singular_values.cpu()]
        out["numerical_range"] = cplx(self.numerical_range)
        return out


def spectral_summary(W, n_angles: int = 256) -> SpectralSummary:
    """All spectral probes of one square recurrent matrix in one record.

    Args:
        W: (n, n) real or complex matrix, or a :class:`cells.base.RecurrentCell` (its
            ``recurrent_matrix()`` is used).
        n_angles: angles for the numerical range / radius (≥ 3).

    Returns:
        :class:`SpectralSummary` with eigenvalues (sorted as :func:`eigenvalues`), singular
        values, numerical-range boundary points, ρ, ‖W‖₂, σ_min, κ₂, ‖W^H W − I‖₂ and _F,
        Henrici's departure (both ways) and the numerical radius estimate.

    Raises:
        ValueError: see :func:`as_square_matrix`; n_angles not in [3, 2¹⁶].

    Source: enrnn.md Sec. 2 (eigenvalues vs singular values vs non-normality).
    """
    _check_angles(n_angles)
    A = as_square_matrix(W, "W")
    lam = eigenvalues(A)
    s = singular_values(A)
    return SpectralSummary(
        n=A.shape[0], eigenvalues=lam, singular_values=s, numerical_range=numerical_range(A, n_angles),
        spectral_radius=float(lam.abs().amax()), spectral_norm=float(s[0]), min_singular_value=float(s[-1]),
        condition_number=float(condition_number(A)),
        orthogonality_distance_2=float(orthogonality_distance(A, 2)),
        orthogonality_distance_fro=float(orthogonality_distance(A, "fro")),
        henrici_departure=float(henrici_departure(A)), schur_departure=float(schur_departure(A)),
        numerical_radius=float(numerical_radius(A, n_angles)))
