"""ENRNN cell against enrnn.md eq. 2–5, Sec. 3–4, Proposition 3.2 and Table 1."""

import math

import pytest
import torch
from scipy.optimize import linear_sum_assignment
from scipy.stats import kstest

from rnnaudit.cells.base import parameter_count
from rnnaudit.cells.baselines import LSTM
from rnnaudit.cells.enrnn import (ENRNN, eigenvalue_normalize, enrnn_recurrence, eq5_init, prop32_gradient,
                                  spectral_radius)
from rnnaudit.cells.orthogonal import orthogonality_defect
from tests.conftest import DEVICES

F64 = torch.float64
# float64, n ≤ 12, T ≤ 8: forward/step and formula-vs-formula comparisons are a few dozen roundings of
# O(1) numbers, ≈ 1e-16 each
TOL = 1e-12


def _cell(q=4, p=5, device="cpu", seed=0, **kw):
    return ENRNN(3, q, p, generator=torch.Generator().manual_seed(seed), dtype=F64, device=device, **kw)


def _x(device="cpu", batch=2, T=6, seed=1):
    return torch.randn(batch, T, 3, dtype=F64, generator=torch.Generator().manual_seed(seed)).to(device)


def _dominant(kind, m=5, rho=1.4, seed=0):
    """T = P D P⁻¹ with a separated dominant eigenvalue of modulus ``rho``: real (``"real"``) or a complex
    pair (``"complex"``), the other eigenvalues of modulus ≤ 0.7. P = I + 0.3·N(0, 1) is well conditioned."""
    g = torch.Generator().manual_seed(seed)
    D = torch.diag(torch.rand(m, generator=g, dtype=F64) * 1.4 - 0.7)
    if kind == "real":
        D[0, 0] = -rho
    else:
        a = 1.0
        D[:2, :2] = rho * torch.tensor([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]], dtype=F64)
    P = torch.eye(m, dtype=F64) + 0.3 * torch.randn(m, m, generator=g, dtype=F64)
    return torch.linalg.solve(P.mT, (P @ D).mT).mT  # P D P⁻¹ without an explicit inverse


def _set_T(cell, T):
    with torch.no_grad():
        cell.T.copy_(T)


def _match(a, b):
    """Largest distance of an optimal one-to-one matching between two eigenvalue lists."""
    cost = (a[:, None] - b[None, :]).abs().numpy()
    r, c = linear_sum_assignment(cost)
    return cost[r, c].max()


# ---------------------------------------------------------------- structure (eq. 2–3, Sec. 3)

@pytest.mark.parametrize("coupling", [True, False])
def test_enrnn_eq2_recurrent_matrix_is_block_upper_triangular(coupling):
    cell = _cell(coupling=coupling)
    W = cell.recurrent_matrix()
    q = cell.long_size
    assert torch.equal(W[:q, :q], cell.phi.matrix())
    assert torch.equal(W[q:, q:], cell.short_term_matrix())
    assert torch.equal(W[q:, :q], torch.zeros(5, 4, dtype=F64))  # no coupling from h^(L) to h^(S)
    assert torch.equal(W[:q, q:], cell.W_C if coupling else torch.zeros(4, 5, dtype=F64))
    assert orthogonality_defect(cell.phi.matrix()) < TOL  # W^(L) orthogonal (scoRNN, Sec. 5)


@pytest.mark.parametrize("coupling", [True, False])
def test_enrnn_sec3_spectrum_is_the_union_of_the_diagonal_blocks(coupling):
    """Sec. 3: "the eigenvalues of W consist of the eigenvalues of both W^(L) and W^(S) ... this coupling does
    not alter the spectral properties". Checked with random A, a normalised non-normal T and a large W^(C);
    eigenvalues of non-normal matrices of size ≤ 9 are accurate to ≈ 1e-13 here, hence 1e-9."""
    cell = _cell(coupling=coupling)
    with torch.no_grad():
        cell.phi.theta.copy_(torch.randn(4, 4, dtype=F64, generator=torch.Generator().manual_seed(5)))
        if coupling:
            cell.W_C.mul_(10)
    _set_T(cell, _dominant("complex"))
    W = cell.recurrent_matrix().detach()
    blocks = torch.cat([torch.linalg.eigvals(cell.phi.matrix().detach()),
                        torch.linalg.eigvals(cell.short_term_matrix().detach())])
    assert _match(torch.linalg.eigvals(W), blocks) < 1e-9
    expected = max(spectral_radius(cell.phi.matrix()), spectral_radius(cell.short_term_matrix()))
    assert abs(spectral_radius(W) - expected) < 1e-9
    assert abs(spectral_radius(W) - 1) < 1e-9  # ρ(W^(L)) = 1 dominates since ρ(W^(S)) ≤ 1


