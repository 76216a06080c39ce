"""Eigenvalues, ε-pseudospectra and singular values of a recurrent matrix.

The pseudospectrum is drawn as EigTool draws it (Wright 2002): filled contours of log₁₀ ε, where
Λ_ε(A) = {z : σ_min(zI − A) < ε}, with a colourbar whose ticks are the levels, the eigenvalues on top and
the unit circle (an orthogonal U = φ(Θ) has all its eigenvalues on it, sgornn.md Sec. 2; a
non-normal matrix can amplify transiently when Λ_ε reaches outside it, enrnn.md Sec. 2).
"""

from __future__ import annotations

import math
import time

import matplotlib
import numpy as np
import torch
from matplotlib import patheffects
from matplotlib.figure import Figure
from torch import Tensor

from rnnaudit.figures.saving import attach_data
from rnnaudit.figures.style import REFERENCE_COLOR, SEQUENTIAL_CMAP, series_style, styled
from rnnaudit.cells.linalg import eigvals

__all__ = ["plot_eigenvalues", "plot_spectrum", "plot_spectra", "spectra_layout", "spectrum_grid", "default_grid",
           "pseudospectrum_levels", "spectrum_cost", "GRID_NORMAL", "GRID_NONNORMAL", "MAX_ASPECT", "DISTANCE_RTOL"]

#: Default grid points per axis for a normal matrix: σ_min is the exact distance to the spectrum,
#: O(n) per point (0.1 s for n = 128), so the grid can be fine enough for smooth contours.
GRID_NORMAL = 241
#: Default for a non-normal matrix, where each point costs inverse Lanczos steps of O(n²) each
#: (about 20 s for n = 128 on one core at 101 × 101).
GRID_NONNORMAL = 101
#: Relative error of σ_min allowed where the figure's grid takes the distance formula min_i |z − λ_i| instead of
#: inverse Lanczos (``analysis.pseudospectrum(distance_rtol=...)``: where Weyl's inequality certifies it, away from
#: the eigenvalues of a nearly normal matrix, such as an orthogonal U = φ(Θ) stored in float32, ‖N‖_F ≈ 1e-7‖A‖_F).
#: The figure draws log₁₀ σ_min: a relative error r moves it by at most log₁₀(1/(1 − r)) = 4.35e-4 decades at
#: r = 1e-3, 1/575 of the finest level spacing (0.25 decades) and 1/2,300 of the colour bar's 1-decade span per two
#: levels: no contour and no colour moves visibly (a 100-point grid's cell is ~8 px, and a level crosses a cell
#: where log₁₀ σ changes by ≳ 0.01 decades, so it shifts by < 0.4 px).
DISTANCE_RTOL = 1e-3
# Note: the points the certificate rejects (near the eigenvalues) are those of smallest σ_min, often below the
# lowest level drawn; they still take Lanczos. Their values are not only colours "below the scale": the lowest
# contour line is placed by linear interpolation between a point below its level and one above, and
# pseudospectrum_levels reads the grid's smallest σ_min when the grid spans under 4 decades, so an upper bound
# (σ_min ≤ dist + δ) there would move what is drawn.

_EIGENVALUE_STYLE = dict(s=14, facecolors="white", edgecolors="black", linewidths=0.7, zorder=6)
_CIRCLE_EFFECTS = [patheffects.withStroke(linewidth=1.9, foreground="0.15")]


def _as_matrix(matrix) -> Tensor:
    if not isinstance(matrix, Tensor):
        raise TypeError(f"matrix must be a torch.Tensor of shape (h, h), got {type(matrix).__name__}")
    if matrix.dim() != 2 or matrix.shape[0] != matrix.shape[1] or matrix.shape[0] == 0:
        raise ValueError(f"matrix must be square (h, h), got shape {tuple(matrix.shape)}")
    if not torch.isfinite(matrix).all():
        raise ValueError("matrix must be finite (found NaN or Inf entries)")
    return matrix.detach().cpu()


def _window(M: Tensor) -> float:
    """Half-width of the square window: the unit circle and the whole spectrum, with a margin."""
    return max(1.25, float(torch.linalg.matrix_norm(M.to(torch.complex128), ord=2)) * 1.08)


