"""Pip implementations of the modern recurrences, mapped as data onto rnnaudit's reference cells.

A user brings a module from a package (``lru-pytorch``'s ``LRU``, ``mambapy``'s ``MambaBlock``, ``mingru-pytorch``'s
``minGRU``/``minLSTM``); such a module has no step ``(x_t, h) -> h`` the probes could call, or one (the log-space
parallel scan) that is not the recurrence itself. It is recognised by its class (module path and name, nothing of
the package is imported here) and its parameters are copied, in float64, into the reference cell that computes the
same recurrence:

==================================  ====================================  =======================================
module                              reference cell                        parameters mapped
==================================  ====================================  =======================================
``LRU_pytorch.LRU.LRU``             :class:`~rnnaudit.cells.lru.LRU`      ν^log, θ^log, γ^log, D; B, C split
                                                                          into real and imaginary parts
``mambapy.mamba.MambaBlock``        :class:`~rnnaudit.cells.selective_ssm.SelectiveSSM`  (Euler: B̄ = ΔB, as the
                                                                          package) A^log, x_proj, dt_proj, D
``minGRU_pytorch.minGRU.minGRU``    :class:`~rnnaudit.cells.min_rnn.MinGRU` (``candidate="g"``, no bias)  W
``minGRU_pytorch.minLSTM.minLSTM``  :class:`~rnnaudit.cells.min_rnn.MinLSTM` (``candidate="g"``, no bias)  W
==================================  ====================================  =======================================

A mapping is a claim about two programs, so it is checked, never assumed: :func:`check_mapping` runs the module's
own forward (on a float64 copy) and the reference cell on the same input and reports the largest difference, and
refuses the mapping when it exceeds :func:`mapping_tolerance`. For the Mamba block the recurrence is its selective
scan; the input projection, the causal depthwise convolution and SiLU before it are a finite-impulse-response map
of the input with no feedback from the state, so they are applied by the block's own layers to give the scan's
inputs (:attr:`PackageMapping.inputs`), and the gate and output projection after it are applied to the scan's
outputs in the check. ∂h_t/∂h_s of the scan's state is unchanged by either.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from rnnaudit.cells.base import RecurrentCell

__all__ = ["PackageMapping", "package_mapping", "mapping_tolerance", "check_mapping", "MAPPED_CLASSES",
           "UNIT_ROUNDOFF"]

#: float64 unit roundoff u = 2⁻⁵³.
UNIT_ROUNDOFF = 2.0 ** -53

#: "module path.class name" → the package that ships it (what :func:`package_mapping` recognises).
MAPPED_CLASSES = {"LRU_pytorch.LRU.LRU": "lru-pytorch", "mambapy.mamba.MambaBlock": "mambapy",
                  "minGRU_pytorch.minGRU.minGRU": "mingru-pytorch", "minGRU_pytorch.minLSTM.minLSTM": "mingru-pytorch"}


@contextlib.contextmanager
def _default_float64():
    """torch's default dtype float64 inside the block: the packages allocate buffers (LRU_pytorch's output,
    mambapy's scan state) in the default dtype, which would round the float64 forward to float32."""
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        yield
    finally:
        torch.set_default_dtype(old)


@dataclass
class PackageMapping:
    """A package's module mapped onto a reference cell (module docstring).

    Attributes:
        package: the pip distribution (``"lru-pytorch"``). module_class: ``"LRU_pytorch.LRU.LRU"``.
        input_size: n, the width of the module's own inputs (the cell's is the Mamba block's d_inner).
        cell: the reference cell, float64, holding copies of the module's parameters (the module is never changed).
        reference: the cell's name as the audit states it (``"rnnaudit.cells.LRU"``), with its settings.
        inputs: x (m, T, n) float64 → the recurrence's inputs (m, T, n_cell): the identity but for the Mamba
            block (its projection, convolution and SiLU).
        own_forward: x (m, T, n) → the module's own output, float64, computed by the package on a float64 copy.
        mapped_forward: x (m, T, n) → the same output computed through :attr:`cell`.
        note: what the mapping leaves out of the recurrence, one line.
        checked: (difference, tolerance) of the last :func:`check_mapping`, None before.
    """

    package: str
    module_class: str
    input_size: int
    cell: RecurrentCell
    reference: str
    inputs: Callable[[Tensor], Tensor]
    own_forward: Callable[[Tensor], Tensor]
    mapped_forward: Callable[[Tensor], Tensor]
    note: str = ""
    checked: tuple[float, float] | None = None

    def to_json(self, difference: float | None = None, tolerance: float | None = None) -> dict:
        """{"package", "module_class", "reference", "note"} and, when given, the checked float64 difference and its
        tolerance."""
        out = {"package": self.package, "module_class": self.module_class, "reference": self.reference,
               "note": self.note}
        if difference is not None:
            out.update(max_abs_difference_float64=difference, tolerance=tolerance)
        return out