@pytest.mark.parametrize("activation", ["modrelu", "relu", "tanh"])
def test_enrnn_eq3_forward_matches_the_two_block_equations(activation):
    """Eq. 3 written out per block: h^(L) sees W^(C) h^(S)_{t−1}; h^(S) never sees h^(L). With modReLU the b of
    eq. 3 is modReLU's bias: σ(z) = z/|z| relu(|z| + b) (Sec. 4)."""
    cell, x = _cell(activation=activation), _x()
    with torch.no_grad():
        cell.b_L.uniform_(-0.3, 0.3)
        cell.b_S.uniform_(-0.3, 0.3)
    if activation == "modrelu":
        sig_L = lambda z: torch.sign(z) * torch.relu(z.abs() + cell.b_L)  # noqa: E731
        sig_S = lambda z: torch.sign(z) * torch.relu(z.abs() + cell.b_S)  # noqa: E731
    else:
        act = {"relu": torch.relu, "tanh": torch.tanh}[activation]
        sig_L, sig_S = (lambda z: act(z + cell.b_L)), (lambda z: act(z + cell.b_S))
    W_L, W_S = cell.phi.matrix(), cell.short_term_matrix()
    hL, hS, out = torch.zeros(2, 4, dtype=F64), torch.zeros(2, 5, dtype=F64), []
    for t in range(x.shape[1]):
        hL, hS = (sig_L(x[:, t] @ cell.U_L.mT + hL @ W_L.mT + hS @ cell.W_C.mT),
                  sig_S(x[:, t] @ cell.U_S.mT + hS @ W_S.mT))
        out.append(torch.cat([hL, hS], 1))
    torch.testing.assert_close(cell(x), torch.stack(out, 1), rtol=0, atol=TOL)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("q,p,coupling", [(4, 5, True), (4, 5, False), (0, 3, True), (3, 0, True)])
def test_enrnn_step_equals_forward(device, q, p, coupling):
    """Including Sec. 6.2's extremes: no h^(L) (q = 0) and no h^(S) (p = 0)."""
    cell, x = _cell(q, p, device, coupling=coupling), _x(device)
    h0 = torch.rand(2, q + p, dtype=F64, device=device)
    h, states = h0, []
    for t in range(x.shape[1]):
        h = cell.step(x[:, t], h)
        states.append(h)
    torch.testing.assert_close(cell(x, h0), torch.stack(states, 1), rtol=0, atol=TOL)


# ---------------------------------------------------------------- normalisation rule (Sec. 3.1, Sec. 4)

