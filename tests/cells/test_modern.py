"""The modern cells (LRU, S4D, selective SSM, minGRU/minLSTM): each step against its paper's equation in another
form, the real view against the complex recurrence, the declared transitions against autograd."""

from __future__ import annotations

import math

import pytest
import torch
from torch.func import jacrev

from rnnaudit.cells import (LRU, MLSTM, S4D, SLSTM, MinGRU, MinLSTM, SelectiveSSM, to_complex, to_real,
                            s4d_init)
from rnnaudit.cells.registry import module_from_config

F64 = torch.float64
gen = lambda s: torch.Generator().manual_seed(s)  # noqa: E731


def _cells():
    return [LRU(3, 4, r_min=0.3, r_max=0.99, generator=gen(0), dtype=F64),
            S4D(3, 4, init="lin", generator=gen(1), dtype=F64), S4D(2, 3, init="inv", generator=gen(2), dtype=F64),
            SelectiveSSM(4, 3, generator=gen(3), dtype=F64),
            SelectiveSSM(4, 3, discretisation="euler", generator=gen(3), dtype=F64),
            MinGRU(3, 5, generator=gen(4), dtype=F64), MinLSTM(3, 5, candidate="g", generator=gen(5), dtype=F64)]


def test_lru_real_view_step_is_the_complex_recurrence():
    cell = LRU(3, 6, r_min=0.5, r_max=0.99, generator=gen(0), dtype=F64)
    u = torch.randn(2, 3, dtype=F64, generator=gen(1))
    z = torch.randn(2, 6, dtype=torch.complex128, generator=gen(2))
    assert torch.allclose(cell.step(u, to_real(z)), to_real(cell.step_complex(u, z)), rtol=0, atol=1e-15)
    assert torch.equal(to_complex(to_real(z)), z)


def test_lru_ring_initialisation_lands_in_the_ring_and_gamma_normalises():
    cell = LRU(2, 2000, r_min=0.4, r_max=0.9, max_phase=1.0, generator=gen(3), dtype=F64)
    lam = cell.lambdas().detach()
    assert lam.abs().min() >= 0.4 and lam.abs().max() <= 0.9
    assert lam.angle().min() >= 0 and lam.angle().max() <= 1.0
    assert torch.allclose(cell.gamma() ** 2, 1 - lam.abs() ** 2, rtol=1e-14, atol=0)


@pytest.mark.parametrize("cell", _cells(), ids=lambda c: type(c).__name__)
def test_modern_cells_step_jacobian_matches_their_declared_transition(cell):
    x = torch.randn(1, cell.input_size, dtype=F64, generator=gen(6))
    h = torch.randn(1, cell.hidden_size, dtype=F64, generator=gen(7))
    J = jacrev(lambda hh: cell.step(x, hh))(h)[0, :, 0]
    if isinstance(cell, (LRU, S4D)):
        expected = cell.recurrent_matrix()
    else:
        expected = torch.diag(cell.transition(x)[0])
    assert torch.allclose(J, expected.detach(), rtol=0, atol=1e-15)


def test_s4d_recurrence_equals_its_vandermonde_convolution_kernel():
    cell = S4D(3, 5, init="inv", generator=gen(8), dtype=F64)
    x = torch.randn(2, 12, 3, dtype=F64, generator=gen(9))
    with torch.no_grad():
        y = cell.output(cell(x), x)
        K = cell.kernel(12)
        conv = torch.stack([sum(K[:, l] * x[:, t - l] for l in range(t + 1)) for t in range(12)], 1) + cell.D * x
    assert (y - conv).abs().max() <= 1e-13


def test_s4d_lin_and_inv_initial_eigenvalues_follow_the_closed_forms():
    lin, inv = s4d_init("lin", 2, 4), s4d_init("inv", 1, 4)
    assert torch.equal(lin[1], torch.tensor([complex(-0.5, math.pi * n) for n in range(4)], dtype=torch.complex128))
    assert torch.allclose(inv[0].imag, torch.tensor([8 / math.pi * (8 / (2 * n + 1) - 1) for n in range(4)],
                                                    dtype=F64), rtol=1e-15)


