"""The nc_gru.md claim checks: each holds inside its assumptions or, where the paper is wrong, is violated
inside them with a reloadable counterexample; and each reports "violated" for a hand-made case outside them."""

import dataclasses
import math

import pytest
import torch
from hypothesis import given, settings, strategies as st

from tests.claim_asserts import assert_reproducible_violation
from rnnaudit.bounds import Profile, check_claim, evaluate_cases, measure_case
from rnnaudit.bounds.nc_gru import (CLAIMS, EPS_GRID, GRUCase, NeumannCase, corollary1,
                           corollary1_corrected, corollary2, corollary2_corrected, corollary3, corollary3_corrected,
                           eq5, eq18, eq18_corrected, neumann_algorithm1, sample_cayley_gradient_case,
                           sample_neumann_case, sample_saturated_case, sample_trajectory_case, theorem1,
                           theorem1_corrected)
from rnnaudit.cells import GRU, NCGRU, NeumannCayleyUpdater, scaled_cayley_gradient

F64 = torch.float64
DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
TINY = Profile("quick", n_random=6, restarts=2, ascent_steps=8)
SIZES = {"trajectory": [(2, 1), (3, 4), (6, 6)], "step": [(2, 1), (3, 1), (6, 1)],
         "neumann": [(2, 1), (3, 3), (6, 4)], "eq5": [(2, 1), (3, 2), (8, 4)]}
KIND = {c.id: kind for kind, claims in (
    ("trajectory", (theorem1, theorem1_corrected, corollary1, corollary1_corrected)),
    ("step", (corollary2, corollary2_corrected, corollary3, corollary3_corrected)),
    ("neumann", (eq18, eq18_corrected)), ("eq5", (eq5,))) for c in claims}
HOLDING = [theorem1_corrected, corollary1, corollary1_corrected, corollary2_corrected, corollary3_corrected, eq18,
           eq18_corrected, eq5]
FALSE_AS_PRINTED = [theorem1, corollary2, corollary3]


def small(claim):
    return dataclasses.replace(claim, sizes={"quick": SIZES[KIND[claim.id]]})


def _logit(p):
    return math.log(p) - math.log1p(-p)


def _zero_gru(h, n=2, cls=GRU):
    cell = cls(n, h, dtype=F64)
    with torch.no_grad():
        for p in cell.parameters():
            p.zero_()
    return cell


def all_negative_case(h=4, a=0.9, b=0.05, kappa=8.0, T=2):
    """Inside Theorem 1's assumptions (eq. 1, tanh, h_0 = 0): x_1 drives u_1 ≈ 1 and c_1 = −a, so
    h_1 ≈ −a·1; then U_u = κ(P − I) (P a cyclic shift) maps the constant h_1 to 0, so u_2 = 1/2, and
    c_2 = −b. The printed max_i [h_1]_i + max_i [c_2]_i = −a − b < 0 makes eq. 9's α negative."""
    cell = _zero_gru(h)
    eye = torch.eye(h, dtype=F64)
    with torch.no_grad():
        cell.U_u.copy_(kappa * (torch.roll(eye, 1, 0) - eye))
        cell.W_u[:, 0] = 40.0
        cell.W_c[:, 0] = math.atanh(-a)
        cell.W_c[:, 1] = math.atanh(-b)
    x = torch.zeros(1, T, 2, dtype=F64)
    x[0, 0, 0] = 1.0
    x[0, 1:, 1] = 1.0
    return GRUCase(cell, x, torch.zeros(h, dtype=F64))


class SteepGRU(GRU):
    """Eq. 1 with Φ(z) = tanh(3z): |Φ'| up to 3, outside Theorem 1's Φ = tanh (the proof uses |Φ'| ≤ 1)."""

    def _candidate(self, z):
        return torch.tanh(3 * (z + self.b_c))


