"""The spectral_rnn.md claim checks: each holds inside its assumptions (or, where the paper is wrong, is
violated inside them with a reloadable counterexample), and each reports "violated" for a hand-made case
outside its assumptions, naming the failed assumption.

Tolerances: everything runs in float64; the claims' own tolerances are documented in bounds/spectral_rnn.py.
Tests that compare numbers here use exact integer equality (flop and parameter counts) or 1e-12 relative
(float64 quantities of a few hundred flops).
"""

from __future__ import annotations

import dataclasses
import math

import pytest
import torch
from hypothesis import given, settings, strategies as st

from tests.claim_asserts import assert_reproducible_violation
from rnnaudit.bounds import Profile, check_claim, evaluate_cases, measure_case
from rnnaudit.bounds import spectral_rnn as S
from rnnaudit.bounds.spectral_rnn import (CLAIMS, CountCase, FlopCounter, GeneralizationCase, MatrixCase, RNNCase,
                                 SpectralCellCase, count_flops, proposition1_reflectors, rnn_states, sparse_hgrad,
                                 sparse_hprod, table1_counts, theorem3_reflectors, theorem5_bounds)
from rnnaudit.cells import SpectralRNN, householder_matrix, reflector_product

F64 = torch.float64
DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
TINY = Profile("quick", n_random=6, restarts=2, ascent_steps=8)
IDS = ["spectral_rnn.theorem1", "spectral_rnn.theorem2", "spectral_rnn.theorem3", "spectral_rnn.theorem4",
       "spectral_rnn.eq7", "spectral_rnn.param_count", "spectral_rnn.param_count.corrected", "spectral_rnn.table1",
       "spectral_rnn.table1.corrected", "spectral_rnn.eq13", "spectral_rnn.eq13.corrected", "spectral_rnn.eq24",
       "spectral_rnn.lemma3", "spectral_rnn.theorem5"]
SMALL = {"spectral_rnn.theorem1": [(1, 1), (2, 1), (5, 1)], "spectral_rnn.theorem2": [(1, 1), (3, 1), (5, 1)],
         "spectral_rnn.theorem3": [(2, 1), (4, 1), (6, 1)], "spectral_rnn.theorem4": [(2, 1), (4, 1), (6, 1)],
         "spectral_rnn.eq7": [(1, 1), (3, 1), (6, 1)], "spectral_rnn.param_count.corrected": [(1, 1), (7, 1), (32, 1)],
         "spectral_rnn.table1.corrected": [(2, 1), (8, 1), (32, 1)],
         "spectral_rnn.eq13.corrected": [(1, 1), (3, 1), (6, 1)],
         "spectral_rnn.eq24": [(2, 1), (4, 8), (8, 20)], "spectral_rnn.lemma3": [(2, 1), (4, 8), (8, 20)],
         "spectral_rnn.theorem5": [(2, 1), (4, 5)]}
HOLDING = [c for c in CLAIMS if c.id in SMALL]
PRINTED_WRONG = [S.param_count, S.table1, S.eq13_claim]


def small(claim, sizes=None):
    return dataclasses.replace(claim, sizes={"quick": sizes or SMALL[claim.id]})


def _gen(seed=0):
    return torch.Generator().manual_seed(seed)


def _haar(n, seed=0):
    Q, R = torch.linalg.qr(torch.randn(n, n, generator=_gen(seed), dtype=F64))
    return Q * torch.sign(torch.diagonal(R))


def _failed(result, prefix):
    return [f for f in result.records[0].failed_assumptions if f.startswith(prefix)]


# --------------------------------------------------------------------------------------- claim verdicts
def test_claim_ids_are_the_issue_list_with_sources_and_assumptions():
    assert [c.id for c in CLAIMS] == IDS
    for c in CLAIMS:
        assert c.paper == "spectral_rnn" and c.source.startswith("spectral_rnn.md")
        assert c.statement and c.assumptions and c.explanation and c.measure and c.bound


@pytest.mark.parametrize("claim", HOLDING, ids=lambda c: c.id)
def test_claim_holds_inside_its_assumptions(claim, tmp_path):
    result = check_claim(small(claim), TINY, seed=1, out_dir=tmp_path)
    expected = "vacuous" if claim.id == "spectral_rnn.theorem5" else "holds"
    assert result.verdict == expected, result.notes_text()
    assert result.errors == []  # every random and ascent case stayed inside the assumptions
    assert 0 <= result.worst_ratio <= 1 + claim.tolerance


