"""The step Jacobians of torch's stacked ``nn.RNN``/``nn.GRU``/``nn.LSTM`` in closed form, every step at once.

For a stack given by its weights (torch's ``weight_ih, weight_hh, bias_ih, bias_hh`` per layer, gates stacked in
torch's order) and a trajectory of packed states (layers in order; for an LSTM all h parts, then all c parts), the
product rule on torch's equations (torch.nn.GRU/LSTM documentation) gives each layer's derivatives as diagonal
gate factors times the weight blocks:

* tanh/relu RNN, h' = σ(a): ∂h'/∂h = diag(σ'(a)) W_hh, ∂h'/∂u = diag(σ'(a)) W_ih (u the layer's input);
* GRU, h' = (1 − z) ⊙ n + z ⊙ h: ∂h'/∂h = diag(z) + Σ_g diag(k_g) W_hg over g = r, z, n with
  k_r = (1 − z)(1 − n²)(W_hn h + b_hn) r(1 − r), k_z = (h − n) z(1 − z), k_n = (1 − z)(1 − n²) r, and ∂h'/∂u the
  same with W_ig and k_n without its factor r (the reset gate multiplies only the recurrent part);
* LSTM, c' = f ⊙ c + i ⊙ g, h' = o ⊙ tanh(c'): ∂c'/∂a = [diag(g i(1 − i)), diag(c f(1 − f)), diag(i(1 − g²)), 0]
  for the pre-activation a = W_ih u + b_ih + W_hh h + b_hh, ∂h'/∂a = diag(o(1 − tanh²c')) ∂c'/∂a + [0, 0, 0,
  diag(tanh(c') o(1 − o))], ∂c'/∂c = diag(f), ∂h'/∂c = diag(o(1 − tanh²c') f).

Layer l's input is layer l − 1's new h, so its rows of ∂s_t/∂s_{t−1} are its own block plus ∂h'/∂u times the rows of
the layer below (one batched product per layer). The cost is a few elementwise passes over T·S·S numbers and, for a
stack, one batched GEMM per layer: no vector-Jacobian products (``torch.func.jacrev`` forms S of them per step).
The result agrees with autograd through the same equations to rounding (a test pins ≤ 1e-13 on float64).
"""

from __future__ import annotations

import torch
from torch import Tensor

__all__ = ["CLOSED_FORM_KINDS", "stacked_step_jacobians", "step_jacobians_at"]

#: the case kinds (:data:`rnnaudit.bounds.architectures.KINDS`) whose step Jacobians this module forms
CLOSED_FORM_KINDS = ("rnn_tanh", "rnn_relu", "gru", "lstm")
_GATES = {"rnn_tanh": 1, "rnn_relu": 1, "gru": 3, "lstm": 4}
#: numbers of ∂s'/∂s and ∂s'/∂x formed per pass of :func:`step_jacobians_at` (2^23 float64: 64 MB; the layer factors
#: and products of a pass are a few times that), so that a long sequence's transient memory does not grow with T
ROWS_CHUNK = 2 ** 23


def _rows(coef: Tensor, W: Tensor) -> Tensor:
    """Σ_g diag(coef[:, g]) W_g for every step: coef (T, G, H), W (G·H, m) → (T, H, m)."""
    G, H = coef.shape[1], coef.shape[2]
    Wg = W.reshape(G, H, W.shape[-1])
    out = coef[:, 0, :, None] * Wg[0]
    for g in range(1, G):  # accumulated in place: no (T, H, m) temporary per gate
        out.addcmul_(coef[:, g, :, None], Wg[g])
    return out


def _pre(w: tuple, u: Tensor, h: Tensor) -> tuple[Tensor, Tensor]:
    """The layer's pre-activations W_ih u + b_ih and W_hh h + b_hh of every row (T, G·H) each."""
    w_ih, w_hh, b_ih, b_hh = w
    return u @ w_ih.mT + b_ih, h @ w_hh.mT + b_hh


