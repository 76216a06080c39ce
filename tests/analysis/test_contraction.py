"""analysis.contraction: the entrywise Jacobian bound dominates every autograd Jacobian in its box, the reachable box
is forward invariant, and the Perron weight attains ρ(M)."""

import pytest
import torch
from torch.func import jacrev

from rnnaudit.analysis.contraction import (Box, certify, data_box, jacobian_bound, lp_weight, perron_weight,
                                           reachable_box, weighted_inf_norm)
from rnnaudit.bounds.architectures import _layer_step

F64 = torch.float64
GATES = {"rnn_tanh": 1, "rnn_relu": 1, "gru": 3, "lstm": 4}


def _layer(kind: str, H: int, n: int, scale: float, seed: int = 0):
    g = torch.Generator().manual_seed(seed)
    k = GATES[kind]
    return (torch.randn(k * H, n, generator=g, dtype=F64), torch.randn(k * H, H, generator=g, dtype=F64) * scale / H ** .5,
            torch.randn(k * H, generator=g, dtype=F64) * .5, torch.randn(k * H, generator=g, dtype=F64) * .5)


def _step(kind, w, H):
    def F(s, x):
        if kind == "lstm":
            h, c = _layer_step(kind, w, x, s[:H], s[H:])
            return torch.cat([h, c])
        return _layer_step(kind, w, x, s, None)[0]
    return F


def _points(box: Box, count: int, g: torch.Generator) -> torch.Tensor:
    u = torch.rand(count, box.lo.numel(), generator=g, dtype=F64)
    u[::3] = (u[::3] < 0.5).to(F64)  # corners
    return box.lo + u * (box.hi - box.lo)


@pytest.mark.parametrize("kind", ["rnn_tanh", "gru", "lstm"])
@pytest.mark.parametrize("scale", [0.3, 2.0])
def test_jacobian_bound_dominates_every_autograd_jacobian_on_the_invariant_box(kind, scale):
    H, n = 5, 3
    w = _layer(kind, H, n, scale)
    X = Box(-torch.ones(n, dtype=F64), torch.ones(n, dtype=F64))
    B = reachable_box(kind, w, X)
    cert = certify(kind, w, B, X)
    F, g = _step(kind, w, H), torch.Generator().manual_seed(1)
    for s, x in zip(_points(B, 60, g), _points(X, 60, g)):
        J = jacrev(F)(s, x)
        assert bool((J.abs() <= cert.M).all())
        assert float(weighted_inf_norm(J, cert.weight)) <= cert.rate
        assert float(torch.linalg.matrix_norm(J, ord=2)) <= cert.spectral
        assert B.contains(F(s, x))  # forward invariance


def test_jacobian_bound_is_attained_where_the_box_is_a_point():
    """Negative control: a tanh RNN at its fixed point 0 with W = 0.9·I, zero input: J = 0.9·I exactly, so the bound
    cannot be lowered (0.9 · (1 − 1e-9) is exceeded)."""
    H = 4
    w = (torch.zeros(H, 2, dtype=F64), 0.9 * torch.eye(H, dtype=F64), torch.zeros(H, dtype=F64), torch.zeros(H, dtype=F64))
    B, X = data_box(torch.zeros(3, H, dtype=F64), torch.zeros(3, 2, dtype=F64))
    cert = certify("rnn_tanh", w, B, X)
    J = jacrev(_step("rnn_tanh", w, H))(torch.zeros(H, dtype=F64), torch.zeros(2, dtype=F64))
    assert float(weighted_inf_norm(J, cert.weight)) > cert.rate * (1 - 1e-9)
    assert cert.rate == pytest.approx(0.9, rel=1e-9) and cert.contracts


def test_perron_weight_attains_the_perron_root_where_the_spectral_norm_exceeds_one():
    """W = [[0.5, 3], [0, 0.5]]: ‖W‖₂ = 3.08 but ρ(|W|) = 0.5, and the weight found gives ‖|W|‖_∞,η within 1e-5 of it
    (a reducible matrix: the infimum is approached, not attained)."""
    M = torch.tensor([[0.5, 3.0], [0.0, 0.5]], dtype=F64)
    eta, rate, rho = perron_weight(M)
    assert float(torch.linalg.matrix_norm(M, ord=2)) > 3
    assert rho == pytest.approx(0.5, abs=1e-5) and 0.5 <= rate < 0.5 + 1e-5
    P = torch.rand(6, 6, generator=torch.Generator().manual_seed(0), dtype=F64) + 0.1  # irreducible
    eta, rate, rho = perron_weight(P)
    assert rate == pytest.approx(rho, rel=1e-9)
    assert rate <= float(weighted_inf_norm(P, torch.ones(6, dtype=F64))) * (1 + 1e-9)


