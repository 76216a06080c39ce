"""minGRU/minLSTM cases (arXiv 2410.01201): a :class:`rnnaudit.cells.MinGRU` or :class:`rnnaudit.cells.MinLSTM`
(candidate linear or g, drawn), inputs ~ N(0, σ²) with σ drawn in [0.5, 4] (gates from mid-range to saturated),
h_0 ~ N(0, 1)."""

from __future__ import annotations

import torch

from rnnaudit.bounds.cell_case import CellCase, uniform
from rnnaudit.cells import MinGRU, MinLSTM

__all__ = ["sample_min_rnn"]


def sample_min_rnn(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> CellCase:
    """One of the four (minGRU, minLSTM) × (linear, g) cells of width h with 3 inputs."""
    k = int(torch.randint(0, 4, (), generator=gen))
    cls, candidate = (MinGRU, MinLSTM)[k % 2], ("linear", "g")[k // 2]
    cell = cls(3, h, candidate=candidate, generator=gen, dtype=torch.float64)
    with torch.no_grad():
        cell.b.copy_(torch.randn(cell.b.shape, generator=gen, dtype=torch.float64))
    x = uniform(gen, 0.5, 4.0) * torch.randn(1, T, 3, generator=gen, dtype=torch.float64)
    h0 = torch.randn(h, generator=gen, dtype=torch.float64)
    return CellCase(cell.to(device=device, dtype=dtype), x.to(device=device, dtype=dtype),
                    h0.to(device=device, dtype=dtype))
