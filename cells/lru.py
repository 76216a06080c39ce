"""The Linear Recurrent Unit (Orvieto, Smith, Gu, Fernando, Gulcehre, Pascanu & De 2023, "Resurrecting
Recurrent Neural Networks for Long Sequences", arXiv 2303.06349).

The recurrence (with the normalisation γ), a complex diagonal
linear map of the state x_k ∈ ℂᴺ:

    x_k = diag(λ) x_{k−1} + γ ⊙ (B u_k),      y_k = Re(C x_k) + D u_k,

with the exponential parametrisation λ_j = exp(−exp(ν_j^log) + i exp(θ_j^log)), so
|λ_j| = exp(−exp(ν_j^log)) ∈ (0, 1) for every real ν_j^log (stability by construction), the ring initialisation
(the lemma on uniform ring sampling): u₁, u₂ ~ U[0, 1], ν = −½ log(u₁(r_max² − r_min²) + r_min²),
θ = θ_max u₂, and the normalisation γ_j = sqrt(1 − |λ_j|²) (stored as γ^log, trainable).
B, C have i.i.d. Gaussian real and imaginary parts of variance 1/(2n) and 1/N (glorot-like, as in the
``lru-pytorch`` package); D is (n_out, n) with variance 1/n.

The probes see the real view (Re x, Im x) ∈ ℝ²ᴺ (:mod:`rnnaudit.cells.real_view`); :meth:`LRU.step_complex`
and :meth:`LRU.lambdas` keep the complex form.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from rnnaudit.cells._validate import check_sizes
from rnnaudit.cells.base import RecurrentCell
from rnnaudit.cells.real_view import realify

__all__ = ["LRU", "ring_init", "lru_lambda"]


def ring_init(u1: Tensor, u2: Tensor, r_min: float, r_max: float, max_phase: float) -> tuple[Tensor, Tensor]:
    """(ν^log, θ^log) of the ring initialisation from uniforms u1, u2 ∈ [0, 1) (same shape, float64):
    |λ|² = u1 (r_max² − r_min²) + r_min², i.e. ν = −½ log|λ|², ν^log = log ν; θ = max_phase·u2, θ^log = log θ.

    Raises:
        ValueError: radii outside 0 ≤ r_min < r_max ≤ 1 or max_phase ≤ 0.
    """
    if not (0 <= r_min < r_max <= 1) or not max_phase > 0:
        raise ValueError(f"need 0 <= r_min < r_max <= 1 and max_phase > 0, got r_min={r_min}, r_max={r_max}, "
                         f"max_phase={max_phase}")
    nu_log = torch.log(-0.5 * torch.log(u1 * (r_max ** 2 - r_min ** 2) + r_min ** 2))
    return nu_log, torch.log(max_phase * u2)


def lru_lambda(nu_log: Tensor, theta_log: Tensor) -> Tensor:
    """λ = exp(−exp(ν^log) + i exp(θ^log)), complex, shape of ``nu_log``."""
    return torch.polar(torch.exp(-torch.exp(nu_log)), torch.exp(theta_log))


class LRU(RecurrentCell):
    r"""The LRU layer's recurrence (arXiv 2303.06349) on the real view of its complex state.

    .. math:: x_k = \mathrm{diag}(\lambda) x_{k-1} + \gamma \odot (B u_k), \quad
              \lambda_j = \exp(-e^{\nu_j^{\log}} + i e^{\theta_j^{\log}}), \quad \gamma_j = e^{\gamma_j^{\log}}

    Args:
        input_size: n, the width of u_k. state_size: N, the number of complex modes.
        r_min, r_max: radii of the initialisation ring, 0 ≤ r_min < r_max ≤ 1. Optional. Default: 0, 1.
        max_phase: θ_max, phases uniform on [0, θ_max]. Optional. Default: 2π.
        output_size: width of y_k = Re(C x_k) + D u_k (:meth:`output`). Optional. Default: n.
        generator: torch.Generator for the draws. dtype, device: of every parameter (all real; float64 by
            default in the probes).

    Attributes:
        hidden_size: 2N, the width of the real state (Re x, Im x) the probes see.
        complex_width: N (the cell is its own real view; :mod:`analysis.diagonal`).

    Raises:
        ValueError, TypeError: sizes or radii out of range.
    """

    recurrent_role = "Lambda"

    def __init__(self, input_size: int, state_size: int, *, r_min: float = 0.0, r_max: float = 1.0,
                 max_phase: float = 2 * math.pi, output_size: int | None = None,
                 generator: torch.Generator | None = None, dtype: torch.dtype | None = None,
                 device: torch.device | str | None = None):
        super().__init__()
        output_size = input_size if output_size is None else output_size
        check_sizes(input_size=input_size, state_size=state_size, output_size=output_size)
        check_sizes(hidden_size=2 * state_size, input_size=input_size)
        self.input_size, self.state_size, self.output_size = input_size, state_size, output_size
        self.hidden_size, self.complex_width = 2 * state_size, state_size
        self.r_min, self.r_max, self.max_phase = float(r_min), float(r_max), float(max_phase)
        kw = {"dtype": torch.float64, "device": "cpu"}
        u1, u2 = torch.rand(state_size, generator=generator, **kw), torch.rand(state_size, generator=generator, **kw)
        nu_log, theta_log = ring_init(u1, u2, self.r_min, self.r_max, self.max_phase)
        gamma_log = torch.log(torch.sqrt(1 - torch.abs(lru_lambda(nu_log, theta_log)) ** 2))
        g = lambda *s: torch.randn(*s, generator=generator, **kw)  # noqa: E731
        B_scale, C_scale = 1 / math.sqrt(2 * input_size), 1 / math.sqrt(state_size)
        out = {"dtype": dtype, "device": device}
        self.nu_log = nn.Parameter(nu_log.to(**out))
        self.theta_log = nn.Parameter(theta_log.to(**out))
        self.gamma_log = nn.Parameter(gamma_log.to(**out))
        self.B_re = nn.Parameter((g(state_size, input_size) * B_scale).to(**out))
        self.B_im = nn.Parameter((g(state_size, input_size) * B_scale).to(**out))
        self.C_re = nn.Parameter((g(output_size, state_size) * C_scale).to(**out))
        self.C_im = nn.Parameter((g(output_size, state_size) * C_scale).to(**out))
        self.D = nn.Parameter((g(output_size, input_size) / math.sqrt(input_size)).to(**out))

    # ------------------------------------------------------------------------- the complex form
    def lambdas(self) -> Tensor:
        """λ (N,), complex (complex128 for float64 parameters)."""
        return lru_lambda(self.nu_log, self.theta_log)

    def gamma(self) -> Tensor:
        """γ = exp(γ^log), (N,) real."""
        return torch.exp(self.gamma_log)

    def B(self) -> Tensor:
        """B = B_re + i B_im, (N, n) complex."""
        return torch.complex(self.B_re, self.B_im)

    def C(self) -> Tensor:
        """C = C_re + i C_im, (n_out, N) complex."""
        return torch.complex(self.C_re, self.C_im)

    def step_complex(self, u: Tensor, x: Tensor) -> Tensor:
        """One step of the complex recurrence: u (batch, n) real, x (batch, N) complex → (batch, N) complex."""
        return self.lambdas() * x + self.gamma() * (u.to(x.dtype) @ self.B().mT)

    # ------------------------------------------------------------------------- the real view
    def step(self, x_t: Tensor, h: Tensor) -> Tensor:
        """One step on the real view h = (Re x, Im x): x_t (batch, n), h (batch, 2N) → (batch, 2N), in real
        arithmetic (so torch.func transforms see no complex tensor).

        Raises:
            ValueError: wrong last dimension or dtype (:meth:`cells.base.RecurrentCell.check_step_args`).
        """
        self.check_step_args(x_t, h)
        N = self.state_size
        mod, phase = torch.exp(-torch.exp(self.nu_log)), torch.exp(self.theta_log)
        lr, li = mod * torch.cos(phase), mod * torch.sin(phase)
        g = self.gamma()
        re, im = h[..., :N], h[..., N:]
        return torch.cat([lr * re - li * im + g * (x_t @ self.B_re.mT),
                          li * re + lr * im + g * (x_t @ self.B_im.mT)], dim=-1)

    def diagonal_jacobian(self, x_t: Tensor, h: Tensor) -> Tensor:
        """a (batch, N) complex with ∂x_k/∂x_{k−1} = diag(a): a = λ at every step, whatever x_t and h (the
        recurrence is linear in x; arXiv 2303.06349, eq. (1)). h is the real view (batch, 2N), as :meth:`step`
        takes it; the probes realify diag(a) (:mod:`analysis.diagonal`, which checks this declaration)."""
        return self.lambdas().expand(h.shape[0], -1)

    def output(self, states: Tensor, x: Tensor) -> Tensor:
        """y_k = Re(C x_k) + D u_k for real-view states (batch, T, 2N) and inputs (batch, T, n): (batch, T, n_out)."""
        N = self.state_size
        return states[..., :N] @ self.C_re.mT - states[..., N:] @ self.C_im.mT + x @ self.D.mT

    def recurrent_matrix(self) -> Tensor:
        """diag(λ) on the real view: [[diag Re λ, −diag Im λ], [diag Im λ, diag Re λ]], (2N, 2N)."""
        return realify(torch.diag(self.lambdas()))

    def recurrent_matrices(self) -> dict[str, Tensor]:
        """{"Lambda": diag(λ)} (N, N) complex: the spectrum probes and figure show the N eigenvalues λ_j themselves,
        not the realification's λ ∪ λ̄ (:meth:`recurrent_matrix` keeps the real view's block)."""
        return {self.recurrent_role: torch.diag(self.lambdas())}

    def config(self) -> dict:
        """Constructor arguments of this cell's structure (:meth:`rnnaudit.cells.base.RecurrentCell.config`)."""
        return {"input_size": self.input_size, "state_size": self.state_size, "r_min": self.r_min,
                "r_max": self.r_max, "max_phase": self.max_phase, "output_size": self.output_size}

    def parameters_by_role(self) -> dict[str, Tensor]:
        """{"nu_log", "theta_log", "gamma_log", "B_re", "B_im", "C_re", "C_im", "D"} (the paper's ν^log, θ^log,
        γ^log, B, C, D)."""
        return {"nu_log": self.nu_log, "theta_log": self.theta_log, "gamma_log": self.gamma_log,
                "B_re": self.B_re, "B_im": self.B_im, "C_re": self.C_re, "C_im": self.C_im, "D": self.D}