def saturated_gru_case(eps, kappa_u, kappa_r, H=1 - 1e-9, C_pre=20.0, regime="entries"):
    """A one-step GRU case with known α + β: h = 2, h_{t−1} = H·1, U_u = κ_u[[1, −1], [−1, 1]]/2
    (‖U_u‖₂ = κ_u, U_u h_{t−1} = 0), U_r = κ_r I, U_c = 0; biases put u_t = (ε, 1 − ε), r_t = (1 − ε)·1 and
    c_t = tanh(C_pre)·1. Then α = ε(1 − ε)(H + C)κ_u + 1 − ε, β = (1 − ε)(ε(1 − ε)κ_r H + 1 − ε)."""
    cell = _zero_gru(2, n=1)
    L = _logit(1 - eps)
    with torch.no_grad():
        cell.U_u.copy_(kappa_u * torch.tensor([[1.0, -1.0], [-1.0, 1.0]], dtype=F64) / 2)
        cell.U_r.copy_(kappa_r * torch.eye(2, dtype=F64))
        cell.b_u.copy_(torch.tensor([-L, L], dtype=F64))
        cell.b_r.fill_(L - kappa_r * H)
        cell.b_c.fill_(C_pre)
    return GRUCase(cell, torch.zeros(1, 1, 1, dtype=F64), torch.full((2,), H, dtype=F64), eps, regime, 1, 1)


# ------------------------------------------------------------------------------------------ verdicts
@pytest.mark.parametrize("claim", HOLDING, ids=lambda c: c.id)
def test_claim_holds_inside_its_assumptions(claim, tmp_path):
    result = check_claim(small(claim), TINY, seed=1, out_dir=tmp_path)
    assert result.verdict == "holds", result.notes_text()
    assert result.errors == []  # every random and ascent case stayed inside the assumptions
    assert 0 < result.worst_ratio <= 1 + claim.tolerance


@pytest.mark.parametrize("claim", FALSE_AS_PRINTED, ids=lambda c: c.id)
def test_printed_claim_is_violated_inside_its_assumptions(claim, tmp_path):
    """Theorem 1 (signed maxima), Corollary 2 and Corollary 3 ("≲" read as ≤ y(1 + ε)) fail on cases that
    satisfy every assumption; the saved counterexample reloads and reproduces its ratio."""
    case = assert_reproducible_violation(small(claim), TINY, tmp_path, seed=0, rel=1e-12)
    assert all(ok for ok, _ in (a.check(case) for a in claim.assumptions))


def test_theorem1_printed_max_fails_on_all_negative_states_and_abs_reading_holds():
    """Eq. 9–10 print max_i [h_{t−1}]_i, max_i [c_t]_i; eq. 41 needs ‖diag(v)‖₂ = max_i |v_i|. On the
    all-negative trajectory (inside every assumption) the printed bound is negative, so any Jacobian
    exceeds it, while the |·| reading holds."""
    case = all_negative_case()
    printed = evaluate_cases(theorem1, [case])
    assert printed.verdict == "violated" and printed.records[0].failed_assumptions == []
    assert measure_case(theorem1_corrected, case)[0] <= 1 + theorem1_corrected.tolerance
    # a milder member (a = 0.3, b = 0, κ = 2, ‖U_u‖₂ = 4): the printed bound at t = 2 is
    # 1/2 − (1/4)(0.3)(4) = 0.2 > 0, while ∂h_2/∂h_1 = I/2 + 0.15(P − I) has norm 1/2: ratio 2.5
    mild = all_negative_case(a=0.3, b=0.0, kappa=2.0)
    assert measure_case(theorem1, mild)[0] == pytest.approx(2.5, rel=1e-6)