def _layer(kind: str, w: tuple, u: Tensor, h: Tensor, c: Tensor | None, pre: tuple | None = None,
           need_u: bool = True):
    """One layer's derivatives at every step: inputs u (T, m), previous h (T, H) and c (T, H) or None, and the
    pre-activations (:func:`_pre`) when the caller formed them. Returns
    (dh/dh (T, H, H), dh/dc diagonal (T, H) or None, dc/dh (T, H, H) or None, dc/dc diagonal or None,
    dh/du (T, H, m), dc/du (T, H, m) or None); dh/du and dc/du are None without ``need_u`` (the first layer's, when
    ∂s'/∂x is not asked for: half of a GRU's products)."""
    w_ih, w_hh, b_ih, b_hh = w
    gi, gh = _pre(w, u, h) if pre is None else pre
    if kind in ("rnn_tanh", "rnn_relu"):
        a = gi + gh
        d = (1 - torch.tanh(a) ** 2) if kind == "rnn_tanh" else (a > 0).to(a.dtype)
        return d[..., None] * w_hh, None, None, None, d[..., None] * w_ih if need_u else None, None
    H = h.shape[-1]
    if kind == "gru":
        i_r, i_z, i_n = gi.split(H, -1)
        h_r, h_z, h_n = gh.split(H, -1)
        r, z = torch.sigmoid(i_r + h_r), torch.sigmoid(i_z + h_z)
        n = torch.tanh(i_n + r * h_n)
        dn = (1 - z) * (1 - n * n)
        k_r, k_z = dn * h_n * r * (1 - r), (h - n) * z * (1 - z)
        dh = _rows(torch.stack([k_r, k_z, dn * r], 1), w_hh)
        dh.diagonal(dim1=-2, dim2=-1).add_(z)
        return dh, None, None, None, _rows(torch.stack([k_r, k_z, dn], 1), w_ih) if need_u else None, None
    a_i, a_f, a_g, a_o = (gi + gh).split(H, -1)
    i, f, g, o = torch.sigmoid(a_i), torch.sigmoid(a_f), torch.tanh(a_g), torch.sigmoid(a_o)
    c_new = f * c + i * g
    tc = torch.tanh(c_new)
    zero = torch.zeros_like(i)
    dc_da = torch.stack([g * i * (1 - i), c * f * (1 - f), i * (1 - g * g), zero], 1)  # (T, 4, H)
    oc = o * (1 - tc * tc)
    dh_da = dc_da * oc[:, None]
    dh_da[:, 3] = tc * o * (1 - o)
    if not need_u:
        return _rows(dh_da, w_hh), oc * f, _rows(dc_da, w_hh), f, None, None
    return (_rows(dh_da, w_hh), oc * f, _rows(dc_da, w_hh), f, _rows(dh_da, w_ih), _rows(dc_da, w_ih))


def stacked_step_jacobians(kind: str, weights: tuple, x: Tensor, states: Tensor, *, state: bool = True,
                           inputs: bool = True) -> tuple[Tensor | None, Tensor | None]:
    """∂s_t/∂s_{t−1} and ∂s_t/∂x_t of a torch RNN/GRU/LSTM stack along one trajectory, in closed form.

    Args:
        kind: one of :data:`CLOSED_FORM_KINDS`.
        weights: per layer ``(weight_ih (G·H, m), weight_hh (G·H, H), bias_ih (G·H,), bias_hh (G·H,))``, G = 1, 3, 4
            for RNN, GRU, LSTM (torch's gate order: r, z, n; i, f, g, o).
        x: inputs (T, n). states: packed states s_0, …, s_T (T + 1, S), S = Σ H_l (twice that for an LSTM: all h
            parts, then all c parts), as :func:`rnnaudit.bounds.architectures.trajectory` forms them.

    Returns:
        (J (T, S, S), B (T, S, n)), J[t − 1] = ∂s_t/∂s_{t−1}, B[t − 1] = ∂s_t/∂x_t, in the dtype of the inputs
        (float64 for the audit). Differentiable in the weights and states (plain torch operations).

    Raises:
        ValueError: a kind not in :data:`CLOSED_FORM_KINDS`, or states not (T + 1, S) for x (T, n).

    Source: torch.nn.RNN/GRU/LSTM documentation (the equations); the product rule (module docstring).
    """
    if kind not in CLOSED_FORM_KINDS:
        raise ValueError(f"kind must be one of {CLOSED_FORM_KINDS}, got {kind!r}")
    T = x.shape[0]
    S = sum(w[1].shape[1] for w in weights) * (2 if kind == "lstm" else 1)
    if states.dim() != 2 or states.shape != (T + 1, S):
        raise ValueError(f"states must be (T + 1, S) = ({T + 1}, {S}), got {tuple(states.shape)}")
    return step_jacobians_at(kind, weights, x, states[:-1], states[1:], state=state, inputs=inputs)