def test_selective_ssm_zoh_and_euler_differ_only_in_b_bar():
    zoh_cell = SelectiveSSM(4, 3, generator=gen(3), dtype=F64)
    euler_cell = SelectiveSSM(4, 3, discretisation="euler", generator=gen(3), dtype=F64)
    x = torch.randn(5, 4, dtype=F64, generator=gen(1))
    (Az, Bz, _), (Ae, Be, _) = zoh_cell.discretised(x), euler_cell.discretised(x)
    assert torch.equal(Az, Ae) and not torch.allclose(Bz, Be)


@pytest.mark.parametrize("cell", _cells() + [SLSTM(3, 2, forget="exp", generator=gen(13), dtype=F64),
                                             MLSTM(3, 2, eps=1e-6, generator=gen(16), dtype=F64)],
                         ids=lambda c: type(c).__name__)
def test_modern_cells_rebuild_from_their_config(cell):
    twin = module_from_config(type(cell).__name__, cell.config(), dtype=F64)
    twin.load_state_dict(cell.state_dict())
    x = torch.randn(2, 5, cell.input_size, dtype=F64, generator=gen(10))
    assert torch.equal(twin(x), cell(x))


@pytest.mark.parametrize("cell", _cells() + [SLSTM(3, 2, generator=gen(13), dtype=F64), MLSTM(3, 2, dtype=F64)],
                         ids=lambda c: type(c).__name__)
def test_modern_cells_refuse_a_complex_h0_with_one_line(cell):
    x = torch.randn(1, 3, cell.input_size, dtype=F64)
    with pytest.raises(ValueError, match="complex"):
        cell(x, torch.zeros(1, cell.hidden_size, dtype=torch.complex128))


@pytest.mark.parametrize("build, match", [
    (lambda: LRU(2, 3, r_min=0.9, r_max=0.5), "r_min"),
    (lambda: S4D(2, 3, init="legs"), "init must be one of"),
    (lambda: SelectiveSSM(2, 3, discretisation="bilinear"), "discretisation must be one of"),
    (lambda: MinGRU(2, 3, candidate="tanh"), "candidate must be one of"),
    (lambda: SLSTM(2, 3, forget="relu"), "forget must be one of"),
])
def test_modern_cells_name_the_bad_argument(build, match):
    with pytest.raises(ValueError, match=match):
        build()


@pytest.mark.parametrize("cell", [MinGRU(3, 4, generator=gen(11), dtype=F64),
                                  MinLSTM(3, 4, generator=gen(12), dtype=F64)], ids=lambda c: type(c).__name__)
def test_min_rnns_have_no_recurrent_matrix_and_say_so(cell):
    assert cell.recurrent_matrices() == {}
    with pytest.raises(ValueError, match="no recurrent matrix"):
        cell.recurrent_matrix()


def test_slstm_stabiliser_leaves_h_unchanged_and_keeps_large_input_gates_finite():
    """The stabilised and raw sLSTM agree on h where the raw one is finite; with ĩ ≈ 800 (exp overflows) only the
    stabilised one stays finite."""
    stab = SLSTM(3, 4, forget="exp", generator=gen(14), dtype=F64)
    raw = SLSTM(3, 4, forget="exp", stabilised=False, generator=gen(14), dtype=F64)
    x = 2 * torch.randn(1, 15, 3, dtype=F64, generator=gen(15))
    with torch.no_grad():
        assert (stab(x)[..., :4] - raw(x)[..., :4]).abs().max() <= 1e-14
        for c in (stab, raw):
            c.b[:4].fill_(800.0)
        assert torch.isfinite(stab(x)).all() and not torch.isfinite(raw(x)[..., :4]).all()


def test_mlstm_memory_jacobian_is_the_scalar_forget_factor():
    cell = MLSTM(3, 2, generator=gen(17), dtype=F64)
    x = torch.randn(1, 3, dtype=F64, generator=gen(18))
    h = cell.step(torch.randn(1, 3, dtype=F64, generator=gen(19)), torch.zeros(1, cell.hidden_size, dtype=F64))
    J = jacrev(lambda hh: cell.step(x, hh))(h)[0, :, 0]
    S = cell.hidden_size - 1                                  # (C, n) block; m enters through f' and i'
    assert torch.allclose(J[:S, :S][~torch.eye(S, dtype=torch.bool)].abs().max(), torch.zeros((), dtype=F64))
    assert torch.allclose(torch.diagonal(J[:S, :S]), cell.transition(x, h)[0].expand(S), rtol=1e-14, atol=0)
