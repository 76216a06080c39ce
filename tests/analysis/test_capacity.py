"""Empirical Rademacher complexity probe (analysis/capacity.py) against sgornn.md App. A.1."""

import itertools
import math

import pytest
import torch

from rnnaudit.analysis.capacity import (KIND, capacity_records, cell_rademacher, maximize_over_balls,
                               rademacher_lower_estimate, sgornn_rademacher_bound)
from rnnaudit.cells import SGORNN

F64 = torch.float64


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