def test_perron_weight_refuses_a_negative_matrix():
    with pytest.raises(ValueError, match="nonnegative"):
        perron_weight(torch.tensor([[0.5, -1.0], [0.0, 0.5]], dtype=F64))


def test_gru_row_bound_is_tighter_than_the_entrywise_one_when_the_update_gate_is_wide():
    """The GRU's rate uses z_lo and z_hi as row vertices; the entrywise M takes 1 − z_lo beside z_hi."""
    H, n = 5, 3
    w = _layer("gru", H, n, 0.3)
    X = Box(-torch.ones(n, dtype=F64), torch.ones(n, dtype=F64))
    B = reachable_box("gru", w, X)
    cert = certify("gru", w, B, X)
    assert cert.rate < perron_weight(jacobian_bound("gru", w, B, X))[1]


@pytest.mark.parametrize("norm", ["inf", "1"])
def test_lp_weight_reaches_the_perron_root_of_an_irreducible_matrix(norm):
    """ρ(|W|) is the least weighted ℓ∞ (and ℓ1) norm; the LP's weight reaches it to its bracket, on a matrix whose
    ‖·‖₂ and unweighted norms exceed 1, and its ℓ∞ weight is the Perron vector."""
    g = torch.Generator().manual_seed(3)
    M = torch.rand(7, 7, generator=g, dtype=F64) * torch.logspace(-2, 1, 7, dtype=F64)[:, None]
    M = M / float(torch.linalg.eigvals(M).abs().max()) * 0.8
    found = lp_weight(M, norm=norm)
    # HiGHS keeps each constraint to its primal feasibility tolerance (1e-7, with η ≥ 1): the rate evaluated on M
    # from the returned weight can exceed the bracket by that much, never the proof
    assert found.lower <= 0.8 <= found.rate <= 0.8 * (1 + 1e-6), (found.lower, found.rate)
    assert float(torch.linalg.matrix_norm(M, ord=2)) > 1 and float(M.abs().sum(1 if norm == "inf" else 0).max()) > 1
    if norm == "inf":
        eta = perron_weight(M)[0]
        assert torch.allclose(found.weight, eta, rtol=1e-6), (found.weight, eta)
    assert found.contracts


def test_lp_weight_fails_where_the_perron_root_is_one_or_more():
    M = torch.tensor([[0.5, 3.0], [0.2, 0.5]], dtype=F64)
    rho = 0.5 + 0.6 ** 0.5  # the eigenvalues are 0.5 ± √(3 · 0.2)
    for norm in ("inf", "1"):
        found = lp_weight(M, norm=norm)
        assert not found.contracts and found.lower <= rho * (1 + 1e-6) and rho <= found.rate * (1 + 1e-6)


def test_lp_weight_gives_a_positive_weight_for_a_reducible_matrix():
    """Triangular: ρ = 0.5, and its Perron vector (1, 0) has a zero; the LP's weight is positive and its rate
    is within the bracket of the infimum 0.5."""
    M = torch.tensor([[0.5, 3.0], [0.0, 0.5]], dtype=F64)
    found = lp_weight(M)
    assert bool((found.weight > 0).all()) and 0.5 <= found.rate <= 0.5 * (1 + 1e-6) and found.contracts


def test_lp_weight_refuses_bad_input():
    with pytest.raises(ValueError, match="nonnegative"):
        lp_weight(-torch.eye(2, dtype=F64))
    with pytest.raises(ValueError, match="norm must be"):
        lp_weight(torch.eye(2, dtype=F64), norm="2")


@pytest.mark.parametrize("kind,scale", [("gru", 0.0), ("gru", 0.5), ("rnn_tanh", 0.0), ("rnn_tanh", 2.0)])
def test_the_invariant_box_is_the_twentieth_image_whether_or_not_its_shrinking_stops_early(kind, scale):
    """With zero recurrent weights the image no longer depends on the state after one step, so the shrinking stops
    early; the box must be the one that 20 images B_{k+1} = B_k ∩ hull F(B_k) give, bit for bit."""
    from rnnaudit.analysis.contraction import layer_image

    H, n = 4, 3
    w = _layer(kind, H, n, scale, seed=2)
    X = Box(-torch.ones(n, dtype=F64), 0.5 * torch.ones(n, dtype=F64))
    B = Box(-torch.ones(H, dtype=F64), torch.ones(H, dtype=F64))
    for _ in range(20):
        image = layer_image(kind, w, B, X)
        B = Box(torch.maximum(B.lo, image.lo), torch.minimum(B.hi, image.hi))
    got = reachable_box(kind, w, X)
    assert torch.equal(got.lo, B.lo) and torch.equal(got.hi, B.hi)