@pytest.mark.parametrize("claim", PRINTED_WRONG, ids=lambda c: c.id)
def test_printed_claim_is_violated_inside_its_assumptions_and_reloads(claim, tmp_path):
    """Table 4 vs App. C.1 (m1 = m2 = 8), Table 1's BP/oRNN rows, and Algorithms 1/3 as printed fail on cases
    that satisfy every assumption; the saved counterexample reloads and reproduces its ratio."""
    sizes = {"spectral_rnn.param_count": [(1, 1), (8, 1)], "spectral_rnn.table1": [(16, 1), (32, 1)],
             "spectral_rnn.eq13": [(2, 1), (4, 1)]}[claim.id]
    assert_reproducible_violation(small(claim, sizes), TINY, tmp_path, seed=0, rel=1e-12)


def test_which_parts_fail_in_the_printed_claims():
    """The verdicts come from the parts the explanations name, and only from them."""
    parts = measure_case(S.param_count, CountCase(8, 3, 5, 2, 4))[1]
    assert {k for k, v in parts.items() if v > 1} == {"Table 4 model differences with m1 = m2 = 8"}
    parts = measure_case(S.table1, CountCase(32, 32, 32))[1]
    assert {k.split(" = ")[0] for k, v in parts.items() if v > 1} == {
        "Spectral-RNN local BP", "oRNN local FP", "oRNN local BP"}
    case = S._sample_eq13(_gen(3), 5, 1, "cpu", F64)
    parts = measure_case(S.eq13_claim, case)[1]
    assert parts["eq. 12: ∂L/∂h = autograd"] < 1 and parts["eq. 13: ∂L/∂û_k = autograd"] < 1
    assert sum(v > 1 for v in parts.values()) == 2  # Algorithm 3 and Algorithm 1 as printed


# ------------------------------------------------------------------------------- outside the assumptions
def test_theorem1_violated_for_a_non_orthogonal_matrix():
    """Proposition 1 still factors A = QR, but R ≠ I, so M_1(a) = Q ≠ A."""
    A = torch.triu(torch.ones(4, 4, dtype=F64)) + torch.eye(4, dtype=F64)
    result = evaluate_cases(S.theorem1, [MatrixCase(A, 4, 0)])
    assert result.verdict == "violated" and _failed(result, "A ∈ O(n)")


def test_theorem1_violated_with_fewer_than_n_reflectors():
    result = evaluate_cases(S.theorem1, [MatrixCase(_haar(5, 1), 3, 0)])
    assert result.verdict == "violated" and _failed(result, "k = 1")


def test_theorem2_violated_with_k1_k2_equal_3():
    A = torch.randn(5, 5, generator=_gen(2), dtype=F64)
    result = evaluate_cases(S.theorem2, [MatrixCase(A, 3, 3)])
    assert result.verdict == "violated" and _failed(result, "k1 = k2 = 1")


def test_theorem3_violated_when_k1_plus_k2_exceeds_n_plus_2():
    """n = 4, k1 = 3, k2 = 4: three reflectors, while a generic rotation of ℝ⁴ (no eigenvalue 1, det +1)
    needs four (Cartan–Dieudonné), so no assignment can reach it."""
    A = _haar(4, 3)
    if torch.linalg.det(A) < 0:
        A[:, 0] = -A[:, 0]
    result = evaluate_cases(S.theorem3, [MatrixCase(A, 2, 1)])
    assert result.verdict == "violated" and _failed(result, "k1 + k2 ≤ n + 2")


def test_theorem4_violated_with_one_reflector_short():
    A = torch.randn(3, 5, generator=_gen(4), dtype=F64)
    result = evaluate_cases(S.theorem4, [MatrixCase(A, 3, 2)])
    assert result.verdict == "violated" and _failed(result, "k1, k2 as in Theorem 4")


def test_eq7_violated_for_a_negative_range():
    """σ* = −1, r = 0.1: σ_i ∈ [−1.1, −0.9] but the singular values |σ_i| are near 1 > σ* + r."""
    cell = SpectralRNN(1, 4, 2, 2, r=0.1, sigma_star=-1.0, bias=False, generator=_gen(5), dtype=F64)
    result = evaluate_cases(S.eq7, [SpectralCellCase(cell)])
    assert result.verdict == "violated" and _failed(result, "σ* ≥ r")