def step_jacobians_at(kind: str, weights: tuple, x: Tensor, prev: Tensor, new: Tensor, *, state: bool = True,
                      inputs: bool = True, _pres: list | None = None,
                      _out: tuple | None = None) -> tuple[Tensor | None, Tensor | None]:
    """∂s'/∂s and ∂s'/∂x of one step s' = F(x, s) of a torch RNN/GRU/LSTM stack at independent rows, in closed form.

    Args:
        kind, weights: as :func:`stacked_step_jacobians`.
        x: inputs (R, n). prev: states s (R, S). new: the step's outputs F(x, s) (R, S) (each layer above the first
            reads the new h of the layer below). state, inputs: form ∂s'/∂s, ∂s'/∂x (either may be skipped: the one
            not formed is returned as None and costs nothing).

    Returns:
        (∂s'/∂s (R, S, S), ∂s'/∂x (R, S, n)), formed :data:`ROWS_CHUNK` numbers at a time where nothing requires a
        gradient (the transient factors stay a chunk's; the pre-activation GEMMs run on all rows at once, so a chunk's
        numbers are those of one pass up to the last-bit rounding of a vectorised tanh/sigmoid).

    Raises:
        ValueError: a kind not in :data:`CLOSED_FORM_KINDS`, or prev/new not (R, S).

    Source: as :func:`stacked_step_jacobians`.
    """
    if kind not in CLOSED_FORM_KINDS:
        raise ValueError(f"kind must be one of {CLOSED_FORM_KINDS}, got {kind!r}")
    T = x.shape[0]
    H = [w[1].shape[1] for w in weights]
    lstm = kind == "lstm"
    S = sum(H) * (2 if lstm else 1)
    if prev.shape != (T, S) or new.shape != (T, S):
        raise ValueError(f"prev and new must be (R, S) = ({T}, {S}), got {tuple(prev.shape)} and {tuple(new.shape)}")
    rows = max(1, ROWS_CHUNK // (S * (S + x.shape[-1])))
    differentiable = torch.is_grad_enabled() and any(t.requires_grad for t in (x, prev, new, *sum(weights, ())))
    if T > rows and not differentiable and _pres is None:
        # zeroed once and written in place chunk by chunk (a zeroed chunk and its copy into J were 2 × T·S² numbers
        # moved, 1.4 s of an LSTM(150) × 2 audit at T = 400)
        J = prev.new_zeros(T, S, S) if state else None
        B = prev.new_zeros(T, S, x.shape[-1]) if inputs else None
        # the pre-activations of all rows in one GEMM per layer, as unchunked (a GEMM's rows can round differently
        # when it has fewer of them); the rest is elementwise or one product per row, the same in any chunk
        pres, u, start = [], x, 0
        for w in weights:
            Hl = w[1].shape[1]
            pres.append(_pre(w, u, prev[:, start:start + Hl]))
            u, start = new[:, start:start + Hl], start + Hl
        for lo in range(0, T, rows):
            part = slice(lo, lo + rows)
            step_jacobians_at(kind, weights, x[part], prev[part], new[part], state=state, inputs=inputs,
                              _pres=[(gi[part], gh[part]) for gi, gh in pres],
                              _out=(None if J is None else J[part], None if B is None else B[part]))
        return J, B
    # written in place into J and B (each layer's rows once, no concatenated copy): the peak is J and B themselves
    # and one layer's factors, not twice J
    if _out is not None:  # zeroed views of the caller's J and B (the chunks above)
        J, B = _out
    else:
        J = prev.new_zeros(T, S, S) if state else None
        B = prev.new_zeros(T, S, x.shape[-1]) if inputs else None
    u, below = x, None
    start, c_start = 0, sum(H)
    for layer, w in enumerate(weights):
        Hl = H[layer]
        hs, cs = slice(start, start + Hl), slice(c_start, c_start + Hl)
        h = prev[:, hs]
        c = prev[:, cs] if lstm else None
        # ∂/∂u feeds J only above the first layer (u is then the layer below's new h), and B always
        dhh, dhc, dch, dcc, dhu, dcu = _layer(kind, w, u, h, c, None if _pres is None else _pres[layer],
                                              need_u=B is not None or below is not None)
        rows = [(hs, dhh, dhc, dhu)] + ([(cs, dch, dcc, dcu)] if lstm else [])
        for r, d_h, d_c, d_u in rows:
            if J is not None:
                J[:, r, hs] = d_h
                if lstm:
                    J[:, r, cs].diagonal(dim1=-2, dim2=-1).copy_(d_c)
                if below is not None:  # u = the layer below's new h: its rows, through ∂/∂u
                    src = J[:, below]
                    # under autograd the product keeps its factor for the backward pass: a copy, not a view of J
                    # (which the next in-place write would invalidate)
                    J[:, r] += d_u @ (src.clone() if src.requires_grad else src)
            if B is not None:
                src = None if below is None else B[:, below]
                B[:, r] = d_u if below is None else d_u @ (src.clone() if src.requires_grad else src)
        below = hs
        u = new[:, hs]
        start, c_start = start + Hl, c_start + Hl
    return J, B
