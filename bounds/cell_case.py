"""The case of the modern recurrences' claims (LRU, S4D, selective SSM, minGRU/minLSTM): one cell of
:mod:`rnnaudit.cells` (float64), one input sequence and its initial state. Saved and reloaded by the generic rule
of :mod:`rnnaudit.bounds.cases` (the cells are in :data:`rnnaudit.cells.registry.MODULE_TYPES`)."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn

__all__ = ["CellCase", "uniform", "cell_cases_from_model", "from_model_of"]


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


def cell_cases_from_model(view, types: tuple[type, ...], what: str) -> list[CellCase]:
    """A model (:class:`rnnaudit.bounds.on_model.ModelView`) as :class:`CellCase` cases, one per input sequence
    (``view.inputs`` (m, T, n) → m cases with x (1, T, n)), through one float64 eval-mode copy of its cell, from the
    zero state (the cells' default h_0).

    Args:
        view: the model. types: the cell classes the claim is about. what: the claim's subject, for the reason.

    Raises:
        NotApplicable: the model's cell is not one of ``types`` (naming both).
    """
    import copy

    from rnnaudit.bounds.core import NotApplicable

    if not isinstance(view.cell, types):
        raise NotApplicable(f"{what} is about {' or '.join(t.__name__ for t in types)} cells; the model's cell is "
                            f"{type(view.cell).__name__}")
    cell = copy.deepcopy(view.cell).to(torch.float64).eval()
    h0 = torch.zeros(cell.hidden_size, dtype=torch.float64)
    return [CellCase(cell, x[None].detach().to(torch.float64), h0) for x in view.inputs]


def from_model_of(*types: type, what: str):
    """The ``from_model`` of a claim about cells of ``types``: :func:`cell_cases_from_model` bound to them."""
    return lambda view: cell_cases_from_model(view, types, what)