# --------------------------------------------------------------------------------- outside assumptions
def test_theorem1_violated_for_a_steep_candidate():
    """Φ = tanh(3z) (|Φ'| ≤ 3): ∂h_1/∂h_0 = (1/2 + 3κ/4)I at zero weights and U_c = κI, above both readings
    of α + β‖U_c‖₂ = 1/2 + κ/4."""
    cell = _zero_gru(3, cls=SteepGRU)
    with torch.no_grad():
        cell.U_c.copy_(4.0 * torch.eye(3, dtype=F64))
    case = GRUCase(cell, torch.zeros(1, 1, 2, dtype=F64), torch.zeros(3, dtype=F64))
    for claim in (theorem1, theorem1_corrected):
        result = evaluate_cases(claim, [case])
        assert result.verdict == "violated"
        assert any(f.startswith("GRU of eq. 1 with Φ = tanh") for f in result.records[0].failed_assumptions)
    assert measure_case(theorem1_corrected, case)[0] == pytest.approx((0.5 + 3.0) / (0.5 + 1.0), rel=1e-12)


@pytest.mark.parametrize("claim", [corollary1, corollary1_corrected], ids=lambda c: c.id)
def test_corollary1_violated_when_h0_is_not_zero(claim):
    """h_0 = 3·1 and u_1 ≈ 0: h_1 ≈ 3, breaking [h_t]_i ≤ 1 (the induction of eq. 47–52 starts at h_0 = 0)."""
    cell = _zero_gru(2)
    with torch.no_grad():
        cell.b_u.fill_(-10.0)
    case = GRUCase(cell, torch.zeros(1, 3, 2, dtype=F64), torch.full((2,), 3.0, dtype=F64))
    result = evaluate_cases(claim, [case])
    assert result.verdict == "violated"
    assert any(f.startswith("h_0 = 0") for f in result.records[0].failed_assumptions)


@pytest.mark.parametrize("claim", [corollary2, corollary2_corrected], ids=lambda c: c.id)
def test_corollary2_violated_for_unsaturated_gates(claim):
    """u_t = r_t = 1/2 (δ = 1/4 > ε(1 − ε)) with ‖U_u‖₂ = 40: α + β ≈ 10, far above both bounds."""
    cell = _zero_gru(2, n=1)
    with torch.no_grad():
        cell.U_u.copy_(20 * torch.tensor([[1.0, -1.0], [-1.0, 1.0]], dtype=F64))
        cell.b_c.fill_(5.0)
    case = GRUCase(cell, torch.zeros(1, 1, 1, dtype=F64), torch.full((2,), 0.9, dtype=F64), 0.01, "entries")
    result = evaluate_cases(claim, [case])
    assert result.verdict == "violated"
    assert any(f.startswith("every [u_t]_i, [r_t]_i within ε") for f in result.records[0].failed_assumptions)


def _ncgru_step_case(orthogonal, h=3, eps=0.1, seed=0):
    gen = torch.Generator().manual_seed(seed)
    cell = NCGRU(1, h, orthogonal=orthogonal, generator=gen, dtype=F64)
    with torch.no_grad():
        for name, p in cell.named_parameters():
            if not name.startswith("cayley."):
                p.zero_()
    return GRUCase(cell, torch.zeros(1, 1, 1, dtype=F64), torch.ones(h, dtype=F64), eps, "vectors", 1, 1)


def _saturate_up(case):
    """Biases so that every pre-activation of r_t and u_t is exactly +L (gates at 1 − ε)."""
    L = _logit(1 - case.eps)
    U = case.cell.recurrent_matrices()
    with torch.no_grad():
        case.cell.b_r.copy_(L - U["U_r"] @ case.h0)
        case.cell.b_u.copy_(L - U["U_u"] @ case.h0)


def test_corollary3_violated_in_ncgru_uc_with_large_ur():
    """NC-GRU(U_c) (Sec. 4's main model) has a free U_r: with U_r = 100·I, h_{t−1} = 1 and gates at 1 − ε,
    the δ_r‖U_r‖₂ term makes ‖∂h_t/∂h_{t−1}‖₂ ≈ 9, although every other assumption holds."""
    case = _ncgru_step_case(("c",))
    with torch.no_grad():
        case.cell.U_r.copy_(100 * torch.eye(3, dtype=F64))
    _saturate_up(case)
    result = evaluate_cases(corollary3, [case])
    assert result.verdict == "violated"
    assert [f for f in result.records[0].failed_assumptions if f.startswith("U_r(A_r), U_c(A_c) orthogonal")]
    assert len(result.records[0].failed_assumptions) == 1
    # the corrected form, which keeps ‖U_r‖₂, accounts for it
    assert measure_case(corollary3_corrected, case)[0] <= 1 + corollary3_corrected.tolerance