def default_grid(matrix: Tensor) -> int:
    """Points per axis :func:`spectrum_grid` uses by default: :data:`GRID_NORMAL` for a matrix normal to
    within :data:`analysis.pseudospectra.NORMAL_TOL`, else :data:`GRID_NONNORMAL` (so a progress bar can
    know the work, grid² points per matrix, before it starts).

    Raises:
        TypeError: not a tensor. ValueError: not square or not finite.
    """
    from rnnaudit.analysis import schur_departure
    from rnnaudit.analysis.pseudospectra import NORMAL_TOL

    M = _as_matrix(matrix)
    M = M.to(torch.complex128) if M.is_complex() else M.double()
    normal = float(schur_departure(M)) <= NORMAL_TOL * float(torch.linalg.matrix_norm(M))
    return GRID_NORMAL if normal else GRID_NONNORMAL


#: Widest matrix whose dense work :func:`spectrum_cost` times as it is; a wider one is timed on its leading block of
#: this size and scaled by (n/m)³ (dense factorisations) and (n/m)² (a Lanczos step: two triangular solves).
_TIMED_WIDTH = 128
#: Grid points of the Lanczos pilot run of :func:`spectrum_cost` (its time and its mean Lanczos steps per point).
_PILOT_POINTS = 256



def spectrum_cost(matrices: dict, grid: int | None = None):
    """Predicted time of the computations of :func:`plot_spectra` (every matrix's dense factorisations and its
    pseudospectrum grid; not the drawing, about a second per matrix), before they run.

    Per (n × n) matrix, work units timed now on its leading m × m block, m = min(n, 128):
      * the dense factorisations (the Schur forms of :func:`default_grid` and the grid, ‖A‖₂, the singular
        values): O(n³), so (n/m)³ timed sets of them;
      * a normal matrix's grid: grid² distance evaluations of O(n) each, (n/m) timed points each;
      * any other's: the distance formula where it is certified to :data:`DISTANCE_RTOL` (counted as distance
        evaluations; the certificate is decided on the matrix itself, O(n) a point), and inverse Lanczos on the
        grid's other distinct points (⌈grid/2⌉·grid for a real matrix), two triangular solves, O(n²), per step:
        the steps per point are the mean of a pilot run on 32 of those points (each converges on its own), and
        each point-step costs (n/m)² of one step of a batch as large as the run's, timed.
    For n ≤ 128 every unit is timed on the matrix itself; for a wider one the block stands in for its Lanczos steps
    (a stated approximation: non-normality, and with it the steps, can differ) and every point is counted as a
    Lanczos point (the block's departure from normality says nothing of the whole matrix's: an overestimate where
    the run certifies points), LAPACK's speed-up at large n makes the cubic part an overestimate, and without
    ``grid`` the non-normal grid is assumed (deciding normality would take the Schur form the estimate is to
    announce), so nothing of O(n³) runs before the estimate.

    Args:
        matrices: name → (h, h) tensor, as :func:`plot_spectra`. grid: as :func:`spectrum_grid`.

    Returns:
        :class:`rnnaudit.analysis.cost.WorkEstimate`.

    Raises:
        TypeError, ValueError: as :func:`plot_spectra`.
    """
    from rnnaudit.analysis.cost import WorkEstimate, best_seconds
    from rnnaudit.analysis.pseudospectra import _ShiftedSchur, _colnorm, _default_chunk


    if not isinstance(matrices, dict) or not matrices:
        raise ValueError("matrices must be a non-empty dict of name -> (h, h) tensor")
    dense_units = point_units = lanczos_units = 0.0
    dense_sec = point_sec = lanczos_sec = 0.0
    for M in matrices.values():
        M = _as_matrix(M)
        M = M.to(torch.complex128) if M.is_complex() else M.double()
        n = M.shape[0]
        m = min(n, _TIMED_WIDTH)
        B = M[:m, :m].contiguous()
        # default_grid's own test of normality is a Schur form of M, the O(n³) work this estimate exists to announce:
        # a wider matrix is estimated on the non-normal grid's Lanczos work, the dearer of the two at that width
        g = (default_grid(M) if n <= _TIMED_WIDTH else GRID_NONNORMAL) if grid is None else grid

        def dense():
            default_grid(B)
            _window(B)
            torch.linalg.svdvals(B)
            solver = _ShiftedSchur(B)
            solver.weyl_radius()  # the certificate's two products, O(n³), as the run forms them
            return solver

        t0 = time.perf_counter()
        solver = dense()  # timed once: O(m³) work dwarfs the first-call set-up, which the run pays as well
        dense_units, dense_sec = dense_units + (n / m) ** 3, max(dense_sec, time.perf_counter() - t0)
        r = _window(B)
        rows = (g + 1) // 2 if not M.is_complex() else g
        z = np.linspace(-r, r, g)[None, :] + 1j * np.linspace(0, r, rows)[:, None]
        sample = z.ravel()[np.linspace(0, z.size - 1, min(z.size, _PILOT_POINTS)).astype(int)]
        each = best_seconds(lambda: solver.distance(sample), repeats=1) / sample.size
        if g == GRID_NORMAL:
            point_units, point_sec = point_units + z.size * n / m, max(point_sec, each)
            continue
        # the points the run takes from the distance formula: decided here on the matrix itself (n ≤ 128); a wider
        # matrix's block cannot tell, and all its points are counted as Lanczos points
        lanczos_z = z.ravel()
        if n == m:
            _, certified = solver.certified_distance(lanczos_z, DISTANCE_RTOL)
            lanczos_z = lanczos_z[~certified]
            point_units, point_sec = point_units + z.size, max(point_sec, each)
        if lanczos_z.size == 0:
            continue
        # steps per point: a pilot of 32 of the Lanczos points, each solved alone (convergence is per point)
        pilot = lanczos_z[np.linspace(0, lanczos_z.size - 1, min(32, lanczos_z.size)).astype(int)]
        _, used = solver._lanczos(pilot, 1e-11, 200, np.random.default_rng(0))
        per_point = float(used.mean())
        # one Lanczos step of a batch as large as the run's (its solves' Python work is shared by the batch)
        batch = min(lanczos_z.size, _default_chunk(m))
        zb = np.resize(lanczos_z, batch)
        Q = np.ones((m, batch), dtype=np.complex128) / math.sqrt(m)
        ritz = np.ones((max(2, round(per_point)), batch))

        def step():
            W = solver._apply_blocked(zb, Dinv, Dinv.conj(), Q)
            _colnorm(W)
            solver._largest_ritz(ritz, ritz[:-1])

        # a grid point on an eigenvalue divides by 0 here (the run gives it σ_min = 0 without a step): only timed
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            Dinv = 1.0 / (solver.t[:, None] - zb[None, :])
            t0 = time.perf_counter()
            step()  # once: numpy has no first-call set-up to exclude, and this one step costs 1/10 of a 64-wide grid
            each = (time.perf_counter() - t0) / batch
        lanczos_units += lanczos_z.size * per_point * (n / m) ** 2
        lanczos_sec = max(lanczos_sec, each)
    parts = tuple(p for p in (("dense factorisation sets", dense_units, dense_sec),
                              ("distance points", point_units, point_sec),
                              ("Lanczos point-steps", lanczos_units, lanczos_sec)) if p[1] > 0)
    widths = sorted({int(_as_matrix(M).shape[0]) for M in matrices.values()})
    return WorkEstimate(f"spectrum of {len(matrices)} matrix(es) of width {', '.join(map(str, widths))}", parts)