@pytest.mark.parametrize("claim", [S.param_count, S.param_count_corrected], ids=lambda c: c.id)
def test_param_count_violated_without_bias(claim):
    result = evaluate_cases(claim, [CountCase(8, 3, 5, 2, 4, bias=False)])
    assert result.verdict == "violated" and _failed(result, "b present")
    assert result.records[0].parts["Sec. 4 formula = parameters stored by SpectralRNN"] > 1


@pytest.mark.parametrize("claim", [S.table1, S.table1_corrected], ids=lambda c: c.id)
@pytest.mark.parametrize("flag,assumption", [("cache_norms", "‖u_k‖² computed once"), ("reuse_alpha", "α reused")])
def test_table1_violated_without_the_sec42_savings(claim, flag, assumption):
    """Recomputing ‖u_k‖² makes Hprod 6k (the paper's own "Algorithm 2 needs 6k"); not reusing α makes
    Hgrad 3n + 8k."""
    result = evaluate_cases(claim, [dataclasses.replace(CountCase(8, 4, 4), **{flag: False})])
    assert result.verdict == "violated" and _failed(result, assumption)


def test_eq13_corrected_violated_in_float32():
    """The 1e-10 tolerance is float64's; in float32 the same correct formulas miss it by ~1e3."""
    case = S._sample_eq13(_gen(6), 4, 1, "cpu", torch.float32)
    result = evaluate_cases(S.eq13_corrected, [case])
    assert result.verdict == "violated" and _failed(result, "float64")


def _rnn_case(n=3, T=6, activation="identity", *, W=None, x_scale=1.0, b=None, h0=None, dW=None):
    W = 0.5 * torch.eye(n, dtype=F64) if W is None else W
    M, Y = torch.eye(n, 2, dtype=F64), torch.ones(2, n, dtype=F64)
    x = x_scale * torch.ones(1, T, 2, dtype=F64) / math.sqrt(2)
    dW = torch.zeros_like(W) if dW is None else dW
    return RNNCase(W, M, Y, dW, torch.zeros_like(M), torch.zeros_like(Y), x, float(x_scale), activation, b, h0)


@pytest.mark.parametrize("kwargs,assumption", [
    (dict(activation="sigmoid", x_scale=1e-3), "‖φ(x)‖ ≤ ‖x‖"),
    (dict(b=torch.ones(3, dtype=F64), x_scale=1e-3), "no bias"),
    (dict(h0=torch.ones(3, dtype=F64), x_scale=1e-3), "h^(0) = 0")], ids=["sigmoid", "bias", "h0"])
def test_eq24_violated_outside_assumption_1(kwargs, assumption):
    """Sec. 6 lists the sigmoid among activations satisfying Assumption 1(b); σ(0) = 1/2 breaks ‖φ(x)‖ ≤ ‖x‖
    and eq. 24 with it."""
    result = evaluate_cases(S.eq24, [_rnn_case(**kwargs)])
    assert result.verdict == "violated" and _failed(result, assumption)


def test_lemma3_violated_when_the_perturbation_dwarfs_w():
    """W = 0, δW = 3I: the perturbed states grow like 3^t, the bound only linearly in ‖δW‖."""
    case = _rnn_case(T=10, W=torch.zeros(3, 3, dtype=F64), dW=3 * torch.eye(3, dtype=F64))
    result = evaluate_cases(S.lemma3, [case])
    assert result.verdict == "violated" and _failed(result, "‖δW‖ ≤ ‖W‖/T")


def test_theorem5_corollary_violated_when_sigma_star_is_not_one():
    """σ* = 1.5: ‖W‖ reaches 1.5 + r > 1 + r, so G(w) > Corollary 1's G."""
    case = S._sample_theorem5(_gen(7), 4, 6, "cpu", F64)
    state = case.state()
    state["config"]["sigma_star"] = 1.5
    state["params"]["sigma_hat"] = torch.full((4,), 5.0, dtype=F64)
    result = evaluate_cases(S.theorem5, [GeneralizationCase.from_state(state)])
    assert result.verdict == "violated" and _failed(result, "Spectral-RNN with σ* = 1")


