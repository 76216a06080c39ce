"""The product engine behind the Jacobian maps (analysis/products.py) at magnitudes far from 1: factors of
1e-280 and 1e160, products from 1e-158 to 1e262, and kept columns 1e-270 below the rest of the block.
(The maps' accuracy near 1 is tested through analysis.jacobian in test_jacobian.py.)"""

import math

import pytest
import torch

from rnnaudit.analysis.products import new_stats, product_norm_maps

F64 = torch.float64


def _orthogonal(h: int, seed: int) -> torch.Tensor:
    return torch.linalg.qr(torch.randn(h, h, generator=torch.Generator().manual_seed(seed), dtype=F64))[0]


@pytest.mark.parametrize("exact", [False, True])
def test_factors_of_extreme_scale_give_the_products_of_their_scales(exact):
    """M_t = c_t·Q_t (Q_t orthogonal) and start blocks 1e-38·I: ‖X(t, s)‖₂ = 1e-38·∏ c and ‖X(t, s)‖_F = √h times
    that. The start block is inside the range the engine keeps blocks in, and the first factor takes it to
    1e-318 in one GEMM, which underflows (a subnormal with 5 digits, then multiplied back up by 1e160) unless
    the factor's scale is taken out first; ‖M_2‖₂² = 1e320 overflows (torch's eigvalsh then raised)."""
    h, scales = 8, [1e-280, 1e160, 1e140, 1e-100, 1e100]
    M = torch.stack([c * _orthogonal(h, k) for k, c in enumerate(scales)])
    T = len(scales)
    starts = (1e-38 * torch.eye(h, dtype=F64)).expand(T + 1, h, h).contiguous()
    out = product_norm_maps(M, starts, torch.arange(T + 1), rows=None, want=("spectral", "frobenius"), rtol=1e-10,
                            block=2, max_iter=4, stats=new_stats(), exact=exact)
    for s in range(T + 1):
        for t in range(s, T + 1):
            want = 1e-38 * math.prod(scales[s:t])
            if want < 1e-300:  # 1e-318: a subnormal float, 5 digits
                assert float(out["spectral"][t, s]) == pytest.approx(want, rel=1e-3, abs=0)
                continue
            assert float(out["spectral"][t, s]) == pytest.approx(want, rel=1e-12, abs=0)
            assert float(out["frobenius"][t, s]) == pytest.approx(want * math.sqrt(h), rel=1e-12, abs=0)


@pytest.mark.slow
def test_kept_columns_far_below_the_rest_of_the_block():
    """M = diag(10·I₄, 0.6·I₄), columns 4..7 kept: the kept block is 0.6^g·I₄ while the rest grows as 10^g, so at
    g = 300 the kept part (2.8e-67) is 1e-367 of the block's largest entry. Scaling the whole block to its largest
    entry would lose it; the engine keeps the block near the top of the float range instead."""
    T = 300
    M = torch.diag(torch.tensor([10.0] * 4 + [0.6] * 4, dtype=F64)).expand(T, 8, 8).contiguous()
    starts = torch.eye(8, dtype=F64).expand(T + 1, 8, 8).contiguous()
    out = product_norm_maps(M, starts, torch.arange(T + 1), rows=torch.arange(4, 8), want=("spectral", "frobenius"),
                            rtol=1e-10, block=2, max_iter=4, stats=new_stats())
    g = torch.arange(T + 1, dtype=F64)
    want = torch.exp(g * math.log(0.6))
    assert float((out["spectral"][:, 0] / want - 1).abs().max()) < 1e-12
    assert float((out["frobenius"][:, 0] / (2 * want) - 1).abs().max()) < 1e-12


@pytest.mark.parametrize("exact", [False, True])
def test_factor_entries_far_below_the_factors_largest_entry(exact):
    """Blocks started on the small coordinate of factors whose own entries span a wide range. diag(1e300, 1e-30):
    X(t, s) = 1e-30^(t − s)·e₂ exactly, and scaling the factor to its largest entry would flush 1e-30·2^−997 to
    0. diag(2^126, 1), diag(1, 1e-290), diag(1, 1e280): the products of e₂ are 1, 1e-290, 1e-10, and a block
    left anywhere in its range (down to 2^−128) times 1e-290 underflows in the GEMM unless the factor is
    scaled up first."""
    for diagonals, want in [([[1e300, 1e-30]] * 3, [1.0, 1e-30, 1e-60, 1e-90]),
                            ([[2.0 ** 126, 1.0], [1.0, 1e-290], [1.0, 1e280]], [1.0, 1.0, 1e-290, 1e-10])]:
        M = torch.stack([torch.diag(torch.tensor(d, dtype=F64)) for d in diagonals])
        T = M.shape[0]
        starts = torch.tensor([[[0.0, 1.0]]], dtype=F64).expand(T + 1, 1, 2).contiguous()
        for rows in (None, torch.tensor([1])):
            out = product_norm_maps(M, starts, torch.arange(T + 1), rows=rows, want=("spectral", "frobenius"),
                                    rtol=1e-10, block=2, max_iter=4, stats=new_stats(), exact=exact)
            for name in ("spectral", "frobenius"):
                got = out[name][:, 0].tolist()
                assert got == pytest.approx(want, rel=1e-14, abs=0), (diagonals, rows, name)