def spectrum_grid(matrix: Tensor, grid: int | None = None, *, progress=None,
                  distance_rtol: float | None = DISTANCE_RTOL):
    """σ_min(zI − A) on the square grid a spectrum figure draws (:func:`analysis.pseudospectrum`).

    Args:
        matrix: (h, h) real or complex tensor (not modified); computed in float64/complex128.
        grid: points per axis (≥ 16); default :data:`GRID_NORMAL` when the matrix is normal to
            within :data:`analysis.pseudospectra.NORMAL_TOL` (the exact distance formula), else
            :data:`GRID_NONNORMAL`. An odd count puts z = 0 on the grid.
        progress: called with the number of grid points finished (they sum to grid²).
        distance_rtol: relative error of σ_min allowed where Weyl's inequality certifies the distance formula
            (None: inverse Lanczos at every point of a non-normal matrix). Optional. Default:
            :data:`DISTANCE_RTOL`.

    Returns:
        :class:`analysis.PseudospectrumGrid` on [−r, r]², r = max(1.25, 1.08‖A‖₂).

    Raises:
        TypeError: matrix not a tensor. ValueError: not square or not finite, grid < 16, distance_rtol not None or
        in (0, 1).
    """
    from rnnaudit.analysis import pseudospectrum

    M = _as_matrix(matrix)
    M = M.to(torch.complex128) if M.is_complex() else M.double()
    if grid is None:
        grid = default_grid(M)
    if isinstance(grid, bool) or not isinstance(grid, int) or grid < 16:
        raise ValueError(f"grid must be an integer >= 16, got {grid!r}")
    r = _window(M)
    axis = np.linspace(-r, r, grid)
    axis = (axis - axis[::-1]) / 2  # exactly symmetric: a real matrix's rows y and −y are then computed once
    return pseudospectrum(M, axis, axis, progress=progress, distance_rtol=distance_rtol)