@pytest.mark.parametrize("eps", [0.0, 0.1])
def test_enrnn_sec4_normalisation_starts_when_rho_first_exceeds_one_and_stays(eps):
    """Sec. 4: W^(S) = T while ρ(T) ≤ 1; "once an update step results in ρ(T) > 1, equation (4) is used for all
    subsequent training steps", so ρ(W^(S)) = ρ/(ρ + ε) = 1/(1 + ε/ρ) from then on, also after ρ(T) falls."""
    cell = _cell(eps=eps)
    assert spectral_radius(cell.T) < 1 and not cell.normalizing  # eq. 5 starts inside the unit disc
    assert torch.equal(cell.short_term_matrix(), cell.T)  # untouched before
    # an optimiser step that pushes ρ(T) above 1: gradient ascent on ⟨W^(S), T⟩ scales T up
    opt = torch.optim.SGD([cell.T], lr=1.0)
    while spectral_radius(cell.T) <= 1:
        opt.zero_grad()
        (-(cell.short_term_matrix() * cell.T.detach()).sum()).backward()
        opt.step()
    rho = spectral_radius(cell.T).item()
    W_S = cell.short_term_matrix()
    assert cell.normalizing
    torch.testing.assert_close(W_S, cell.T / (rho + eps), rtol=0, atol=TOL)
    assert abs(spectral_radius(W_S).item() - 1 / (1 + eps / rho)) < TOL
    _set_T(cell, cell.T.detach() * 0.5 / rho)  # ρ(T) = 0.5 < 1 afterwards: still normalised
    W_S = cell.short_term_matrix()
    torch.testing.assert_close(W_S, cell.T / (0.5 + eps), rtol=0, atol=TOL)
    assert abs(spectral_radius(W_S).item() - 1 / (1 + eps / 0.5)) < TOL


def test_enrnn_normalises_in_eval_mode_without_latching():
    """ρ(T) > 1 is never used un-normalised (eq. 4 applies right after the step that crossed 1); only
    training-mode passes make the switch permanent."""
    cell = _cell(eps=0.2).eval()
    _set_T(cell, _dominant("real"))
    assert abs(spectral_radius(cell.short_term_matrix()).item() - 1.4 / 1.6) < TOL and not cell.normalizing
    cell.train()(_x())
    assert cell.normalizing
    assert "normalizing" in cell.state_dict()  # survives save/load


# ---------------------------------------------------------------- Proposition 3.2

def _network_case(kind, eps):
    """A latched cell, a sequence and L = ⟨v, h_T⟩ + Σ_t ⟨v', h_t⟩ through the whole recurrence."""
    cell = _cell(activation="tanh", eps=eps)
    _set_T(cell, _dominant(kind))
    cell(_x())  # latch: ρ(T) = 1.4 > 1
    x = _x(T=8, seed=3)
    g = torch.Generator().manual_seed(4)
    v, v2 = torch.randn(9, dtype=F64, generator=g), torch.randn(9, dtype=F64, generator=g)
    loss = lambda hs: hs[:, -1] @ v + (hs @ v2).sum()  # noqa: E731
    return cell, x, lambda hs: loss(hs).sum()


@pytest.mark.parametrize("kind", ["real", "complex"])
@pytest.mark.parametrize("eps", [0.0, 0.25])
def test_enrnn_prop32_gradient_equals_autograd_and_finite_differences(kind, eps):
    """Prop. 3.2 (with the inner factor 1/ρ, see below) from ∂L/∂W^(S) equals autograd through
    torch.linalg.eigvals and central differences of L(T), for a real and a complex dominant eigenvalue.

    Tolerances: formula vs autograd are two float64 evaluations of the same derivative, the eigenvector
    condition number of T is ≈ 10, so 1e-10 relative. Central differences with δ = 1e-6 have truncation error
    O(δ²·L''') ≈ 1e-12 and rounding O(1e-16·|L|/δ) ≈ 1e-9, so 1e-7 relative."""
    cell, x, loss = _network_case(kind, eps)
    T = cell.T
    (auto,) = torch.autograd.grad(loss(cell(x)), T)
    # ∂L/∂W^(S) with W^(S) as an independent leaf in the same recurrence
    W_S = cell.short_term_matrix().detach().requires_grad_()
    W = torch.block_diag(cell.phi.matrix().detach(), W_S)
    W = W + torch.nn.functional.pad(cell.W_C.detach(), (4, 0, 0, 5))
    U, b = torch.cat([cell.U_L, cell.U_S]).detach(), torch.cat([cell.b_L, cell.b_S]).detach()
    (dL_dW,) = torch.autograd.grad(loss(enrnn_recurrence(x @ U.mT, W, b, x.new_zeros(2, 9), "tanh")), W_S)
    formula = prop32_gradient(T.detach(), dL_dW, eps)
    scale = auto.abs().max()
    assert (formula - auto).abs().max() < 1e-10 * scale
    torch.testing.assert_close(cell.prop32_gradient(dL_dW), formula, rtol=0, atol=0)
    fd, delta = torch.zeros_like(auto), 1e-6
    with torch.no_grad():
        for i in range(5):
            for j in range(5):
                T0 = T[i, j].item()
                T[i, j] = T0 + delta
                up = loss(cell(x))
                T[i, j] = T0 - delta
                fd[i, j] = (up - loss(cell(x))) / (2 * delta)
                T[i, j] = T0
    assert (fd - auto).abs().max() < 1e-7 * scale


