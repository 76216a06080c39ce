"""sLSTM cases (arXiv 2405.04517): an :class:`rnnaudit.cells.SLSTM` (forget gate σ or exp, drawn) with a bias drawn
~ N(0, σ_b²), inputs ~ N(0, σ_x²) (σ_b, σ_x drawn in [0.5, 4]: input-gate pre-activations up to ~±40, where
exp(ĩ) spans 35 orders of magnitude but the unstabilised sums stay finite), h_0 = c_0 = n_0 = m_0 = 0."""

from __future__ import annotations

import torch

from rnnaudit.bounds.cell_case import CellCase, uniform
from rnnaudit.cells import SLSTM

__all__ = ["sample_slstm", "slstm_case"]


def slstm_case(gen: torch.Generator, H: int, T: int, forget: str, scale: float, stabilised: bool = True,
               device="cpu", dtype=torch.float64) -> CellCase:
    """An sLSTM of H units, 3 inputs, bias and inputs at ``scale``, zero initial state."""
    cell = SLSTM(3, H, forget=forget, stabilised=stabilised, generator=gen, dtype=torch.float64)
    with torch.no_grad():
        cell.b.copy_(scale * torch.randn(4 * H, generator=gen, dtype=torch.float64))
    x = scale * torch.randn(1, T, 3, generator=gen, dtype=torch.float64)
    return CellCase(cell.to(device=device, dtype=dtype), x.to(device=device, dtype=dtype),
                    torch.zeros(4 * H, device=device, dtype=dtype))


def sample_slstm(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> CellCase:
    """h = 4H (the state [h, c, n, m]); H = max(1, h // 4)."""
    forget = "sigmoid" if float(torch.rand((), generator=gen)) < 0.5 else "exp"
    return slstm_case(gen, max(1, h // 4), T, forget, uniform(gen, 0.5, 4.0), device=device, dtype=dtype)
