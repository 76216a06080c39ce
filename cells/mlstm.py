"""The mLSTM of xLSTM (Beck et al. 2024, arXiv 2405.04517), one head, in recurrent form, with its matrix memory C_t,
normaliser n_t and stabiliser m_t (the form of the ``xlstm`` package's ``recurrent_step_stabilized_simple``, which
the tests compare with):

    q_t = W_q x_t + b_q,  k_t = (W_k x_t + b_k)/√d,  v_t = W_v x_t + b_v,  ĩ_t = w_iᵀx_t + b_i,  f̃_t = w_fᵀx_t + b_f,
    m_t = max(log σ(f̃_t) + m_{t−1}, ĩ_t),  i'_t = exp(ĩ_t − m_t),  f'_t = exp(log σ(f̃_t) + m_{t−1} − m_t),
    C_t = f'_t C_{t−1} + i'_t k_t v_tᵀ,   n_t = f'_t n_{t−1} + i'_t k_t,
    h̃_t = C_tᵀ q_t / (max(|n_tᵀ q_t|, exp(−m_t)) + ε),   h_t = σ(W_o x_t + b_o) ⊙ h̃_t.

The unstabilised form (m ≡ 0) has max(|nᵀq|, 1) in the denominator. With ε = 0 (the default: no ε in the
recurrence as the issue states it) the stabiliser leaves h_t unchanged; the package adds ε = 1e-6, which makes the
stabilised h_t depend on m_t (bounds/xlstm/__init__.py). The gates see x_t only: the memory's recurrence is linear and
diagonal in (C, n) with the scalar factor f'_t, and ∂(C, n)_t/∂(C, n)_{t−1} = f'_t·I.

The probes see the state [vec C (d²), n (d), m (1)] of width d² + d + 1; h_t is :meth:`MLSTM.output`.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from rnnaudit.cells._validate import check_sizes
from rnnaudit.cells.base import RecurrentCell

__all__ = ["MLSTM"]


class MLSTM(RecurrentCell):
    r"""mLSTM cell (arXiv 2405.04517), one head of width d.

    Args:
        input_size: n. head_size: d. stabilised: use m_t. Optional. Default: True. eps: ε in h̃'s denominator.
            Optional. Default: 0 (the ``xlstm`` package uses 1e-6). generator, dtype, device: as for every cell.

    Shapes: W (3d + 2 + d, n) = [W_q; W_k; W_v; w_i; w_f; W_o], b (3d + 2 + d,).

    Attributes:
        hidden_size: d² + d + 1, the state [vec C, n, m].

    Raises:
        ValueError, TypeError: sizes or ε out of range.
    """

    def __init__(self, input_size: int, head_size: int, *, stabilised: bool = True, eps: float = 0.0,
                 generator: torch.Generator | None = None, dtype: torch.dtype | None = None,
                 device: torch.device | str | None = None):
        super().__init__()
        check_sizes(input_size=input_size, head_size=head_size)
        check_sizes(hidden_size=head_size * head_size + head_size + 1, input_size=input_size)
        if not (isinstance(eps, (int, float)) and eps >= 0):
            raise ValueError(f"eps must be a number >= 0, got {eps!r}")
        d = head_size
        self.input_size, self.head_size, self.hidden_size = input_size, d, d * d + d + 1
        self.stabilised, self.eps = bool(stabilised), float(eps)
        kw = {"dtype": torch.float64}
        out = {"dtype": dtype, "device": device}
        bound = 1 / math.sqrt(input_size)
        self.W = nn.Parameter(((2 * torch.rand(4 * d + 2, input_size, generator=generator, **kw) - 1) * bound)
                              .to(**out))
        self.b = nn.Parameter(torch.zeros(4 * d + 2, **kw).to(**out))

    def projections(self, x_t: Tensor) -> tuple[Tensor, ...]:
        """(q, k/√d, v, ĩ, f̃, o) for x_t (..., n): q, k, v, o (..., d), ĩ and f̃ (..., 1)."""
        d = self.head_size
        pre = x_t @ self.W.mT + self.b
        q, k, v, i, f, o = pre.split([d, d, d, 1, 1, d], dim=-1)
        return q, k / math.sqrt(d), v, i, f, torch.sigmoid(o)

    def _split(self, h: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        d = self.head_size
        return h[..., : d * d].unflatten(-1, (d, d)), h[..., d * d: d * d + d], h[..., d * d + d:]

    def step(self, x_t: Tensor, h: Tensor) -> Tensor:
        """One step on [vec C, n, m]: x_t (batch, n), state (batch, d² + d + 1) → (batch, d² + d + 1).

        Raises:
            ValueError: wrong last dimension or dtype (:meth:`cells.base.RecurrentCell.check_step_args`).
        """
        self.check_step_args(x_t, h)
        C, n, m = self._split(h)
        _, k, v, i_raw, f_raw, _ = self.projections(x_t)
        log_f = F.logsigmoid(f_raw)
        if self.stabilised:
            m_new = torch.maximum(log_f + m, i_raw)
            i, f = torch.exp(i_raw - m_new), torch.exp(log_f + m - m_new)
        else:
            m_new = torch.zeros_like(m)
            i, f = torch.exp(i_raw), torch.exp(log_f)
        C_new = f[..., None] * C + i[..., None] * (k[..., :, None] * v[..., None, :])
        n_new = f * n + i * k
        return torch.cat([C_new.flatten(-2), n_new, m_new], dim=-1)

    def output(self, states: Tensor, x: Tensor) -> Tensor:
        """h_t = o_t ⊙ C_tᵀq_t / (max(|n_tᵀq_t|, exp(−m_t)) + ε) for states (..., d² + d + 1), x (..., n): (..., d)."""
        C, n, m = self._split(states)
        q, _, _, _, _, o = self.projections(x)
        num = (q[..., :, None] * C).sum(-2)                       # C_tᵀ q_t
        denom = torch.maximum((n * q).sum(-1, keepdim=True).abs(), torch.exp(-m)) + self.eps
        return o * num / denom

    def transition(self, x_t: Tensor, h: Tensor) -> Tensor:
        """f'_t, (..., 1): ∂(C, n)_t/∂(C, n)_{t−1} = f'_t·I (at state h, whose m_{t−1} it reads)."""
        _, _, m = self._split(h)
        _, _, _, i_raw, f_raw, _ = self.projections(x_t)
        log_f = F.logsigmoid(f_raw)
        if not self.stabilised:
            return torch.exp(log_f)
        return torch.exp(log_f + m - torch.maximum(log_f + m, i_raw))

    def transitions(self, x: Tensor) -> Tensor:
        """f'_t at every step of the sequences x (batch, T, n) from the initial state: (batch, T, 1). f'_t reads the
        stabiliser m_{t−1} of the state before the step, so the recurrence is run first."""
        states = self(x)
        before = torch.cat([self.initial_state(x, None)[:, None], states[:, :-1]], dim=1)
        return self.transition(x, before)

    def recurrent_matrix(self) -> Tensor:
        """Raises ValueError: the gates see x_t only; the memory's factor is the scalar f'_t (:meth:`transition`)."""
        raise ValueError("MLSTM has no recurrent matrix: its gates see x_t only, and (C, n) decay by the scalar "
                         "f'_t (transition(x_t, h))")

    def recurrent_matrices(self) -> dict[str, Tensor]:
        """{}: no recurrent matrix."""
        return {}

    def config(self) -> dict:
        """Constructor arguments of this cell's structure (:meth:`rnnaudit.cells.base.RecurrentCell.config`)."""
        return {"input_size": self.input_size, "head_size": self.head_size, "stabilised": self.stabilised,
                "eps": self.eps}

    def parameters_by_role(self) -> dict[str, Tensor]:
        """{"W", "b"}, row blocks [W_q; W_k; W_v; w_i; w_f; W_o]."""
        return {"W": self.W, "b": self.b}
