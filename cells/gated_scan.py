"""Whole-sequence forward and backward of the gated recurrences (nc_gru.md eq. 1 and eq. 19, and torch's
LSTM with every cell state kept), written out by hand: the fused paths of :class:`cells.nc_gru.GRU`,
:class:`cells.nc_gru.NCGRU` and :class:`cells.baselines.LSTM`. They compute exactly what the step-by-step loops
compute (the tests compare values and gradients with the loops of ``step``), in fewer operations and with
less memory:

* the input parts W·x_t + b of all steps by one GEMM, in a buffer the loop then overwrites with the gates,
  so the inputs' projection, the gates and (for the GRU) the candidate share one (B, T, ·) array;
* one GEMM h·[U_r; U_u]ᵀ per step for both GRU gates instead of two (one h·W_hhᵀ for the four LSTM gates);
* batch-major buffers: the states are written where the cell returns them, (B, T, ·), so nothing is
  transposed or concatenated afterwards;
* no autograd graph inside the loop, and only what backward cannot recompute in one elementwise kernel is
  kept (the GRU stores r ⊙ h_{t−1} besides its gates and states, the LSTM tanh(c_t)): a fresh (B, T, ·)
  buffer costs a page fault per 4 KiB on first touch, more than the kernel that recomputes it;
* backward is one loop of the adjoint recurrence, and the weights' gradients are GEMMs over chunks of
  about 4096 (step, batch) rows, each chunk's adjoints in one reused buffer. The input weights' gradient is
  formed as (xᵀ·δ)ᵀ: autograd's δᵀ·x for the few input features of these tasks runs at about a tenth of the
  rate on MKL (64000 rows, 512 outputs: 188 ms against 22 ms at n = 2, 199 against 27 at n = 8; equal at
  n = 1 and n = 32).

Measured on a 2-core AMD EPYC (T = 1000, batch 64, float32, forward + backward, ratio to
``torch.nn.GRU`` of the same width in the same run): see ``benchmarks/bench_cells.py``.

Only first derivatives are provided: a backward with ``create_graph=True`` through these paths raises
instead of returning gradients that would later be differentiated as constants; the cells fall back to
their step loops under ``torch.func`` transforms (vmap, jvp, jacrev), which need the graph of ``step``,
and under autocast.
"""

from __future__ import annotations

import torch
from torch import Tensor

__all__ = ["gated_recurrence", "lstm", "lstm_order", "fused_path_applies"]

# (step, batch) rows per weight-gradient GEMM in backward: large enough for BLAS to run near its rate, small
# enough that the chunk's buffers (4096 × 512 float32 = 8 MiB for the LSTM at h = 128) replace a (B, T, ·) array.
_CHUNK_ROWS = 4096


def fused_path_applies(device_type: str = "cpu") -> bool:
    """False inside ``torch.func`` transforms (whose vmap/jvp need the per-step graph) and under autocast on
    ``device_type`` (the loops mix the autocast dtype of the input GEMM with the states' dtype), True
    otherwise."""
    active = getattr(torch._C, "_are_functorch_transforms_active", None)
    return not (active is not None and active()) and not torch.is_autocast_enabled(device_type)


def _refuse_a_graph() -> None:
    """Backward runs with grad mode on only for ``create_graph=True``, whose gradients would be used as
    differentiable: these backwards are not, so that is refused here rather than left to
    ``once_differentiable``, which lets it pass (gradients silently constant) when no output gradient
    requires grad, as for a gradient penalty on ``out.sum()``.

    Raises:
        RuntimeError: grad mode is enabled (``create_graph=True``)."""
    if torch.is_grad_enabled():
        raise RuntimeError("the fused sequence paths of GRU, NCGRU and LSTM (cells/gated_scan.py) are "
                           "differentiable once; for create_graph=True run the cell with fused=False")