def pseudospectrum_levels(sigma: np.ndarray, *, decades: float = 4.0) -> np.ndarray:
    """log₁₀ ε levels for the filled contours: from the grid's largest σ_min down by at most
    ``decades`` decades, in steps of 0.5 (0.25 when the grid spans less than 1.5 decades).

    Args:
        sigma: σ_min values (any shape, non-negative). decades: range drawn (> 0).

    Returns:
        increasing 1-D array of at least 3 levels.

    Raises:
        ValueError: no positive finite σ_min, decades ≤ 0.
    """
    if not decades > 0:
        raise ValueError(f"decades must be > 0, got {decades!r}")
    s = np.asarray(sigma, dtype=float)
    s = s[np.isfinite(s) & (s > 0)]
    if s.size == 0:
        raise ValueError("sigma must hold at least one positive finite σ_min")
    top, bottom = math.log10(s.max()), math.log10(s.min())
    step = 0.25 if top - bottom < 1.5 else 0.5
    hi = math.floor(top / step) * step
    lo = math.ceil(max(bottom, top - decades) / step) * step
    levels = np.arange(lo, hi + step / 2, step)
    if levels.size < 3:
        levels = np.array([hi - 2 * step, hi - step, hi])
    return levels


def _draw_pseudospectrum(ax, grid, levels, name: str):
    x, y = grid.x.cpu().numpy(), grid.y.cpu().numpy()
    with np.errstate(divide="ignore"):
        logsig = np.log10(grid.sigma.cpu().numpy())
    logsig = np.maximum(logsig, levels[0] - 10)  # σ_min = 0 exactly at an eigenvalue on the grid
    filled = ax.contourf(x, y, logsig, levels=levels, cmap=SEQUENTIAL_CMAP, extend="both", zorder=1)
    ax.contour(x, y, logsig, levels=levels, colors="0.1", linewidths=0.45, alpha=0.7, zorder=2)
    # the levels are read off the colour bar, one tick per level: labels on the contours themselves ran into
    # each other where two levels close in on one eigenvalue, and hid under the eigenvalue markers
    bar = ax.figure.colorbar(filled, ax=ax, ticks=levels, shrink=0.9, pad=0.02)
    bar.set_label(r"$\log_{10}\,\varepsilon$")
    bar.ax.set_yticklabels([f"{v:g}".replace("-", "−") for v in levels])
    ax.set_xlim(x[0], x[-1])
    ax.set_ylim(y[0], y[-1])
    ax.set_title(f"ε-pseudospectra of {name}")
    return filled


def _draw_eigenvalues(ax, eig: np.ndarray, *, circle_on_dark: bool, note: str | None = None):
    phi = np.linspace(0, 2 * np.pi, 721)
    circle_kw = (dict(color="white", lw=0.7, path_effects=_CIRCLE_EFFECTS) if circle_on_dark
                 else dict(color=REFERENCE_COLOR, lw=0.9, ls="--"))
    ax.plot(np.cos(phi), np.sin(phi), zorder=5, label="unit circle", **circle_kw)
    ax.scatter(eig.real, eig.imag, label=f"eigenvalues (n = {len(eig)})", **_EIGENVALUE_STYLE)
    ax.set_aspect("equal")
    ax.set_xlabel(r"Re $z$")
    ax.set_ylabel(r"Im $z$")
    ax.grid(False)
    # below the axes, never over the eigenvalues
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2, handletextpad=0.4, columnspacing=1.2,
              title=note, title_fontsize=matplotlib.rcParams["legend.fontsize"])


