"""LSTM baseline (sgornn.md Tables 1–3), wrapping ``torch.nn.LSTM``.

The recurrent state of an LSTM is the pair (h_t, c_t); for the probes it is the concatenation
[h_t, c_t] of width 2H, so ∂state_t/∂state_s covers the cell-state path too.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from rnnaudit.cells._validate import check_sizes
from rnnaudit.cells.base import RecurrentCell
from rnnaudit.cells.gated_scan import fused_path_applies, lstm, lstm_order

__all__ = ["LSTM"]


class LSTM(RecurrentCell):
    """Single-layer LSTM over ``torch.nn.LSTM`` (batch-first).

    Args:
        input_size: n. units: H, the width of h_t (and of c_t).
        single_bias: count one bias vector per gate (4H), as Keras and the papers' parameter tables
            do; the second torch bias ``bias_hh`` is then fixed at zero and not trainable. With
            ``False`` both torch biases are trained (8H).
        dtype, device: of the parameters.

    Attributes:
        hidden_size: 2H, the width of the recurrent state [h, c] seen by the probes.

    Parameter count with ``single_bias``: 4(nH + H² + H); sgornn.md Table 1 gives 67,201 for
    n = 2, H = 128 with a 129-weight readout, Table 3 525,312 for n = H = 256.
    """

    def __init__(self, input_size: int, units: int, *, single_bias: bool = True, dtype: torch.dtype | None = None,
                 device: torch.device | str | None = None):
        super().__init__()
        check_sizes(input_size=input_size, units=units)
        self.input_size, self.units, self.hidden_size = input_size, units, 2 * units
        self.lstm = nn.LSTM(input_size, units, batch_first=True, dtype=dtype, device=device)
        if single_bias:
            with torch.no_grad():
                self.lstm.bias_hh_l0.zero_()
            self.lstm.bias_hh_l0.requires_grad_(False)

    def _split(self, state: Tensor) -> tuple[Tensor, Tensor]:
        return state[..., : self.units].contiguous(), state[..., self.units:].contiguous()

    def forward(self, x: Tensor, h0: Tensor | None = None, *, fused: bool = True) -> Tensor:
        """States [h_t, c_t] for t = 1..T, shape (batch, T, 2H); h0 (batch, 2H) defaults to zeros.

        ``torch.nn.LSTM`` returns every h_t but only the last c_t. With ``fused`` (default) the sequence
        runs through :func:`cells.gated_scan.lstm` (torch's LSTM step, every c_t kept, a hand-written
        backward); ``fused=False`` (and any ``torch.func`` transform) steps ``torch.nn.LSTM`` one step at a
        time. Both compute the same states and gradients (the tests compare them).

        Raises:
            ValueError: see :meth:`cells.base.RecurrentCell.forward`.
        """
        state = self.initial_state(x, h0)
        h, c = self._split(state)
        if fused and fused_path_applies(x.device.type):
            p, order = self.lstm, lstm_order(self.units, x.device)
            bias = (p.bias_ih_l0 + p.bias_hh_l0)[order]
            return lstm(x, p.weight_ih_l0[order], bias, h, c, p.weight_hh_l0[order])
        hs, cs = [], []
        # torch.nn.LSTM returns only the last c; stepping keeps every c_t for the probes
        for x_t in x.unbind(1):  # unbind: slicing costs O(T) per step in backward (cells/base.py)
            out, (h_n, c_n) = self.lstm(x_t[:, None], (h[None], c[None]))
            h, c = h_n[0], c_n[0]
            hs.append(h)
            cs.append(c)
        return torch.cat([torch.stack(hs, 1), torch.stack(cs, 1)], dim=-1)

    def step(self, x_t: Tensor, h: Tensor) -> Tensor:
        """One step on the state [h, c]: (batch, n), (batch, 2H) → (batch, 2H).

        Raises:
            ValueError: wrong last dimension or dtype (:meth:`cells.base.RecurrentCell.check_step_args`).
        """
        self.check_step_args(x_t, h)
        p = self.lstm
        h_prev, c_prev = self._split(h)
        gates = x_t @ p.weight_ih_l0.mT + p.bias_ih_l0 + h_prev @ p.weight_hh_l0.mT + p.bias_hh_l0
        i, f, g, o = gates.chunk(4, dim=-1)  # torch's gate order
        c = torch.sigmoid(f) * c_prev + torch.sigmoid(i) * torch.tanh(g)
        return torch.cat([torch.sigmoid(o) * torch.tanh(c), c], dim=-1)

    def recurrent_matrix(self) -> Tensor:
        """The four recurrent matrices (input, forget, cell, output gates), shape (4, H, H)."""
        return self.lstm.weight_hh_l0.reshape(4, self.units, self.units)

    def recurrent_matrices(self) -> dict[str, Tensor]:
        """{"W_hi", "W_hf", "W_hg", "W_ho"}: the (H, H) blocks of torch's weight_hh_l0 (gate order i, f, g, o)."""
        return dict(zip(("W_hi", "W_hf", "W_hg", "W_ho"), self.lstm.weight_hh_l0.chunk(4, 0)))

    def config(self) -> dict:
        """Constructor arguments of this cell's structure (:meth:`rnnaudit.cells.base.RecurrentCell.config`)."""
        return {"input_size": self.input_size, "units": self.units,
                "single_bias": not self.lstm.bias_hh_l0.requires_grad}

    def parameters_by_role(self) -> dict[str, Tensor]:
        """{"W_ih", "W_hh", "b"} (b = torch's bias_ih; bias_hh is fixed at 0 with ``single_bias``)."""
        roles = {"W_ih": self.lstm.weight_ih_l0, "W_hh": self.lstm.weight_hh_l0, "b": self.lstm.bias_ih_l0}
        if self.lstm.bias_hh_l0.requires_grad:
            roles["b_hh"] = self.lstm.bias_hh_l0
        return roles