def test_corollary3_corrected_violated_when_uc_is_not_orthogonal():
    """A edited without resetting Ã (Alg. 1 between resets, taken to the extreme): U_c = Ã(I − A)D is no
    longer orthogonal, ‖U_c‖₂ ≫ 1, and with U_r = U_u = 0 the bound 2 + 0 is exceeded."""
    case = _ncgru_step_case(("c",), h=4, eps=0.01)
    blk = case.cell.cayley["c"]
    with torch.no_grad():
        B = torch.randn(4, 4, generator=torch.Generator().manual_seed(3), dtype=F64)
        blk.A.add_(20 * (B - B.mT))  # stays skew, but Ã is stale
    _saturate_up(case)
    assert float(torch.linalg.matrix_norm(case.cell.recurrent_matrices()["U_c"].detach(), ord=2)) > 5
    result = evaluate_cases(corollary3_corrected, [case])
    assert result.verdict == "violated"
    assert [f for f in result.records[0].failed_assumptions if f.startswith("U_c(A_c) orthogonal")]


def test_eq18_diverges_outside_the_neumann_condition():
    """A^(0) = 0, δA = 2J: M = 2J has spectral radius 2, the series of eq. 18 diverges (‖M‖₂ = 2 ≥ 1)."""
    J = torch.tensor([[0.0, 1.0], [-1.0, 0.0]], dtype=F64)
    case = NeumannCase(torch.zeros(2, 2, dtype=F64), (2 * J)[None], torch.ones(2, dtype=F64))
    result = evaluate_cases(eq18, [case])
    assert result.verdict == "violated"
    assert any(f.startswith("‖(I + A^(k−1))^{-1}δA^(k)‖₂ < 1") for f in result.records[0].failed_assumptions)
    assert result.records[0].parts["eq. 17–18 converge: spectral radius ρ((I + A^(k−1))^(-1)δA^(k)) < 1"] == \
        pytest.approx(2.0, rel=1e-12)


def test_eq18_corrected_violated_for_non_skew_A():
    """A^(0) = −0.9I is not skew: ‖(I + A)^{-1}‖₂ ≈ 10, so ‖Ã − (I + A)^{-1}‖₂ = ‖R(I + A)^{-1}‖₂ ≈ 10 b_k."""
    J = torch.tensor([[0.0, 1.0], [-1.0, 0.0]], dtype=F64)
    case = NeumannCase(-0.9 * torch.eye(2, dtype=F64), (0.01 * J)[None], torch.ones(2, dtype=F64))
    result = evaluate_cases(eq18_corrected, [case])
    assert result.verdict == "violated"
    failed = result.records[0].failed_assumptions
    assert failed and all(f.startswith("A^(k), δA^(k) skew-symmetric") for f in failed)


def test_eq5_violated_for_the_unconstrained_gradient():
    """Eq. 5 is the gradient over skew A's free entries; autograd over all h² entries gives −V instead."""
    case = sample_cayley_gradient_case(torch.Generator().manual_seed(0), 5, 3)
    case = dataclasses.replace(case, parametrization="full")
    result = evaluate_cases(eq5, [case])
    assert result.verdict == "violated"
    assert any(f.startswith("∇_A L over the free entries") for f in result.records[0].failed_assumptions)