@styled
def plot_eigenvalues(matrix: Tensor, *, title: str = "", ax=None):
    """Scatter the eigenvalues of a square matrix in the complex plane with the unit circle.

    Args:
        matrix: (h, h) real or complex tensor (not modified).
        title: axes title.
        ax: Axes to draw into; a new figure if None.

    Returns:
        The matplotlib Figure.

    Raises:
        TypeError: not a tensor. ValueError: non-square or non-finite input.
    """
    M = _as_matrix(matrix)
    eig = eigvals(M).numpy()
    if ax is None:
        fig = Figure(figsize=(4.2, 4.4), layout="constrained")
        ax = fig.subplots()
    else:
        fig = ax.figure
    _draw_eigenvalues(ax, eig, circle_on_dark=False)
    lim = max(1.1, float(np.abs(eig).max()) * 1.1)
    ax.set_xlim(-lim, lim)
    ax.set_ylim(-lim, lim)
    if title:
        ax.set_title(title)
    attach_data(fig, {"eigenvalues": eig})
    return fig


@styled
def plot_spectrum(matrix: Tensor, *, name: str = "A", role: str = "", title: str = "", grid: int | None = None,
                  eps_decades=None, pseudospectra=None, progress=None, ax=None):
    """The spectrum figure of a recurrent matrix: filled log₁₀ ε pseudospectrum contours with a
    colourbar, the eigenvalues and the unit circle (left); singular values (right).

    Args:
        matrix: (h, h) recurrent matrix (not modified).
        name: the matrix in the paper's notation, e.g. ``"U = φ(Θ)"`` or ``"W_hn"`` (mathtext allowed).
        role: what it is, e.g. ``"torch.nn.GRU layer 0"`` or ``"recurrent matrix of SGORNN, h = 128"``.
        title: figure title; default ``"<name>: <role>"`` (or ``name`` alone without a role).
        grid: points per axis (see :func:`spectrum_grid`).
        eps_decades: log₁₀ ε levels to draw; default :func:`pseudospectrum_levels` of the grid.
        pseudospectra: a precomputed :class:`analysis.PseudospectrumGrid` (skips the computation).
        progress: called with the number of grid points finished (sum grid²), e.g. a tqdm update.
        ax: must be None (the figure has its own layout); accepted for a uniform signature.

    Returns:
        The matplotlib Figure: the pseudospectrum axes, its colourbar and the singular-value axes.

    Raises:
        TypeError: matrix not a tensor. ValueError: non-square or non-finite input, fewer than two
        ``eps_decades``, an ``ax``.

    Source: the ε-pseudospectrum argument of enrnn.md Sec. 2; EigTool's display (Wright 2002).
    """
    if ax is not None:
        raise ValueError("ax must be None: plot_spectrum lays out its own figure of two panels and a colourbar")
    M = _as_matrix(matrix)
    if eps_decades is not None and len(eps_decades) < 2:
        raise ValueError(f"eps_decades must name at least two log10(ε) levels, got {eps_decades!r}")
    if pseudospectra is None:
        pseudospectra = spectrum_grid(M, grid, progress=progress)
    fig = Figure(figsize=(9.6, 4.4), layout="constrained")
    data = _draw_spectrum_row(fig, M, pseudospectra, eps_decades, name)
    fig.suptitle(title or (f"{name}: {role}" if role else name))
    attach_data(fig, data, labels=_field_labels(pseudospectra, data, name))
    return fig