def _chunks(T: int, B: int) -> list[tuple[int, int]]:
    """[t0, t1) step ranges of about _CHUNK_ROWS / B steps each, last first (backward runs from T down)."""
    steps = max(1, -(-_CHUNK_ROWS // max(B, 1)))
    return [(t0, min(T, t0 + steps)) for t0 in range(0, T, steps)][::-1]


def _previous_states(states: Tensor, h0: Tensor, t0: int, t1: int, buf: Tensor) -> Tensor:
    """h_{t−1} for t in [t0, t1) as ((t1 − t0)·B, h) rows in batch-major order, copied into ``buf``."""
    if t0 == 0:
        buf[:, 0] = h0
        buf[:, 1:] = states[:, : t1 - 1]
    else:
        buf.copy_(states[:, t0 - 1: t1 - 1])
    return buf.reshape(-1, buf.shape[-1])


class _InputGradients:
    """Accumulates, chunk by chunk, the gradients of pre = x·W_inᵀ + b_in from the adjoints δ of pre:
    W_in (as (xᵀ·δ)ᵀ, see the module docstring), b_in and x."""

    def __init__(self, x: Tensor, W_in: Tensor, needs: tuple[bool, bool, bool]):
        self.x, self.W_in = x, W_in
        k, n = W_in.shape
        self.dW_inT = x.new_zeros(n, k) if needs[1] else None
        self.db_in = x.new_zeros(k) if needs[2] else None
        self.dx = torch.empty_like(x) if needs[0] else None

    def add(self, delta: Tensor, t0: int, t1: int) -> None:
        """delta: (B, t1 − t0, k), the adjoints of pre[:, t0:t1]."""
        rows = delta.reshape(-1, delta.shape[-1])
        if self.dW_inT is not None:
            self.dW_inT.addmm_(self.x[:, t0:t1].reshape(-1, self.x.shape[-1]).mT, rows)
        if self.db_in is not None:
            self.db_in.add_(rows.sum(0))
        if self.dx is not None:
            self.dx[:, t0:t1] = delta @ self.W_in

    def result(self) -> tuple[Tensor | None, Tensor | None, Tensor | None]:
        return self.dx, None if self.dW_inT is None else self.dW_inT.mT.contiguous(), self.db_in


class _GatedRecurrence(torch.autograd.Function):
    """h_t = h_{t−1} + u_t ⊙ (c_t − h_{t−1}), [r_t, u_t] = σ(g_t + h_{t−1}U_ruᵀ), c_t = φ(a_t + (r_t ⊙ h_{t−1})U_cᵀ)
    with [g_t, a_t] = W_in x_t + b_in, batch-major (B, T, ·).

    ``pre`` (B, T, 3h) holds [g_t, a_t] after the input GEMM and [r_t, u_t, c_t] once step t has run; with ``H``
    (the states) and ``rh`` = r_t ⊙ h_{t−1} it is all backward reads (plus sgn(z_t) for modReLU). At batch 64
    and h = 128 a step's elementwise kernels cost more in launches than in flops, so both loops are written
    for few kernels (forward 7, backward 13 per step with tanh, plus the GEMMs)."""

    @staticmethod
    def forward(ctx, x: Tensor, W_in: Tensor, b_in: Tensor, h0: Tensor, U_ru: Tensor, U_c: Tensor,
                b: Tensor | None) -> Tensor:
        B, T, n = x.shape
        h = h0.shape[-1]
        kw = {"dtype": h0.dtype, "device": h0.device}
        pre = torch.addmm(b_in, x.reshape(B * T, n), W_in.mT).view(B, T, 3 * h)
        H = torch.empty(B, T, h, **kw)
        rh = torch.empty(B, T, h, **kw)            # r_t ⊙ h_{t−1}: the right factor of ∂/∂U_c
        sign = torch.empty(B, T, h, **kw) if b is not None else None
        z = torch.empty(B, h, **kw)
        c_minus_h = torch.empty(B, h, **kw)
        U_ruT, U_cT = U_ru.mT, U_c.mT
        prev = h0
        for t in range(T):
            gates = pre[:, t, : 2 * h].addmm_(prev, U_ruT).sigmoid_()
            torch.mul(gates[:, :h], prev, out=rh[:, t])
            c = pre[:, t, 2 * h:]
            torch.addmm(c, rh[:, t], U_cT, out=z)
            if b is None:  # tanh (nc_gru.md eq. 1; b_c is in b_in)
                torch.tanh(z, out=c)
            else:  # modReLU(z; b) = sgn(z)·ReLU(|z| + b) (eq. 20); derivative 1[|z| + b > 0]·sgn(z)², as autograd's
                sgn = torch.sign(z, out=sign[:, t])
                lifted = torch.relu_(z.abs_().add_(b))
                sgn.mul_(lifted > 0)
                torch.mul(sgn, lifted, out=c)
            torch.sub(c, prev, out=c_minus_h)
            prev = torch.addcmul(prev, gates[:, h:], c_minus_h, out=H[:, t])
        ctx.save_for_backward(x, W_in, h0, U_ru, U_c, pre, H, rh, sign)
        return H

    @staticmethod
    def backward(ctx, dH: Tensor):
        _refuse_a_graph()
        x, W_in, h0, U_ru, U_c, pre, H, rh, sign = ctx.saved_tensors
        B, T, h = H.shape
        kw = {"dtype": H.dtype, "device": H.device}
        needs = ctx.needs_input_grad
        inputs = _InputGradients(x, W_in, needs[:3])
        dU_ru = torch.zeros_like(U_ru) if needs[4] else None
        dU_c = torch.zeros_like(U_c) if needs[5] else None
        db = torch.zeros(h, **kw) if sign is not None and needs[6] else None
        raw = torch.empty(B, 2 * h, **kw)          # ∂/∂[r, u] before σ′
        dsig = torch.empty(B, 2 * h, **kw)
        c_minus_h, dphi, dc = (torch.empty(B, h, **kw) for _ in range(3))
        one = torch.ones(B, h, **kw)
        dh = torch.zeros_like(h0)
        buffers = {}
        for t0, t1 in _chunks(T, B):
            if (t1 - t0) not in buffers:
                buffers[t1 - t0] = (torch.empty(B, t1 - t0, 3 * h, **kw), torch.empty(B, t1 - t0, h, **kw))
            delta, prevs = buffers[t1 - t0]       # adjoints of pre[:, t0:t1]: [δg, δa]
            for t in range(t1 - 1, t0 - 1, -1):
                prev = H[:, t - 1] if t else h0
                gates, c = pre[:, t, : 2 * h], pre[:, t, 2 * h:]
                dg, dz = delta[:, t - t0, : 2 * h], delta[:, t - t0, 2 * h:]
                dh.add_(dH[:, t])
                torch.sub(c, prev, out=c_minus_h)
                torch.mul(dh, c_minus_h, out=raw[:, h:])                 # ∂/∂u_t
                torch.mul(dh, gates[:, h:], out=dc)                      # ∂/∂c_t
                if sign is None:
                    torch.mul(dc, torch.addcmul(one, c, c, value=-1, out=dphi), out=dz)
                else:  # φ′ = sgn² (0 on dead units and at z = 0)
                    torch.mul(dc, sign[:, t], out=dz).mul_(sign[:, t])
                drh = dz @ U_c                                           # through φ and U_c
                torch.mul(drh, prev, out=raw[:, :h])                     # ∂/∂r_t
                torch.addcmul(gates, gates, gates, value=-1, out=dsig)
                torch.mul(raw, dsig, out=dg)                             # through σ
                dh = torch.addmm(dh.sub_(dc), dg, U_ru).addcmul_(drh, gates[:, :h])
            rows = delta.reshape(-1, 3 * h)
            inputs.add(delta, t0, t1)
            if dU_ru is not None:
                dU_ru.addmm_(rows[:, : 2 * h].mT, _previous_states(H, h0, t0, t1, prevs))
            if dU_c is not None:
                dU_c.addmm_(rows[:, 2 * h:].mT, rh[:, t0:t1].reshape(-1, h))
            if db is not None:
                # ∂c/∂b = sgn(z)·1[|z| + b > 0] = sign, and dz = dc·sign², so dc·sign = dz·sign
                db.add_((delta[..., 2 * h:] * sign[:, t0:t1]).sum((0, 1)))
        dx, dW_in, db_in = inputs.result()
        return dx, dW_in, db_in, dh, dU_ru, dU_c, db


def gated_recurrence(x: Tensor, W_in: Tensor, b_in: Tensor, h0: Tensor, U_ru: Tensor, U_c: Tensor,
                     b: Tensor | None = None) -> Tensor:
    """All hidden states of the gated recurrence of nc_gru.md eq. 1 (``b=None``: c_t = tanh(a_t + (r_t ⊙ h_{t−1})U_cᵀ))
    or eq. 19 (c_t = modReLU(a_t + (r_t ⊙ h_{t−1})U_cᵀ; b)), with [g_t, a_t] = W_in x_t + b_in,
    [r_t, u_t] = σ(g_t + h_{t−1}[U_r; U_u]ᵀ) and h_t = (1 − u_t) ⊙ h_{t−1} + u_t ⊙ c_t.

    Args:
        x: (B, T, n) inputs, batch-first. W_in: (3h, n) = [W_r; W_u; W_c]. b_in: (3h,) = [b_r; b_u; b_c]
            (b_c = 0 for eq. 19, whose candidate has no input bias). h0: (B, h). U_ru: (2h, h) = [U_r; U_u].
            U_c: (h, h). b: (h,) modReLU bias, or None for tanh. One dtype and device for all.

    Returns:
        (B, T, h) hidden states h_1..h_T, contiguous. Differentiable once in every argument.

    Raises:
        RuntimeError: in backward, when it is asked to build a graph (``create_graph=True``).
    """
    return _GatedRecurrence.apply(x, W_in, b_in, h0.contiguous(), U_ru, U_c, b)


class _LSTM(torch.autograd.Function):
    """torch's LSTM step with the gates reordered to [ĩ, f̃, õ, g̃]_t = W_ih x_t + b + h_{t−1}W_hhᵀ (the three
    sigmoid gates adjacent): i, f, o = σ(·), g = tanh(·), c_t = f ⊙ c_{t−1} + i ⊙ g, h_t = o ⊙ tanh(c_t);
    batch-major. ``act`` (B, T, 4H) holds the input parts, then the gates after their nonlinearities; the
    output S (B, T, 2H) = [h_t, c_t] and tanh(c_t) are all backward reads. Forward 7 and backward 14 kernels
    per step plus the GEMMs."""

    @staticmethod
    def forward(ctx, x: Tensor, W_ih: Tensor, b: Tensor, h0: Tensor, c0: Tensor, W_hh: Tensor) -> Tensor:
        B, T, n = x.shape
        H = h0.shape[-1]
        kw = {"dtype": h0.dtype, "device": h0.device}
        act = torch.addmm(b, x.reshape(B * T, n), W_ih.mT).view(B, T, 4 * H)
        S = torch.empty(B, T, 2 * H, **kw)
        tc = torch.empty(B, T, H, **kw)
        ig = torch.empty(B, H, **kw)
        W_hhT = W_hh.mT
        h, c = h0, c0
        for t in range(T):
            a = act[:, t].addmm_(h, W_hhT)
            a[:, : 3 * H].sigmoid_()
            gg = a[:, 3 * H:].tanh_()
            c = torch.addcmul(torch.mul(a[:, :H], gg, out=ig), a[:, H: 2 * H], c, out=S[:, t, H:])
            h = torch.mul(a[:, 2 * H: 3 * H], torch.tanh(c, out=tc[:, t]), out=S[:, t, :H])
        ctx.save_for_backward(x, W_ih, h0, c0, W_hh, act, S, tc)
        return S

    @staticmethod
    def backward(ctx, dS: Tensor):
        _refuse_a_graph()
        x, W_ih, h0, c0, W_hh, act, S, tc = ctx.saved_tensors
        B, T, two = S.shape
        H = two // 2
        kw = {"dtype": S.dtype, "device": S.device}
        needs = ctx.needs_input_grad
        inputs = _InputGradients(x, W_ih, needs[:3])
        dW_hh = torch.zeros_like(W_hh) if needs[5] else None
        raw = torch.empty(B, 4 * H, **kw)          # ∂/∂[i, f, o, g] before the nonlinearities' derivatives
        dact = torch.empty(B, 4 * H, **kw)
        h_to_c = torch.empty(B, H, **kw)
        one = torch.ones(B, H, **kw)
        dh, dc = torch.zeros_like(h0), torch.zeros_like(c0)
        buffers = {}
        for t0, t1 in _chunks(T, B):
            if (t1 - t0) not in buffers:
                buffers[t1 - t0] = (torch.empty(B, t1 - t0, 4 * H, **kw), torch.empty(B, t1 - t0, H, **kw))
            delta, prevs = buffers[t1 - t0]
            for t in range(t1 - 1, t0 - 1, -1):
                a, tct = act[:, t], tc[:, t]
                dh.add_(dS[:, t, :H])
                torch.addcmul(one, tct, tct, value=-1, out=h_to_c).mul_(a[:, 2 * H: 3 * H])   # ∂h_t/∂c_t
                dc.add_(dS[:, t, H:]).addcmul_(dh, h_to_c)
                torch.mul(dc, a[:, 3 * H:], out=raw[:, :H])                          # ∂/∂i
                torch.mul(dc, S[:, t - 1, H:] if t else c0, out=raw[:, H: 2 * H])    # ∂/∂f
                torch.mul(dh, tct, out=raw[:, 2 * H: 3 * H])                         # ∂/∂o
                torch.mul(dc, a[:, :H], out=raw[:, 3 * H:])                          # ∂/∂g
                sig, gg = a[:, : 3 * H], a[:, 3 * H:]
                torch.addcmul(sig, sig, sig, value=-1, out=dact[:, : 3 * H])
                torch.addcmul(one, gg, gg, value=-1, out=dact[:, 3 * H:])
                da = torch.mul(raw, dact, out=delta[:, t - t0])                    # through σ and tanh
                dc.mul_(a[:, H: 2 * H])
                dh = da @ W_hh
            inputs.add(delta, t0, t1)
            if dW_hh is not None:
                dW_hh.addmm_(delta.reshape(-1, 4 * H).mT, _previous_states(S[..., :H], h0, t0, t1, prevs))
        dx, dW_ih, db = inputs.result()
        return dx, dW_ih, db, dh, dc, dW_hh


def lstm_order(H: int, device=None) -> Tensor:
    """Row permutation from torch's LSTM gate order (i, f, g, o) to the one :func:`lstm` takes (i, f, o, g)."""
    return torch.cat([torch.arange(2 * H), torch.arange(3 * H, 4 * H), torch.arange(2 * H, 3 * H)]).to(device)


def lstm(x: Tensor, W_ih: Tensor, b: Tensor, h0: Tensor, c0: Tensor, W_hh: Tensor) -> Tensor:
    """All [h_t, c_t] of torch's LSTM over a sequence, gates in the order **i, f, o, g** (torch's i, f, g, o
    with the last two row blocks swapped: :func:`lstm_order`).

    Args:
        x: (B, T, n) inputs, batch-first. W_ih: (4H, n). b: (4H,) = b_ih + b_hh. h0, c0: (B, H).
        W_hh: (4H, H). One dtype and device for all.

    Returns:
        (B, T, 2H) = [h_t, c_t] for t = 1..T, contiguous, differentiable once in every argument.

    Raises:
        RuntimeError: in backward, when it is asked to build a graph (``create_graph=True``).
    """
    return _LSTM.apply(x, W_ih, b, h0.contiguous(), c0.contiguous(), W_hh)