# ------------------------------------------------------------------------------ known answers, readings
@pytest.mark.parametrize("eps", EPS_GRID)
def test_corollary2_error_term_is_eps_times_weight_norms(eps):
    """Known answer: α + β = ε(1 − ε)(H + C)κ_u + (1 − ε) + (1 − ε)(ε(1 − ε)κ_r H + 1 − ε) exactly (1e-12,
    rounding of a few products). The printed "≲ 2" read as ≤ 2(1 + ε) holds at κ = 1 and fails once
    ε(1 − ε)κ(3 − ε) > ε(5 − ε) (κ_u = κ_r = κ ≳ 5/3), e.g. κ = 3, at every ε: the hidden error scales
    with ‖U‖₂, not with ε alone. The corrected bound always holds here."""
    for kappa, printed_holds in ((1.0, True), (3.0, False)):
        case = saturated_gru_case(eps, kappa, kappa)
        assert all(a.check(case)[0] for a in corollary2.assumptions)
        H, C = 1 - 1e-9, math.tanh(20.0)
        k = eps * (1 - eps)
        expected = k * (H + C) * kappa + 1 - eps + (1 - eps) * (k * kappa * H + 1 - eps)
        parts = corollary2.evaluate(case)
        total = parts[f"eq. 14 (ε = {eps:g}): α + β ≤ 2(1 + ε), |·| α, β"][0]
        assert float(total.detach()) == pytest.approx(expected, rel=1e-12)
        assert (measure_case(corollary2, case)[0] <= 1) == printed_holds
        assert measure_case(corollary2_corrected, case)[0] <= 1


@pytest.mark.parametrize("eps", EPS_GRID)
def test_corollary2_fails_from_the_zero_state(eps):
    """The counterexample needs no unreachable state: at h_{t−1} = h_0 = 0 (eq. 1), with u_t = (ε, 1 − ε),
    r_t = (1 − ε)·1 and ‖U_u‖₂ = 8, α + β = 8ε(1 − ε)C + (1 − ε) + (1 − ε)², above 2(1 + ε) at every ε."""
    case = saturated_gru_case(eps, 8.0, 0.0, H=0.0)
    C = math.tanh(20.0)
    expected = 8 * eps * (1 - eps) * C + (1 - eps) + (1 - eps) ** 2
    result = evaluate_cases(corollary2, [case])
    assert result.verdict == "violated" and result.records[0].failed_assumptions == []
    assert result.records[0].ratio == pytest.approx(expected / (2 * (1 + eps)), rel=1e-12)


def test_corollary2_reports_ratio_per_eps():
    """Every part name carries its ε, so worst_parts is the ratio as a function of the saturation tolerance."""
    result = check_claim(small(corollary2), Profile("quick", n_random=12, restarts=0, ascent_steps=0), seed=0)
    eps_in_parts = {float(k.split("ε = ")[1].split(")")[0]) for k in result.worst_parts()}
    assert eps_in_parts <= set(EPS_GRID) and len(eps_in_parts) >= 2


def test_eq18_tail_bound_nearly_attained_and_error_identity():
    """2×2 blocks A = aJ, δA = sJ: M = s(aI + J)/(1 + a²) has eigenvalues near q, so the tail bound
    q^{p+1}‖X‖/(1 − q) is nearly attained (ratio → 1 as a → ∞). Also E_p = M^{p+1}(I + A^(k))^{-1}
    exactly (1e-12): eq. 18's error needs no convergence condition to be ≤ q^{p+1}, only to be small."""
    J = torch.tensor([[0.0, 1.0], [-1.0, 0.0]], dtype=F64)
    a = 1e3
    s = 0.9 * math.sqrt(1 + a * a)
    case = NeumannCase(a * J, (s * J)[None], torch.ones(2, dtype=F64))
    parts = measure_case(eq18, case)[1]
    assert min(v for k, v in parts.items() if k.startswith("eq. 18, order")) > 0.99
    eye = torch.eye(2, dtype=F64)
    X = torch.linalg.inv(eye + a * J)
    M = X @ (s * J)
    exact = torch.linalg.inv(eye + (a - s) * J)
    S2 = (eye + M + M @ M) @ X
    torch.testing.assert_close(exact - S2, torch.linalg.matrix_power(M, 3) @ exact, rtol=0, atol=1e-12)