@styled
def plot_spectra(matrices: dict, *, role: str = "", title: str = "", grid: int | None = None, progress=None,
                 rings: dict | None = None):
    """:func:`plot_spectrum` of several recurrent matrices (a GRU's W_hr, W_hz, W_hn) as the cells of one
    figure, row by row in a grid of :func:`spectra_layout` (at most :data:`MAX_ASPECT` times taller than wide):
    per matrix the pseudospectrum with its eigenvalues, and the singular values.

    Args:
        matrices: name → (h, h) tensor, in the order of the rows (at least one).
        role: what they belong to, e.g. ``"torch.nn.GRU layer 0"``. title: default ``role``.
        grid: points per axis of each pseudospectrum (see :func:`spectrum_grid`).
        progress: called with the number of grid points finished, over all matrices.
        rings: name → (r_min, r_max), the initialisation ring of that matrix's eigenvalues (an LRU's λ drawn
            uniformly on {r_min ≤ |z| ≤ r_max}, arXiv 2303.06349), drawn as two dashed circles and kept in the data
            as ``<name>__ring``. Optional. Default: none.

    Returns:
        The matplotlib Figure; its data go beside it as .npz through :func:`rnnaudit.figures.saving.save_figure`:
        per matrix ``<name>__eigenvalues``, ``__singular_values``, ``__grid_x``, ``__grid_y``, ``__sigma_min``, the
        name made a plain identifier (``l1.W_hg`` → ``l1_W_hg``), and what each is in the ``labels`` entry.

    Raises:
        TypeError: a matrix not a tensor. ValueError: no matrices; a non-square or non-finite one.

    Source: as :func:`plot_spectrum`.
    """
    if not isinstance(matrices, dict) or not matrices:
        raise ValueError("matrices must be a non-empty dict of name -> (h, h) tensor")
    checked = {str(name): _as_matrix(M) for name, M in matrices.items()}
    rows, cols = spectra_layout(len(checked))
    fig = Figure(figsize=(_CELL_WIDTH * cols, _CELL_HEIGHT * rows), layout="constrained")
    cells = fig.subfigures(rows, cols, squeeze=False).ravel()
    data, labels = {}, {}
    for cell, (name, M) in zip(cells, checked.items()):
        grid_of_m = spectrum_grid(M, grid, progress=progress)
        part = _draw_spectrum_row(cell, M, grid_of_m, None, name, ring=(rings or {}).get(name))
        prefix = _unique_key(name, {k.rsplit("__", 1)[0] for k in data})
        data.update({f"{prefix}__{k}": v for k, v in part.items()})
        labels.update({f"{prefix}__{k}": v for k, v in _field_labels(grid_of_m, part, name).items()})
    fig.suptitle(title or role or "recurrent matrices")
    attach_data(fig, data, labels=labels)
    return fig


#: Size in inches of one matrix's panels (pseudospectrum with colour bar, singular values) in :func:`plot_spectra`.
_CELL_WIDTH, _CELL_HEIGHT = 9.6, 4.4
#: :func:`spectra_layout` adds columns until the figure is at most this much taller than wide (and so well within
#: the 3:1 a page or a screen shows whole; one column of an LSTM's 8 blocks was 4:1).
MAX_ASPECT = 1.5


def spectra_layout(count: int) -> tuple[int, int]:
    """(rows, columns) of :func:`plot_spectra`'s grid for ``count`` matrices, filled row by row: the fewest
    columns whose figure is at most :data:`MAX_ASPECT` times taller than wide (one column for up to 3 matrices, a
    GRU's; two for an LSTM's 4 or 8 blocks).

    Raises:
        ValueError: count not a positive integer.
    """
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise ValueError(f"count must be a positive integer, got {count!r}")
    cols = 1
    while math.ceil(count / cols) * _CELL_HEIGHT > MAX_ASPECT * cols * _CELL_WIDTH:
        cols += 1
    return math.ceil(count / cols), cols


#: What each array of a matrix's panels is, for the ``labels`` of the data file.
_FIELD_LABELS = {"eigenvalues": "eigenvalues λ_i", "singular_values": "singular values σ_i (descending)",
                 "grid_x": "Re z of the grid", "grid_y": "Im z of the grid",
                 "sigma_min": "σ_min(zI − A) on the grid, [Im z index, Re z index]",
                 "from_distance": "True where σ_min on the grid is dist(z, Λ) (certified, or A normal), False where "
                                  "it is inverse Lanczos",
                 "ring": "(r_min, r_max) of the initialisation ring"}


def _sigma_route(grid) -> str:
    """How the grid's σ_min was computed, in words, for the data file's labels (and, shortened, the legend)."""
    if grid.method == "normal":
        return (f"σ_min = dist(z, Λ) = min_i |z − λ_i| at every point (A normal: Henrici's departure ‖N‖_F = "
                f"{grid.departure:.3g}, within analysis.pseudospectra.NORMAL_TOL·‖A‖_F)")
    if grid.method == "mixed":
        return (f"σ_min = dist(z, Λ) where Weyl's inequality certifies it to relative error ≤ {grid.distance_rtol:g} "
                f"(|σ_min − dist| ≤ δ = {grid.weyl_radius:.3g}, Henrici's departure ‖N‖_F = {grid.departure:.3g} plus "
                "the Schur form's backward error; taken where dist ≥ δ(1 + rtol)/rtol, with the rounding of dist; "
                "from_distance marks these points), inverse Lanczos elsewhere")
    return "σ_min by inverse Lanczos on the Schur form at every point (EigTool)"


def _field_labels(grid, part: dict, name: str) -> dict:
    """field → label of the arrays ``part`` of the panels of matrix ``name``; σ_min's says how it was computed."""
    labels = {k: f"{_FIELD_LABELS[k]} of {name}" for k in part}
    labels["sigma_min"] += f"; {_sigma_route(grid)}"
    return labels


