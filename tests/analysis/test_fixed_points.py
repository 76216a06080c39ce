"""Fixed points and slow points (analysis/fixed_points.py, Sussillo & Barak 2013) against closed forms: a linear
RNN, the pitchfork of the 1-unit tanh RNN, a rotation with complex eigenvalues, the ghost of a saddle-node (a slow
point that must not be called fixed), and torch's own forward pass for every architecture the adapters wrap."""

import math

import pytest
import torch
from scipy.optimize import brentq
from torch import nn

from rnnaudit.analysis.fixed_points import EIGENVALUE_FACTOR, constant_input, find_fixed_points
from rnnaudit.cells import wrap
from rnnaudit.cells.registry import build_cell

F64 = torch.float64
U = torch.finfo(F64).eps / 2


def _scalar_rnn(w: float, b: float = 0.0) -> nn.RNN:
    """h ↦ tanh(w h + x + b): the 1-unit tanh RNN, input weight 1."""
    rnn = nn.RNN(1, 1, batch_first=True, dtype=F64)
    with torch.no_grad():
        rnn.weight_hh_l0.fill_(w)
        rnn.weight_ih_l0.fill_(1.0)
        rnn.bias_ih_l0.fill_(b)
        rnn.bias_hh_l0.zero_()
    return rnn


def _inputs(n: int = 1, batch: int = 6, T: int = 40, seed: int = 0, scale: float = 1.0) -> torch.Tensor:
    return scale * torch.randn(batch, T, n, generator=torch.Generator().manual_seed(seed), dtype=F64)


def _same_spectrum(a: torch.Tensor, b: torch.Tensor, tol: float) -> bool:
    """Two eigenvalue lists equal as multisets, to tol: each of a matched to its nearest unused one of b."""
    left = list(b)
    for v in a:
        k = min(range(len(left)), key=lambda i: abs(complex(left[i]) - complex(v)))
        if abs(complex(left.pop(k)) - complex(v)) > tol:
            return False
    return True


def _linear_step(W: torch.Tensor, b: torch.Tensor):
    return wrap(lambda x_t, h: h @ W.T + x_t @ torch.ones(1, W.shape[0], dtype=F64) + b, input_size=1,
                state_size=W.shape[0])


@pytest.mark.parametrize("radius", [0.8, 1.6])
def test_linear_rnn_fixed_point_is_the_solution_of_i_minus_w_and_its_eigenvalues_are_those_of_w(radius):
    """h ↦ W h + b under zero input: one fixed point h* = (I − W)⁻¹ b, and J = W everywhere, so the eigenvalues
    are eig(W) to rounding (forward mode differentiates a linear map exactly). Located to within
    ‖r‖/σ_min(I − W) of h* (first order, exact here). With ρ(W) = 1.6 the point is unstable, with as many
    unstable directions as W has eigenvalues outside the unit circle."""
    g = torch.Generator().manual_seed(1)
    S = 6
    A = torch.randn(S, S, generator=g, dtype=F64)
    W = radius * A / torch.linalg.eigvals(A).abs().max()
    b = torch.randn(S, generator=g, dtype=F64)
    fp = find_fixed_points(_linear_step(W, b), _inputs(), n_starts=8)
    exact = torch.linalg.solve(torch.eye(S, dtype=F64) - W, b)
    assert len(fp) == 1 and bool(fp.is_fixed[0]) and int(fp.hits[0]) == 8 and fp.discarded == 0
    smin = float(torch.linalg.svdvals(torch.eye(S, dtype=F64) - W)[-1])
    assert float((fp.points[0] - exact).norm()) <= 2 * float(fp.residual_tol[0]) / smin
    eig = torch.linalg.eigvals(W)
    assert _same_spectrum(fp.eigenvalues[0], eig, EIGENVALUE_FACTOR * S * U * float(torch.linalg.matrix_norm(W)))
    assert int(fp.n_unstable[0]) == int((eig.abs() > 1).sum())
    assert fp.stability[0] == ("stable" if radius < 1 else "unstable")
    assert torch.all(fp.eigenvalues[0].abs()[:-1] >= fp.eigenvalues[0].abs()[1:])