def test_eq18_printed_error_does_not_cover_algorithm1_accumulation():
    """Eq. 18's O(q^{p+1}) is the error of one step from the exact inverse. Algorithm 1 keeps the stored
    Ã, so after K steps its error is ≈ Σ_k c_k^{p+1}: K = 8 equal steps with c ≈ 0.3 exceed the one-step
    bound c_K^{p+1}/(1 − c_K) by ≈ K(1 − c), while eq18.corrected's recursion b_K holds (1e-9 ratio slack)."""
    J = torch.tensor([[0.0, 1.0], [-1.0, 0.0]], dtype=F64)
    K, p = 8, 2
    case = NeumannCase(torch.zeros(2, 2, dtype=F64), (0.3 * J).expand(K, 2, 2).clone(), torch.ones(2, dtype=F64))
    X = neumann_algorithm1(case.A0, case.dA, p)
    A = case.iterates()
    eye = torch.eye(2, dtype=F64)
    error = float(torch.linalg.matrix_norm(X[-1] - torch.linalg.inv(eye + A[-1]), ord=2))
    c = float(torch.linalg.matrix_norm(X[-2] @ case.dA[-1], ord=2))
    assert error > 3 * c ** (p + 1) / (1 - c)
    assert measure_case(eq18_corrected, case)[0] <= 1 + eq18_corrected.tolerance


def test_eq18_sign_of_delta_A_matters():
    """Alg. 1 line 6 defines A^(k) = A^(k−1) − δA^(k), matching eq. 16's I + A^(k−1) − δA^(k): δA is minus
    the optimizer's step. Feeding the step itself (+Δ) into line 7 approximates (I + A^(k−1) + Δ)^{-1}
    instead, an O(q) error that no O(q³) bound covers."""
    case = sample_neumann_case(torch.Generator().manual_seed(4), 6, 1)
    A0, dA = case.A0, case.dA[0]
    eye = torch.eye(6, dtype=F64)
    X = torch.linalg.inv(eye + A0)
    target = torch.linalg.inv(eye + A0 - dA)
    q = float(torch.linalg.matrix_norm(X @ dA, ord=2))
    right = neumann_algorithm1(A0, dA[None], 2)[-1]
    wrong = neumann_algorithm1(A0, -dA[None], 2)[-1]
    err = lambda Y: float(torch.linalg.matrix_norm(Y - target, ord=2))  # noqa: E731
    assert err(right) <= q ** 3 / (1 - q) + 1e-12
    assert err(wrong) > 10 * q ** 3 / (1 - q) + 1e-12


@pytest.mark.parametrize("order", [1, 2, 3])
def test_neumann_algorithm1_matches_the_cells_updater(order):
    """bounds.nc_gru.neumann_algorithm1 (differentiable, used by the checks) and cells' NeumannCayleyUpdater
    compute the same Ã^(k) over 4 steps (1e-13: the same products in the same order)."""
    cell = NCGRU(2, 5, generator=torch.Generator().manual_seed(0), dtype=F64)
    blk = cell.cayley["c"]
    upd = NeumannCayleyUpdater(cell, order=order, reset_every=100, record=False)
    gen = torch.Generator().manual_seed(1)
    A0, steps = blk.A.detach().clone(), []
    for _ in range(4):
        B = torch.randn(5, 5, generator=gen, dtype=F64) * 0.05
        steps.append(B - B.mT)
        with torch.no_grad():
            blk.A.sub_(steps[-1])
        upd.step()
    X = neumann_algorithm1(A0, torch.stack(steps), order)
    torch.testing.assert_close(X[-1], blk.A_inv, rtol=0, atol=1e-13)


