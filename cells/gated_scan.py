"""Whole-sequence forward and backward of the gated recurrences (nc_gru.md eq. 1 and eq. 19, and torch's
LSTM with every cell state kept), written out by hand: the fused paths of :class:`cells.nc_gru.GRU`,
:class:`cells.nc_gru.NCGRU` and :class:`cells.baselines.LSTM`. They compute exactly what the step-by-step loops
compute (the tests compare values and gradients with the loops of ``step``), in fewer operations:

* one GEMM h·[U_r; U_u]ᵀ per step for both GRU gates instead of two (one h·W_hhᵀ for the four LSTM gates),
  the input parts W·x_t (+ b) of all steps by one GEMM before the loop;
* no autograd graph inside the loop: backward is one loop of the adjoint recurrence, keeping only the
  gradient with respect to h_{t−1} per step, and the recurrent weights' gradients Σ_t δ_tᵀ h_{t−1} are one
  GEMM over all steps afterwards (autograd does a small GEMM per step and weight).

Measured on a 2-core AMD EPYC (T = 1000, batch 64, float32, forward + backward, ratio to
``torch.nn.GRU`` of the same width in the same run): see ``benchmarks/bench_cells.py``.

Only first derivatives are provided (``once_differentiable``): differentiating a gradient through these
paths raises instead of returning a wrong second derivative; the cells fall back to their step loops
under ``torch.func`` transforms (vmap, jvp, jacrev), which need the graph of ``step``.
"""

from __future__ import annotations

import torch
from torch import Tensor
from torch.autograd.function import once_differentiable

__all__ = ["gated_recurrence", "lstm", "lstm_order", "fused_path_applies"]


def fused_path_applies() -> bool:
    """False inside ``torch.func`` transforms (whose vmap/jvp need the per-step graph), True otherwise."""
    active = getattr(torch._C, "_are_functorch_transforms_active", None)
    return not (active is not None and active())