@pytest.mark.parametrize("w", [0.5, 0.9, 1.2, 1.5, 3.0])
def test_tanh_unit_has_the_pitchfork_at_w_equal_one(w):
    """h ↦ tanh(w h): for w < 1 the only fixed point is 0, stable, with eigenvalue w; for w > 1 the origin is
    unstable (eigenvalue w) and two stable points ±h* appear, h* = tanh(w h*) (brentq), with eigenvalue
    w (1 − h*²) < 1. A point is located to within its residual over |1 − λ| (first order)."""
    fp = find_fixed_points(_scalar_rnn(w), _inputs(), n_starts=32)
    assert all(fp.is_fixed) and sum(fp.hits.tolist()) + fp.discarded == 32
    pts = fp.points[:, 0]
    if w < 1:
        expected = [(0.0, w)]
    else:
        hs = brentq(lambda h: math.tanh(w * h) - h, 1e-3, 1.0, xtol=1e-15, rtol=8 * U)
        expected = [(-hs, w * (1 - hs * hs)), (0.0, w), (hs, w * (1 - hs * hs))]
    assert len(fp) == len(expected)
    order = torch.argsort(pts).tolist()
    for i, (h_exact, lam) in zip(order, expected):
        assert abs(float(pts[i]) - h_exact) <= 2 * float(fp.residual_tol[i]) / abs(1 - lam) + 4 * U
        assert abs(complex(fp.eigenvalues[i, 0]) - lam) <= 64 * U
        assert fp.stability[i] == ("stable" if lam < 1 else "unstable")
        assert int(fp.n_unstable[i]) == (1 if lam > 1 else 0)
        assert float(fp.time_constants[i, 0]) == pytest.approx(-1 / math.log(lam), rel=1e-12)


@pytest.mark.parametrize("rho", [0.9, 1.1])
def test_a_rotation_has_complex_eigenvalues_rho_e_to_the_plus_minus_i_theta(rho):
    """h ↦ tanh(ρ R(θ) h), R a rotation by θ = 0.7: the fixed point 0 has J = ρ R(θ) (tanh′(0) = 1), eigenvalues
    ρ e^{±iθ}: a stable spiral for ρ = 0.9 (τ = −1/log 0.9 ≈ 9.49 steps), for ρ = 1.1 two unstable directions."""
    theta = 0.7
    R = torch.tensor([[math.cos(theta), -math.sin(theta)], [math.sin(theta), math.cos(theta)]], dtype=F64)
    cell = wrap(lambda x_t, h: torch.tanh(rho * h @ R.T + x_t), input_size=2, state_size=2)
    fp = find_fixed_points(cell, _inputs(2, scale=0.3), n_starts=16)
    at0 = [i for i in range(len(fp)) if float(fp.points[i].norm()) <= 1e-12]
    assert len(at0) == 1 and bool(fp.is_fixed[at0[0]])
    lam = fp.eigenvalues[at0[0]]
    pair = [rho * complex(math.cos(theta), math.sin(theta)), rho * complex(math.cos(theta), -math.sin(theta))]
    assert _same_spectrum(lam, torch.tensor(pair, dtype=torch.complex128), 64 * U)
    assert sorted(float(a) for a in lam.angle()) == pytest.approx([-theta, theta], abs=1e-14)
    assert fp.stability[at0[0]] == ("stable" if rho < 1 else "unstable")
    assert int(fp.n_unstable[at0[0]]) == (0 if rho < 1 else 2)
    assert fp.time_constants[at0[0]].tolist() == pytest.approx([-1 / math.log(rho)] * 2, rel=1e-12)


def _saddle_node_bias(w: float) -> tuple[float, float]:
    """The bias b_c at which h ↦ tanh(w h + b) has a saddle-node on the negative side: tanh(w h + b) = h and
    w (1 − h²) = 1 give h_c = −√(1 − 1/w), b_c = atanh(h_c) − w h_c."""
    hc = -math.sqrt(1 - 1 / w)
    return hc, math.atanh(hc) - w * hc


def test_the_ghost_of_a_saddle_node_is_a_slow_point_not_a_fixed_point():
    """Negative control. Just past the saddle-node (b = b_c + 1e-4) the pair of fixed points near h_c has vanished;
    what remains is a ghost, a local minimum of q with speed ≈ 1e-4·(1 − h_c²) > 0: it must be found and called
    slow, never fixed. The stable fixed point on the positive side stays fixed."""
    w = 1.5
    hc, bc = _saddle_node_bias(w)
    fp = find_fixed_points(_scalar_rnn(w, bc + 1e-4), _inputs(), n_starts=32)
    slow = [i for i in range(len(fp)) if not bool(fp.is_fixed[i])]
    fixed = [i for i in range(len(fp)) if bool(fp.is_fixed[i])]
    assert len(fixed) == 1 and float(fp.points[fixed[0], 0]) > 0.5 and fp.stability[fixed[0]] == "stable"
    assert len(slow) == 1
    ghost = slow[0]
    assert abs(float(fp.points[ghost, 0]) - hc) < 0.02
    assert float(fp.speed[ghost]) == pytest.approx(1e-4 * (1 - hc * hc), rel=0.05)
    assert float(fp.speed[ghost]) > 1e6 * float(fp.residual_tol[ghost])
    assert fp.to_json()["slow"] == 1 and fp.to_json()["fixed"] == 1


