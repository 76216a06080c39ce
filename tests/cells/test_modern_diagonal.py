"""The modern cells declare their diagonal Jacobians (complex a for the LRU and S4D, which are their own real views
with ``complex_width``; real a for the selective SSM and minGRU/minLSTM), and the fast path they take gives the
heatmap maps of the general (dense) path; a wrong declaration is refused."""

from __future__ import annotations

import pytest
import torch

from rnnaudit.analysis import hidden_jacobian_maps, lyapunov_spectrum
from rnnaudit.analysis.diagonal import declares_diagonal
from rnnaudit.cells import LRU, S4D, MinGRU, MinLSTM, SelectiveSSM

F64 = torch.float64
#: the fast path's bound (analysis.diagonal.diagonal_rtol) at T ≤ 30 is ~1e-14, the dense eigensolves' a few ulps
#: of the largest value: 1e-13 covers both.
AGREE = 1e-13
NORMS = ("spectral", "frobenius", "smallest")
gen = lambda s: torch.Generator().manual_seed(s)  # noqa: E731


def _cells():
    return [LRU(3, 4, r_min=0.3, r_max=0.99, generator=gen(0), dtype=F64),
            S4D(2, 3, init="lin", generator=gen(1), dtype=F64), S4D(2, 3, init="inv", generator=gen(2), dtype=F64),
            SelectiveSSM(4, 3, generator=gen(3), dtype=F64),
            SelectiveSSM(4, 3, discretisation="euler", generator=gen(3), dtype=F64),
            MinGRU(3, 5, generator=gen(4), dtype=F64), MinLSTM(3, 5, candidate="g", generator=gen(5), dtype=F64)]


def _rel(a, b):
    return float(((a - b).abs().max() / b.abs().max().clamp_min(1e-300)))


@pytest.mark.parametrize("cell", _cells(), ids=lambda c: type(c).__name__)
def test_each_modern_cell_takes_the_fast_path_and_its_maps_equal_the_general_paths(cell):
    assert declares_diagonal(cell)
    x = torch.randn(2, 12, cell.input_size, dtype=F64, generator=gen(7))
    fast = hidden_jacobian_maps(cell, x, norms=NORMS)
    dense = hidden_jacobian_maps(cell, x, norms=NORMS, method="dense")
    assert fast.stats["diagonal"] > 0 and dense.stats.get("diagonal", 0) == 0
    for name in NORMS:
        assert _rel(getattr(fast, name), getattr(dense, name)) <= AGREE, name


def test_the_lrus_declared_lyapunov_exponents_are_log_lambda_moduli_each_twice():
    """diag(λ) at every step: the exponents are exactly log|λ_j|, each twice on the real view (λ and conj λ)."""
    cell = LRU(3, 4, r_min=0.3, r_max=0.99, generator=gen(0), dtype=F64)
    spec = lyapunov_spectrum(cell, torch.randn(30, 3, dtype=F64, generator=gen(8)))
    want = cell.lambdas().detach().abs().log().repeat(2).sort(descending=True).values
    assert torch.allclose(spec.exponents, want, rtol=0, atol=1e-14)


def test_a_modern_cell_declaring_the_wrong_diagonal_is_refused():
    """An LRU declaring conj(λ) (a plausible sign slip): the step's Jacobian is diag(λ) realified, the check
    along a random direction sees the difference and names the step."""

    class Slipped(LRU):
        def diagonal_jacobian(self, x_t, h):
            return super().diagonal_jacobian(x_t, h).conj()

    cell = Slipped(3, 4, r_min=0.3, r_max=0.99, generator=gen(0), dtype=F64)
    with pytest.raises(ValueError, match=r"declares a diagonal Jacobian, but at step 1"):
        hidden_jacobian_maps(cell, torch.randn(6, 3, dtype=F64, generator=gen(9)))
