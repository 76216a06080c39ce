"""The case of the modern recurrences' claims (LRU, S4D, selective SSM, minGRU/minLSTM): one cell of
:mod:`rnnaudit.cells` (float64), one input sequence and its initial state. Saved and reloaded by the generic rule
of :mod:`rnnaudit.bounds.cases` (the cells are in :data:`rnnaudit.cells.registry.MODULE_TYPES`)."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn

__all__ = ["CellCase", "uniform"]


@dataclass
class CellCase:
    """A cell, a sequence and h_0.

    Attributes:
        cell: a cell of :mod:`rnnaudit.cells` with ``config()``. x: inputs (1, T, n). h0: initial state (S,), the
            cell's real state width S = ``cell.hidden_size``.
    """

    cell: nn.Module
    x: Tensor
    h0: Tensor

    def size(self) -> tuple[int, int]:
        """(S, T)."""
        return self.cell.hidden_size, self.x.shape[1]

    def states(self) -> Tensor:
        """h_1..h_T, (T, S)."""
        return self.cell(self.x, self.h0[None])[0]


def uniform(gen: torch.Generator, lo: float = 0.0, hi: float = 1.0) -> float:
    """One draw of U[lo, hi) from ``gen`` (float64)."""
    return lo + (hi - lo) * float(torch.rand((), generator=gen, dtype=torch.float64))
