"""Argument checks shared by the cells: a bad input is a ValueError that names the
argument and says what was expected, never a silent NaN further down."""

from __future__ import annotations

import numbers
import os

import torch
from torch import Tensor


#: What the probes do with complex tensors, quoted by every refusal so that a user learns where they are accepted.
COMPLEX_SUPPORTED = ("complex states and weights are probed by the Jacobian maps, Lyapunov spectra and spectra, "
                     "as the real state (Re z, Im z)")


def complex_refusal(what: str, dtype: torch.dtype, surface: str = "as inputs") -> str:
    """The one line refusing a complex tensor where complex is still unsupported (``what`` names it: "x",
    "parameter 'lam'", a file's entry; ``surface`` says where: "as inputs" (x, everywhere), "by the audit", "by
    the Monitor", "in torch.nn.RNN/GRU/LSTM"). No cast is suggested, since a cast to a real dtype drops the imaginary
    part (a diagonal complex recurrence then reports a wrong λ₁); the line says where complex states are accepted
    (:data:`COMPLEX_SUPPORTED`)."""
    return (f"{what} is complex ({str(dtype).replace('torch.', '')}); complex tensors are not supported yet {surface} "
            f"(a cast to a real dtype would drop the imaginary part; {COMPLEX_SUPPORTED})")


def check_sizes(minimum: int = 1, **sizes) -> None:
    """Check integer sizes (input_size=2, hidden_size=4, ...): ints (a bool or a float such as 4.0 is not
    one) and at least ``minimum``; a ``hidden_size`` (with ``input_size``) whose one-step Jacobians fit the memory
    limit (:func:`check_state_memory`).

    Raises:
        TypeError: a size that is not an int, named. ValueError: one below ``minimum``, or too large, named.
    """
    for name, value in sizes.items():
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise TypeError(f"{name} must be an int, got {value!r} ({type(value).__name__})")
        if value < minimum:
            raise ValueError(f"{name} must be >= {minimum}, got {value}")
    if "hidden_size" in sizes:  # a cell of width 10⁹ took minutes to build before anything failed
        check_state_memory(sizes.get("input_size", 0), sizes["hidden_size"], "hidden_size")