def _class_path(module) -> str:
    return f"{type(module).__module__}.{type(module).__qualname__}"


def package_mapping(module) -> PackageMapping | None:
    """The mapping of ``module`` onto its reference cell, or None when its class is not one of
    :data:`MAPPED_CLASSES`.

    Args:
        module: any object; recognised by ``type(module).__module__`` and ``__qualname__`` only.

    Returns:
        A :class:`PackageMapping` whose cell holds float64 copies of the module's parameters (complex ones split
        into real and imaginary parts), or None.

    Raises:
        ValueError: a recognised class in a configuration the reference cell does not compute (mambapy's
            ``inner_layernorms`` or ``use_cuda``); the message names the setting.
    """
    path = _class_path(module)
    if path not in MAPPED_CLASSES or not isinstance(module, nn.Module):
        return None
    from rnnaudit.cells.copying import probe_copy

    own = probe_copy(module)  # float64 (complex128 for complex parameters); the user's module is left as it is
    own.eval() if not module.training else own.train()
    build = {"LRU_pytorch.LRU.LRU": _lru, "mambapy.mamba.MambaBlock": _mamba,
             "minGRU_pytorch.minGRU.minGRU": _min_rnn, "minGRU_pytorch.minLSTM.minLSTM": _min_rnn}[path]
    with torch.no_grad():
        return build(own, path)


def _lru(own: nn.Module, path: str) -> PackageMapping:
    from rnnaudit.cells.lru import LRU

    N, n = own.nu_log.shape[0], own.B.shape[1]
    cell = LRU(n, N, output_size=own.D.shape[0], dtype=torch.float64)
    for name in ("nu_log", "theta_log", "gamma_log", "D"):
        getattr(cell, name).copy_(getattr(own, name))
    cell.B_re.copy_(own.B.real), cell.B_im.copy_(own.B.imag)
    cell.C_re.copy_(own.C.real), cell.C_im.copy_(own.C.imag)
    cell.ring_recorded = False  # the package draws its ring in __init__ and keeps no record of (r_min, r_max)

    def own_forward(x: Tensor) -> Tensor:
        with _default_float64():
            own.state = torch.zeros(N, dtype=torch.complex128)
            return own(x)

    return PackageMapping(MAPPED_CLASSES[path], path, n, cell, "rnnaudit.cells.LRU", lambda x: x, own_forward,
                          lambda x: cell.output(cell(x), x),
                          "the package's ring (r_min, r_max) is not recorded on the module")


def _mamba(own: nn.Module, path: str) -> PackageMapping:
    from rnnaudit.cells.selective_ssm import SelectiveSSM

    config = own.config
    for setting in ("inner_layernorms", "use_cuda"):
        if getattr(config, setting, False):
            raise ValueError(f"mambapy MambaBlock with {setting}=True: the reference cell SelectiveSSM computes "
                             f"mambapy's selective scan without it; build the block with {setting}=False")
    D, N, R = config.d_inner, config.d_state, config.dt_rank
    cell = SelectiveSSM(D, N, dt_rank=R, discretisation="euler", dtype=torch.float64)
    # the package computes A = −exp(A_log.float()) and D.float() in float32 whatever the block's dtype: the cell
    # takes the values the package uses
    cell.A_log.copy_(torch.log(torch.exp(own.A_log.float()).double()))
    cell.D_skip.copy_(own.D.float().double())
    cell.x_proj.copy_(own.x_proj.weight)
    cell.dt_proj_weight.copy_(own.dt_proj.weight)
    cell.dt_proj_bias.copy_(own.dt_proj.bias)

    def front(x: Tensor) -> tuple[Tensor, Tensor]:
        L = x.shape[1]
        u, z = own.in_proj(x).chunk(2, dim=-1)
        u = own.conv1d(u.transpose(1, 2))[:, :, :L].transpose(1, 2)
        return F.silu(u), z

    def mapped_forward(x: Tensor) -> Tensor:
        u, z = front(x)
        return own.out_proj(cell.output(cell(u), u) * F.silu(z))

    def own_forward(x: Tensor) -> Tensor:
        with _default_float64():
            return own(x)

    return PackageMapping(MAPPED_CLASSES[path], path, config.d_model, cell,
                          f"rnnaudit.cells.SelectiveSSM (discretisation 'euler': B̄ = ΔB, as mambapy), D·N = {D}·{N}",
                          lambda x: front(x)[0], own_forward, mapped_forward,
                          "the recurrence is the block's selective scan; its inputs are the block's "
                          "SiLU(conv1d(in_proj x)), its outputs gated by SiLU(z) and projected, by the block's own "
                          "layers")


