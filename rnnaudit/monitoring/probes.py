"""The quantities :class:`rnnaudit.Monitor` records, each a small function of a wrapped cell.

Gradient norms come from the ``.grad`` the user's own backward pass left (float32 when training in
float32: they are the gradients the optimizer steps with); everything else is measured in float64 on
the monitor's copy of the parameters. Keys are those of the trainer's records
(:func:`rnnaudit.training.read_trajectory`); a quantity of a model with several recurrent matrices
is keyed by role (``spectral_radius/W_hz``), and a model with a single one also gets the plain key
(``spectral_radius``), which the audit's per-record assumptions read.
"""

from __future__ import annotations

import math
from typing import Callable

import torch
from torch import Tensor, nn

from rnnaudit.analysis.gradients import _view_of_gradient, euclidean_norm
from rnnaudit.analysis.jacobian import hidden_jacobian_maps
from rnnaudit.analysis.lyapunov import lyapunov_spectrum
from rnnaudit.cells.adapters import TorchRecurrent
from rnnaudit.cells.linalg import eigvals

__all__ = ["SUMMARY_RTOL", "GATE_BLOCK_KINDS", "gradient_norms_from_grad", "matrix_record", "orthogonality_concerned",
           "gate_record", "readout_slice",
           "initial_state_gradient", "initial_state_gradient_fused", "jacobian_summary", "top_lyapunov_exponent"]

#: Relative tolerance of the spectral norms in the Jacobian summary: the summary reports a maximum
#: and a slope of logarithms, and a relative error of 1e-2 moves log‖∂h_t/∂h_s‖ by at most 0.01 nats,
#: below the differences it is read for (orders of magnitude over T steps); the certified default
#: (1e-10) costs 2–3× more at h = 64, T = 64.
SUMMARY_RTOL = 1e-2


def gradient_norms_from_grad(roles: dict[str, Tensor]) -> dict[str, float]:
    """``grad/<role>/max`` and ``grad/<role>/fro`` of each role's gradient as the user's backward left it.

    A role that is a view of a parameter (a gate block of torch's stacked ``weight_hh_l0``) takes the
    same view of the parameter's ``.grad``; roles whose parameter has no gradient are left out.

    Args:
        roles: role → tensor, from ``wrap(model).parameters_by_role()`` on the user's own model.

    Returns:
        key → float (NaN/inf as they are: a diverging run's gradients are recorded, not hidden).
    """
    out = {}
    for role, tensor in roles.items():
        base = tensor if tensor._base is None else tensor._base
        grad = base.grad
        if grad is None:
            continue
        g = grad.detach() if base is tensor else _same_view(tensor, base, grad.detach())
        g = g.abs() if g.is_complex() else g  # a complex parameter's (lru-pytorch's B): the same max and Frobenius norm
        out[f"grad/{role}/max"] = float(g.abs().max())
        out[f"grad/{role}/fro"] = euclidean_norm(g)
    return out


def _same_view(view: Tensor, base: Tensor, grad: Tensor) -> Tensor:
    """The entries of ``grad`` (∂L/∂base) that ``view`` covers: the same strided view of ``grad`` when
    both are laid out like ``base`` (the usual case, no copy), else an indexed gather."""
    if grad.is_contiguous() and base.is_contiguous() and grad.shape == base.shape:
        return grad.as_strided(view.shape, view.stride(), grad.storage_offset() + view.storage_offset()
                               - base.storage_offset())
    return _view_of_gradient(view, base, grad)


#: Matrices wider than this get their spectral radius (a nonsymmetric eigensolve, about 25 n³ flops: 0.9 s per
#: 1024 × 1024 gate matrix of nn.LSTM(·, 1024) on a 2-core CPU, four times a record) at the Monitor's summary
#: records only; the singular values (norm, σ range, defect) are recorded every time.
RADIUS_EVERY_RECORD_MAX = 256

#: kinds of wrapped torch modules whose recurrent matrices are gate blocks: no claim's assumption and no remedy
#: asks a gate block of torch's GRU or LSTM to be orthogonal, so its ‖WᵀW − I‖₂ is not recorded (the toolkit's
#: gated cells, e.g. NC-GRU with orthogonal U_r, U_c, keep it: their claims assume it)
GATE_BLOCK_KINDS = ("gru", "lstm")


def orthogonality_concerned(cell) -> bool:
    """Whether some claim's assumption concerns the orthogonality of ``cell``'s recurrent matrices: every cell
    but a wrapped torch GRU or LSTM (:data:`GATE_BLOCK_KINDS`; ``cell.kind``, as ``rnnaudit.wrap`` sets it)."""
    return not (isinstance(cell, TorchRecurrent) and cell.kind in GATE_BLOCK_KINDS)


#: Half-width of the band around the unit circle whose eigenvalues ``unit_circle_fraction`` counts.
UNIT_CIRCLE_BAND = 1e-3


