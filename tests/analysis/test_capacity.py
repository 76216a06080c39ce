"""Empirical Rademacher complexity probe (analysis/capacity.py) against sgornn.md App. A.1."""

import itertools
import math

import pytest
import torch

from rnnaudit.analysis.capacity import (KIND, MAX_ENUMERATED, RANK_ONE_KIND, capacity_records, cell_rademacher,
                                        maximize_over_balls, rademacher_lower_estimate, rank_one_directions,
                                        rank_one_rademacher, rank_one_values, sgornn_rademacher_bound, sign_vectors)
from rnnaudit.cells import SGORNN

F64 = torch.float64


@pytest.mark.slow
def test_linear_class_matches_its_closed_form_by_enumeration():
    """{x ↦ wᵀx : ‖w‖ ≤ R}: sup_w (1/m)Σ ε_i wᵀx_i = (R/m)‖Σ ε_i x_i‖, so R̂_m is the average of
    that over all 2^m sign vectors. Projected normalised ascent on the sphere contracts the angle to
    the maximiser by 1/(1 + η_k) per step, Σ η_k = 0.3·101/2 ≈ 15, so the angle ends below
    π e^{-15} ≈ 1e-6 and the value within ~1e-12 relative: rel=1e-9 is safe."""
    g = torch.Generator().manual_seed(0)
    m, d, R = 6, 3, 1.5
    X = torch.randn(m, d, generator=g, dtype=F64)
    exact = sum(R / m * float(torch.linalg.vector_norm(torch.tensor(e, dtype=F64) @ X))
                for e in itertools.product((-1.0, 1.0), repeat=m)) / 2 ** m
    est = rademacher_lower_estimate(lambda p, eps: eps @ (X @ p["w"]) / m, m,
                                    lambda gen: {"w": torch.randn(d, generator=gen, dtype=F64)}, {"w": R},
                                    n_draws=None, n_starts=1, steps=100, lr=0.3, generator=g)
    assert est.exhaustive and est.n_draws == 2 ** m and est.stderr == 0.0
    assert est.estimate <= exact * (1 + 1e-12)  # feasible iterates: never above the supremum
    assert est.estimate == pytest.approx(exact, rel=1e-9)


def test_sampled_eps_gives_a_standard_error_that_covers_the_exact_value():
    """With sampled ε the mean is within a few standard errors of the exact expectation."""
    g = torch.Generator().manual_seed(1)
    m, d = 10, 4
    X = torch.randn(m, d, generator=g, dtype=F64)
    exact = sum(float(torch.linalg.vector_norm(torch.tensor(e, dtype=F64) @ X))
                for e in itertools.product((-1.0, 1.0), repeat=m)) / 2 ** m / m
    est = rademacher_lower_estimate(lambda p, eps: eps @ (X @ p["w"]) / m, m,
                                    lambda gen: {"w": torch.randn(d, generator=gen, dtype=F64)}, {"w": 1.0},
                                    n_draws=64, n_starts=1, steps=60, lr=0.3, generator=g)
    assert est.stderr > 0 and est.kind == KIND
    assert abs(est.estimate - exact) <= 4 * est.stderr


def test_projection_keeps_every_iterate_feasible():
    """Maximising ‖w‖² over the ball of radius 2 can never report more than 4."""
    best = maximize_over_balls(lambda p: p["w"].square().sum(), [{"w": torch.ones(3, dtype=F64)}], {"w": 2.0},
                               steps=50, lr=0.5)
    assert best == pytest.approx(4.0, rel=1e-12) and best <= 4.0 * (1 + 1e-15)


def test_sup_over_v_is_the_closed_form_of_eq_18_19():
    """For fixed (W, Θ) and ε the best v in the R_v ball gives R_v‖Σ ε_i h_T^(i)‖/m (equality in
    eq. 18–19); with steps=0 and one start the probe returns exactly that for the start."""
    g = torch.Generator().manual_seed(2)
    cell = SGORNN(2, 6, bias=False, dtype=F64, generator=g)
    X = torch.randn(5, 4, 2, dtype=F64, generator=g)
    est = cell_rademacher(cell, X, R_W=1.0, R_v=2.0, n_draws=2, n_starts=1, steps=0,
                          generator=torch.Generator().manual_seed(3))
    # replay the same ε draws and start with the same generator
    gen = torch.Generator().manual_seed(3)
    eps = (torch.randint(0, 2, (2, 5), generator=gen) * 2 - 1).to(F64)
    for d in range(2):
        w = torch.randn(6, 2, generator=gen, dtype=F64)
        theta = (torch.rand(cell.phi.theta.shape, generator=gen, dtype=F64) * 2 - 1) * math.pi
        with torch.no_grad():
            cell.W.copy_(w / torch.linalg.vector_norm(w))
            cell.phi.theta.copy_(theta)
            h_T = cell(X)[:, -1]
        s = eps[d] @ h_T
        v = 2.0 * s / torch.linalg.vector_norm(s)
        assert float(est.values[d]) == pytest.approx(float(v @ s) / 5, rel=1e-12)
        assert float(est.values[d]) == pytest.approx(2.0 * float(torch.linalg.vector_norm(s)) / 5, rel=1e-12)


