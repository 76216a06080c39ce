"""The LRU's case family (arXiv 2303.06349): an :class:`rnnaudit.cells.LRU` drawn with the ring initialisation at
radii and phase range drawn too, one input sequence of standard normal entries, h_0 = 0."""

from __future__ import annotations

import math

import torch

from rnnaudit.bounds.cell_case import CellCase, uniform
from rnnaudit.cells import LRU

__all__ = ["sample_lru", "lru_case", "lru_free"]


def lru_case(gen: torch.Generator, N: int, T: int, r_min: float, r_max: float, max_phase: float, n: int = 2,
             device="cpu", dtype=torch.float64) -> CellCase:
    """An LRU with N modes at the given ring, inputs (1, T, n) ~ N(0, 1), h_0 = 0."""
    cell = LRU(n, N, r_min=r_min, r_max=r_max, max_phase=max_phase, generator=gen, dtype=torch.float64)
    x = torch.randn(1, T, n, generator=gen, dtype=torch.float64)
    return CellCase(cell.to(device=device, dtype=dtype), x.to(device=device, dtype=dtype),
                    torch.zeros(2 * N, device=device, dtype=dtype))


def sample_lru(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> CellCase:
    """h = 2N (the real view's width; odd h rounds down, N ≥ 1); r_min ~ U[0, 0.9), r_max ~ U(r_min, 1),
    θ_max ~ U(0, 2π]: rings from the full disk to thin ones near the unit circle, every phase range."""
    N = max(1, h // 2)
    r_min = uniform(gen, 0.0, 0.9)
    r_max = uniform(gen, r_min + 1e-3, 1.0)
    return lru_case(gen, N, T, r_min, r_max, uniform(gen, 1e-3, 2 * math.pi), device=device, dtype=dtype)


def lru_free(case: CellCase) -> list:
    """ν^log and θ^log: the parametrisation's free reals (every real value is allowed)."""
    return [case.cell.nu_log, case.cell.theta_log]
