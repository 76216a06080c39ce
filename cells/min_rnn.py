"""minGRU and minLSTM (Feng, Tung, Ahmed, Bengio & Hajimirsadeghi 2024, "Were RNNs All We Needed?",
arXiv 2410.01201), sequential mode: the gates see x_t only, never h_{t−1}.

minGRU:   z_t = σ(Linear_dh(x_t)),  h̃_t = Linear_dh(x_t),  h_t = (1 − z_t) ⊙ h_{t−1} + z_t ⊙ h̃_t.
minLSTM:  f_t = σ(Linear_dh(x_t)),  i_t = σ(Linear_dh(x_t)),  h̃_t = Linear_dh(x_t),
                     f'_t = f_t/(f_t + i_t),  i'_t = i_t/(f_t + i_t),  h_t = f'_t ⊙ h_{t−1} + i'_t ⊙ h̃_t.

``candidate="g"`` passes h̃ through g(x) = x + ½ for x ≥ 0, σ(x) otherwise, the paper's log-space variant
(its Appendix B) that keeps h̃ > 0, and what ``mingru-pytorch`` computes; ``"linear"`` is the plain form.

Both are diagonal recurrences: ∂h_t/∂h_{t−1} = diag(1 − z_t) (minGRU) or diag(f'_t) (minLSTM), entries in
(0, 1), independent of h (:meth:`MinGRU.transition`); h_t is a convex combination of h_{t−1} and h̃_t, so
min(h_0, h̃_1..t) ≤ h_t ≤ max(h_0, h̃_1..t) entrywise (bounds/min_rnn/).
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from rnnaudit.cells._validate import check_sizes
from rnnaudit.cells.base import RecurrentCell

__all__ = ["MinGRU", "MinLSTM", "g", "CANDIDATES"]

#: h̃'s forms (the module docstring).
CANDIDATES = ("linear", "g")


def g(x: Tensor) -> Tensor:
    """g(x) = x + ½ for x ≥ 0, σ(x) for x < 0 (arXiv 2410.01201, Appendix B): continuous, positive, increasing."""
    return torch.where(x >= 0, x + 0.5, torch.sigmoid(x))


class _MinRNN(RecurrentCell):
    """Shared plumbing: one weight W (k·h, n) and bias b (k·h,) for the k gate/candidate blocks."""

    blocks: tuple[str, ...] = ()

    def __init__(self, input_size: int, hidden_size: int, *, candidate: str = "linear", bias: bool = True,
                 generator: torch.Generator | None = None, dtype: torch.dtype | None = None,
                 device: torch.device | str | None = None):
        super().__init__()
        check_sizes(input_size=input_size, hidden_size=hidden_size)
        if candidate not in CANDIDATES:
            raise ValueError(f"candidate must be one of {CANDIDATES}, got {candidate!r}")
        self.input_size, self.hidden_size, self.candidate = input_size, hidden_size, candidate
        k, bound = len(self.blocks), 1 / math.sqrt(input_size)
        kw = {"dtype": torch.float64}
        out = {"dtype": dtype, "device": device}
        self.W = nn.Parameter(((2 * torch.rand(k * hidden_size, input_size, generator=generator, **kw) - 1)
                               * bound).to(**out))
        self.b = nn.Parameter(torch.zeros(k * hidden_size, **kw).to(**out)) if bias else None

    def _pre(self, x_t: Tensor) -> tuple[Tensor, ...]:
        pre = x_t @ self.W.mT
        if self.b is not None:
            pre = pre + self.b
        return pre.chunk(len(self.blocks), dim=-1)

    def _candidate(self, pre: Tensor) -> Tensor:
        return g(pre) if self.candidate == "g" else pre

    def transition(self, x_t: Tensor) -> Tensor:
        """The diagonal of ∂h_t/∂h_{t−1}, (..., h)."""
        raise NotImplementedError

    def transitions(self, x: Tensor) -> Tensor:
        """diag(∂h_t/∂h_{t−1}) at every step of the sequences x (batch, T, n): (batch, T, h), real; the gates see
        x_t only, so no state is run (arXiv 2410.01201, sequential mode)."""
        return self.transition(x)

    def diagonal_jacobian(self, x_t: Tensor, h: Tensor) -> Tensor:
        """a = :meth:`transition` (x_t) (batch, h) real, with ∂h_t/∂h_{t−1} = diag(a) (the gates see x_t only,
        arXiv 2410.01201, sequential mode); h is not read. :mod:`analysis.diagonal` checks this declaration."""
        return self.transition(x_t)

    def recurrent_matrix(self) -> Tensor:
        """Raises ValueError: the gates do not see h, so there is no recurrent matrix (:meth:`transition`)."""
        raise ValueError(f"{type(self).__name__} has no recurrent matrix: its gates see x_t only, and "
                         "∂h_t/∂h_(t-1) is the diagonal transition(x_t)")

    def recurrent_matrices(self) -> dict[str, Tensor]:
        """{}: no recurrent matrix."""
        return {}

    def config(self) -> dict:
        """Constructor arguments of this cell's structure (:meth:`rnnaudit.cells.base.RecurrentCell.config`)."""
        return {"input_size": self.input_size, "hidden_size": self.hidden_size, "candidate": self.candidate,
                "bias": self.b is not None}

    def parameters_by_role(self) -> dict[str, Tensor]:
        """{"W", "b"}: the row blocks of W and b follow :attr:`blocks` (the candidate h̃, then the gates)."""
        roles = {"W": self.W}
        if self.b is not None:
            roles["b"] = self.b
        return roles


