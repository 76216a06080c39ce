"""The trained model: a cell plus a linear readout, built from a :class:`TrainConfig`."""

from __future__ import annotations

import torch
from torch import Tensor, nn

from rnnaudit.cells.registry import build_cell
from rnnaudit.training.config import TrainConfig
from rnnaudit.training.task_specs import TASK_SPECS

__all__ = ["SequenceModel", "build_model"]


class SequenceModel(nn.Module):
    """A cell plus a linear readout (sgornn.md Sec. 3: one RNN layer and a fully connected output),
    of the last hidden state or, with ``per_step``, of every hidden state (the sequence-to-sequence
    tasks: copy, srnn.md Sec. 4; denoise and parenthesis, nc_gru.md Sec. 4.1–4.2).

    The readout sees the first ``units`` entries of the state (all of it except for the LSTM,
    whose state is [h, c]).
    """

    def __init__(self, cell: nn.Module, output_size: int, per_step: bool = False):
        super().__init__()
        self.cell = cell
        self.per_step = per_step
        self.units = getattr(cell, "units", cell.hidden_size)
        self.readout = nn.Linear(self.units, output_size, dtype=next(cell.parameters()).dtype)

    def forward(self, x: Tensor, h0: Tensor | None = None) -> Tensor:
        """x (batch, T, n) → predictions (batch, output_size) from h_T, or (batch, T, output_size)
        from every h_t when ``per_step``."""
        if self.per_step:
            return self.readout(self.cell(x, h0)[..., : self.units])
        return self.readout(self.cell(x, h0)[:, -1, : self.units])


def build_model(config: TrainConfig) -> SequenceModel:
    """The model a config describes, initialised from ``config.seed``, float32, on ``config.device``."""
    spec = TASK_SPECS[config.task]
    input_size, output_size = spec.dims(config.task_kwargs)
    torch.manual_seed(config.seed)
    gen = torch.Generator().manual_seed(config.seed)
    kwargs = dict(config.cell_kwargs)
    if _accepts_generator(config.cell):
        kwargs.setdefault("generator", gen)
    cell = build_cell(config.cell, input_size, config.hidden_size, **kwargs)
    return SequenceModel(cell, output_size, per_step=spec.per_step).to(config.device)

def _accepts_generator(name: str) -> bool:
    return name not in ("lstm",)
