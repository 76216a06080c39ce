"""The selective state-space model of Mamba (Gu & Dao 2023, "Mamba: Linear-Time Sequence Modeling with
Selective State Spaces", arXiv 2312.00752), Algorithm 2 in plain torch, stepped as a recurrence.

For an input x_t ∈ ℝᴰ (D channels), state h_t ∈ ℝ^{D×N} (Algorithm 2):

    B_t = s_B(x_t) = Linear_N(x_t),  C_t = s_C(x_t) = Linear_N(x_t),
    Δ_t = τ_Δ(Parameter + s_Δ(x_t)),  τ_Δ = softplus,  s_Δ = Linear_D(Linear_R(x_t))  (rank-R projection),
    Ā_t = exp(Δ_t A),  h_t = Ā_t ⊙ h_{t−1} + B̄_t x_t,  y_t = C_t h_t + D ⊙ x_t,

with A = −exp(A^log) ∈ ℝ^{D×N} diagonal per channel (S4D-Real initialisation A_n = −(n + 1)), and
B̄_t by one of two discretisations:

* ``"zoh"``: the paper's zero-order hold, B̄ = (ΔA)⁻¹(exp(ΔA) − I)·ΔB = (exp(ΔA) − 1)/A · B;
* ``"euler"``: B̄ = Δ B, the simplification the reference implementations use (mamba_ssm's selective scan,
  ``mambapy``), with Ā still exp(ΔA).

Theorem 1 of the paper (N = 1, A = −1, B = 1 gives the gated recurrence h_t = (1 − g_t)h_{t−1} + g_t x_t,
g_t = σ(Linear(x_t))) is exact under ``"zoh"`` and not under ``"euler"`` (bounds/mamba/theorem1.py).

The state seen by the probes is h_t flattened channel-major, width D·N. ∂h_t/∂h_{t−1} = diag(Ā_t) exactly
(:meth:`SelectiveSSM.transition`): the recurrence is diagonal and input-dependent, with no fixed matrix.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from rnnaudit.cells._validate import check_sizes
from rnnaudit.cells.base import RecurrentCell

__all__ = ["SelectiveSSM", "DISCRETISATIONS", "discretise"]

#: B̄'s discretisations (the module docstring).
DISCRETISATIONS = ("zoh", "euler")


def discretise(delta: Tensor, A: Tensor, B: Tensor, discretisation: str = "zoh") -> tuple[Tensor, Tensor]:
    """(Ā, B̄) = (exp(ΔA), (exp(ΔA) − 1)/A · B) for ``"zoh"`` (arXiv 2312.00752, the zero-order hold) or
    (exp(ΔA), ΔB) for ``"euler"``, per channel and state: Δ (..., D), A (D, N), B (..., N) → Ā, B̄ (..., D, N).

    Raises:
        ValueError: unknown ``discretisation``.
    """
    if discretisation not in DISCRETISATIONS:
        raise ValueError(f"discretisation must be one of {DISCRETISATIONS}, got {discretisation!r}")
    dA = delta[..., None] * A
    if discretisation == "zoh":
        return torch.exp(dA), torch.expm1(dA) / A * B[..., None, :]
    return torch.exp(dA), delta[..., None] * B[..., None, :]


class SelectiveSSM(RecurrentCell):
    r"""Mamba's selective SSM (arXiv 2312.00752, Algorithm 2), the recurrence inside a Mamba block (after its
    convolution and SiLU, before the gate), with parameters named as in the ``mambapy``/``mamba_ssm`` modules.

    Args:
        input_size: D, the channels. state_size: N per channel. dt_rank: R of s_Δ. Optional. Default: ⌈D/16⌉.
        discretisation: ``"zoh"`` or ``"euler"`` (B̄ = ΔB). Optional. Default: ``"zoh"``.
        dt_min, dt_max: Δ at initialisation log-uniform in this range (through the inverse softplus of the
            bias). Optional. Default: 0.001, 0.1.
        generator, dtype, device: as for every cell.

    Shapes: A_log (D, N), x_proj (R + 2N, D), dt_proj_weight (D, R), dt_proj_bias (D,), D_skip (D,).

    Attributes:
        hidden_size: D·N.

    Raises:
        ValueError, TypeError: sizes, Δ range or discretisation out of range.
    """

    def __init__(self, input_size: int, state_size: int, *, dt_rank: int | None = None,
                 discretisation: str = "zoh", dt_min: float = 1e-3, dt_max: float = 1e-1,
                 generator: torch.Generator | None = None, dtype: torch.dtype | None = None,
                 device: torch.device | str | None = None):
        super().__init__()
        dt_rank = math.ceil(input_size / 16) if dt_rank is None and isinstance(input_size, int) else dt_rank
        check_sizes(input_size=input_size, state_size=state_size, dt_rank=dt_rank)
        check_sizes(hidden_size=input_size * state_size, input_size=input_size)
        if discretisation not in DISCRETISATIONS:
            raise ValueError(f"discretisation must be one of {DISCRETISATIONS}, got {discretisation!r}")
        if not 0 < dt_min <= dt_max:
            raise ValueError(f"need 0 < dt_min <= dt_max, got dt_min={dt_min}, dt_max={dt_max}")
        D, N, R = input_size, state_size, dt_rank
        self.input_size, self.state_size, self.dt_rank, self.hidden_size = D, N, R, D * N
        self.discretisation, self.dt_min, self.dt_max = discretisation, float(dt_min), float(dt_max)
        kw = {"dtype": torch.float64}
        u = lambda bound, *s: (2 * torch.rand(*s, generator=generator, **kw) - 1) * bound  # noqa: E731
        dt = torch.exp(torch.rand(D, generator=generator, **kw) * (math.log(dt_max) - math.log(dt_min))
                       + math.log(dt_min))
        out = {"dtype": dtype, "device": device}
        self.A_log = nn.Parameter(torch.log(torch.arange(1, N + 1, **kw)).expand(D, N).clone().to(**out))
        self.x_proj = nn.Parameter(u(1 / math.sqrt(D), R + 2 * N, D).to(**out))
        self.dt_proj_weight = nn.Parameter(u(R ** -0.5, D, R).to(**out))
        self.dt_proj_bias = nn.Parameter((dt + torch.log(-torch.expm1(-dt))).to(**out))  # softplus⁻¹(dt)
        self.D_skip = nn.Parameter(torch.ones(D, **kw).to(**out))

    def A(self) -> Tensor:
        """A = −exp(A^log), (D, N)."""
        return -torch.exp(self.A_log)

    def delta_logits(self, x_t: Tensor) -> Tensor:
        """Parameter + s_Δ(x_t) = W_dt (W_x,Δ x_t) + b_dt, the argument of τ_Δ = softplus: (..., D)."""
        return (x_t @ self.x_proj[: self.dt_rank].mT) @ self.dt_proj_weight.mT + self.dt_proj_bias

    def selection(self, x_t: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """(Δ_t (..., D), B_t (..., N), C_t (..., N)) of Algorithm 2 for x_t (..., D)."""
        R, N = self.dt_rank, self.state_size
        dBC = x_t @ self.x_proj.mT
        delta = F.softplus(dBC[..., :R] @ self.dt_proj_weight.mT + self.dt_proj_bias)
        return delta, dBC[..., R:R + N], dBC[..., R + N:]

    def discretised(self, x_t: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """(Ā_t, B̄_t, C_t): Ā_t, B̄_t (..., D, N) for x_t (..., D), C_t (..., N)."""
        delta, B, C = self.selection(x_t)
        return (*discretise(delta, self.A(), B, self.discretisation), C)

    def transition(self, x_t: Tensor) -> Tensor:
        """The diagonal of ∂h_t/∂h_{t−1} = diag(Ā_t), flattened like the state: (..., D·N)."""
        return self.discretised(x_t)[0].flatten(-2)

    def transitions(self, x: Tensor) -> Tensor:
        """diag(Ā_t) at every step of the sequences x (batch, T, D): (batch, T, D·N), real; Δ_t sees x_t only, so
        no state is run (arXiv 2312.00752, Alg. 2)."""
        return self.transition(x)

    def diagonal_jacobian(self, x_t: Tensor, h: Tensor) -> Tensor:
        """a = Ā_t = exp(Δ_t A) (batch, D·N) real, with ∂h_t/∂h_{t−1} = diag(a) (arXiv 2312.00752, Alg. 2: Δ_t,
        B_t see x_t only); h (batch, D·N) is not read. :mod:`analysis.diagonal` checks this declaration."""
        return self.transition(x_t)

    def step(self, x_t: Tensor, h: Tensor) -> Tensor:
        """h_t = Ā_t ⊙ h_{t−1} + B̄_t x_t: x_t (batch, D), h (batch, D·N) → (batch, D·N).

        Raises:
            ValueError: wrong last dimension or dtype (:meth:`cells.base.RecurrentCell.check_step_args`).
        """
        self.check_step_args(x_t, h)
        Abar, Bbar, _ = self.discretised(x_t)
        return (Abar * h.unflatten(-1, (self.input_size, self.state_size)) + Bbar * x_t[..., None]).flatten(-2)

    def output(self, states: Tensor, x: Tensor) -> Tensor:
        """y_t = C_t h_t + D ⊙ x_t for states (batch, T, D·N), x (batch, T, D): (batch, T, D)."""
        C = self.selection(x)[2]
        h = states.unflatten(-1, (self.input_size, self.state_size))
        return (h * C[..., None, :]).sum(-1) + self.D_skip * x

    def recurrent_matrix(self) -> Tensor:
        """Raises ValueError: Ā_t = exp(Δ_t A) depends on x_t; :meth:`transition` gives it per step."""
        raise ValueError("the selective SSM has no fixed recurrent matrix: Ā_t = exp(Δ_t A) depends on x_t "
                         "(use transition(x_t))")

    def recurrent_matrices(self) -> dict[str, Tensor]:
        """{}: no fixed recurrent matrix (:meth:`recurrent_matrix`)."""
        return {}

    def config(self) -> dict:
        """Constructor arguments of this cell's structure (:meth:`rnnaudit.cells.base.RecurrentCell.config`)."""
        return {"input_size": self.input_size, "state_size": self.state_size, "dt_rank": self.dt_rank,
                "discretisation": self.discretisation, "dt_min": self.dt_min, "dt_max": self.dt_max}

    def parameters_by_role(self) -> dict[str, Tensor]:
        """{"A_log", "x_proj", "dt_proj_weight", "dt_proj_bias", "D"}."""
        return {"A_log": self.A_log, "x_proj": self.x_proj, "dt_proj_weight": self.dt_proj_weight,
                "dt_proj_bias": self.dt_proj_bias, "D": self.D_skip}