# ----------------------------------------------------------------------------- paper facts, known answers
def test_proposition1_gives_positive_diagonal_r_and_its_u_zero_branch():
    """Prop. 1: B = H_n(u_n)…H_1(u_1) R with R upper triangular, diagonal ≥ 0; u = 0 when the column is
    already ‖B_1‖e_1 (so I has all u = 0), and diag(1, …, 1, −1) needs exactly u_1 ≠ 0 (H_1^1 = −1)."""
    B = torch.randn(6, 6, generator=_gen(8), dtype=F64)
    U_hat, R = proposition1_reflectors(B)
    assert torch.allclose(reflector_product(U_hat) @ R, B, rtol=0, atol=1e-12)
    assert bool((torch.diagonal(R) >= 0).all()) and torch.linalg.matrix_norm(torch.tril(R, -1)) < 1e-12
    U_hat, R = proposition1_reflectors(torch.eye(4, dtype=F64))
    assert torch.equal(U_hat, torch.zeros(4, 4, dtype=F64)) and torch.equal(R, torch.eye(4, dtype=F64))
    D = torch.diag(torch.tensor([1.0, 1.0, 1.0, -1.0], dtype=F64))
    U_hat, R = proposition1_reflectors(D)
    assert torch.count_nonzero(U_hat) == 1 and U_hat[3, 3] != 0
    assert torch.allclose(R, torch.eye(4, dtype=F64), rtol=0, atol=1e-15)


def test_proposition1_literal_formula_loses_accuracy_near_the_identity():
    """u = B_1 − ‖B_1‖e_1 computed literally cancels when B_1 ≈ ‖B_1‖e_1: for A = exp(10⁻⁹ S) the rebuild error
    is ≈ √u, six orders above the cancellation-free evaluation the claims use (same u in exact arithmetic)."""
    Z = torch.randn(16, 16, generator=_gen(15), dtype=F64)
    A = torch.linalg.matrix_exp(1e-9 * (Z - Z.mT))
    err = {s: float(torch.linalg.matrix_norm(A - reflector_product(proposition1_reflectors(A, stable=s)[0])))
           for s in (True, False)}
    assert err[True] < 1e-13 < 1e-10 < err[False]


def test_theorem3_printed_zero_range_drops_a1():
    """Eq. 18/20 as printed zero v_t (u_t) from t = k1 + k2 − 2, the slot that holds a_1: the construction then
    misses H_1(a_1) and fails exactly when a_1 ≠ 0 (and the second chain receives some a_k, k1 ≥ 2); zeroing
    from k1 + k2 − 1 reconstructs A. Both branches (eq. 18: k2 ≥ k1 − 1, eq. 20: k2 < k1 − 1)."""
    n = 5
    A = _haar(n, 9)
    if torch.linalg.det(A) > 0:  # generically all of a_2 … a_n are ≠ 0, so a_1 ≠ 0 ⇔ det A = (−1)^n
        A[:, 0] = -A[:, 0]
    a, _ = proposition1_reflectors(A)
    b, _ = proposition1_reflectors(A.mT)
    for k1, k2, c in ((3, 3, a), (2, 5, a), (5, 2, b)):
        assert float(c[:, n - 1].abs().sum()) > 0  # a_1 (or b_1) ≠ 0
        errors = {}
        for reading in ("corrected", "printed"):
            U_hat, V_hat = theorem3_reflectors(A, k1, k2, zero_from=reading)
            W = reflector_product(U_hat) @ reflector_product(V_hat).mT
            errors[reading] = float(torch.linalg.matrix_norm(A - W))
        assert errors["corrected"] < 1e-12 and errors["printed"] > 0.5, (k1, k2, errors)


def test_eq18_padding_leaves_the_reflector_unchanged():
    """The only typable reading of "v_{k1+k2−k−1} = a_k": H_t((0_{t−k}; a_k)) = H_k(a_k) as n × n matrices."""
    a = torch.randn(3, generator=_gen(10), dtype=F64)
    assert torch.allclose(householder_matrix(torch.cat([torch.zeros(2, dtype=F64), a]), 6),
                          householder_matrix(a, 6), rtol=0, atol=1e-15)


def test_table1_per_kernel_counts_are_exact():
    """Counted at dispatch: Hprod = 4k (6k + 1 with ‖u‖² recomputed, the paper's "6k"); Hgrad = 3n + 6k + 2
    (3n + 8k + 2 without reusing α, 3n + 10k + 3 with neither saving, the paper's "3n + 10k")."""
    n, g = 9, _gen(11)
    h, grad = torch.randn(n, generator=g, dtype=F64), torch.randn(n, generator=g, dtype=F64)
    for k in (1, 4, 9):
        u = torch.randn(k, generator=g, dtype=F64)
        c = 2 / (u @ u)
        flops, (_, alpha) = count_flops(sparse_hprod, h, u, c)
        assert flops == 4 * k
        assert count_flops(sparse_hprod, h, u)[0] == 6 * k + 1  # dot (2k − 1), 2/· (2 flops: reciprocal, ×2)
        assert count_flops(sparse_hgrad, h, u, grad, c, alpha)[0] == 3 * n + 6 * k + 2
        assert count_flops(sparse_hgrad, h, u, grad, c)[0] == 3 * n + 8 * k + 2
        assert count_flops(sparse_hgrad, h, u, grad)[0] == 3 * n + 10 * k + 3