def test_just_before_the_saddle_node_the_same_search_finds_both_fixed_points():
    """The other side of the control: at b = b_c − 1e-4 the saddle and the node near h_c are real fixed points
    (|h − h_c| ≈ √(2·1e-4/(w·|F''|))), one unstable, one stable, plus the far stable point: three fixed points."""
    w = 1.5
    hc, bc = _saddle_node_bias(w)
    fp = find_fixed_points(_scalar_rnn(w, bc - 1e-4), _inputs(), n_starts=64)
    assert all(fp.is_fixed) and len(fp) == 3
    near = sorted((i for i in range(len(fp)) if abs(float(fp.points[i, 0]) - hc) < 0.05),
                  key=lambda i: float(fp.points[i, 0]))
    assert len(near) == 2
    assert sorted(fp.stability[i] for i in near) == ["stable", "unstable"]


def test_without_newton_refinement_the_search_still_calls_nothing_fixed_above_rounding():
    """A point is fixed only when its residual is at rounding level: a search stopped after one LBFGS iteration,
    with no Newton step, leaves starts whose residuals are far above it, and none of them is called fixed."""
    fp = find_fixed_points(_scalar_rnn(1.5), _inputs(), n_starts=16, max_iter=1, newton_steps=0,
                           slow_fraction=1.0)
    assert bool((fp.speed > fp.residual_tol).all()) and not bool(fp.is_fixed.any())


def _torch_forward_check(module, cell, fp, xstar):
    """Each fixed point h satisfies torch's own forward pass from h, to its rounding level, and the eigenvalues
    are those of torch.autograd.functional.jacobian of that forward pass."""
    for i in range(len(fp)):
        h = fp.points[i][None]

        def one_step(hh):
            state = cell.unpack_state(hh)
            out = module(xstar[None, None], state)[1]
            return cell.pack_state(out)

        with torch.no_grad():
            moved = one_step(h)
        assert float((moved - h).norm()) <= 2 * float(fp.residual_tol[i]) + float(fp.speed[i])
        J = torch.autograd.functional.jacobian(lambda hh: one_step(hh[None])[0], fp.points[i])
        tol = 1e3 * EIGENVALUE_FACTOR * J.shape[0] * U * float(torch.linalg.matrix_norm(J))
        assert _same_spectrum(fp.eigenvalues[i], torch.linalg.eigvals(J), tol)


@pytest.mark.parametrize("make", [
    lambda: nn.GRU(3, 12, batch_first=True, dtype=F64),
    lambda: nn.LSTM(3, 8, num_layers=2, batch_first=True, dtype=F64),
    lambda: nn.RNN(3, 10, num_layers=2, batch_first=True, dtype=F64),
], ids=["gru", "lstm-2-layers", "rnn-2-layers"])
def test_fixed_points_of_torch_modules_are_fixed_under_torchs_own_forward(make):
    """The packed state of the adapters (an LSTM's h and c, every layer): each point found is a fixed point of
    torch's own nn.GRU/LSTM/RNN forward pass, and its eigenvalues are those of an autograd Jacobian of it. The
    recurrent weights are scaled by 6, far from a contraction: unstable points (saddles) are found too."""
    torch.manual_seed(0)
    module = make()
    with torch.no_grad():
        for name, p in module.named_parameters():
            if name.startswith("weight_hh"):
                p.mul_(6)
    cell = wrap(module)
    x = _inputs(3, batch=4, T=30)
    fp = find_fixed_points(cell, x, "mean", n_starts=24)
    assert len(fp) >= 1 and bool(fp.is_fixed.any())
    _torch_forward_check(module, cell, fp, constant_input(x, "mean", 3))