@pytest.mark.parametrize("kind", ["real", "complex"])
def test_enrnn_prop32_as_printed_is_wrong_for_positive_eps(kind):
    """Inconsistency: Prop. 3.2 prints (1/ρ̃)[∂L/∂W − (1/ρ̃) 1ᵀ(∂L/∂W ⊙ W)1 C], ρ̃ = ρ + ε. The proof's
    eq. 7, ∂(1/ρ̃)/∂T = −(α∂α + β∂β)/(ρ ρ̃²), gives the inner factor 1/ρ instead (and the proof's last line
    drops ε everywhere). Both agree for ε = 0, the value Sec. 5 trains with; for ε > 0 only 1/ρ matches
    autograd. Random ∂L/∂W = G, L = ⟨G, W(T)⟩."""
    T = _dominant(kind).requires_grad_()
    G = torch.randn(5, 5, dtype=F64, generator=torch.Generator().manual_seed(7))
    for eps in (0.0, 0.5):
        (auto,) = torch.autograd.grad((G * eigenvalue_normalize(T, eps)).sum(), T)
        corrected, printed = prop32_gradient(T.detach(), G, eps), prop32_gradient(T.detach(), G, eps, as_stated=True)
        assert (corrected - auto).abs().max() < 1e-12 * auto.abs().max()  # same derivative twice, see above
        if eps == 0:
            torch.testing.assert_close(printed, corrected, rtol=0, atol=0)
        else:
            assert (printed - auto).abs().max() > 1e-3 * auto.abs().max()


def test_enrnn_prop32_before_normalisation_is_the_plain_gradient():
    """Sec. 4: while ρ(T) ≤ 1 "a standard gradient descent step is taken with W^(S) = T"."""
    cell = _cell()
    G = torch.randn(5, 5, dtype=F64)
    assert torch.equal(cell.prop32_gradient(G), G)


def test_enrnn_prop32_rejects_what_the_proposition_excludes():
    G = torch.ones(3, 3, dtype=F64)
    with pytest.raises(ValueError, match="eps"):
        prop32_gradient(torch.eye(3, dtype=F64) * torch.tensor([2.0, 1, 1], dtype=F64), G, -0.1)
    with pytest.raises(ValueError, match="not simple"):  # ρ = 1 with multiplicity 3
        prop32_gradient(torch.eye(3, dtype=F64), G)
    with pytest.raises(ValueError, match="not simple"):  # eigenvalues 2 and −2: ρ not differentiable
        prop32_gradient(torch.diag(torch.tensor([2.0, -2.0, 1.0], dtype=F64)), G)
    with pytest.raises(ValueError, match="rho"):
        prop32_gradient(torch.zeros(3, 3, dtype=F64), G)
    with pytest.raises(ValueError, match="dL_dW"):
        prop32_gradient(torch.eye(3, dtype=F64), G[:2, :2])
    with pytest.raises(ValueError, match="finite"):
        prop32_gradient(torch.full((3, 3), float("nan"), dtype=F64), G)
    with pytest.raises(ValueError, match="rho"):
        eigenvalue_normalize(torch.zeros(2, 2, dtype=F64), 0.0)


# ---------------------------------------------------------------- initialisation (eq. 5) and Table 1

