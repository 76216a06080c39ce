"""S4D: diagonal state-space layers discretised by zero-order hold (Gu, Gupta, Goel & Ré 2022, "On the
Parameterization and Initialization of Diagonal State Space Models", arXiv 2206.11893).

Per channel h = 1..H, a continuous SISO system x'(t) = A x(t) + B u(t), y(t) = C x(t) with A = diag(A_n)
complex, n = 0..M−1 (M = N/2 modes; their conjugates are implicit, so y = 2 Re(C x)). Zero-order hold with
step Δ_h (the discretisation S4 uses):

    Ā = exp(Δ A),    B̄ = (Δ A)⁻¹ (exp(Δ A) − I) Δ B = (exp(Δ A) − 1)/A ⊙ B,
    x_k = Ā ⊙ x_{k−1} + B̄ u_k,    y_k = 2 Re(C x_k) + D u_k.

Initialisations of A (the paper's S4D-Lin and S4D-Inv; the same formulas as the reference code
state-spaces/s4, models/s4/s4d.py and the ``init`` options of its dplr kernel):

* S4D-Lin: A_n = −1/2 + iπn;
* S4D-Inv: A_n = −1/2 + i (N/π)(N/(2n + 1) − 1), with N = 2M the real state size.

Δ = exp(log Δ) with log Δ ~ U[log Δ_min, log Δ_max] per channel (0.001, 0.1 by default), B = 1, C with i.i.d.
standard complex normal entries (real and imaginary parts of variance 1/2), D ~ N(0, 1). Parameters are real:
log(−Re A), Im A, B and C as real and imaginary parts.

The probes see the real view (Re x, Im x) of the (H, M) complex state, flattened channel-major:
h = [Re x.reshape(H·M), Im x.reshape(H·M)] of width 2HM.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from rnnaudit.cells._validate import check_sizes
from rnnaudit.cells.base import RecurrentCell
from rnnaudit.cells.real_view import realify

__all__ = ["S4D", "s4d_init", "zoh"]

#: The initialisations of A by name (arXiv 2206.11893, S4D-Lin and S4D-Inv).
INITS = ("lin", "inv")


def s4d_init(init: str, H: int, M: int, dtype=torch.float64) -> Tensor:
    """A (H, M) complex: S4D-Lin A_n = −1/2 + iπn or S4D-Inv A_n = −1/2 + i(N/π)(N/(2n+1) − 1), N = 2M,
    n = 0..M−1, the same for every channel.

    Raises:
        ValueError: ``init`` not one of :data:`INITS`.
    """
    if init not in INITS:
        raise ValueError(f"init must be one of {INITS}, got {init!r}")
    n = torch.arange(M, dtype=dtype)
    N = 2 * M
    imag = math.pi * n if init == "lin" else (N / math.pi) * (N / (2 * n + 1) - 1)
    return torch.complex(torch.full((H, M), -0.5, dtype=dtype), imag.expand(H, M).clone())


def zoh(A: Tensor, B: Tensor, dt: Tensor) -> tuple[Tensor, Tensor]:
    """Zero-order hold of the diagonal system x' = A x + B u: (Ā, B̄) = (exp(ΔA), (exp(ΔA) − 1)/A · B).

    Args:
        A: (..., M) complex, nonzero. B: (..., M) complex. dt: Δ broadcastable to (..., M) (e.g. (H, 1)).
    """
    dA = dt * A
    Abar = torch.exp(dA)
    return Abar, (Abar - 1) / A * B


class S4D(RecurrentCell):
    r"""S4D layer (arXiv 2206.11893) stepped as a recurrence, one SISO system per channel.

    .. math:: x_k = \bar A \odot x_{k-1} + \bar B u_k, \quad \bar A = e^{\Delta A},
              \quad \bar B = (e^{\Delta A} - 1) A^{-1} B

    Args:
        input_size: H channels (u_k ∈ ℝᴴ, channel h drives its own M modes). state_size: M complex modes per
            channel (N = 2M in the paper's count). init: ``"lin"`` or ``"inv"``. Optional. Default: ``"lin"``.
        dt_min, dt_max: range of the log-uniform Δ. Optional. Default: 0.001, 0.1.
        generator, dtype, device: as for every cell.

    Attributes:
        hidden_size: 2·H·M, the real view of the (H, M) complex state.
        complex_width: H·M (the cell is its own real view; :mod:`analysis.diagonal`).

    Raises:
        ValueError, TypeError: sizes, ``init`` or Δ range out of range.
    """

    recurrent_role = "Abar"

    def __init__(self, input_size: int, state_size: int, *, init: str = "lin", dt_min: float = 1e-3,
                 dt_max: float = 1e-1, generator: torch.Generator | None = None, dtype: torch.dtype | None = None,
                 device: torch.device | str | None = None):
        super().__init__()
        check_sizes(input_size=input_size, state_size=state_size)
        check_sizes(hidden_size=2 * input_size * state_size, input_size=input_size)
        if not 0 < dt_min <= dt_max:
            raise ValueError(f"need 0 < dt_min <= dt_max, got dt_min={dt_min}, dt_max={dt_max}")
        H, M = input_size, state_size
        self.input_size, self.state_size, self.hidden_size = H, M, 2 * H * M
        self.complex_width = H * M
        self.init, self.dt_min, self.dt_max = init, float(dt_min), float(dt_max)
        kw = {"dtype": torch.float64}
        A = s4d_init(init, H, M)
        log_dt = torch.rand(H, generator=generator, **kw) * (math.log(dt_max) - math.log(dt_min)) + math.log(dt_min)
        out = {"dtype": dtype, "device": device}
        self.log_dt = nn.Parameter(log_dt.to(**out))
        self.log_A_real = nn.Parameter(torch.log(-A.real).to(**out))
        self.A_imag = nn.Parameter(A.imag.to(**out))
        self.B_re = nn.Parameter(torch.ones(H, M, **kw).to(**out))
        self.B_im = nn.Parameter(torch.zeros(H, M, **kw).to(**out))
        self.C_re = nn.Parameter((torch.randn(H, M, generator=generator, **kw) / math.sqrt(2)).to(**out))
        self.C_im = nn.Parameter((torch.randn(H, M, generator=generator, **kw) / math.sqrt(2)).to(**out))
        self.D = nn.Parameter(torch.randn(H, generator=generator, **kw).to(**out))

    def A(self) -> Tensor:
        """A = −exp(log(−Re A)) + i Im A, (H, M) complex."""
        return torch.complex(-torch.exp(self.log_A_real), self.A_imag)

    def discretised(self) -> tuple[Tensor, Tensor]:
        """(Ā, B̄), each (H, M) complex, by :func:`zoh`."""
        return zoh(self.A(), torch.complex(self.B_re, self.B_im), torch.exp(self.log_dt)[:, None])

    def step_complex(self, u: Tensor, x: Tensor) -> Tensor:
        """u (batch, H) real, x (batch, H, M) complex → (batch, H, M) complex."""
        Abar, Bbar = self.discretised()
        return Abar * x + Bbar * u[..., None].to(x.dtype)

    def step(self, x_t: Tensor, h: Tensor) -> Tensor:
        """One step on the real view: x_t (batch, H), h (batch, 2HM) → (batch, 2HM).

        Raises:
            ValueError: wrong last dimension or dtype (:meth:`cells.base.RecurrentCell.check_step_args`).
        """
        self.check_step_args(x_t, h)
        Abar, Bbar = self.discretised()
        a_re, a_im = Abar.real.reshape(-1), Abar.imag.reshape(-1)
        u = x_t.repeat_interleave(self.state_size, dim=-1)
        S = self.input_size * self.state_size
        re, im = h[..., :S], h[..., S:]
        return torch.cat([a_re * re - a_im * im + Bbar.real.reshape(-1) * u,
                          a_im * re + a_re * im + Bbar.imag.reshape(-1) * u], dim=-1)

    def diagonal_jacobian(self, x_t: Tensor, h: Tensor) -> Tensor:
        """a (batch, H·M) complex with ∂x_k/∂x_{k−1} = diag(a): a = Ā = exp(ΔA) flattened channel-major like the
        state, at every step (the recurrence is linear; arXiv 2206.11893, zero-order hold). h is the real view
        (batch, 2HM), as :meth:`step` takes it; :mod:`analysis.diagonal` checks this declaration."""
        return self.discretised()[0].reshape(-1).expand(h.shape[0], -1)

    def output(self, states: Tensor, x: Tensor) -> Tensor:
        """y_k = 2 Re(Σ_n C_n x_{k,n}) + D u_k per channel, for states (batch, T, 2HM), x (batch, T, H)."""
        S = self.input_size * self.state_size
        shape = states.shape[:-1] + (self.input_size, self.state_size)
        re, im = states[..., :S].reshape(shape), states[..., S:].reshape(shape)
        return 2 * (re * self.C_re - im * self.C_im).sum(-1) + self.D * x

    def kernel(self, L: int) -> Tensor:
        """The convolution kernel K_l = 2 Re(Σ_n C_n B̄_n Ā_nˡ), l = 0..L−1, (H, L) (the paper's Vandermonde form):
        y = K ∗ u + D u equals the recurrence from x_0 = 0."""
        Abar, Bbar = self.discretised()
        powers = torch.exp(torch.log(Abar)[..., None] * torch.arange(L, dtype=self.log_dt.dtype,
                                                                       device=self.log_dt.device))
        return 2 * torch.einsum("hn,hnl->hl", torch.complex(self.C_re, self.C_im) * Bbar, powers).real

    def recurrent_matrix(self) -> Tensor:
        """diag(Ā) on the real view, (2HM, 2HM)."""
        return realify(torch.diag(self.discretised()[0].reshape(-1)))

    def recurrent_matrices(self) -> dict[str, Tensor]:
        """{"Abar": diag(Ā)} (HM, HM) complex: the spectrum shows the HM eigenvalues Ā = exp(ΔA) themselves, not the
        realification's Ā ∪ conj(Ā) (:meth:`recurrent_matrix` keeps the real view's block)."""
        return {self.recurrent_role: torch.diag(self.discretised()[0].reshape(-1))}

    def config(self) -> dict:
        """Constructor arguments of this cell's structure (:meth:`rnnaudit.cells.base.RecurrentCell.config`)."""
        return {"input_size": self.input_size, "state_size": self.state_size, "init": self.init,
                "dt_min": self.dt_min, "dt_max": self.dt_max}

    def parameters_by_role(self) -> dict[str, Tensor]:
        """{"log_dt", "log_A_real", "A_imag", "B_re", "B_im", "C_re", "C_im", "D"}."""
        return {"log_dt": self.log_dt, "log_A_real": self.log_A_real, "A_imag": self.A_imag, "B_re": self.B_re,
                "B_im": self.B_im, "C_re": self.C_re, "C_im": self.C_im, "D": self.D}