def matrix_record(matrices: dict[str, Tensor], *, radius: bool = True, orthogonality: bool = True) -> dict[str, float]:
    """Spectral radius, spectral norm, σ range (smallest and largest singular value) and, for square
    matrices, the orthogonality defect ‖WᵀW − I‖₂ and (with ``radius``) the fraction of eigenvalues within
    :data:`UNIT_CIRCLE_BAND` of the unit circle (``unit_circle_fraction``; the largest modulus is the spectral radius;
    complex matrices such as an LRU's diag(λ) too) of each recurrent matrix, keyed ``<quantity>/<role>``;
    with a single matrix also the plain keys ``spectral_radius``, ``spectral_norm``, ``sigma_min``,
    ``sigma_max``, ``orthogonality_defect``.

    Args:
        matrices: role → matrix (float64, detached), from ``cell.recurrent_matrices()``.
        radius: include ``spectral_radius`` (False: left out, for the records between summaries of wide
            matrices, :data:`RADIUS_EVERY_RECORD_MAX`).
        orthogonality: Optional. Default: True. False leaves the defect out (a torch GRU's or LSTM's gate
            blocks, :func:`orthogonality_concerned`).
    """
    out = {}
    for role, W in matrices.items():
        W = W.detach()
        sv = torch.linalg.svdvals(W)
        values = {"spectral_norm": float(sv[0]), "sigma_max": float(sv[0]), "sigma_min": float(sv[-1])}
        if W.dim() == 2 and W.shape[0] == W.shape[1]:
            if radius:
                moduli = eigvals(W).abs()
                values["spectral_radius"] = float(moduli.max())
                # the eigenvalues a training run pushes onto the unit circle (an LRU's λ, an S4D's Ā): modes that
                # neither decay nor grow; 1e-3 is the resolution, far above the eigensolve's rounding
                values["unit_circle_fraction"] = float(((moduli - 1).abs() <= UNIT_CIRCLE_BAND).double().mean())
            if orthogonality:
                # WᵀW − I = V(Σ² − I)Vᵀ, so ‖WᵀW − I‖₂ = max_i |σ_i² − 1|: the defect of
                # rnnaudit.cells.orthogonality_defect from the singular values already at hand
                values["orthogonality_defect"] = float((sv.square() - 1).abs().max())
        out.update({f"{k}/{role}": v for k, v in values.items()})
        if len(matrices) == 1:
            out.update(values)
    return out


def gate_record(cell) -> dict[str, float]:
    """``alpha`` and ``beta`` of a cell that has them as scalar tensors (FastRNN and SGORNN's gates,
    sgornn.md eq. 2), as the trainer records them; {} for other cells."""
    out = {}
    for gate in ("alpha", "beta"):
        value = getattr(cell, gate, None)
        if isinstance(value, Tensor) and value.numel() == 1:
            out[gate] = float(value)
    return out


def readout_slice(cell) -> slice:
    """The part of the packed state a readout sees: the last layer's h of a wrapped torch module
    (not an LSTM's c), the whole state otherwise."""
    slices = cell.state_slices() if callable(getattr(cell, "state_slices", None)) else {}
    layers = getattr(cell, "num_layers", 1)
    key = f"l{layers - 1}.h" if layers > 1 else "h"
    return slices.get(key, slice(0, cell.hidden_size))


def initial_state_gradient(cell, x: Tensor, loss_fn: Callable, *, targets: Tensor | None = None,
                           readout: nn.Module | None = None, per_step: bool = False) -> float:
    """‖∂L/∂h_0‖₂ (sgornn.md Sec. 2.2: the gradient reaching the start of the sequence), h_0 = 0, over
    the whole packed state (every layer's h, and c for an LSTM).

    L = loss_fn(output, targets) (or loss_fn(output) without targets), with output = readout(h) of
    the last state (or of every state with ``per_step``), h the part :func:`readout_slice` names, and
    no readout: that part of the state itself.

    Args:
        cell: the wrapped float64 copy. x: (m, T, n) float64.

    Raises:
        ValueError: loss_fn not returning a scalar.
    """
    # the packed state of a wrapped module holds every layer's h (and c of an LSTM): one tensor
    h0 = torch.zeros(x.shape[0], cell.hidden_size, dtype=x.dtype, device=x.device, requires_grad=True)
    states = cell(x, h0)[..., readout_slice(cell)]
    return _norm_of_start_gradient(states, [h0], loss_fn, targets, readout, per_step)