def memory_limit() -> int:
    """Bytes one job may hold: 3/4 of the machine's physical memory (``os.sysconf``), 8 GiB where it cannot be
    read; the same rule as :func:`analysis.grid_maps.default_memory_limit` for the CPU, which this layer cannot
    import."""
    try:
        return int(0.75 * os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 8 * 2 ** 30


def check_state_memory(input_size: int, state_size: int, name: str = "state_size") -> None:
    """Raise ValueError unless the (S, S) and (S, n) float64 Jacobians of one step, which every probe forms, fit
    :func:`memory_limit` (a size such as 10¹² is accepted by the arithmetic and fails only at the allocation)."""
    need, limit = 8 * state_size * (state_size + input_size), memory_limit()
    if need > limit:
        raise ValueError(f"{name} = {state_size}, input_size = {input_size}: the probes' float64 Jacobians of "
                         f"one step need {need / 2**30:.3g} GiB, above the memory limit of {limit / 2**30:.3g} GiB")


def require_finite(name: str, value: Tensor) -> None:
    """Raise ValueError if ``value`` holds NaN or ±Inf."""
    if not torch.isfinite(value).all():
        bad = (~torch.isfinite(value)).sum().item()
        raise ValueError(f"{name} must be finite, found {bad} NaN/Inf entries")


def check_sequence(x: Tensor, input_size: int, dtype: torch.dtype, name: str = "x") -> None:
    """Check a batch-first sequence of shape (batch, T, input_size) with T ≥ 1.

    Raises:
        ValueError: wrong rank, width, T = 0, dtype different from the cell's, NaN/Inf; complex x (inputs are
            real; a cell with a complex state takes real x: :func:`complex_refusal`).
    """
    if not isinstance(x, Tensor):
        raise ValueError(f"{name} must be a torch.Tensor of shape (batch, T, {input_size}), got {type(x).__name__}")
    if x.dim() != 3:
        raise ValueError(f"{name} must have shape (batch, T, {input_size}), got shape {tuple(x.shape)}")
    if x.shape[1] == 0:
        raise ValueError(f"{name} must have T >= 1 time steps, got T = 0")
    if x.shape[2] != input_size:
        raise ValueError(f"{name} must have input width {input_size} (last dim), got {x.shape[2]}")
    if x.is_complex():
        raise ValueError(complex_refusal(name, x.dtype, "as inputs"))
    if not x.is_floating_point():  # an int x: converting the cell to its dtype is no remedy
        raise ValueError(f"{name} must be a floating-point tensor like the cell's parameters ({dtype}), got "
                         f"{x.dtype}; convert it (e.g. {name}.to({dtype}))")
    if x.dtype != dtype:
        raise ValueError(f"{name} has dtype {x.dtype} but the cell's parameters are {dtype}; "
                         f"convert one of them (e.g. cell.to({x.dtype}))")
    require_finite(name, x)


def check_state(h: Tensor, batch: int, hidden_size: int, dtype: torch.dtype, name: str = "h0") -> None:
    """Check an initial hidden state of shape (batch, hidden_size).

    Raises:
        ValueError: not a tensor, wrong shape or dtype (a complex h for a real state: :func:`complex_refusal`),
            NaN/Inf.
    """
    if not isinstance(h, Tensor):
        raise ValueError(f"{name} must be a torch.Tensor of shape ({batch}, {hidden_size}), got {type(h).__name__}")
    if h.shape != (batch, hidden_size):
        raise ValueError(f"{name} must have shape ({batch}, {hidden_size}), got {tuple(h.shape)}")
    if h.is_complex() and not dtype.is_complex:
        raise ValueError(complex_refusal(name, h.dtype, "as the state of a real cell"))
    if h.dtype != dtype:
        raise ValueError(f"{name} has dtype {h.dtype}, expected {dtype}")
    require_finite(name, h)


def check_parameters_finite(module: torch.nn.Module, role_of=None) -> None:
    """Raise ValueError naming the first parameter or floating buffer of ``module`` with NaN/±Inf.

    Cheap enough for every forward pass: one sum per tensor (NaN and ±Inf propagate through a sum),
    stacked, and one host synchronisation — on the CPU a sum is about 20× faster than
    ``isfinite(t).all()``, which allocates a mask. Only when a sum is not finite (a bad entry, or an
    overflow of finite entries) does the exact per-tensor ``isfinite`` search run, so the result is
    exact either way.

    Args:
        module: the cell. role_of: optional ``(name, tensor) -> str | None`` giving the tensor's
            role in the paper's notation, added to the message.

    Raises:
        ValueError: "parameter 'cayley.A' (role 'A') must be finite, found k NaN/Inf entries".
    """
    tensors = [("parameter", n, t) for n, t in module.named_parameters()]
    tensors += [("buffer", n, t) for n, t in module.named_buffers() if t.is_floating_point() or t.is_complex()]
    tensors = [item for item in tensors if item[2].numel()]
    if not tensors:
        return
    device = tensors[0][2].device
    # float32: every device has it (MPS has no float64); a cast that overflows only triggers the exact search
    sums = torch.stack([t.detach().sum().abs().to(device=device, dtype=torch.float32) for _, _, t in tensors])
    if bool(torch.isfinite(sums).all()):
        return
    for kind, name, t in tensors:
        if not bool(torch.isfinite(t).all()):
            role = role_of(name, t) if role_of is not None else None
            label = f"{kind} {name!r}" + (f" (role {role!r})" if role is not None and role != name else "")
            require_finite(label, t)


#: The floating dtypes a model may hold: the probes convert them to float64 exactly. float8 and the like have
#: no arithmetic in torch for most operations (``isfinite``, ``matmul``), so they are refused, never converted
#: silently.
PROBE_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)


def unsupported_tensor(tensor: Tensor) -> str | None:
    """Why the probes cannot read ``tensor`` (its device, layout or dtype, with the conversion that keeps every
    value), or None when they can. Integer and bool tensors pass (buffers such as step counters); complex tensors
    pass too, for the complex refusal of the caller to word.

    Returns:
        e.g. ``"torch.float8_e4m3fn, a dtype the probes do not compute in (...)"``, or None.
    """
    if tensor.is_meta:
        return "on the meta device (a shape without values, nothing to measure)"
    if tensor.layout != torch.strided:
        return (f"a {str(tensor.layout).removeprefix('torch.')} tensor; the probes need dense tensors: "
                "convert it with .to_dense()")
    if tensor.is_quantized:
        return f"quantized ({tensor.dtype}); the probes need real floating tensors: convert it with .dequantize()"
    if tensor.is_floating_point() and tensor.dtype not in PROBE_DTYPES:
        return (f"{tensor.dtype}, a dtype the probes do not compute in (float16, bfloat16, float32, float64); "
                "convert it with .to(torch.float32), which keeps every value")
    return None


def first_unsupported(named) -> tuple[str, str] | None:
    """(name, reason) of the first tensor of ``named`` (pairs name → tensor) the probes cannot read
    (:func:`unsupported_tensor`), or None."""
    for name, t in named:
        if isinstance(t, Tensor):
            why = unsupported_tensor(t)
            if why is not None:
                return str(name), why
    return None