def test_enrnn_eq5_init_structure_and_eigenvalues():
    """Eq. 5 for odd m: 2×2 blocks γ_j R(t_j) on the diagonal (plus one 1×1 block), zero elsewhere;
    eigenvalues γ_j e^{±i t_j}; ρ(T) < 1 so training starts without normalisation."""
    m = 7
    T = eq5_init(m, generator=torch.Generator().manual_seed(0), dtype=F64)
    mask = torch.block_diag(*[torch.ones(2, 2)] * 3, torch.ones(1, 1)).bool()
    assert torch.equal(T[~mask], torch.zeros(int((~mask).sum()), dtype=F64))
    B = torch.stack([T[2 * j:2 * j + 2, 2 * j:2 * j + 2] for j in range(3)])
    assert torch.equal(B[:, 0, 0], B[:, 1, 1]) and torch.equal(B[:, 0, 1], -B[:, 1, 0])
    gamma = torch.sign(B[:, 0, 0]) * torch.hypot(B[:, 0, 0], B[:, 1, 0])  # cos t_j > 0 fixes the sign
    t = torch.atan2(B[:, 1, 0] / gamma, B[:, 0, 0] / gamma)
    expected = torch.cat([gamma * torch.exp(1j * t), gamma * torch.exp(-1j * t), T[6, 6:7].to(torch.complex128)])
    assert _match(torch.linalg.eigvals(T), expected) < TOL
    assert spectral_radius(T) < 1


def test_enrnn_eq5_statistics_modulus_uniform_not_uniform_on_disc():
    """t_j ~ U[0, π/2), γ_j ~ U[−1, 1) as eq. 5 says (KS tests, 500 blocks, fixed seed). Inconsistency: Sec. 4
    calls the eigenvalues γ_j e^{±i t_j} "uniformly distributed on the complex unit disc", which needs
    P(|λ| ≤ r) = r²; eq. 5 gives P(|λ| ≤ r) = r. The KS statistic against r² is ≈ max(r − r²) = 1/4, far
    beyond the 500-sample critical value ≈ 0.06."""
    T = eq5_init(1000, generator=torch.Generator().manual_seed(1), dtype=F64)
    c, s = T.diagonal()[0::2], T.diagonal(-1)[0::2]
    gamma = torch.sign(c) * torch.hypot(c, s)
    t = torch.atan2(s / gamma, c / gamma)
    assert kstest(gamma.numpy(), "uniform", args=(-1, 2)).pvalue > 1e-3
    assert kstest(t.numpy(), "uniform", args=(0, math.pi / 2)).pvalue > 1e-3
    r = gamma.abs().numpy()
    assert kstest(r, "uniform").pvalue > 1e-3
    assert kstest(r, lambda v: v ** 2).pvalue < 1e-6


def _paper_count(cell, n_out):
    """Trainable parameters as the paper's tables count them: :func:`cells.base.parameter_count`, which counts
    scoRNN's skew A = Θ − Θᵀ by its q(q−1)/2 free entries, plus a Linear(n, n_out) readout."""
    return parameter_count(cell) + (cell.hidden_size + 1) * n_out


def test_enrnn_long_term_theta_counts_free_skew_entries():
    """parameter_count takes the q(q−1)/2 free entries of A from the orthogonal map's ``free_entries()``,
    not from the parameter's name: everything else counts numel()."""
    cell = ENRNN(3, 6, 4)
    others = sum(p.numel() for n, p in cell.named_parameters() if n != "phi.theta")
    assert cell.phi.free_entries() == {"theta": 15}
    assert parameter_count(cell) == others + 15


@pytest.mark.parametrize("task,m,q,p,coupling,n_out,thousands", [
    ("adding", 2, 96, 64, True, 1, 15),        # Sec. 5.1, ≈ 15K
    ("copying", 10, 172, 20, True, 9, 22),     # Sec. 5.2, ≈ 22K (digits 0–9 in, 0–8 out)
    ("timit", 129, 374, 94, False, 129, 200),  # Sec. 5.3, ≈ 200K (129 STFT bins in and out)
])
def test_enrnn_table1_parameter_counts(task, m, q, p, coupling, n_out, thousands):
    cell = ENRNN(m, q, p, coupling=coupling)
    assert round(_paper_count(cell, n_out) / 1000) == thousands