def test_eq5_formula_matches_cells_scaled_cayley_gradient():
    """The eq. 5–6 formula written in the check agrees with cells.scaled_cayley_gradient (1e-12 relative)."""
    case = sample_cayley_gradient_case(torch.Generator().manual_seed(2), 7, 3)
    from rnnaudit.bounds.nc_gru import _cayley, _loss
    U = _cayley(case.A, case.d).requires_grad_()
    (G,) = torch.autograd.grad(_loss(case, U), [U])
    ref = scaled_cayley_gradient(case.A, case.d, G)
    assert measure_case(eq5, case)[0] <= 1
    eye = torch.eye(7, dtype=F64)
    V = torch.linalg.solve((eye + case.A).mT, G @ (torch.diag(case.d) + U.detach().mT))
    torch.testing.assert_close(V.mT - V, ref, rtol=1e-12, atol=1e-14)


# ------------------------------------------------------------------------------------ properties, devices
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), h=st.sampled_from([1, 2, 5]), T=st.integers(1, 6))
def test_theorem1_corrected_and_corollary1_hold_on_random_gru_sequences(seed, h, T):
    case = sample_trajectory_case(torch.Generator().manual_seed(seed), h, T)
    assert measure_case(theorem1_corrected, case)[0] <= 1 + theorem1_corrected.tolerance
    assert measure_case(corollary1_corrected, case)[0] <= 1 + corollary1_corrected.tolerance


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), h=st.sampled_from([1, 2, 4]))
def test_saturated_sampler_satisfies_corollary_assumptions(seed, h):
    """The samplers land inside the assumptions (edge cases on |z| = L included), and the corrected forms hold."""
    gen = torch.Generator().manual_seed(seed)
    for model, claim in (("GRU", corollary2_corrected), ("NCGRU-any", corollary3_corrected)):
        case = sample_saturated_case(gen, h, 1, model=model)
        failed = [a.name for a in claim.assumptions if not a.check(case)[0]]
        assert failed == []
        assert measure_case(claim, case)[0] <= 1 + claim.tolerance


@pytest.mark.parametrize("device", DEVICES)
def test_cases_measure_on_device_and_round_trip(device):
    """Each case type is sampled on the device, measured there, and survives state()/from_state() exactly."""
    gen = torch.Generator().manual_seed(5)
    cases = [(theorem1_corrected, sample_trajectory_case(gen, 3, 3, device)),
             (corollary3_corrected, sample_saturated_case(gen, 3, 1, device, model="NCGRU-any")),
             (eq18_corrected, sample_neumann_case(gen, 3, 2, device)),
             (eq5, sample_cayley_gradient_case(gen, 3, 2, device))]
    for claim, case in cases:
        ratio, _ = measure_case(claim, case)
        again = type(case).from_state(case.state(), device, F64)
        assert measure_case(claim, again)[0] == pytest.approx(ratio, rel=1e-12, abs=1e-15)
        assert ratio <= 1 + claim.tolerance


def test_sampler_rejects_t_other_than_one():
    with pytest.raises(ValueError, match="T must be 1"):
        sample_saturated_case(torch.Generator().manual_seed(0), 3, 2)
    with pytest.raises(ValueError, match="model must be"):
        sample_saturated_case(torch.Generator().manual_seed(0), 3, 1, model="LSTM")
    with pytest.raises(ValueError, match="order"):
        neumann_algorithm1(torch.zeros(2, 2, dtype=F64), torch.zeros(1, 2, 2, dtype=F64), 0)


def test_all_nc_gru_claims_have_ids_sources_and_assumptions():
    ids = [c.id for c in CLAIMS]
    assert len(ids) == len(set(ids))
    assert set(ids) == {"nc_gru.theorem1", "nc_gru.theorem1.corrected", "nc_gru.corollary1",
                        "nc_gru.corollary1.corrected", "nc_gru.corollary2", "nc_gru.corollary2.corrected",
                        "nc_gru.corollary3", "nc_gru.corollary3.corrected", "nc_gru.eq18", "nc_gru.eq18.corrected",
                        "nc_gru.eq5"}
    for c in CLAIMS:
        assert c.paper == "nc_gru" and c.source.startswith("nc_gru.md")
        assert c.statement and c.assumptions and c.explanation