def test_rnnaudits_own_cells_and_a_tuple_state_step_are_searched_alike():
    """A cell of the toolkit (the paper GRU of nc_gru.md) and a wrapped step with a tuple state (h, c) packed by
    state_sizes: each point found has F(h) = h to its rounding level, checked by the step itself."""
    torch.manual_seed(0)
    gru = build_cell("gru", 2, 6).double()
    lin = nn.Linear(5 + 2, 3 + 5, dtype=F64)

    def step(x_t, state):
        h, c = state
        z = lin(torch.cat([h, x_t], -1))
        c = 0.5 * c + torch.tanh(z[..., :3])
        return torch.tanh(z[..., 3:] + c.sum(-1, keepdim=True)), c

    tuple_cell = wrap(step, input_size=2, state_sizes=(5, 3))
    for cell in (gru, tuple_cell):
        fp = find_fixed_points(cell, _inputs(2, batch=3, T=25), n_starts=12)
        assert len(fp) >= 1
        xs = torch.zeros(len(fp), 2, dtype=F64)
        with torch.no_grad():
            r = (wrap(cell).step(xs, fp.points) - fp.points).norm(dim=1)
        assert torch.equal(fp.is_fixed, r <= fp.residual_tol)


def test_every_start_is_accounted_for_and_the_search_is_seeded():
    x = _inputs()
    a = find_fixed_points(_scalar_rnn(1.5), x, n_starts=20, seed=3)
    b = find_fixed_points(_scalar_rnn(1.5), x, n_starts=20, seed=3)
    assert sum(a.hits.tolist()) + a.discarded == 20
    assert torch.equal(a.points, b.points) and torch.equal(a.hits, b.hits)


def test_the_constant_input_is_zero_the_data_mean_or_a_given_vector():
    x = _inputs(3, batch=2, T=5)
    assert torch.equal(constant_input(x, "zero", 3), torch.zeros(3, dtype=F64))
    assert torch.allclose(constant_input(x, "mean", 3), x.mean((0, 1)))
    assert torch.equal(constant_input(x, torch.tensor([1.0, 2.0, 3.0]), 3), torch.tensor([1.0, 2.0, 3.0], dtype=F64))


@pytest.mark.parametrize("kwargs, message", [
    ({"input": "median"}, "input must be"), ({"input": torch.zeros(2)}, "input must be"),
    ({"input": torch.tensor([math.nan])}, "finite"), ({"n_starts": 0}, "n_starts"), ({"max_iter": 0}, "max_iter"),
    ({"noise": -1.0}, "noise"), ({"slow_fraction": 0.0}, "slow_fraction"), ({"seed": -1}, "seed"),
])
def test_bad_options_are_one_value_error_naming_the_argument(kwargs, message):
    with pytest.raises(ValueError, match=message):
        find_fixed_points(_scalar_rnn(0.5), _inputs(), **kwargs)


def test_a_model_in_float32_is_refused_by_the_engine_with_the_dtype_named():
    with pytest.raises(ValueError, match="dtype"):
        find_fixed_points(nn.RNN(1, 2, batch_first=True), _inputs())


def _winner_take_all(seed: int, N: int = 4) -> nn.RNN:
    """h ↦ relu(W h + b), W = −2(11ᵀ − I) + 0.1·noise, b = 1 + 0.1·noise: mutual inhibition."""
    g = torch.Generator().manual_seed(seed)
    rnn = nn.RNN(2, N, nonlinearity="relu", batch_first=True, dtype=F64)
    with torch.no_grad():
        rnn.weight_hh_l0.copy_(-2 * (torch.ones(N, N) - torch.eye(N)) + 0.1 * torch.randn(N, N, generator=g))
        rnn.bias_ih_l0.copy_(1 + 0.1 * torch.randn(N, generator=g))
        rnn.bias_hh_l0.zero_()
    return rnn


def _relu_fixed_points(W: torch.Tensor, b: torch.Tensor) -> list[torch.Tensor]:
    """Every fixed point of h ↦ relu(W h + b) with a non-degenerate active set, by enumeration: for each set A of
    active units, h_A = (I − W_AA)⁻¹ b_A must be > 0 and every inactive unit's pre-activation (W h + b)_i < 0."""
    N = W.shape[0]
    out = []
    for mask in range(1 << N):
        A = [i for i in range(N) if mask >> i & 1]
        h = torch.zeros(N, dtype=F64)
        if A:
            h[A] = torch.linalg.solve(torch.eye(len(A), dtype=F64) - W[A][:, A], b[A])
        pre = W @ h + b
        if all(h[i] > 0 for i in A) and all(pre[i] < 0 for i in range(N) if i not in A):
            out.append(h)
    return out