def initial_state_gradient_fused(module: nn.RNNBase, x: Tensor, loss_fn: Callable, *, targets: Tensor | None = None,
                                 readout: nn.Module | None = None, per_step: bool = False) -> float:
    """:func:`initial_state_gradient` of a ``torch.nn.RNN``/``GRU``/``LSTM`` through the module's own fused
    kernel: the same number (the packed state's gradient is the concatenation of ∂L/∂h_0 of every layer
    and, for an LSTM, ∂L/∂c_0), without the per-step Python loop of the wrapped cell (1.5× faster for an RNN,
    2.3× for a GRU, at h = 64, T = 64, 8 sequences; medians of 7 interleaved calls on 2 CPU cores).

    Args:
        module: the float64 copy, unidirectional. x: (m, T, n) float64 (batch first, whatever the
            module's ``batch_first``).

    Raises:
        ValueError: loss_fn not returning a scalar; a bidirectional module.
    """
    if module.bidirectional:
        raise ValueError("module: a bidirectional module has no single initial state to differentiate at")
    width = (module.proj_size or module.hidden_size) if isinstance(module, nn.LSTM) else module.hidden_size
    shape = (module.num_layers, x.shape[0])
    starts = [torch.zeros(*shape, width, dtype=x.dtype, device=x.device, requires_grad=True)]
    if isinstance(module, nn.LSTM):
        starts.append(torch.zeros(*shape, module.hidden_size, dtype=x.dtype, device=x.device, requires_grad=True))
    states, _ = module(x if module.batch_first else x.transpose(0, 1), starts[0] if len(starts) == 1 else tuple(starts))
    states = states if module.batch_first else states.transpose(0, 1)  # the last layer's h at every step
    return _norm_of_start_gradient(states, starts, loss_fn, targets, readout, per_step)


def _norm_of_start_gradient(states: Tensor, starts: list[Tensor], loss_fn, targets, readout, per_step) -> float:
    out = states if per_step else states[:, -1]
    if readout is not None:
        out = readout(out)
    loss = loss_fn(out) if targets is None else loss_fn(out, targets)
    if not isinstance(loss, Tensor) or loss.dim() != 0:
        raise ValueError(f"loss_fn must return a scalar tensor, got {getattr(loss, 'shape', type(loss).__name__)}")
    grads = torch.autograd.grad(loss, starts)
    return euclidean_norm(torch.cat([g.reshape(-1) for g in grads]))


def jacobian_summary(cell, x: Tensor, method: str = "exact") -> tuple[dict[str, float], Tensor]:
    """A few numbers of the map M[t, s] = ‖∂h_t/∂h_s‖₂ along one sequence (0 ≤ s < t ≤ T):

    - ``jacobian/max``: max over s < t (above 1: a direction grows, the exploding side);
    - ``jacobian/end``: ‖∂h_T/∂h_0‖₂ (the gradient path from the start to the end);
    - ``jacobian/slope``: the least-squares slope, in nats per step, of the mean over pairs of
      log M[t, s] at gap k = t − s against k (k = 1..T); comparable with the top Lyapunov exponent.

    With ``method="sketch"`` (for wide states, where forming the (T + 1)(T + 2)/2 products of S × S matrices
    costs more than training: S = 2048 for ``nn.LSTM(·, 1024)``) the map comes from randomized forward sweeps
    (:func:`rnnaudit.analysis.grid_maps.sketch_maps` on every step): each value within a stated factor at
    confidence 1 − :data:`rnnaudit.analysis.grid_maps.SKETCH_DELTA` per cell, and the record adds
    ``jacobian/factor``, the largest such factor of the map.

    Args:
        cell: the wrapped float64 copy. x: one sequence (T, n) float64, T ≥ 2.
        method: ``"exact"`` (certified all-pairs map) or ``"sketch"``.

    Returns:
        (record, the (T + 1, T + 1) map), spectral norms within :data:`SUMMARY_RTOL` (exact) or the factor.

    Raises:
        ValueError: an unknown ``method``.
    """
    if method == "exact":
        M = hidden_jacobian_maps(cell, x, norms=("spectral",), rtol=SUMMARY_RTOL).spectral
        factor = None
    elif method == "sketch":
        maps = hidden_jacobian_maps(cell, x, norms=("spectral",), grid=x.shape[0] + 1, method="sketch")
        M, factor = maps.spectral, float(maps.factor.max())
    else:
        raise ValueError(f"method must be 'exact' or 'sketch', got {method!r}")
    T = M.shape[0] - 1
    gaps, means = [], []
    for k in range(1, T + 1):
        diag = torch.diagonal(M, offset=-k)
        diag = diag[diag > 0]
        if diag.numel():
            gaps.append(k)
            means.append(float(diag.log().mean()))
    record = {"jacobian/max": float(torch.tril(M, diagonal=-1).max()), "jacobian/end": float(M[T, 0])}
    if factor is not None:
        record["jacobian/factor"] = factor
    if len(gaps) >= 2:
        k = torch.tensor(gaps, dtype=torch.float64)
        m = torch.tensor(means, dtype=torch.float64)
        kc = k - k.mean()
        record["jacobian/slope"] = float((kc * (m - m.mean())).sum() / (kc * kc).sum())
    return record, M


def top_lyapunov_exponent(cell, x: Tensor) -> dict[str, float]:
    """``lyapunov_max``: the largest Lyapunov exponent (nats per step) along one sequence by the QR
    method (:func:`rnnaudit.analysis.lyapunov_spectrum`, k = 1, the first tenth of the steps discarded
    as warm-up), and ``lyapunov_max_stderr``, its standard error over the finite-time windows (NaN
    with fewer than two)."""
    spectrum = lyapunov_spectrum(cell, x, k=1, warmup=x.shape[-2] // 10)
    value, err = float(spectrum.exponents[0]), float(spectrum.stderr[0])
    return {"lyapunov_max": value, "lyapunov_max_stderr": err if math.isfinite(err) else math.nan}
