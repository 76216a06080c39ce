"""SGORNN (sgornn.md Sec. 2, eq. 1–3) and VPRNN, the orthogonal cell without gates.

    SGORNN:  h_t = α σ(W x_t + φ(Θ) h_{t-1} + b) + β h_{t-1},  β clipped into (0, 1 − 2α]
    VPRNN:   h_t = σ(W x_t + φ(Θ) h_{t-1} + b)
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from rnnaudit.cells._validate import check_sizes
from rnnaudit.cells.base import RecurrentCell, get_activation, initial_parameter
from rnnaudit.cells.fastrnn import scalar_gated_recurrence
from rnnaudit.cells.orthogonal import ORTHOGONAL_MAPS, build_orthogonal_map

__all__ = ["SGORNN", "VPRNN"]


class _OrthogonalRecurrence(RecurrentCell):
    """Shared parts of SGORNN and VPRNN: W, b and an orthogonal map φ."""

    recurrent_role = "U"  # U = φ(Θ), sgornn.md eq. 1

    def __init__(self, input_size, hidden_size, *, phi, k, activation, bias, generator, dtype, device):
        super().__init__()
        check_sizes(input_size=input_size, hidden_size=hidden_size)
        get_activation(activation)
        self.input_size, self.hidden_size, self.activation = input_size, hidden_size, activation
        kw = {"dtype": dtype, "device": device}
        phi_kw = dict(generator=generator, **kw)
        if phi == "vprnn":
            phi_kw["k"] = k
        elif k is not None:
            raise ValueError(f"k (rotation sublayers) only applies to phi='vprnn', got phi={phi!r}")
        self.phi = build_orthogonal_map(phi, hidden_size, **phi_kw)
        self.W = initial_parameter(nn.init.xavier_uniform_, (hidden_size, input_size), generator, **kw)
        self.b = nn.Parameter(torch.zeros(hidden_size, **kw)) if bias else None

    def _structure(self) -> dict:
        """Arguments both SGORNN and VPRNN take: sizes, φ by name, k, σ, bias."""
        names = {cls: name for name, cls in ORTHOGONAL_MAPS.items()}
        if type(self.phi) not in names:
            raise ValueError(f"config(): φ is a custom module ({type(self.phi).__name__}), which has no name to "
                             "rebuild it from")
        out = {"input_size": self.input_size, "hidden_size": self.hidden_size, "phi": names[type(self.phi)],
               "activation": self.activation, "bias": self.b is not None}
        if out["phi"] == "vprnn":
            out["k"] = self.phi.k
        return out

    def recurrent_matrix(self) -> Tensor:
        """U = φ(Θ), shape (h, h), orthogonal."""
        return self.phi.matrix()


class SGORNN(_OrthogonalRecurrence):
    r"""Scalar Gated Orthogonal RNN, sgornn.md eq. 1–3.

    .. math:: h_t = \alpha\,\sigma(W x_t + \phi(\Theta) h_{t-1} + b) + \beta h_{t-1}

    α = sigmoid(α̂); β = sigmoid(β̂), clipped after the sigmoid into (0, 1 − 2α] when
    ``clip_beta`` (eq. 3, "the parameter β is clipped after applying the sigmoid function").

    Args:
        input_size: n. hidden_size: h (even for ``phi="vprnn"``).
        phi: orthogonal map name (``"vprnn"`` eq. 2, ``"expm"``, ``"cayley"``) or an nn.Module
            with ``matrix()`` and ``apply(y)``.
        k: VPRNN rotation sublayers (default 2⌈log₂ h⌉, the maximum, as in Sec. 3.1–3.3).
        activation: σ, ReLU by default (the class F_T of eq. 5 is ReLU).
        clip_beta: enforce eq. 3.
        alpha_init, beta_init: α̂, β̂ logits (FastRNN's −3, 3).
        bias: include b. (Theorems 1–2 assume b is absent or absorbed into W.)
        generator, dtype, device: initialisation RNG and parameter placement.

    Parameter count: hn + h + h·k/2 + 2 (+ readout); sgornn.md Table 1 gives 1,411 for
    n = 2, h = 128, k = 14 with a 129-weight readout.

    Raises:
        ValueError: bad sizes or names; in :attr:`beta` if α ≥ 1/2 while ``clip_beta`` (the
            interval (0, 1 − 2α] is then empty).
    """

    def __init__(self, input_size: int, hidden_size: int, *, phi="vprnn", k: int | None = None,
                 activation: str = "relu", clip_beta: bool = True, alpha_init: float = -3.0,
                 beta_init: float = 3.0, bias: bool = True, generator: torch.Generator | None = None,
                 dtype: torch.dtype | None = None, device: torch.device | str | None = None):
        super().__init__(input_size, hidden_size, phi=phi, k=k, activation=activation, bias=bias,
                         generator=generator, dtype=dtype, device=device)
        self.clip_beta = clip_beta
        kw = {"dtype": dtype, "device": device}
        self.alpha_logit = nn.Parameter(torch.tensor(alpha_init, **kw))
        self.beta_logit = nn.Parameter(torch.tensor(beta_init, **kw))

    @property
    def alpha(self) -> Tensor:
        """α = sigmoid(α̂), 0-d."""
        return torch.sigmoid(self.alpha_logit)

    @property
    def beta(self) -> Tensor:
        """β = min(sigmoid(β̂), 1 − 2α) with ``clip_beta`` (eq. 3), else sigmoid(β̂); 0-d."""
        beta = torch.sigmoid(self.beta_logit)
        if not self.clip_beta:
            return beta
        upper = 1 - 2 * self.alpha
        if upper.item() <= 0:
            raise ValueError(f"alpha = {self.alpha.item():.4g} >= 1/2 leaves (0, 1 - 2*alpha] empty "
                             "(sgornn.md eq. 3); lower alpha_logit or construct with clip_beta=False")
        return torch.minimum(beta, upper)

    def step(self, x_t: Tensor, h: Tensor) -> Tensor:
        """One step of eq. 1 using φ's structured apply (no dense U): (batch, n), (batch, h) → (batch, h).

        Raises:
            ValueError: wrong last dimension or dtype (:meth:`cells.base.RecurrentCell.check_step_args`).
        """
        self.check_step_args(x_t, h)
        sigma = get_activation(self.activation)
        z = x_t @ self.W.mT + self.phi.apply(h)
        if self.b is not None:
            z = z + self.b
        return self.alpha * sigma(z) + self.beta * h

    def forward(self, x: Tensor, h0: Tensor | None = None) -> Tensor:
        """Hidden states (batch, T, h) for x (batch, T, n); U = φ(Θ) is formed once per call.

        Raises:
            ValueError: see :meth:`cells.base.RecurrentCell.forward`.
        """
        h0 = self.initial_state(x, h0)
        return scalar_gated_recurrence(x @ self.W.mT, self.phi.matrix(), self.b, self.alpha, self.beta, h0,
                                       self.activation)

    def config(self) -> dict:
        """Constructor arguments of this cell's structure (:meth:`rnnaudit.cells.base.RecurrentCell.config`)."""
        return {**self._structure(), "clip_beta": self.clip_beta}

    def parameters_by_role(self) -> dict[str, Tensor]:
        """{"W", "Theta", "b", "alpha", "beta"}; α, β as their logits α̂, β̂."""
        roles = {"W": self.W, "Theta": self.phi.theta, "b": self.b, "alpha": self.alpha_logit,
                 "beta": self.beta_logit}
        return {k: v for k, v in roles.items() if v is not None}


class VPRNN(_OrthogonalRecurrence):
    r"""Volume-preserving RNN (Taylor-Melanson et al., 2021), the ungated orthogonal cell that
    SGORNN adds scalar gates to: :math:`h_t = \sigma(W x_t + \phi(\Theta) h_{t-1} + b)`.

    Same arguments as :class:`SGORNN` without the gates. Parameter count hn + h + h·k/2
    (sgornn.md Table 1: 1,409 with the readout for n = 2, h = 128, k = 14).
    """

    def __init__(self, input_size: int, hidden_size: int, *, phi="vprnn", k: int | None = None,
                 activation: str = "relu", bias: bool = True, generator: torch.Generator | None = None,
                 dtype: torch.dtype | None = None, device: torch.device | str | None = None):
        super().__init__(input_size, hidden_size, phi=phi, k=k, activation=activation, bias=bias,
                         generator=generator, dtype=dtype, device=device)

    def step(self, x_t: Tensor, h: Tensor) -> Tensor:
        """One step: (batch, n), (batch, h) → (batch, h).

        Raises:
            ValueError: wrong last dimension or dtype (:meth:`cells.base.RecurrentCell.check_step_args`).
        """
        self.check_step_args(x_t, h)
        z = x_t @ self.W.mT + self.phi.apply(h)
        if self.b is not None:
            z = z + self.b
        return get_activation(self.activation)(z)

    def forward(self, x: Tensor, h0: Tensor | None = None) -> Tensor:
        """Hidden states (batch, T, h); the ungated case α = 1, β = 0 of eq. 1."""
        h0 = self.initial_state(x, h0)
        one, zero = x.new_ones(()), x.new_zeros(())
        return scalar_gated_recurrence(x @ self.W.mT, self.phi.matrix(), self.b, one, zero, h0, self.activation)

    def config(self) -> dict:
        """Constructor arguments of this cell's structure (:meth:`rnnaudit.cells.base.RecurrentCell.config`)."""
        return self._structure()

    def parameters_by_role(self) -> dict[str, Tensor]:
        """{"W", "Theta", "b"}."""
        roles = {"W": self.W, "Theta": self.phi.theta, "b": self.b}
        return {k: v for k, v in roles.items() if v is not None}
