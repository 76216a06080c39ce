"""The S4D case family: an :class:`rnnaudit.cells.S4D` (S4D-Lin or S4D-Inv, drawn), inputs ~ N(0, 1), h_0 = 0."""

from __future__ import annotations

import torch

from rnnaudit.bounds.cell_case import CellCase
from rnnaudit.cells import S4D

__all__ = ["sample_s4d", "s4d_case"]


def s4d_case(gen: torch.Generator, H: int, M: int, T: int, init: str, device="cpu", dtype=torch.float64) -> CellCase:
    """An S4D of H channels and M modes each, inputs (1, T, H), h_0 = 0."""
    cell = S4D(H, M, init=init, generator=gen, dtype=torch.float64)
    x = torch.randn(1, T, H, generator=gen, dtype=torch.float64)
    return CellCase(cell.to(device=device, dtype=dtype), x.to(device=device, dtype=dtype),
                    torch.zeros(2 * H * M, device=device, dtype=dtype))


def sample_s4d(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> CellCase:
    """h = 2HM: one or two channels (as h allows), M = h/(2H) modes; init Lin or Inv with probability 1/2."""
    H = 2 if h >= 4 and h % 4 == 0 else 1
    M = max(1, h // (2 * H))
    init = "lin" if float(torch.rand((), generator=gen)) < 0.5 else "inv"
    return s4d_case(gen, H, M, T, init, device=device, dtype=dtype)