def test_table1_local_counts_are_the_sums_of_the_kernels():
    """Local FP = Σ_k 4k + n (Σ); local BP = Σ_k (3n + 6k + 2) + 3n (Σ̄, Σg, σ̂) over k = n − m + 1 … n of each
    chain: exactly the corrected rows plus their O(n) remainders, far from the printed BP rows."""
    n, m1, m2 = 20, 20, 7
    counts = table1_counts(n, m1, m2)
    S1, S2 = (sum(range(n - m + 1, n + 1)) for m in (m1, m2))
    assert counts["Spectral-RNN local FP"] == 4 * (S1 + S2) + n
    assert counts["Spectral-RNN local BP"] == 3 * n * (m1 + m2) + 6 * (S1 + S2) + 2 * (m1 + m2) + 3 * n
    assert counts["oRNN local FP"] == 4 * S1 and counts["oRNN local BP"] == 3 * n * m1 + 6 * S1 + 2 * m1
    printed = S.TABLE1_PRINTED["Spectral-RNN local BP"][1](n, m1, m2)
    assert counts["Spectral-RNN local BP"] - printed > S.O_N_CONSTANT * n


def test_cells_reflect_costs_6n_per_reflector():
    """cells.spectral.reflect (Hprod on the zero-padded û, ‖û‖² recomputed) costs 6n + 1 flops whatever k is:
    the module's loops are ≈ 1.5–3 × Table 1's 4k (an efficiency note, not a correctness issue)."""
    n = 10
    u_hat = torch.cat([torch.zeros(7, dtype=F64), torch.randn(3, generator=_gen(17), dtype=F64)])
    assert count_flops(S.reflect, torch.randn(n, generator=_gen(18), dtype=F64), u_hat)[0] == 6 * n + 1


def test_flop_counter_refuses_ops_without_a_rule():
    with pytest.raises(RuntimeError, match="no rule for aten.exp"):
        count_flops(torch.exp, torch.ones(3, dtype=F64))
    with FlopCounter() as fc:
        torch.ones(4, dtype=F64) @ torch.ones(4, dtype=F64)
    assert fc.flops == 7


def test_table4_differences_fit_16_reflectors_not_8():
    """App. C.1 says m1 = m2 = 8; every Table 4 row has RNN − Spectral-RNN = 208 and Spectral-RNN − oRNN = 424,
    which Sec. 4's formulas give at n = 32 for m1 = m2 = 16 (536 and 96 for 8)."""
    assert S._table4_error(16) == 0
    n = 32
    assert S._vanilla_count(n, 1, 1) - S._sec4_count(n, 8, 8, 1, 1) == 536
    assert S._sec4_count(n, 8, 8, 1, 1) - S._ornn_count(n, 16, 1, 1) == 96


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), w_scale=st.floats(0.0, 0.9), d_scale=st.floats(0.0, 1.0),
       dm_scale=st.floats(0.0, 5.0), T=st.integers(1, 12), act=st.sampled_from(["relu", "tanh", "identity"]))
def test_eq25_holds_with_the_relaxed_hypothesis_theorem5_needs(seed, w_scale, d_scale, dm_scale, T, act):
    """Theorem 5's proof applies Lemma 3 without checking ‖δW‖ ≤ ‖W‖/T, which fails for small ‖W‖. Eq. 25 still
    holds with ‖δW‖ ≤ max{‖W‖, 1}/T (same induction with max{‖W‖, 1} for ‖W‖) and any δM (unused)."""
    g, n = _gen(seed), 4
    W = torch.randn(n, n, generator=g, dtype=F64)
    W *= w_scale / torch.linalg.matrix_norm(W, ord=2)
    dW = torch.randn(n, n, generator=g, dtype=F64)
    dW *= d_scale / T / torch.linalg.matrix_norm(dW, ord=2)  # max{‖W‖, 1}/T = 1/T
    M, x = torch.randn(n, 2, generator=g, dtype=F64), torch.randn(2, T, 2, generator=g, dtype=F64)
    dM = dm_scale * torch.randn(n, 2, generator=g, dtype=F64)
    Y = torch.randn(2, n, generator=g, dtype=F64)
    case = RNNCase(W, M, Y, dW, dM, torch.zeros_like(Y), x, float(torch.linalg.vector_norm(x, dim=-1).max()), act)
    parts = measure_case(S.lemma3, case)[1]
    assert max(v for k, v in parts.items() if k.startswith("eq. 25")) <= 1 + S.lemma3.tolerance