def _unique_key(name: str, taken: set) -> str:
    """``name`` as a plain ASCII identifier (``l1.W_hg`` → ``l1_W_hg``), made unique among ``taken``."""
    key = "".join(c if c.isascii() and (c.isalnum() or c == "_") else "_" for c in name).strip("_") or "matrix"
    key = key if key[0].isalpha() else f"m_{key}"
    out, i = key, 2
    while out in taken:
        out, i = f"{key}_{i}", i + 1
    return out


def _from_distance(grid) -> np.ndarray:
    """The grid's mask of points given by the distance formula (a grid built by hand may lack it: from its method)."""
    if grid.from_distance is not None:
        return grid.from_distance.cpu().numpy()
    return np.full(tuple(grid.sigma.shape), grid.method == "normal")


def _draw_spectrum_row(fig, M: Tensor, pseudospectra, eps_decades, name: str, ring=None) -> dict:
    """Draw the pseudospectrum and singular-value panels into ``fig`` (a Figure or SubFigure), with the
    initialisation ring ``ring`` = (r_min, r_max) when given; returns the arrays drawn, for the data file beside
    the figure."""
    levels = (np.array(sorted(float(e) for e in eps_decades)) if eps_decades is not None
              else pseudospectrum_levels(pseudospectra.sigma.cpu().numpy()))
    # plain tick labels: with the style's use_mathtext each of the ~40 labels of a matrix's two linear axes went
    # through the mathtext parser, a third of the figure's drawing time, for the same glyphs (useoffset is off)
    with matplotlib.rc_context({"axes.formatter.use_mathtext": False}):
        ax_ps, ax_sv = fig.subplots(1, 2, width_ratios=[1.25, 1])
    _draw_pseudospectrum(ax_ps, pseudospectra, levels, name)
    eig = pseudospectra.eigenvalues.cpu().numpy()
    if ring is not None:
        r_min, r_max = (float(r) for r in ring)
        phi = np.linspace(0, 2 * np.pi, 721)
        for k, r in enumerate((r_min, r_max)):
            ax_ps.plot(r * np.cos(phi), r * np.sin(phi), color="white", lw=0.8, ls=(0, (4, 3)), zorder=5,
                       path_effects=_CIRCLE_EFFECTS,
                       label=f"initialisation ring r_min = {r_min:.3g}, r_max = {r_max:.3g}" if k == 0 else None)
    certified = (pseudospectra.method == "mixed" and pseudospectra.from_distance is not None
                 and bool(pseudospectra.from_distance.any()))
    # where part of the grid is the distance formula, the legend says so beside the figure, not only in its data
    note = (f"σ_min = dist(z, Λ) where Weyl certifies it to {pseudospectra.distance_rtol:g}, inverse Lanczos elsewhere"
            if certified else None)
    _draw_eigenvalues(ax_ps, eig, circle_on_dark=True, note=note)

    sv = torch.linalg.svdvals(M.to(torch.complex128) if M.is_complex() else M.double()).numpy()
    style = series_style(0)
    ax_sv.plot(np.arange(1, len(sv) + 1), sv, ls="-", lw=0.8, marker=style["marker"], markersize=2.5,
               color=style["color"], label=r"$\sigma_i$")
    ax_sv.axhline(1.0, color=REFERENCE_COLOR, lw=0.8, ls="--", label=r"$\sigma = 1$", zorder=1)
    # from 0, so σ_i = 1 ± 1e-15 reads as 1, and rounding cannot be mistaken for structure
    ax_sv.set_ylim(0, max(1.2, 1.1 * float(sv.max())))
    ax_sv.set_xlim(0.5, len(sv) + 0.5)
    ax_sv.set_xlabel("index $i$")
    ax_sv.set_ylabel(r"singular value $\sigma_i$")
    ax_sv.set_title(f"singular values of {name}")
    ax_sv.legend(loc="lower left")
    out = {"eigenvalues": eig, "singular_values": sv, "grid_x": pseudospectra.x.cpu().numpy(),
           "grid_y": pseudospectra.y.cpu().numpy(), "sigma_min": pseudospectra.sigma.cpu().numpy(),
           "from_distance": _from_distance(pseudospectra)}
    if ring is not None:
        out["ring"] = np.array([r_min, r_max])
    return out
