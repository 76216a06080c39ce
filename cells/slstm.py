"""The sLSTM of xLSTM (Beck, Pöppel, Spanring, Auer, Prudnikova, Kopp, Klambauer, Brandstetter & Hochreiter 2024,
"xLSTM: Extended Long Short-Term Memory", arXiv 2405.04517), one head, with its normaliser and stabiliser
states.

    [ĩ_t, f̃_t, z̃_t, õ_t] = W x_t + R h_{t−1} + b,
    z_t = tanh(z̃_t),  i_t = exp(ĩ_t),  f_t = σ(f̃_t) or exp(f̃_t),  o_t = σ(õ_t),
    c_t = f_t ⊙ c_{t−1} + i_t ⊙ z_t   (cell state),   n_t = f_t ⊙ n_{t−1} + i_t   (normaliser state),
    h_t = o_t ⊙ c_t / n_t,

and, stabilised, m_t = max(log f_t + m_{t−1}, ĩ_t) (stabiliser state), i'_t = exp(ĩ_t − m_t),
f'_t = exp(log f_t + m_{t−1} − m_t) in place of i_t, f_t: c_t and n_t are then e^{−m_t} times the unstabilised
ones and h_t is unchanged (bounds/xlstm/stabiliser.py). Gate order [i, f, z, o] as the ``xlstm`` package's
vanilla backend (``slstm_forward_pointwise``), which the tests compare with.

The probes see the state [h, c, n, m] of width 4H; with ``stabilised=False`` m stays 0.

The stabiliser's start: the package starts at m_0 = 0 (``stabiliser_start="state"``, the default here: the stored m
is used as it is). Then the first step computes i'_1 = exp(ĩ_1 − max(log f_1, ĩ_1)), which underflows when
log f_1 − ĩ_1 exceeds about 708 (subnormal, losing digits) and is 0 above 745 (c'_1 = n'_1 = 0, h_1 = 0/0 = NaN),
although the unstabilised sums are finite there. ``stabiliser_start="empty"`` reads an empty memory
(n_{t−1} = 0) as m_{t−1} = −∞: then m_t = ĩ_t, i'_t = 1, f'_t = 0 on that step, exactly, and the stabilised
states never underflow (n'_t ∈ [1, t] from there on).
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from rnnaudit.cells._validate import check_sizes
from rnnaudit.cells.base import RecurrentCell

__all__ = ["SLSTM", "FORGET_GATES", "STABILISER_STARTS"]

#: The forget gate's activation: σ or exp (arXiv 2405.04517, both appear in the package's sLSTM).
FORGET_GATES = ("sigmoid", "exp")
#: How the stabiliser starts: ``"state"`` uses the stored m (the package's m_0 = 0); ``"empty"`` reads an empty
#: memory (n_{t−1} = 0) as m_{t−1} = −∞.
STABILISER_STARTS = ("state", "empty")


class SLSTM(RecurrentCell):
    r"""sLSTM cell (arXiv 2405.04517), one head, dense R.

    Args:
        input_size: n. units: H, the width of h_t (and of c_t, n_t, m_t).
        forget: ``"sigmoid"`` or ``"exp"``. Optional. Default: ``"sigmoid"``.
        stabilised: use the stabiliser m_t. Optional. Default: True.
        stabiliser_start: ``"state"`` (the stored m, the package's m_0 = 0) or ``"empty"`` (m_{t−1} = −∞ where
            n_{t−1} = 0, which never underflows; see the module docstring). Optional. Default: ``"state"``.
        generator, dtype, device: as for every cell.

    Shapes: W (4H, n), R (4H, H), b (4H,), row blocks [i, f, z, o].

    Attributes:
        hidden_size: 4H, the state [h, c, n, m].

    Raises:
        ValueError, TypeError: sizes, ``forget`` or ``stabiliser_start`` out of range.
    """

    recurrent_role = "R"

    def __init__(self, input_size: int, units: int, *, forget: str = "sigmoid", stabilised: bool = True,
                 stabiliser_start: str = "state",
                 generator: torch.Generator | None = None, dtype: torch.dtype | None = None,
                 device: torch.device | str | None = None):
        super().__init__()
        check_sizes(input_size=input_size, units=units)
        check_sizes(hidden_size=4 * units, input_size=input_size)
        if forget not in FORGET_GATES:
            raise ValueError(f"forget must be one of {FORGET_GATES}, got {forget!r}")
        if stabiliser_start not in STABILISER_STARTS:
            raise ValueError(f"stabiliser_start must be one of {STABILISER_STARTS}, got {stabiliser_start!r}")
        self.stabiliser_start = stabiliser_start
        self.input_size, self.units, self.hidden_size = input_size, units, 4 * units
        self.forget, self.stabilised = forget, bool(stabilised)
        kw = {"dtype": torch.float64}
        out = {"dtype": dtype, "device": device}
        u = lambda bound, *s: (2 * torch.rand(*s, generator=generator, **kw) - 1) * bound  # noqa: E731
        self.W = nn.Parameter(u(1 / math.sqrt(input_size), 4 * units, input_size).to(**out))
        self.R = nn.Parameter(u(1 / math.sqrt(units), 4 * units, units).to(**out))
        self.b = nn.Parameter(torch.zeros(4 * units, **kw).to(**out))

    def _log_f(self, f_raw: Tensor) -> Tensor:
        return F.logsigmoid(f_raw) if self.forget == "sigmoid" else f_raw

    def step(self, x_t: Tensor, h: Tensor) -> Tensor:
        """One step on [h, c, n, m]: x_t (batch, n), state (batch, 4H) → (batch, 4H).

        Raises:
            ValueError: wrong last dimension or dtype (:meth:`cells.base.RecurrentCell.check_step_args`).
        """
        self.check_step_args(x_t, h)
        y, c, n, m = h.chunk(4, dim=-1)
        i_raw, f_raw, z_raw, o_raw = (x_t @ self.W.mT + y @ self.R.mT + self.b).chunk(4, dim=-1)
        log_f = self._log_f(f_raw)
        if self.stabilised:
            if self.stabiliser_start == "empty":
                m = torch.where(n == 0, torch.full_like(m, -math.inf), m)
            m_new = torch.maximum(log_f + m, i_raw)
            i, f = torch.exp(i_raw - m_new), torch.exp(log_f + m - m_new)
        else:
            m_new = torch.zeros_like(m)
            i, f = torch.exp(i_raw), torch.exp(log_f)
        c_new = f * c + i * torch.tanh(z_raw)
        n_new = f * n + i
        return torch.cat([torch.sigmoid(o_raw) * c_new / n_new, c_new, n_new, m_new], dim=-1)

    def recurrent_matrix(self) -> Tensor:
        """R, (4H, H): the four gates' recurrent blocks stacked [R_i; R_f; R_z; R_o] (not square)."""
        return self.R

    def recurrent_matrices(self) -> dict[str, Tensor]:
        """{"R_i", "R_f", "R_z", "R_o"}: the (H, H) blocks of R."""
        return dict(zip(("R_i", "R_f", "R_z", "R_o"), self.R.chunk(4, 0)))

    def config(self) -> dict:
        """Constructor arguments of this cell's structure (:meth:`rnnaudit.cells.base.RecurrentCell.config`)."""
        return {"input_size": self.input_size, "units": self.units, "forget": self.forget,
                "stabilised": self.stabilised, "stabiliser_start": self.stabiliser_start}

    def parameters_by_role(self) -> dict[str, Tensor]:
        """{"W", "R", "b"}, row blocks [i, f, z, o]."""
        return {"W": self.W, "R": self.R, "b": self.b}