def _min_rnn(own: nn.Module, path: str) -> PackageMapping:
    from rnnaudit.cells.min_rnn import MinGRU, MinLSTM

    gru = path.endswith("minGRU")
    layer = own.to_hidden_and_gate if gru else own.to_hidden_and_f_i_gate
    n, h = layer.weight.shape[1], layer.weight.shape[0] // (2 if gru else 3)
    cell = (MinGRU if gru else MinLSTM)(n, h, candidate="g", bias=False, dtype=torch.float64)
    cell.W.copy_(layer.weight)

    def own_forward(x: Tensor) -> Tensor:
        with _default_float64():
            return own(x)

    name = "MinGRU" if gru else "MinLSTM"
    return PackageMapping(MAPPED_CLASSES[path], path, n, cell, f"rnnaudit.cells.{name} (candidate 'g', no bias)",
                          lambda x: x, own_forward, lambda x: own.to_out(cell(x)),
                          "from h_0 = 0, as the package's parallel forward; the output projection (if any) is the "
                          "module's own")


def mapping_tolerance(mapping: PackageMapping, x: Tensor, scale: float) -> float:
    """The largest float64 difference :func:`check_mapping` accepts: 16 · u · T · (n + S) · max(1, scale).

    Both sides compute the same float64 recurrence in a different order: each output is a sum over at most T steps
    of terms each formed from at most n + S products (inputs and state), so the difference is within
    O(T (n + S)) roundings u = 2⁻⁵³ of the largest magnitude ``scale``; 16 covers the exp/log round trips of the
    packages' log-space scans. A mapping that computes another formula (a dropped γ, another discretisation)
    misses it by many orders of magnitude (tests).

    Args:
        mapping: the mapping. x: its inputs (m, T, n). scale: max |output| of either side.
    """
    T, n, S = x.shape[1], x.shape[-1], mapping.cell.hidden_size
    return 16 * UNIT_ROUNDOFF * T * (n + S) * max(1.0, scale)


def check_mapping(mapping: PackageMapping, x: Tensor) -> tuple[float, float]:
    """The float64 max |module's own forward − the reference cell's| on x, and its tolerance.

    Args:
        mapping: from :func:`package_mapping`. x: (m, T, n) inputs of the module (float64 is used).

    Returns:
        (difference, tolerance), both floats; also kept as ``mapping.checked``.

    Raises:
        ValueError: x not (m, T, n) for the module's n; the difference exceeds :func:`mapping_tolerance` or is not finite (one line: the module's class,
            the reference cell, both numbers), or the module's forward fails on x (its error named).
    """
    if not isinstance(x, Tensor) or x.dim() != 3 or x.shape[-1] != mapping.input_size or 0 in x.shape:
        shape = tuple(x.shape) if isinstance(x, Tensor) else type(x).__name__
        raise ValueError(f"inputs for {mapping.module_class} must be (m, T, {mapping.input_size}), got {shape}")
    x = x.detach().double()
    with torch.no_grad():
        try:
            theirs = mapping.own_forward(x)
        except Exception as exc:  # the package's own error on this input, named in one line
            raise ValueError(f"{mapping.module_class}'s own forward failed on inputs {tuple(x.shape)}: "
                             f"{type(exc).__name__}: {exc}") from None
        ours = mapping.mapped_forward(x)
    diff = (theirs.double() - ours).abs().max().item()
    scale = max(theirs.abs().max().item(), ours.abs().max().item())
    tol = mapping_tolerance(mapping, x, scale)
    if not diff <= tol:
        raise ValueError(f"{mapping.module_class} does not compute {mapping.reference} on these inputs: float64 max "
                         f"difference {diff:.3g} > tolerance {tol:.3g} (the mapping is refused)")
    mapping.checked = (diff, tol)
    return diff, tol
