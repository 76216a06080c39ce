"""Jacobian maps on a grid of steps (heatmap grade), which blocks of the state a map shows, and what a map
costs before it is computed.

A heatmap is drawn at a few hundred pixels a side, so a map of T = 1000 steps needs its norms at a few
hundred steps, not at all 500,500 pairs. On a grid g_0 < g_1 < ⋯ < g_{R−1} of steps the map's cells are

    M[i, j] = ‖∂h_{g_i}/∂h_{g_j}‖   (i ≥ j; 0 above the diagonal),

the norm **at** the grid point (the heatmap samples the map; nothing is averaged). They are computed by
coarse-graining time: the aggregated factors A_i = ∂h_{g_i}/∂h_{g_{i−1}} = J_{g_i} ⋯ J_{g_{i−1}+1} are formed
by pushing h tangent directions through the steps of each interval with forward mode (``torch.func.jvp``,
vmapped over the directions: the cost of forming J_t, without the GEMM), one interval at a time, so the
per-step Jacobians are streamed and never stored. Then ∂h_{g_i}/∂h_{g_j} = A_i ⋯ A_{j+1}, and the
all-pairs engine of :mod:`analysis.products` runs on the R − 1 factors: R(R + 1)/2 products and norms
instead of (T + 1)(T + 2)/2. At T = 1000 and R = 256 that is 6.6% of the products of the all-pairs map.

Stated error. Every spectral value is certified exactly as in the all-pairs map (:mod:`analysis.jacobian`):
σ̂ ≤ ‖P̂‖₂ ≤ σ̂ (1 + rtol) for the formed product P̂, deterministically (confidence 1), and the Frobenius
values are exact to rounding. The formed product differs from the one the all-pairs map forms only in the
order of the multiplications (rounding of order (t − s)·γ_h·∏‖J_k‖, as for any method that multiplies the
per-step Jacobians). Measured against dense SVDs: ``benchmarks/bench_heatmap.py --accuracy`` and
``tests/analysis/test_grid_maps.py``.

Input maps ‖∂h_τ/∂x_t‖ use the same grid on 1..T: start blocks K_{g_j} = ∂h_{g_j}/∂x_{g_j} at the grid
points only, advanced by the same aggregated factors.

Complex states: a state z ∈ ℂᴺ is probed as the real state (Re z, Im z) ∈ ℝ²ᴺ (:mod:`cells.real_view`, which
:func:`rnnaudit.cells.wrap` returns for a complex cell), so the factors this module multiplies are the real 2N × 2N
Jacobians; where the step is holomorphic (the linear part of an LRU) their 2-norm is the complex Jacobian's.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass

import torch
from torch import Tensor
from torch.func import jvp, vmap

__all__ = ["grid_steps", "aggregated_factors", "state_block", "CostEstimate", "estimate_cost", "gemm_seconds",
           "default_memory_limit", "stated_error_ratio", "DEFAULT_RESOLUTION", "sketch_maps", "sketch_bracket",
           "SKETCH_PROBES", "SKETCH_DELTA", "push_seconds"]

#: Grid points per axis of the CLI's heatmaps: about the pixels of a figure's axes at 100 dpi.
DEFAULT_RESOLUTION = 256
_DIRECTIONS = 512  # tangent directions pushed at once (memory ~ directions · gate width · 8 bytes per op)
# norms and bookkeeping per pair of a block of q columns, in GEMMs of that block: measured on nn.LSTM(128, 128)'s h
# block at rtol 1e-3, T = 100 (the engine: 25 s for 5,151 pairs where their products alone took 8 s)
_NORM_GEMMS = 2.0
_INTERMEDIATES = 12  # live (directions × h) tensors of one forward-mode step of the cells here (LSTM: gates)


# ----------------------------------------------------------------------------------------------
# grids and blocks
# ----------------------------------------------------------------------------------------------

def grid_steps(grid, lo: int, hi: int, *, device=None) -> Tensor:
    """The grid's steps in [lo, hi] as a sorted 1-D long tensor.

    Args:
        grid: an int R ≥ 2 (R steps spread evenly from lo to hi, both included, rounded to integers; all
            steps when R > hi − lo), or a sequence of distinct integer steps in [lo, hi] (sorted here).
        lo, hi: the first and last step of the map (0 and T for ∂h/∂h, 1 and T for ∂h/∂x).

    Raises:
        ValueError: naming ``grid``: an int below 2, a bool or float, a step outside [lo, hi], repeated steps,
            fewer than two steps.
    """
    if isinstance(grid, bool):
        raise ValueError(f"grid must be an int >= 2 or a sequence of steps, got {grid!r}")
    if isinstance(grid, int):
        if grid < 2:
            raise ValueError(f"grid must be an int >= 2 (grid points per axis) or a sequence of steps, got {grid}")
        if grid > hi - lo:
            return torch.arange(lo, hi + 1, device=device)
        pts = torch.linspace(lo, hi, grid, dtype=torch.float64).round().long().unique()
        return pts.to(device)
    try:
        pts = torch.as_tensor(list(grid) if not isinstance(grid, Tensor) else grid)
    except (TypeError, ValueError, RuntimeError):
        raise ValueError(f"grid must be an int >= 2 or a sequence of integer steps, got {grid!r}") from None
    if pts.dim() != 1 or pts.numel() < 2 or pts.is_floating_point() or pts.dtype == torch.bool:
        raise ValueError(f"grid must hold at least two integer steps, got {grid!r}")
    pts = pts.long().sort().values
    if int(pts[0]) < lo or int(pts[-1]) > hi or pts.unique().numel() != pts.numel():
        raise ValueError(f"grid steps must be distinct integers in [{lo}, {hi}], got {pts.tolist()}")
    return pts.to(device)


def state_block(cell, block: str = "h", layer: int | None = None) -> tuple[list[int] | None, str]:
    """Which coordinates of a cell's state a map shows, and the label that says so.

    A wrapped ``torch.nn`` module's state is packed (:class:`rnnaudit.cells.adapters.TorchRecurrent`: the
    layers' h, then for an LSTM their c); the other cells' state is h itself.

    Args:
        cell: a :class:`cells.base.RecurrentCell` or anything :func:`rnnaudit.cells.wrap` accepts.
        block: ``"h"`` (default: the hidden state, what a user means by ∂h_t/∂h_s), ``"c"`` (an LSTM's
            cell state) or ``"state"`` (the whole packed state, e.g. (h, c) of an LSTM).
        layer: the layer of a stacked module, 0-based as torch's ``weight_hh_l{layer}``; None: the last.

    Returns:
        (indices or None for the whole state, label) — e.g. ``(range(128) as a list, "h block")``,
        ``(…, "layer 1 h block")`` or ``(None, "(h, c) state")``.

    Raises:
        ValueError: naming ``block`` or ``layer``: an unknown block, ``"c"`` for a cell without one, a layer
            outside [0, L).
    """
    from rnnaudit.cells.adapters import TorchRecurrent, wrap

    if block not in ("h", "c", "state"):
        raise ValueError(f"block must be 'h', 'c' or 'state', got {block!r}")
    cell = wrap(cell)
    L = cell.num_layers if isinstance(cell, TorchRecurrent) else 1
    if layer is not None and (isinstance(layer, bool) or not isinstance(layer, int) or not 0 <= layer < L):
        raise ValueError(f"layer must be an int in [0, {L}) for this model ({L} layer(s)), got {layer!r}")
    if not isinstance(cell, TorchRecurrent):
        if block == "c":
            raise ValueError(f"block 'c' needs an LSTM; {type(cell).__name__}'s state is h only")
        return None, "state h"
    if block == "state":
        if layer is not None and L > 1:
            raise ValueError("block 'state' is the whole packed state of all layers; give no layer with it")
        parts = "(h, c)" if cell.kind == "lstm" else "h"
        return None, f"{parts} state" + (f" of all {L} layers" if L > 1 else "")
    if block == "c" and cell.kind != "lstm":
        raise ValueError(f"block 'c' needs an LSTM; this {cell.kind.upper()}'s state is h only")
    layer = L - 1 if layer is None else layer
    slices = cell.state_slices()
    sl = slices[f"l{layer}.{block}" if L > 1 else block]
    idx = list(range(sl.start, sl.stop))
    if len(idx) == cell.hidden_size:
        return None, "state h"
    return idx, (f"layer {layer} {block} block" if L > 1 else f"{block} block")


# ----------------------------------------------------------------------------------------------
# aggregated factors, streamed
# ----------------------------------------------------------------------------------------------

def _push(cell, x: Tensor, hs: Tensor, a: int, b: int, V: Tensor) -> tuple[Tensor, int]:
    """Rows of V (d, h), tangents at h_a, pushed to h_b: row r becomes ∂h_b/∂h_a · V[r], kept scaled by a
    power of two (returned: the rows times 2^e are the product)."""
    e = 0
    for t in range(a + 1, b + 1):
        # copies, not views of the trajectory: forward mode gives a view's tangent its base's size (O(T) per step)
        xr, hr = x[t - 1][None].clone(), hs[t - 1][None].clone()
        V = vmap(lambda v: jvp(lambda hh: cell.step(xr, hh), (hr,), (v[None],))[1][0])(V)
        big = float(V.abs().amax())
        if big > 0 and not 2.0 ** -64 <= big <= 2.0 ** 64:  # keep the tangents inside the normal floats
            k = math.frexp(big)[1]
            V = torch.ldexp(V, torch.tensor(-k, device=V.device))
            e += k
    return V, e


def aggregated_factors(cell, x: Tensor, hs: Tensor, steps: Tensor, *, progress=None) -> tuple[Tensor, Tensor]:
    """Aᵢᵀ for the intervals of the grid, with Aᵢ = ∂h_{g_i}/∂h_{g_{i−1}} = J_{g_i} ⋯ J_{g_{i−1}+1}.

    Each interval pushes the identity's h rows through its steps by forward mode, in groups of at most
    512 directions (the directions are independent), so memory is one h × h factor per interval plus one
    step's intermediates; no per-step Jacobian is kept.

    Args:
        cell: a :class:`cells.base.RecurrentCell`. x: one sequence (T, n). hs: its states (T + 1, h).
        steps: grid steps (R,), sorted, in [0, T].
        progress: called with the steps pushed (one GEMM unit each) after each interval (sum: g_{R−1} − g_0).

    Returns:
        (F, e): F (R − 1, h, h) with F[i − 1]·2^{e[i − 1]} = Aᵢᵀ, e (R − 1,) int64.
    """
    h = hs.shape[1]
    eye = torch.eye(h, dtype=x.dtype, device=x.device)
    g = steps.tolist()
    F = torch.empty(len(g) - 1, h, h, dtype=x.dtype, device=x.device)
    exps = torch.zeros(len(g) - 1, dtype=torch.int64, device=x.device)
    with torch.no_grad():
        for i in range(1, len(g)):
            parts = [_push(cell, x, hs, g[i - 1], g[i], eye[lo:lo + _DIRECTIONS]) for lo in range(0, h, _DIRECTIONS)]
            e = max(p[1] for p in parts)
            for lo, (V, ei) in zip(range(0, h, _DIRECTIONS), parts):
                F[i - 1, lo:lo + V.shape[0]] = torch.ldexp(V, torch.tensor(ei - e, device=V.device))
            exps[i - 1] = e
            if progress is not None:
                progress(g[i] - g[i - 1])
    return F, exps


# ----------------------------------------------------------------------------------------------
# cost before computing
# ----------------------------------------------------------------------------------------------

def default_memory_limit(device=None) -> int:
    """Bytes a map may hold by default: 3/4 of the device's memory (a CUDA device's total memory, else the
    machine's physical memory, ``os.sysconf``); 8 GiB where neither can be read."""
    dev = torch.device(device) if device is not None else torch.device("cpu")
    if dev.type == "cuda" and torch.cuda.is_available():
        return int(0.75 * torch.cuda.get_device_properties(dev).total_memory)
    try:
        return int(0.75 * os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 8 * 2 ** 30


@dataclass(frozen=True)
class CostEstimate:
    """What a Jacobian map will cost (:func:`estimate_cost`).

    Attributes:
        method: ``"grid"`` (certified products on a grid), ``"sketch"`` (randomized sweeps on a grid),
            ``"all-pairs"``, or ``"diagonal"`` (the exact fast path of a cell declaring a diagonal Jacobian,
            :mod:`analysis.diagonal`, which ``method="auto"`` takes).
        cells: map cells computed (pairs × sequences).
        gemms: predicted time in GEMM units: one unit is the float GEMM (h × h)·(h × h) (h = the state width)
            that forms one product of the all-pairs baseline. Forward-mode passes (h directions through one
            step: one unit), products of a block of q columns (q/h units) and norms are converted to it.
        baseline_gemms: the units of forming all (T + 1)(T + 2)/2 products of h × h matrices (× batch).
        peak_bytes: predicted peak memory held by the map (bytes).
        memory_limit: the limit it was checked against (bytes).
        seconds: predicted wall time, ``gemms × seconds_per_gemm``, or None when not calibrated.
        seconds_per_gemm: the calibration (one GEMM unit measured in the same process), or None.
        work: the work in GEMM units by flops (each forward-mode step one unit, whatever its measured cost): what
            the map functions' ``progress`` callbacks add up to, the total of a progress bar.
    """

    method: str
    cells: int
    gemms: float
    baseline_gemms: float
    peak_bytes: int
    memory_limit: int
    seconds: float | None = None
    seconds_per_gemm: float | None = None
    work: float | None = None

    @property
    def fits(self) -> bool:
        """Whether the predicted peak memory is within the limit."""
        return self.peak_bytes <= self.memory_limit

    @property
    def ratio(self) -> float:
        """Predicted time as a fraction of forming all products (the all-pairs GEMM baseline)."""
        return self.gemms / self.baseline_gemms

    def describe(self) -> str:
        """One line for a user: method, cells, predicted time (or GEMM units) and memory."""
        when = (f"about {self.seconds:.3g} s" if self.seconds is not None else f"{self.gemms:.3g} GEMM units")
        return (f"{self.method} map, {self.cells:,} cells: {when} ({self.ratio:.3g} of forming all products), "
                f"peak memory {_gib(self.peak_bytes)} (limit {_gib(self.memory_limit)})")


def _gib(n: int) -> str:
    return f"{n / 2 ** 30:.3g} GiB" if n >= 2 ** 26 else f"{n / 2 ** 20:.3g} MiB"


def gemm_seconds(p: int, h: int, *, dtype=torch.float64, device=None, repeats: int = 3) -> float:
    """Seconds of one GEMM unit, (p × h)·(h × h) in ``dtype`` on ``device``, measured now (best of
    ``repeats`` batches of (96·p × h)·(h × h), the engine's chunk shape).

    Raises:
        ValueError: p or h not a positive int.
    """
    for name, v in (("p", p), ("h", h)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"{name} must be a positive int, got {v!r}")
    rows = max(1, min(96, (2 ** 24) // (p * h)))
    A = torch.randn(rows * p, h, dtype=dtype, device=device)
    B = torch.randn(h, h, dtype=dtype, device=device)
    best = math.inf
    for _ in range(repeats):
        if A.is_cuda:
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        A @ B
        if A.is_cuda:
            torch.cuda.synchronize()
        best = min(best, time.perf_counter() - t0)
    return best / rows


def push_seconds(cell, *, dtype=torch.float64, device=None, repeats: int = 2) -> float:
    """Seconds to push h tangent directions through one step of ``cell`` by forward mode (the work per step of
    :func:`aggregated_factors`), measured now on a zero state and input (best of ``repeats``)."""
    h, n = cell.hidden_size, cell.input_size
    d = min(h, _DIRECTIONS)
    xr = torch.zeros(1, n, dtype=dtype, device=device)
    hr = torch.zeros(1, h, dtype=dtype, device=device)
    V = torch.eye(h, dtype=dtype, device=device)[:d]
    best = math.inf
    with torch.no_grad():
        for _ in range(repeats):
            t0 = time.perf_counter()
            vmap(lambda v: jvp(lambda hh: cell.step(xr, hh), (hr,), (v[None],))[1][0])(V)
            if V.is_cuda:
                torch.cuda.synchronize()
            best = min(best, time.perf_counter() - t0)
    return best * h / d


#: The largest T or batch :func:`estimate_cost` takes: 2**53, above which float64 (its seconds, its GEMM units)
#: no longer holds every integer, and grid steps would overflow int64 tensors well before.
MAX_ESTIMATED_COUNT = 2 ** 53


def estimate_cost(cell, T: int, *, kind: str = "hidden", grid=None, rows=None, cols=None, batch: int = 1,
                  norms=("spectral",), dtype=torch.float64, device=None, memory_limit: int | None = None,
                  calibrate: bool = False, method: str = "products") -> CostEstimate:
    """Predicted time and peak memory of a Jacobian map before it is computed (nothing is printed).

    Model, in GEMM units (one (h × h)·(h × h) GEMM; a block of q columns, or n for input maps, is q/h units):
      * all-pairs (:func:`analysis.jacobian.hidden_jacobian_maps` without ``grid``): per sequence
        (T + 1)(T + 2)/2 products plus ``_NORM_GEMMS`` per pair for the norms, plus T forward-mode
        passes of h directions (one unit each); holds every per-step Jacobian, the product stack and the
        (T + 1)² maps.
      * grid: T pushed steps of h directions (one unit each), R(R + 1)/2 products plus norms; holds the
        R − 1 aggregated factors, the products of the R starts and the R² maps.
      * sketch (``method="sketch"``, on a grid): k = :data:`SKETCH_PROBES` directions per living start
        pushed through each step (1/h units per direction and step, about k·R·T/2 directions in all);
        holds the probes and two R² maps.
    ``batch`` multiplies time (maps are per sequence, then averaged) and the stored per-step Jacobians.

    Args:
        cell: any cell :func:`rnnaudit.cells.wrap` accepts. T: steps. kind: ``"hidden"`` or ``"input"``.
        grid: as :func:`grid_steps`, or None for the all-pairs map. rows, cols: the block (sizes only).
        norms: the requested norms (``"smallest"`` doubles the work). dtype, device: of the map.
        memory_limit: bytes; None: :func:`default_memory_limit`.
        calibrate: time one GEMM unit and one forward-mode step now (:func:`gemm_seconds`,
            :func:`push_seconds`), count the step at its measured cost in GEMM units, and fill ``seconds``.
        method: ``"products"`` (the certified engine, on a grid or every pair), ``"auto"`` (the map functions'
            default, which chooses among that engine's exact paths: estimated as ``"products"``, or as the diagonal
            fast path for a cell declaring ``diagonal_jacobian``, hidden maps of the whole state) or ``"sketch"``
            (needs a grid).

    Returns:
        :class:`CostEstimate`.

    Raises:
        ValueError: naming the argument: T or batch not a positive int or above 2**53, unknown kind or method,
            a dtype that is not floating, unknown norms, memory_limit not a finite positive number, a bad grid.
    """
    from rnnaudit.cells.adapters import wrap

    for name, v in (("T", T), ("batch", batch)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"{name} must be a positive int, got {v!r}")
        if v > MAX_ESTIMATED_COUNT:
            raise ValueError(f"{name} = {v:.3g} is above 2**53, the largest count whose cost this estimate "
                             "represents exactly (and far beyond any map that can be computed)")
    if kind not in ("hidden", "input"):
        raise ValueError(f"kind must be 'hidden' or 'input', got {kind!r}")
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise ValueError(f"dtype must be a floating torch dtype (the map's, float64 by default), got {dtype!r}")
    if isinstance(norms, str) or not set(norms) <= {"spectral", "frobenius", "smallest"} or not tuple(norms):
        raise ValueError(f"norms must be a non-empty sequence of 'spectral', 'frobenius', 'smallest', got {norms!r}")
    if memory_limit is not None and (isinstance(memory_limit, bool) or not isinstance(memory_limit, (int, float))
                                     or not math.isfinite(memory_limit) or memory_limit <= 0):
        raise ValueError(f"memory_limit must be a finite positive number of bytes (None: 3/4 of the device's "
                         f"memory), got {memory_limit!r}")
    auto = method == "auto"
    if method == "auto":  # the map functions' default: it chooses among the certified engine's exact paths
        method = "products"
    if method not in ("products", "sketch") or (method == "sketch" and grid is None):
        raise ValueError(f"method must be 'auto', 'products' or, with a grid, 'sketch', got {method!r}")
    cell = wrap(cell)
    if auto and kind == "hidden" and rows is None and cols is None:
        from rnnaudit.analysis.diagonal import declares_diagonal

        if declares_diagonal(cell):
            return _diagonal_estimate(cell, T, grid, batch, norms, dtype, device, memory_limit, calibrate)
    h, n = cell.hidden_size, cell.input_size
    q = n if kind == "input" else (h if cols is None else len(cols))
    size = torch.finfo(dtype).bits // 8
    passes = 1 + ("smallest" in tuple(norms))
    if memory_limit is None:
        memory_limit = default_memory_limit(device)
    sec = gemm_seconds(h, h, dtype=dtype, device=device) if calibrate else None
    # forward-mode passes of h directions through one step: one GEMM unit each by flops, as measured if calibrated
    per_step = 1.0 if sec is None else push_seconds(cell, dtype=dtype, device=device) / sec
    pair = q / h * (1 + _NORM_GEMMS)  # one product of q columns and its norm
    if grid is None:
        R = T + 1
        pairs = (T + 1) * (T + 2) // 2
        fixed, stepped = batch * passes * pairs * pair, batch * passes * T
        step_tmp = min(128, batch * T) * h * h * size * _INTERMEDIATES // 4
        peak = (batch * T * h * (h + (n if kind == "input" else 0)) * size  # every J_t (and K_t), stored
                + 2 * T * h * h * size * passes  # the engine's scaled copy of the factors (and inverses)
                + 2 * (T + 1) * q * h * size  # its product stack, two buffers
                + (batch + 1) * (T + 1) ** 2 * size * len(tuple(norms))  # the maps
                + step_tmp)
        method = "all-pairs"
    elif method == "sketch":
        lo = 1 if kind == "input" else 0
        g = grid_steps(grid, lo, T)
        R = int(g.numel())
        pairs = R * (R + 1) // 2
        k = min(SKETCH_PROBES, q)
        directions = k * float((torch.arange(1, R) * (g[1:] - g[:-1])).sum())
        fixed, stepped = 0.0, batch * directions / h
        peak = (R * k * h * size * (2 + _INTERMEDIATES) + (T + 1) * h * size + (batch + 2) * R * R * size)
        method = "sketch"
    else:
        lo = 1 if kind == "input" else 0
        R = int(grid_steps(grid, lo, T).numel())
        pairs = R * (R + 1) // 2
        fixed, stepped = batch * passes * pairs * pair, batch * passes * T
        peak = (2 * (R - 1) * h * h * size * passes  # the aggregated factors and the engine's scaled copy
                + 2 * R * q * h * size  # the product stack
                + (T + 1) * h * size  # the trajectory
                + min(h, _DIRECTIONS) * max(h, 4 * h) * size * _INTERMEDIATES  # one pushed step
                + (batch + 1) * R * R * size * len(tuple(norms)))
        method = "grid"
    baseline = batch * (T + 1) * (T + 2) / 2
    gemms = fixed + stepped * per_step
    return CostEstimate(method, int(batch * pairs), float(gemms), float(baseline), int(peak), int(memory_limit),
                        None if sec is None else gemms * sec, sec, float(fixed + stepped))


#: Flops one element operation of the diagonal fast path is counted as, in GEMM units: elementwise work is
#: memory-bound and runs far below the GEMM rate (about 4 element operations per (pair, coordinate): two
#: differences, a sum and a max); 16 flops each is the order measured on one CPU core (benchmarks/bench_diagonal.py).
_ELEMENT_FLOPS = 16


def _diagonal_estimate(cell, T, grid, batch, norms, dtype, device, memory_limit, calibrate) -> CostEstimate:
    """:class:`CostEstimate` of the diagonal fast path (:mod:`analysis.diagonal`): 4 element operations per pair
    and coordinate, the trajectory (T steps, each a GEMM unit at most) and the declaration's check."""
    h = cell.hidden_size
    N = getattr(cell, "complex_width", None) or h
    size = torch.finfo(dtype).bits // 8
    R = T + 1 if grid is None else int(grid_steps(grid, 0, T).numel())
    pairs = R * (R + 1) // 2
    if memory_limit is None:
        memory_limit = default_memory_limit(device)
    sec = gemm_seconds(h, h, dtype=dtype, device=device) if calibrate else None
    unit = 2.0 * h ** 3
    fixed = batch * pairs * 4 * N * _ELEMENT_FLOPS / unit * (1 + ("frobenius" in tuple(norms)))
    stepped = batch * 2 * T  # the forward pass and one checking jvp per step, one unit each at most
    peak = (4 * (T + 1) * N * 8  # the prefix products E, F, Z and the moduli
            + min(R * R * N, 2 ** 24) * 8  # the reused buffer of differences (analysis.diagonal._CHUNK_ELEMENTS)
            + (batch + 1) * R * R * size * (len(tuple(norms)) + 1))
    gemms = fixed + stepped
    return CostEstimate("diagonal", int(batch * pairs), float(gemms), float(batch * (T + 1) * (T + 2) / 2), int(peak),
                        int(memory_limit), None if sec is None else gemms * sec, sec, float(gemms))


def stated_error_ratio(values: Tensor, exact: Tensor, rtol: float, *, floor: float = 0.0) -> float:
    """The largest |value − exact| / (stated error) over the cells of a map: ≤ 1 when every value is within its
    stated error, the check behind the benchmarks and tests.

    The stated error of a certified spectral value is one-sided: exact/(1 + rtol) ≤ value ≤ exact, plus
    rounding ``floor`` (relative). A value above the exact norm by more than ``floor``, or below it by more
    than rtol/(1 + rtol) + floor, gives a ratio above 1.

    Args:
        values, exact: maps of the same shape (0 where there is no cell). rtol: the stated relative error.
        floor: relative rounding allowance (e.g. a few units of roundoff times the steps).

    Raises:
        ValueError: shapes differ, or rtol not positive.
    """
    if values.shape != exact.shape:
        raise ValueError(f"values and exact must have one shape, got {tuple(values.shape)} and {tuple(exact.shape)}")
    if not rtol > 0:
        raise ValueError(f"rtol must be positive, got {rtol!r}")
    cell = exact > 0
    v, ex = values[cell].double(), exact[cell].double()
    above = (v - ex) / ex / max(floor, torch.finfo(torch.float64).tiny)
    below = (ex - v) / ex / (rtol / (1 + rtol) + floor)
    worst = torch.maximum(above, below).clamp_min(0)
    bad = ~torch.isfinite(v)
    return float("inf") if bool(bad.any()) else float(worst.max()) if worst.numel() else 0.0


# ----------------------------------------------------------------------------------------------
# matrix-free randomized sweeps (wide states)
# ----------------------------------------------------------------------------------------------

#: Probe vectors per grid start of the randomized sweep.
SKETCH_PROBES = 16
#: Per-cell failure probability of the randomized sweep's stated factor (its confidence is 1 − this).
SKETCH_DELTA = 1e-4


def sketch_bracket(Y: Tensor, Rf: Tensor, k: int, delta: float) -> tuple[Tensor, Tensor]:
    """(ℓ, u) with ℓ ≤ ‖B‖₂ always and ‖B‖₂ ≤ u with probability ≥ 1 − δ, from Y = (BΩ)ᵀ (n, k, p) for a
    Gaussian Ω = QR (q × k, standard normal entries drawn independently of B).

    ℓ = σ_max(BQ) = σ_max(R⁻ᵀY): a Ritz value on span(Ω), never above ‖B‖₂. For u: u₁ᵀBΩ = σ₁ v₁ᵀΩ, and
    v₁ᵀΩ ~ N(0, I_k) (rotation invariance), so ‖BΩ‖₂ ≥ σ₁ ‖g‖ with ‖g‖² ~ χ²_k and
    P(‖g‖² < F⁻¹_{χ²_k}(δ)) = δ: σ₁ ≤ ‖BΩ‖₂ / √F⁻¹_{χ²_k}(δ) except with probability δ (the argument of
    Dixon 1983 as used by Halko, Martinsson & Tropp 2011, Lemma 4.1, with the χ² law of all k probes in
    place of the max over single probes). u is raised to ℓ where a failure would put it below.

    Both norms come from the k × k Gram matrix G = YYᵀ: ‖Y‖₂² = λ_max(G) and ‖R⁻ᵀY‖₂² = λ_max(R⁻ᵀGR⁻¹),
    so nothing of the state's width is factorised (batched 2-norms of the k × h blocks cost 0.19 s a call
    for nn.LSTM(·, 1024)). The largest eigenvalue of a Gram matrix is computed to relative error of order
    k·u (the squares lose nothing at the top of the spectrum), far inside the factor this bracket states.
    """
    from scipy.stats import chi2

    x = float(chi2.ppf(delta, k))
    G = Y @ Y.mT
    top = torch.linalg.eigvalsh(G)[..., -1].clamp_min(0).sqrt()
    Rinv = torch.linalg.solve_triangular(Rf, torch.eye(Rf.shape[-1], dtype=Rf.dtype, device=Rf.device), upper=True)
    low = torch.linalg.eigvalsh(Rinv.mT @ G @ Rinv)[..., -1].clamp_min(0).sqrt()
    return low, torch.maximum(top / math.sqrt(x), low)


def sketch_maps(cell, x: Tensor, hs: Tensor, steps: Tensor, *, kind: str, rows: Tensor | None, cols: Tensor | None,
                k: int = SKETCH_PROBES, delta: float = SKETCH_DELTA, seed: int = 0, progress=None
                ) -> tuple[Tensor, Tensor]:
    """Grid maps of ‖∂h_{g_i}[rows]/∂h_{g_j}[cols]‖₂ (or ‖∂h_{g_i}[rows]/∂x_{g_j}‖₂) by one forward sweep of
    k Gaussian probe vectors per grid start, never forming a Jacobian: at each step the probes of every
    living start are pushed together by one forward-mode pass (``torch.func.jvp``, vmapped), and at each grid
    target their restriction to ``rows`` gives BΩ for every cell of that row of the map.

    Each cell's value is the geometric mean of the bracket [ℓ, u] of :func:`sketch_bracket`, and its stated
    error is the factor f = √(u/ℓ): ‖B‖₂ ∈ [value/f, value·f] with probability ≥ 1 − ``delta`` per cell (a
    map of N cells holds whole with probability ≥ 1 − N·delta). Diagonal cells are exact (f = 1).

    Args:
        cell: a :class:`cells.base.RecurrentCell`. x: one sequence (T, n). hs: its states (T + 1, h).
        steps: grid steps (R,), in [0, T] for ``kind="hidden"``, [1, T] for ``"input"``.
        rows, cols: the block (1-D long tensors or None); cols unused for input maps.
        k: probes per start. delta: per-cell failure probability. seed: the probes' generator seed.
        progress: called with the number of probe directions pushed at each step (over h: GEMM units).

    Returns:
        (values, factors): (R, R) each, [i, j] for i ≥ j, 0 (values) and 1 (factors) above the diagonal.
    """
    h, n = hs.shape[1], x.shape[1]
    kw = {"dtype": x.dtype, "device": x.device}
    q = n if kind == "input" else (h if cols is None else cols.numel())
    k = min(k, q)
    gen = torch.Generator().manual_seed(seed)
    g = steps.tolist()
    R = len(g)
    values = torch.zeros(R, R, **kw)
    factors = torch.ones(R, R, **kw)
    Rfs, V, expo = [], torch.empty(0, h, **kw), torch.empty(0, dtype=torch.int64, device=x.device)

    def start_rows(j: int) -> Tensor:
        Om = torch.randn(q, k, generator=gen, dtype=torch.float64).to(**kw)
        Rfs.append(torch.linalg.qr(Om)[1])
        if kind == "input":  # K_t Ω at t = g_j: forward mode in x at that step
            xr, hr = x[g[j] - 1][None].clone(), hs[g[j] - 1][None].clone()  # copies: see _push
            return vmap(lambda v: jvp(lambda xx: cell.step(xx, hr), (xr,), (v[None],))[1][0])(Om.mT)
        out = torch.zeros(k, h, **kw)
        out[:, slice(None) if cols is None else cols] = Om.mT
        return out

    def diagonal(i: int) -> float:
        if kind == "input":
            _, K = _input_jacobian_at(cell, x[g[i] - 1], hs[g[i] - 1])
            K = K if rows is None else K[rows]
            return float(torch.linalg.matrix_norm(K, ord=2))
        if rows is None or cols is None:
            return 1.0  # a block of the identity with at least one shared coordinate
        return float(bool(torch.isin(rows, cols).any()))

    with torch.no_grad():
        for i in range(R):
            if i:
                for t in range(g[i - 1] + 1, g[i] + 1):
                    xr, hr = x[t - 1][None].clone(), hs[t - 1][None].clone()  # copies: see _push
                    V = vmap(lambda v: jvp(lambda hh: cell.step(xr, hh), (hr,), (v[None],))[1][0])(V)
                    big = V.abs().amax(1)
                    out = (big > 0) & ((big < 2.0 ** -64) | (big > 2.0 ** 64))
                    if bool(out.any()):  # rows rescaled on their own: probes of old starts are far below new ones
                        e = torch.where(out, torch.frexp(big).exponent.long(), 0)
                        V = torch.ldexp(V, -e[:, None].to(V.dtype))
                        expo = expo + e
                    if progress is not None:
                        progress(V.shape[0])
                Y = V if rows is None else V[:, rows]
                Yb = Y.reshape(i, k, -1)
                eb = expo.reshape(i, k)
                top = eb.amax(1)
                Yb = torch.ldexp(Yb, (eb - top[:, None])[..., None].to(Yb.dtype))  # one exponent per block
                low, up = sketch_bracket(Yb, torch.stack(Rfs), k, delta)
                if k == q:  # Ω spans every direction: the Ritz value is the norm itself
                    val, fac = low, torch.ones_like(low)
                else:  # up = 0 only where BΩ = 0, then B = 0 but for a null event: value 0, factor 1
                    val = torch.sqrt(low * up)
                    fac = torch.where(up > 0, torch.sqrt(up / low.clamp_min(torch.finfo(low.dtype).tiny)),
                                      torch.ones_like(low))
                values[i, :i] = torch.ldexp(val, top.to(val.dtype))
                factors[i, :i] = fac
            values[i, i] = diagonal(i)
            if i < R - 1:
                V = torch.cat([V, start_rows(i)])
                expo = torch.cat([expo, torch.zeros(k, dtype=torch.int64, device=x.device)])
    return values, factors


def _input_jacobian_at(cell, x_t: Tensor, h_prev: Tensor) -> tuple[None, Tensor]:
    """K = ∂step/∂x (h, n) at one step, by forward mode over the n input directions."""
    n = x_t.shape[0]
    eye = torch.eye(n, dtype=x_t.dtype, device=x_t.device)
    x_t, h_prev = x_t[None].clone(), h_prev[None].clone()  # copies: see _push
    K = vmap(lambda v: jvp(lambda xx: cell.step(xx, h_prev), (x_t,), (v[None],))[1][0])(eye)
    return None, K.mT
