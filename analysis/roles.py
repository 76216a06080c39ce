"""The spectral probes of every recurrent matrix of a cell, named by its role.

A gated cell has several recurrent matrices (nc_gru.md eq. 1: U_r, U_u, U_c; torch's GRU: W_hr, W_hz,
W_hn; an LSTM: W_hi, W_hf, W_hg, W_ho; one set per layer), each with its own spectrum, departure
from normality and transient growth (enrnn.md Sec. 2). :func:`recurrent_matrix_probes` runs
:func:`analysis.spectra.spectral_summary`, :func:`analysis.pseudospectra.transient_growth`,
:func:`analysis.pseudospectra.kreiss_constant` and, on request, :func:`analysis.pseudospectra.pseudospectrum`
on each matrix of ``cell.recurrent_matrices()``, and gives the σ range [σ_min, σ_max] of every one
(spectral_rnn.md eq. 7 keeps W's singular values in [1 − r, 1 + r]).

Complex matrices: a complex recurrent matrix (an LRU's diag(λ), a complex cell's W) is probed as it is, in
complex arithmetic. The state it acts on is probed as the real state (Re z, Im z) ∈ ℝ²ᴺ (:mod:`cells.real_view`),
whose linear map is the realification [[Re W, −Im W], [Im W, Re W]]: its eigenvalues are λ(W) ∪ conj(λ(W)), its
singular values those of W each twice, and its pseudospectrum at z is the smaller of W's and conj(W)'s, so the
spectra of W itself are the ones shown (without the conjugate copies).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch
from torch import Tensor

from rnnaudit.analysis.pseudospectra import (KreissEstimate, PseudospectrumGrid, TransientGrowth, kreiss_constant,
                                             pseudospectrum, transient_growth)
from rnnaudit.analysis.spectra import SpectralSummary, spectral_summary
from rnnaudit.cells._validate import require_finite
from rnnaudit.cells.adapters import wrap
from rnnaudit.cells.base import RecurrentCell

__all__ = ["RecurrentMatrixProbes", "recurrent_matrix_probes"]


@dataclass
class RecurrentMatrixProbes:
    """Probes of one recurrent matrix (see :func:`recurrent_matrix_probes`).

    Attributes:
        role: its name in the cell (``"W_hr"``, ``"l1.W_hg"``, ``"U_c"``, ...). shape: (rows, cols).
        sigma_min, sigma_max: the σ range (smallest and largest singular value), for any shape.
        singular_values: (min(rows, cols),) descending.
        summary, transient, kreiss: :class:`SpectralSummary`, :class:`TransientGrowth` (‖A^k‖₂,
            k = 0..K), :class:`KreissEstimate`; None for a non-square matrix (an LSTM's blocks with a
            projection are (H, P)) or when not requested.
        pseudospectrum: σ_min(zI − A) on a square grid, when requested (square matrices only).
    """

    role: str
    shape: tuple[int, int]
    sigma_min: float
    sigma_max: float
    singular_values: Tensor = field(repr=False)
    summary: SpectralSummary | None = field(repr=False)
    transient: TransientGrowth | None = field(repr=False)
    kreiss: KreissEstimate | None = field(repr=False)
    pseudospectrum: PseudospectrumGrid | None = field(repr=False)

    def to_dict(self) -> dict:
        """JSON-ready record: the σ range, the summary's scalars and vectors, the transient peak and
        the Kreiss estimate (the pseudospectrum grid is left out)."""
        out = {"role": self.role, "shape": list(self.shape), "sigma_min": self.sigma_min, "sigma_max": self.sigma_max}
        if self.summary is not None:
            out["summary"] = self.summary.to_dict()
        if self.transient is not None:
            out["transient_peak"], out["transient_k_peak"] = self.transient.peak, self.transient.k_peak
        if self.kreiss is not None:
            out["kreiss"] = self.kreiss.value
        return out


def recurrent_matrix_probes(cell: RecurrentCell, roles=None, *, K: int = 100, kreiss: bool = True,
                            grid: int | None = None, n_angles: int = 256) -> dict[str, RecurrentMatrixProbes]:
    """Spectral probes of each recurrent matrix of ``cell``, keyed by role (module docstring).

    Args:
        cell: a :class:`cells.base.RecurrentCell` (its ``recurrent_matrices()``; one role for a
            single-matrix cell, e.g. ``{"U": ...}`` for SGORNN) or anything :func:`rnnaudit.cells.wrap`
            accepts. The matrices are detached and probed in their own dtype.
        roles: which roles (all by default).
        K: largest power of the transient-growth curve (≥ 0).
        kreiss: compute the Kreiss constant (a grid search plus refinement per matrix).
        grid: points per axis of a pseudospectrum grid over the square [−l, l]², l = max(1.2, 1.05‖A‖₂)
            (the box of :func:`rnnaudit.figures.plot_spectrum`); None skips it.
        n_angles: angles of the numerical range (≥ 3).

    Returns:
        role → :class:`RecurrentMatrixProbes`, in the cell's order.

    Raises:
        ValueError: an unknown role (the message lists the cell's), a cell that declares no recurrent
            matrix, grid < 2; the probes' own errors (NaN/Inf entries, bad K or n_angles).
    """
    cell = wrap(cell)
    mats = cell.recurrent_matrices()
    if not mats:
        raise ValueError(f"{type(cell).__name__} declares no recurrent matrix (for a wrapped step, pass "
                         "recurrent={role: 'attribute.path'} to wrap())")
    roles = list(mats) if roles is None else ([roles] if isinstance(roles, str) else list(roles))
    unknown = [r for r in roles if r not in mats]
    if unknown:
        raise ValueError(f"roles {unknown} are not among the cell's recurrent matrices {list(mats)}")
    if grid is not None and (isinstance(grid, bool) or not isinstance(grid, int) or grid < 2):
        raise ValueError(f"grid must be an int >= 2 (points per axis) or None, got {grid!r}")
    out = {}
    for role in roles:
        A = mats[role].detach()
        require_finite(f"recurrent matrix {role!r}", A)
        sv = torch.linalg.svdvals(A)
        square = A.dim() == 2 and A.shape[0] == A.shape[1]
        summary = spectral_summary(A, n_angles) if square else None
        ps = None
        if square and grid is not None:
            lim = max(1.2, float(sv[0]) * 1.05)
            axis = np.linspace(-lim, lim, grid)
            ps = pseudospectrum(A, axis, axis)
        out[role] = RecurrentMatrixProbes(
            role=role, shape=tuple(A.shape), sigma_min=float(sv[-1]), sigma_max=float(sv[0]), singular_values=sv,
            summary=summary, transient=transient_growth(A, K) if square else None,
            kreiss=kreiss_constant(A) if square and kreiss else None, pseudospectrum=ps)
    return out