@pytest.mark.slow
def test_sgornn_lower_estimate_sits_below_theorem_1_bound():
    """sgornn.md eq. 22–23: R̂_m(v∘F_T) ≤ 2αT R_W R_x R_v/√m when β ≤ 1 − 2α and h_0 = 0. The bound
    holds for the expectation over ε, so the sampled mean is allowed 3 standard errors."""
    recs = capacity_records(lambda: SGORNN(2, 8, bias=False, dtype=F64, generator=torch.Generator().manual_seed(4)),
                            Ts=[2, 6], ms=[8, 24], R_W=1.5, R_x=1.0, R_v=2.0, n_draws=4, n_starts=2, steps=25)
    assert [(r["T"], r["m"]) for r in recs] == [(2, 8), (2, 24), (6, 8), (6, 24)]
    for r in recs:
        assert r["beta"] <= 1 - 2 * r["alpha"] + 1e-15
        assert r["bound"] == pytest.approx(2 * r["alpha"] * r["T"] * 1.5 * 1.0 * 2.0 / math.sqrt(r["m"]))
        assert 0 < r["estimate"] - 3 * r["stderr"] <= r["bound"]
        assert r["kind"] == KIND and r["ratio"] == pytest.approx(r["estimate"] / r["bound"])


def test_bad_arguments_raise_value_errors():
    cell = SGORNN(2, 4, bias=False, dtype=F64)
    X = torch.randn(3, 2, 2, dtype=F64)
    with pytest.raises(ValueError, match="R_x"):
        cell_rademacher(cell, 10 * X / torch.linalg.vector_norm(X, dim=-1, keepdim=True), R_W=1, R_v=1, R_x=1.0)
    with pytest.raises(ValueError, match="role"):
        cell_rademacher(cell, X, R_W=1, R_v=1, ball_role="V")
    with pytest.raises(ValueError, match="R_W"):
        cell_rademacher(cell, X, R_W=0, R_v=1)
    with pytest.raises(ValueError, match="m <= 16"):
        rademacher_lower_estimate(lambda p, e: e.sum(), 17, lambda g: {}, {}, n_draws=None)
    with pytest.raises(ValueError, match="n_draws"):
        rademacher_lower_estimate(lambda p, e: e.sum(), 3, lambda g: {}, {}, n_draws=1)
    with pytest.raises(ValueError, match="radius"):
        maximize_over_balls(lambda p: p["w"].sum(), [{"w": torch.ones(2)}], {"w": -1.0})
    with pytest.raises(ValueError, match="m"):
        sgornn_rademacher_bound(0.1, 5, 1, 1, 1, 0)


# ------------------------------------------------------------------ the rank-one, exact-in-ε lower estimate
def _gated(h, alpha, beta_logit=20.0, seed=0):
    from rnnaudit.bounds.sgornn.cases import logit
    cell = SGORNN(2, h, bias=False, dtype=F64, generator=torch.Generator().manual_seed(seed))
    with torch.no_grad():
        cell.alpha_logit.fill_(logit(alpha))
        cell.beta_logit.fill_(beta_logit)
    return cell


def test_sign_vectors_enumerate_up_to_12_and_sample_beyond():
    eps, exhaustive = sign_vectors(3)
    assert exhaustive and eps.shape == (8, 3) and len({tuple(e.tolist()) for e in eps}) == 8
    eps, exhaustive = sign_vectors(MAX_ENUMERATED + 1, n_draws=5)
    assert not exhaustive and eps.shape == (5, MAX_ENUMERATED + 1) and set(eps.unique().tolist()) == {-1.0, 1.0}


def test_rank_one_estimate_at_one_sequence_is_the_largest_state():
    """m = 1, x_t = e_1: R̂ = R_v sup‖h_T‖ = R_v R_W R_x α Σ_{s<T}(α + β)^s with β = 1 − 2α (the clip)."""
    alpha, T = 0.01, 6
    cell = _gated(4, alpha)
    X = torch.tensor([1.0, 0.0], dtype=F64).expand(1, T, 2).clone()
    est = rank_one_rademacher(cell, X, R_W=2.0, R_v=3.0, R_x=1.0)
    largest = 2.0 * alpha * sum((1 - alpha) ** s for s in range(T))
    assert est.exhaustive and est.stderr == 0 and est.kind == RANK_ONE_KIND
    assert est.estimate == pytest.approx(3.0 * largest, rel=1e-12)