@pytest.mark.parametrize("task,m,units,n_out,printed,step", [
    ("adding", 2, 60, 1, 15_000, 1000),          # Table 1, ≈ 15K
    ("copying", 10, 68, 9, 22_000, 1000),        # Table 1, ≈ 22K
    ("copying", 10, 192, 9, 158_000, 1000),      # Table 1, ≈ 158K
    ("timit", 129, 158, 129, 200_000, 10_000),   # Tables 1–2, ≈ 200K: "match ≈ 200k", two significant digits
    ("timit", 129, 468, 129, 1_200_000, 100_000),  # Tables 1–2, ≈ 1200K (two significant digits)
])
def test_enrnn_table1_lstm_parameter_counts(task, m, units, n_out, printed, step):
    """The LSTM rows of enrnn.md Table 1, with the same input widths and Linear readout as the ENRNN rows: they
    confirm the counting convention (one bias per gate, readout with bias) that the ENRNN and scoRNN rows use.
    ``step`` is the precision of the printed number: the last printed digit, except for TIMIT's "≈ 200k", which
    Table 2 uses for all models matched to about 200k and which the LSTM meets to two significant digits (to three,
    it has 203K)."""
    count = parameter_count(LSTM(m, units)) + (units + 1) * n_out
    assert round(count / step) * step == printed


def test_enrnn_table3_ptb_counts():
    """Table 3 (character PTB, 50 characters, "a linear embedding layer that maps each input character to R^N").
    The LSTM rows reproduce with an embedding Linear(50, N) (no bias) and a Linear(N, 50) readout: N = 350 gives
    1,016,450 ≈ 1016K and N = 1030 gives 8,594,370 ≈ 8600K.

    The ENRNN row (310/720, coupling, "a fixed input weight matrix set to identity", so U is not trained) does
    not: with the same embedding and readout it has 893,575 parameters counting A's free entries (941,780 even
    counting all q² entries of A), not ≈ 1016K. The paper does not say which further terms it counts; this test
    pins the discrepancy so that a change of convention shows up."""
    embed_readout = lambda N: 50 * N + (N + 1) * 50  # noqa: E731
    assert round((parameter_count(LSTM(350, 350)) + embed_readout(350)) / 1000) == 1016
    assert round((parameter_count(LSTM(1030, 1030)) + embed_readout(1030)) / 100_000) == 86
    cell = ENRNN(1030, 310, 720, coupling=True, activation="relu")
    cell.U_L.requires_grad_(False)
    cell.U_S.requires_grad_(False)
    ours = parameter_count(cell) + embed_readout(1030)
    all_of_A = ours + 310 * 310 - 310 * 309 // 2
    assert round(ours / 1000) != 1016 and round(all_of_A / 1000) != 1016


# ---------------------------------------------------------------- errors and devices

def test_enrnn_bad_input_raises_value_error():
    cell, good = _cell(), _x()
    for bad, match in [(good[..., :2], "input width"), (good[:, :0], "T >= 1"), (good.float(), "dtype"),
                       (good.clone().fill_(float("inf")), "finite")]:
        with pytest.raises(ValueError, match=match):
            cell(bad)
    with pytest.raises(ValueError, match="h0"):
        cell(good, torch.zeros(2, 8, dtype=F64))
    with pytest.raises(ValueError, match="x_t"):
        cell.step(good[:, 0], torch.zeros(2, 8, dtype=F64))
    for kwargs, match in [(dict(eps=-1e-3), "eps"), (dict(eps=float("nan")), "eps"), (dict(q=0, p=0), "long_size"),
                          (dict(activation="elu"), "activation"), (dict(num_negative=5), "num_negative")]:
        with pytest.raises(ValueError, match=match):
            _cell(**kwargs)


@pytest.mark.gpu
def test_enrnn_cuda_matches_cpu():
    cpu, gpu = _cell(), _cell(device="cuda")
    gpu.load_state_dict(cpu.state_dict())
    _set_T(cpu, _dominant("complex"))
    _set_T(gpu, _dominant("complex"))
    x = _x()
    torch.testing.assert_close(gpu(x.cuda()).cpu(), cpu(x), rtol=0, atol=1e-10)
    assert gpu.normalizing.item() and cpu.normalizing.item()
