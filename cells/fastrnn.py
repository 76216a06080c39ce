"""FastRNN, the scalar-gated residual cell that SGORNN extends (sgornn.md Sec. 2, eq. 1 with a
dense U; Kusupati et al., 2019).

    h_t = α σ(W x_t + U h_{t-1} + b) + β h_{t-1},   α = sigmoid(α̂), β = sigmoid(β̂)
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from rnnaudit.cells._validate import check_sizes
from rnnaudit.cells.base import RecurrentCell, get_activation, initial_parameter

__all__ = ["FastRNN", "scalar_gated_recurrence"]


def scalar_gated_recurrence(wx: Tensor, recurrent: Tensor, b: Tensor | None, alpha: Tensor, beta: Tensor,
                            h0: Tensor, activation: str = "relu") -> Tensor:
    """Run h_t = α σ(W x_t + U h_{t−1} + b) + β h_{t−1} for t = 1..T (sgornn.md eq. 1).

    Args:
        wx: W x_t for all t, shape (batch, T, h), precomputed in one matmul.
        recurrent: dense U, shape (h, h).
        b: bias (h,) or None.
        alpha, beta: 0-d tensors (already through their sigmoid / clipping).
        h0: (batch, h).
        activation: σ by name (see :func:`cells.base.get_activation`).

    Returns:
        hidden states h_1..h_T, shape (batch, T, h), dtype of ``wx``.
    """
    sigma = get_activation(activation)
    pre_bias = wx if b is None else wx + b
    h, states = h0, []
    u_t = recurrent.mT
    for pre_t in pre_bias.unbind(1):  # unbind: slicing costs O(T) per step in backward (cells/base.py)
        h = alpha * sigma(pre_t + h @ u_t) + beta * h
        states.append(h)
    return torch.stack(states, dim=1)


class FastRNN(RecurrentCell):
    r"""FastRNN cell (sgornn.md Sec. 2.1, eq. 4 states its generalization constraint).

    .. math:: h_t = \alpha\,\sigma(W x_t + U h_{t-1} + b) + \beta h_{t-1}

    Args:
        input_size: n. hidden_size: h.
        activation: σ, ``"relu"`` (sgornn.md Sec. 3) by default.
        beta_mode: ``"free"`` (β = sigmoid(β̂), a trainable scalar) or ``"one_minus_alpha"``
            (β = 1 − α, the assumption FastRNN's analysis makes; no β̂ parameter).
        alpha_init, beta_init: initial logits α̂, β̂ (−3 and 3, FastRNN's defaults).
        bias: include b.
        generator: torch.Generator for W, U (Glorot-uniform) initialisation.
        dtype, device: of all parameters.

    Shapes: W (h, n), U (h, h), b (h,), α̂ and β̂ 0-d. Parameter count with ``bias=True``,
    ``beta_mode="free"``: hn + h² + h + 2 (sgornn.md Table 1: 16,899 with the 129-weight readout
    for n = 2, h = 128).
    """

    recurrent_role = "U"

    def __init__(self, input_size: int, hidden_size: int, *, activation: str = "relu", beta_mode: str = "free",
                 alpha_init: float = -3.0, beta_init: float = 3.0, bias: bool = True,
                 generator: torch.Generator | None = None, dtype: torch.dtype | None = None,
                 device: torch.device | str | None = None):
        super().__init__()
        check_sizes(input_size=input_size, hidden_size=hidden_size)
        if beta_mode not in ("free", "one_minus_alpha"):
            raise ValueError(f"beta_mode must be 'free' or 'one_minus_alpha', got {beta_mode!r}")
        get_activation(activation)
        self.input_size, self.hidden_size = input_size, hidden_size
        self.activation, self.beta_mode = activation, beta_mode
        kw = {"dtype": dtype, "device": device}
        self.W = initial_parameter(nn.init.xavier_uniform_, (hidden_size, input_size), generator, **kw)
        self.U = initial_parameter(nn.init.xavier_uniform_, (hidden_size, hidden_size), generator, **kw)
        self.b = nn.Parameter(torch.zeros(hidden_size, **kw)) if bias else None
        self.alpha_logit = nn.Parameter(torch.tensor(alpha_init, **kw))
        self.beta_logit = nn.Parameter(torch.tensor(beta_init, **kw)) if beta_mode == "free" else None

    @property
    def alpha(self) -> Tensor:
        """α = sigmoid(α̂) ∈ (0, 1), 0-d."""
        return torch.sigmoid(self.alpha_logit)

    @property
    def beta(self) -> Tensor:
        """β = sigmoid(β̂), or 1 − α with ``beta_mode="one_minus_alpha"``; 0-d."""
        return 1 - self.alpha if self.beta_logit is None else torch.sigmoid(self.beta_logit)

    def recurrent_matrix(self) -> Tensor:
        """U, shape (h, h)."""
        return self.U

    def step(self, x_t: Tensor, h: Tensor) -> Tensor:
        """One step of eq. 1: x_t (batch, n), h (batch, h) → (batch, h).

        Raises:
            ValueError: wrong last dimension or dtype (:meth:`cells.base.RecurrentCell.check_step_args`).
        """
        self.check_step_args(x_t, h)
        return scalar_gated_recurrence((x_t @ self.W.mT)[:, None], self.U, self.b, self.alpha, self.beta, h,
                                       self.activation)[:, 0]

    def forward(self, x: Tensor, h0: Tensor | None = None) -> Tensor:
        """Hidden states (batch, T, h) for x (batch, T, n); h0 defaults to zeros.

        Raises:
            ValueError: see :meth:`cells.base.RecurrentCell.forward`.
        """
        h0 = self.initial_state(x, h0)
        return scalar_gated_recurrence(x @ self.W.mT, self.U, self.b, self.alpha, self.beta, h0, self.activation)

    def config(self) -> dict:
        """Constructor arguments of this cell's structure (:meth:`rnnaudit.cells.base.RecurrentCell.config`)."""
        return {"input_size": self.input_size, "hidden_size": self.hidden_size, "activation": self.activation,
                "beta_mode": self.beta_mode, "bias": self.b is not None}

    def parameters_by_role(self) -> dict[str, Tensor]:
        """{"W", "U", "b", "alpha", "beta"} (logits for α, β; absent entries omitted)."""
        roles = {"W": self.W, "U": self.U, "b": self.b, "alpha": self.alpha_logit, "beta": self.beta_logit}
        return {k: v for k, v in roles.items() if v is not None}