class MinGRU(_MinRNN):
    r"""minGRU (arXiv 2410.01201), sequential mode.

    .. math:: h_t = (1 - z_t) \odot h_{t-1} + z_t \odot \tilde h_t, \quad z_t = \sigma(W_z x_t + b_z),
              \quad \tilde h_t = W_h x_t + b_h

    Args:
        input_size: n. hidden_size: h. candidate: ``"linear"`` or ``"g"``. Optional. Default: ``"linear"``.
        bias: include b. Optional. Default: True. generator, dtype, device: as for every cell.

    Shapes: W (2h, n) = [W_h; W_z] (``mingru-pytorch``'s ``to_hidden_and_gate`` order), b (2h,).

    Raises:
        ValueError, TypeError: sizes or ``candidate`` out of range.
    """

    blocks = ("h", "z")

    def gates(self, x_t: Tensor) -> tuple[Tensor, Tensor]:
        """(z_t, h̃_t) for x_t (..., n), each (..., h)."""
        hid, gate = self._pre(x_t)
        return torch.sigmoid(gate), self._candidate(hid)

    def transition(self, x_t: Tensor) -> Tensor:
        """diag(∂h_t/∂h_{t−1}) = 1 − z_t, (..., h)."""
        return 1 - self.gates(x_t)[0]

    def step(self, x_t: Tensor, h: Tensor) -> Tensor:
        """x_t (batch, n), h (batch, h) → (batch, h).

        Raises:
            ValueError: wrong last dimension or dtype (:meth:`cells.base.RecurrentCell.check_step_args`).
        """
        self.check_step_args(x_t, h)
        z, cand = self.gates(x_t)
        return (1 - z) * h + z * cand


class MinLSTM(_MinRNN):
    r"""minLSTM (arXiv 2410.01201), sequential mode, with the normalised gates f', i'.

    .. math:: h_t = f'_t \odot h_{t-1} + i'_t \odot \tilde h_t, \quad f'_t = \frac{f_t}{f_t + i_t},
              \quad i'_t = \frac{i_t}{f_t + i_t}

    Args: as :class:`MinGRU`. Shapes: W (3h, n) = [W_h; W_f; W_i] (``mingru-pytorch``'s order), b (3h,).
    """

    blocks = ("h", "f", "i")

    def gates(self, x_t: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """(f'_t, i'_t, h̃_t) for x_t (..., n), each (..., h)."""
        hid, f, i = self._pre(x_t)
        f, i = torch.sigmoid(f), torch.sigmoid(i)
        return f / (f + i), i / (f + i), self._candidate(hid)

    def transition(self, x_t: Tensor) -> Tensor:
        """diag(∂h_t/∂h_{t−1}) = f'_t, (..., h)."""
        return self.gates(x_t)[0]

    def step(self, x_t: Tensor, h: Tensor) -> Tensor:
        """x_t (batch, n), h (batch, h) → (batch, h).

        Raises:
            ValueError: wrong last dimension or dtype (:meth:`cells.base.RecurrentCell.check_step_args`).
        """
        self.check_step_args(x_t, h)
        f, i, cand = self.gates(x_t)
        return f * h + i * cand