@pytest.mark.parametrize("seed", [0, 1])
def test_a_relu_winner_take_all_has_every_enumerated_fixed_point_and_no_other(seed):
    """A piecewise-linear map whose fixed points are known exactly by enumerating the active sets (here
    2^4 − 1 = 15: winners, and the saddles between them; each point's stability is that of W on its active set).
    With starts spread widely (noise 1,
    the scale of the visited states) the search finds all of them, each to rounding, and nothing else; with the
    default 1% noise it finds a subset (starts near the data's own states reach the points near the data)."""
    rnn = _winner_take_all(seed)
    W, b = rnn.weight_hh_l0.detach(), (rnn.bias_ih_l0 + rnn.bias_hh_l0).detach()
    exact = _relu_fixed_points(W, b)
    assert len(exact) == 15
    x = torch.randn(16, 60, 2, generator=torch.Generator().manual_seed(seed), dtype=F64)
    fp = find_fixed_points(rnn, x, n_starts=256, seed=seed, noise=1.0)
    assert len(fp) == 15 and all(fp.is_fixed)
    for h in exact:
        assert float((fp.points - h).norm(dim=1).min()) <= 1e-13
    for i in range(len(fp)):  # J = diag(active) W: the eigenvalues of W_AA and zeros
        A = (W @ fp.points[i] + b > 0).nonzero().squeeze(1)  # the active set, by pre-activation
        lam = torch.linalg.eigvals(W[A][:, A]).abs()
        assert fp.stability[i] == ("stable" if bool((lam < 1).all()) else "unstable")
        assert int(fp.n_unstable[i]) == int((lam > 1).sum())
    assert "stable" in fp.stability and "unstable" in fp.stability
    near = find_fixed_points(rnn, x, n_starts=256, seed=seed)
    assert 1 <= len(near) <= 15
    assert all(float((torch.stack(exact) - h).norm(dim=1).min()) <= 1e-13 for h in near.points)


def test_starts_whose_jacobians_do_not_fit_in_memory_are_refused_before_any_work(monkeypatch):
    import rnnaudit.analysis.fixed_points as engine

    monkeypatch.setattr(engine, "default_memory_limit", lambda device=None: engine.JACOBIAN_COPIES * 8 * 100)  # S = 1: 100 starts fit
    with pytest.raises(ValueError, match="n_starts = 101: .* use fewer starts"):
        find_fixed_points(_scalar_rnn(0.5), _inputs(), n_starts=101)
    assert len(find_fixed_points(_scalar_rnn(0.5), _inputs(), n_starts=100)) == 1


def test_the_clustering_asks_for_sigma_min_only_where_the_radii_bounds_leave_it_open_and_decides_as_the_radii_do():
    """_unique with σ_min(J − I) asked lazily keeps the same points, with the same hits, as the greedy clustering on
    the full radii ‖r‖/max(σ_min, √u) + tol; points within tol of each other need no SVD."""
    from rnnaudit.analysis.fixed_points import _unique

    gen = torch.Generator().manual_seed(7)
    u = torch.finfo(torch.float64).eps / 2
    for trial in range(20):
        K, S = 12, 3
        centres = torch.randn(3, S, generator=gen, dtype=torch.float64)
        H = centres[torch.randint(3, (K,), generator=gen)] + 1e-9 * torch.randn(K, S, generator=gen,
                                                                               dtype=torch.float64) * (trial % 3)
        speed = torch.rand(K, generator=gen, dtype=torch.float64) * 10.0 ** -(trial % 12)
        tol = torch.full((K,), 1e-10, dtype=torch.float64)
        smin = torch.rand(K, generator=gen, dtype=torch.float64) * 10.0 ** -(trial % 9)
        radius = speed / smin.clamp_min(math.sqrt(u)) + tol
        order = torch.argsort(speed, stable=True).tolist()
        kept, hits = [], []
        for i in order:
            for k, j in enumerate(kept):
                if float((H[i] - H[j]).norm()) <= float(radius[i] + radius[j]):
                    hits[k] += 1
                    break
            else:
                kept.append(i)
                hits.append(1)
        asked = []
        got = _unique(H, speed, tol, lambda i: asked.append(i) or smin[i])
        assert got == (kept, hits)
    same = _unique(torch.zeros(4, 2, dtype=torch.float64), torch.zeros(4, dtype=torch.float64),
                   torch.full((4,), 1e-12, dtype=torch.float64), lambda i: pytest.fail("an SVD was asked for"))
    assert same == ([0], [4])