def test_rnn_states_matches_the_spectral_cell():
    """eq. 17 with W = recurrent_matrix() reproduces SpectralRNN.forward (bias off)."""
    cell = SpectralRNN(3, 5, 2, 3, r=0.2, activation="tanh", bias=False, generator=_gen(12), dtype=F64)
    x = torch.randn(2, 7, 3, generator=_gen(13), dtype=F64)
    assert torch.allclose(rnn_states(cell.recurrent_matrix(), cell.M, x, "tanh"), cell(x), rtol=0, atol=1e-12)


def test_theorem5_bounds_known_values_and_vacuity():
    """W = 0, M = Y = I₂, B = 1, T = 1, γ = 1, m = 100, δ = 0.05: β = 1, ‖w‖² = 4, h = 2,
    G = 1·1·2 ln 2 · 4 = 8 ln 2; the proof's bound exceeds 1 (vacuous) and the O-constant-1 bound."""
    I2 = torch.eye(2, dtype=F64)
    out = theorem5_bounds(torch.zeros(2, 2, dtype=F64), I2, I2, B=1.0, T=1, gamma=1.0, delta=0.05, m=100, r=0.1)
    assert out["beta"] == 1.0 and out["G"] == pytest.approx(8 * math.log(2), rel=1e-12)
    assert out["G_corollary"] == pytest.approx(out["G"], rel=1e-12)  # (1 + r)^0 = 1 at T = 1
    assert out["bound_O1"] == pytest.approx(math.sqrt((8 * math.log(2) + math.log(2000)) / 100), rel=1e-12)
    assert out["bound_proof"] > 1 > out["bound_O1"]
    with pytest.raises(ValueError, match="γ > 0"):
        theorem5_bounds(I2, I2, I2, B=1.0, T=1, gamma=0.0, delta=0.05, m=100)


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.id)
def test_cases_survive_a_state_round_trip(claim):
    case = claim.sample(_gen(14), claim.sizes["quick"][1][0], claim.sizes["quick"][1][1], "cpu", F64)
    again = claim.case_type.from_state(case.state())
    assert measure_case(claim, again)[0] == pytest.approx(measure_case(claim, case)[0], rel=1e-12, abs=1e-300)


def test_bad_arguments_raise_value_errors():
    with pytest.raises(ValueError, match="square"):
        proposition1_reflectors(torch.ones(2, 3, dtype=F64))
    with pytest.raises(ValueError, match="finite"):
        proposition1_reflectors(torch.full((2, 2), math.nan, dtype=F64))
    with pytest.raises(ValueError, match="k2"):
        theorem3_reflectors(torch.eye(3, dtype=F64), 1, 5)
    with pytest.raises(ValueError, match="zero_from"):
        theorem3_reflectors(torch.eye(3, dtype=F64), 1, 1, zero_from="other")
    with pytest.raises(ValueError, match="m1, m2"):
        table1_counts(4, 5, 1)
    with pytest.raises(ValueError, match="x must be"):
        rnn_states(torch.eye(2, dtype=F64), torch.eye(2, dtype=F64), torch.ones(1, 0, 2, dtype=F64))
    with pytest.raises(ValueError, match="m2 must lie"):
        S.svd_reflectors(torch.eye(3, dtype=F64), 3, 4)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("claim", [S.theorem2, S.theorem3, S.eq7, S.eq13_corrected, S.eq24, S.lemma3, S.theorem5],
                         ids=lambda c: c.id)
def test_claims_run_on_every_device(claim, device):
    """A case moved to the device holds there too; inequality ratios agree with the CPU's to 1e-9 relative (a
    different BLAS), identity ratios only measure rounding, which differs by device."""
    h, T = claim.sizes["quick"][2]
    on_cpu = claim.sample(_gen(16), h, T, "cpu", F64)
    on_dev = claim.case_type.from_state(on_cpu.state(), device=device)
    ratio = measure_case(claim, on_dev)[0]
    assert ratio <= 1 + claim.tolerance
    if claim in (S.eq7, S.eq24, S.lemma3, S.theorem5):
        assert ratio == pytest.approx(measure_case(claim, on_cpu)[0], rel=1e-9, abs=1e-12)