class _GatedRecurrence(torch.autograd.Function):
    """h_t = h_{t−1} + u_t ⊙ (c_t − h_{t−1}), [r_t, u_t] = σ(g_t + h_{t−1}U_ruᵀ), c_t = φ(a_t + (r_t ⊙ h_{t−1})U_cᵀ),
    time-major: g (T, B, 2h) and a (T, B, h) hold the input parts (with their biases).

    At batch 64 and h = 128 a step's elementwise kernels cost more in launches than in flops, so both
    loops are written for the fewest kernels (forward 9, backward 10 per step, plus the GEMMs); the
    derivatives of σ and φ are formed in the forward loop while their inputs are in cache."""

    @staticmethod
    def forward(ctx, g: Tensor, a: Tensor, h0: Tensor, U_ru: Tensor, U_c: Tensor, b: Tensor | None) -> Tensor:
        T, B, h = a.shape
        kw = {"dtype": a.dtype, "device": a.device}
        H = torch.empty(T, B, h, **kw)
        gates = torch.empty(T, B, 2 * h, **kw)   # σ(·): r_t, u_t
        dsig = torch.empty(T, B, 2 * h, **kw)    # σ′ = σ(1 − σ)
        rh = torch.empty(T, B, h, **kw)          # r_t ⊙ h_{t−1}
        c_minus_h = torch.empty(T, B, h, **kw)   # c_t − h_{t−1} = ∂h_t/∂u_t
        dphi = torch.empty(T, B, h, **kw)        # φ′(z_t)
        sign = torch.empty(T, B, h, **kw) if b is not None else None
        one = torch.ones(B, h, **kw)
        U_ruT, U_cT = U_ru.mT, U_c.mT
        prev = h0
        for t in range(T):
            gt = torch.addmm(g[t], prev, U_ruT, out=gates[t]).sigmoid_()
            torch.addcmul(gt, gt, gt, value=-1, out=dsig[t])
            torch.mul(gt[:, :h], prev, out=rh[t])
            z = torch.addmm(a[t], rh[t], U_cT)
            if b is None:  # tanh (nc_gru.md eq. 1; b_c is in a)
                c = torch.tanh(z)
                torch.addcmul(one, c, c, value=-1, out=dphi[t])
            else:  # modReLU(z; b) = sgn(z)·ReLU(|z| + b) (eq. 20); derivative 1[|z| + b > 0]·sgn(z)², as autograd's
                lifted = torch.relu_(z.abs().add_(b))
                sgn = torch.sign(z, out=sign[t]).mul_(lifted > 0)
                c = sgn * lifted
                torch.mul(sgn, sgn, out=dphi[t])
            torch.sub(c, prev, out=c_minus_h[t])
            prev = torch.addcmul(prev, gt[:, h:], c_minus_h[t], out=H[t])
        ctx.save_for_backward(H, h0, gates, dsig, rh, c_minus_h, dphi, sign, U_ru, U_c)
        return H

    @staticmethod
    @once_differentiable
    def backward(ctx, dH: Tensor):
        H, h0, gates, dsig, rh, c_minus_h, dphi, sign, U_ru, U_c = ctx.saved_tensors
        T, B, h = H.shape
        dH = dH.contiguous()
        dg = torch.empty_like(gates)
        dz = torch.empty_like(rh)
        raw = torch.empty(B, 2 * h, dtype=H.dtype, device=H.device)
        dh = torch.zeros_like(h0)
        for t in range(T - 1, -1, -1):
            prev = H[t - 1] if t else h0
            dh.add_(dH[t])
            torch.mul(dh, c_minus_h[t], out=raw[:, h:])           # ∂/∂u_t
            dc = dh * gates[t][:, h:]                               # ∂/∂c_t
            drh = torch.mul(dc, dphi[t], out=dz[t]) @ U_c           # through φ and U_c
            torch.mul(drh, prev, out=raw[:, :h])                    # ∂/∂r_t
            torch.mul(raw, dsig[t], out=dg[t])                      # through σ
            dh = torch.addmm(dh - dc, dg[t], U_ru).addcmul_(drh, gates[t][:, :h])
        prevs = torch.cat([h0[None], H[:-1]]).reshape(T * B, h)
        dU_ru = dg.reshape(T * B, 2 * h).mT @ prevs
        dU_c = dz.reshape(T * B, h).mT @ rh.reshape(T * B, h)
        db = None
        if sign is not None and ctx.needs_input_grad[5]:
            # ∂c/∂b = sgn(z)·1[|z| + b > 0] = sign, and dz = dc·sign², so dc·sign = dz·sign
            db = (dz * sign).sum((0, 1))
        return dg, dz, dh, dU_ru, dU_c, db


def gated_recurrence(g: Tensor, a: Tensor, h0: Tensor, U_ru: Tensor, U_c: Tensor, b: Tensor | None = None) -> Tensor:
    """All hidden states of the gated recurrence of nc_gru.md eq. 1 (``b=None``: c_t = tanh(a_t + (r_t ⊙ h_{t−1})U_cᵀ),
    with b_c folded into a) or eq. 19 (c_t = modReLU(a_t + (r_t ⊙ h_{t−1})U_cᵀ; b)), with
    [r_t, u_t] = σ(g_t + h_{t−1}[U_r; U_u]ᵀ) and h_t = (1 − u_t) ⊙ h_{t−1} + u_t ⊙ c_t.

    Args:
        g: (T, B, 2h) input parts of r and u with their biases, time-major. a: (T, B, h) input part of
            the candidate (with b_c for eq. 1). h0: (B, h). U_ru: (2h, h) = [U_r; U_u]. U_c: (h, h).
        b: (h,) modReLU bias, or None for tanh.

    Returns:
        (T, B, h) hidden states h_1..h_T, time-major. Differentiable once in every argument.
    """
    return _GatedRecurrence.apply(g.contiguous(), a.contiguous(), h0.contiguous(), U_ru, U_c, b)