def test_rank_one_values_are_values_of_members_of_the_class():
    """Each value is (R_v/m)‖Σ ε_i h_T^(i)‖ of the member W = R_W u wᵀ, Θ = 0 for the best w of the grid, as the
    cell's own forward pass computes it."""
    gen = torch.Generator().manual_seed(5)
    cell = _gated(4, 0.2, beta_logit=0.0)
    X = torch.nn.functional.normalize(torch.randn(3, 4, 2, generator=gen, dtype=F64), dim=-1)
    eps, _ = sign_vectors(3)
    w = rank_one_directions(X, n_directions=16)
    values = rank_one_values(cell, X, eps, w, R_W=1.5, R_v=1.0)
    u = torch.full((4,), 0.5, dtype=F64)
    member = SGORNN(2, 4, bias=False, dtype=F64, generator=torch.Generator().manual_seed(0))
    member.load_state_dict(cell.state_dict())
    best = torch.zeros(len(eps), dtype=F64)
    with torch.no_grad():
        member.phi.theta.zero_()
        for k in range(len(w)):
            member.W.copy_(1.5 * u[:, None] * w[k][None])
            h_T = member(X)[:, -1]
            best = torch.maximum(best, torch.linalg.vector_norm(eps @ h_T, dim=-1) / 3)
    assert torch.allclose(values, best, rtol=1e-12, atol=0)


def test_rank_one_values_at_T1_match_the_closed_form_of_the_class():
    """T = 1: sup over ‖W‖_F ≤ R_W of ‖Σ ε_i σ(W x_i)‖ = R_W max_w |Σ ε_i σ(wᵀx_i)|; a fine grid over the angle
    (4096 points) approaches the max of the 256-point grid from above."""
    gen = torch.Generator().manual_seed(2)
    alpha = 0.3
    cell = _gated(2, alpha)
    X = torch.nn.functional.normalize(torch.randn(4, 1, 2, generator=gen, dtype=F64), dim=-1)
    eps, _ = sign_vectors(4)
    coarse = rank_one_values(cell, X, eps, rank_one_directions(X, n_directions=256), R_W=1.0, R_v=1.0)
    angle = torch.arange(4096, dtype=F64) * (2 * math.pi / 4096)
    w = torch.stack((angle.cos(), angle.sin()), -1)
    g = (eps @ torch.relu(X[:, 0] @ w.T)).abs().amax(dim=1) * alpha / 4
    assert torch.all(coarse <= g * (1 + 1e-12)) and torch.allclose(coarse, g, rtol=2e-3)


def test_rank_one_rejects_cells_without_a_fixed_direction_or_roles():
    from rnnaudit.cells import FastRNN
    X = torch.zeros(2, 3, 2, dtype=F64)
    with pytest.raises(ValueError, match="Theta"):
        rank_one_rademacher(FastRNN(2, 4, dtype=F64), X, R_W=1.0, R_v=1.0)
    with pytest.raises(ValueError, match="R_x"):
        rank_one_rademacher(_gated(2, 0.1), X + 1, R_W=1.0, R_v=1.0, R_x=1.0)
    with pytest.raises(ValueError, match="m"):
        sign_vectors(0)


def test_capacity_probe_runs_on_a_wrapped_torch_rnn_as_on_the_same_recurrence_written_as_a_step():
    """cell_rademacher substitutes parameters by torch.func.functional_call: the wrapped nn.RNN must
    read them at call time. The same ReLU recurrence written as a step function over the same
    parameters (another wrapping path) gives the same ascent, hence the same estimate."""
    from torch import nn

    from rnnaudit.cells import wrap

    torch.manual_seed(0)
    rnn = nn.RNN(2, 4, nonlinearity="relu", bias=False, batch_first=True, dtype=F64)

    class Step(nn.Module):
        def __init__(self):
            super().__init__()
            self.W_ih = nn.Parameter(rnn.weight_ih_l0.detach().clone())
            self.W_hh = nn.Parameter(rnn.weight_hh_l0.detach().clone())

        def step(self, x_t, h):
            return torch.relu(x_t @ self.W_ih.mT + h @ self.W_hh.mT)

    X = torch.randn(4, 5, 2, dtype=F64, generator=torch.Generator().manual_seed(1))
    kw = dict(R_W=1.0, R_v=1.0, n_draws=4, n_starts=1, steps=5)
    wrapped = cell_rademacher(wrap(rnn), X, ball_role="W_hh", free_roles=("W_ih",),
                              generator=torch.Generator().manual_seed(2), **kw)
    stepped = cell_rademacher(wrap(Step(), input_size=2, state_size=4), X, ball_role="W_hh", free_roles=("W_ih",),
                              generator=torch.Generator().manual_seed(2), **kw)
    assert wrapped.estimate > 0
    assert torch.allclose(wrapped.values, stepped.values, rtol=1e-12, atol=0)