class _LSTM(torch.autograd.Function):
    """torch's LSTM step with the gates reordered to [ĩ, f̃, õ, g̃]_t = g_t + h_{t−1}W_hhᵀ (g: input parts with both
    biases; the three sigmoid gates adjacent): i, f, o = σ(·), g = tanh(·), c_t = f ⊙ c_{t−1} + i ⊙ g,
    h_t = o ⊙ tanh(c_t); time-major (T, B, ·). Forward 11 and backward 10 kernels per step plus the GEMMs."""

    @staticmethod
    def forward(ctx, g: Tensor, h0: Tensor, c0: Tensor, W_hh: Tensor) -> tuple[Tensor, Tensor]:
        T, B, four = g.shape
        H = four // 4
        kw = {"dtype": g.dtype, "device": g.device}
        hs, cs, tc, h_to_c = (torch.empty(T, B, H, **kw) for _ in range(4))
        act = torch.empty(T, B, 4 * H, **kw)   # i, f, o, g after their nonlinearities
        dact = torch.empty(T, B, 4 * H, **kw)  # their derivatives
        one = torch.ones(B, H, **kw)
        W_hhT = W_hh.mT
        h, c = h0, c0
        for t in range(T):
            a = torch.addmm(g[t], h, W_hhT, out=act[t])
            sig, gg = a[:, :3 * H].sigmoid_(), a[:, 3 * H:].tanh_()
            torch.addcmul(sig, sig, sig, value=-1, out=dact[t][:, :3 * H])
            torch.addcmul(one, gg, gg, value=-1, out=dact[t][:, 3 * H:])
            c = torch.addcmul(a[:, :H] * gg, a[:, H:2 * H], c, out=cs[t])
            tct = torch.tanh(c, out=tc[t])
            h = torch.mul(a[:, 2 * H:3 * H], tct, out=hs[t])
            torch.addcmul(one, tct, tct, value=-1, out=h_to_c[t]).mul_(a[:, 2 * H:3 * H])  # ∂h_t/∂c_t
        ctx.save_for_backward(act, dact, hs, cs, tc, h_to_c, h0, c0, W_hh)
        return hs, cs

    @staticmethod
    @once_differentiable
    def backward(ctx, dhs: Tensor, dcs: Tensor):
        act, dact, hs, cs, tc, h_to_c, h0, c0, W_hh = ctx.saved_tensors
        T, B, H = hs.shape
        dhs, dcs = dhs.contiguous(), dcs.contiguous()
        da = torch.empty_like(act)
        raw = torch.empty(B, 4 * H, dtype=hs.dtype, device=hs.device)
        dh, dc = torch.zeros_like(h0), torch.zeros_like(c0)
        for t in range(T - 1, -1, -1):
            a = act[t]
            dh.add_(dhs[t])
            dc.add_(dcs[t]).addcmul_(dh, h_to_c[t])
            torch.mul(dc, a[:, 3 * H:], out=raw[:, :H])                   # ∂/∂i
            torch.mul(dc, cs[t - 1] if t else c0, out=raw[:, H:2 * H])    # ∂/∂f
            torch.mul(dh, tc[t], out=raw[:, 2 * H:3 * H])                 # ∂/∂o
            torch.mul(dc, a[:, :H], out=raw[:, 3 * H:])                   # ∂/∂g
            torch.mul(raw, dact[t], out=da[t])                            # through σ and tanh
            dc = dc * a[:, H:2 * H]
            dh = da[t] @ W_hh
        prevs = torch.cat([h0[None], hs[:-1]]).reshape(T * B, H)
        dW_hh = da.reshape(T * B, 4 * H).mT @ prevs
        return da, dh, dc, dW_hh


def lstm_order(H: int, device=None) -> Tensor:
    """Row permutation from torch's LSTM gate order (i, f, g, o) to the one :func:`lstm` takes (i, f, o, g)."""
    return torch.cat([torch.arange(2 * H), torch.arange(3 * H, 4 * H), torch.arange(2 * H, 3 * H)]).to(device)


def lstm(g: Tensor, h0: Tensor, c0: Tensor, W_hh: Tensor) -> tuple[Tensor, Tensor]:
    """All h_t and c_t of torch's LSTM over a sequence, gates in the order **i, f, o, g** (torch's i, f, g, o
    with the last two row blocks swapped: :func:`lstm_order`).

    Args:
        g: (T, B, 4H) input parts W_ih x_t + b_ih + b_hh, time-major. h0, c0: (B, H). W_hh: (4H, H).

    Returns:
        ``(h, c)``: (T, B, H) each, time-major, differentiable once in every argument.
    """
    return _LSTM.apply(g.contiguous(), h0.contiguous(), c0.contiguous(), W_hh)
