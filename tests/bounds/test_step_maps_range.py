"""Products of step Jacobians over thousands of steps leave float64's range (0.77^3000 ≈ 1e−341): the shared step
map rescales them by powers of two and the product claims compare log₂ ratios, so a contracting model audited on a
long sequence is not reported "violated" because a product and its bound underflowed to unequal subnormals or to
x/0 = ∞."""

import math

import pytest
import torch

from rnnaudit.analysis.norms import PairNorms
from rnnaudit.bounds.miller_hardt2019.data_dependent import data_dependent
from rnnaudit.bounds.pascanu2013.cases import linear_regime_case
from rnnaudit.bounds.pascanu2013.vanishing import vanishing
from rnnaudit.bounds.pascanu2013.vanishing_general import vanishing_general
from rnnaudit.bounds.search import measure_case
from rnnaudit.bounds.scaled_products import ScaledNorms, schedule_log2_products
from rnnaudit.bounds.step_maps import step_map

F64 = torch.float64


@pytest.mark.parametrize("claim", [vanishing_general, data_dependent, vanishing], ids=lambda c: c.id)
def test_equality_over_three_thousand_contracting_steps_is_ratio_one_not_a_violation(claim):
    """J_t = 0.77·I for T = 3000: ‖∂h_t/∂h_k‖₂ = 0.77^(t−k) = η^(t−k) for every pair, far below 1e−308 at the long
    lags; the worst ratio is 1 to rounding (16 ulps per step of the product: 3000·16·2^−53 < 1e−11). For
    pascanu2013.vanishing (every pair up to T = 64) the long sequence takes the schedule, not 4.5 million products."""
    case = linear_regime_case(2, 3000, 0.77)
    if claim is data_dependent:
        case.weights[0][0][:, 0] = 1.0  # an input direction, so ∂h_s/∂x_s ≠ 0
    ratio, _ = measure_case(claim, case)
    assert math.isfinite(ratio) and abs(ratio - 1) < 1e-11, ratio
    norms, taus = step_map(case).products()
    assert int(taus.max()) == 3000 and 0.77 ** 3000 == 0.0  # the longest pair is beyond float64 as a number
    assert bool((norms.log2 != 0).any())


def test_worst_log2_finds_a_violation_far_below_float64s_range():
    """Three products of size 2^−1500·(1, 3, 0.5) against bounds 2^−1500: the worst ratio is 3 (a violation), read
    from log₂ values; as plain numbers every one of them is 0."""
    M = torch.stack([torch.eye(2, dtype=F64) * v for v in (1.0, 3.0, 0.5)])
    for norms in (PairNorms(M), None):
        scaled = ScaledNorms(norms if norms is not None else _exact(M), torch.full((3,), -1500.0, dtype=F64))
        m, b = scaled.worst_log2(torch.full((3,), -1500.0, dtype=F64))
        assert float(m / b) == pytest.approx(3.0, rel=1e-15)
        mx, i = scaled.max()
        assert i == 1 and float(mx) == 0.0  # the largest norm, 3·2^−1500, is 0 as a float64 number
    # a zero bound: a positive measured value is an infinite ratio, as safe_ratio says
    m, b = ScaledNorms(PairNorms(M), torch.zeros(3, dtype=F64)).worst_log2(
        torch.tensor([0.0, -math.inf, 0.0], dtype=F64))
    assert float(b) == 0.0 and float(m) == 3.0


def _exact(M):
    from rnnaudit.bounds.step_maps import _ExactNorms

    return _ExactNorms(M)


def test_schedule_log2_products_equal_the_products_of_the_factors_on_the_schedule():
    """log₂ ∏ v_j over each pair (k, t] of the schedule, against a direct sum; a zero factor gives −∞ only for the
    pairs that contain it."""
    from rnnaudit.bounds.architectures import pair_schedule

    v = torch.rand(40, dtype=F64, generator=torch.Generator().manual_seed(0)) + 0.1
    v[7] = 0.0
    got = schedule_log2_products(v, 4)
    want = [float(torch.log2(v[k:t]).sum()) if not bool((v[k:t] == 0).any()) else -math.inf
            for k, ts in pair_schedule(40, 4).items() for t in sorted(ts)]
    assert len(got) == len(want)
    for g, w in zip(got.tolist(), want):
        assert (g == w == -math.inf) or g == pytest.approx(w, rel=1e-13, abs=1e-12)


def test_an_infinite_worst_ratio_on_a_model_is_written_as_inf_and_read_back_as_infinity():
    """audit.json is strict JSON (no Infinity): an infinite ratio is the string "inf", as in a check's results.json,
    and the report reads it as ∞. An audit at T = 3000 once ended in "Out of range float values are not JSON
    compliant" after all its work."""
    import json

    from rnnaudit.bounds.on_model import ClaimOnModel
    from rnnaudit.figures.html import fmt_number

    doc = ClaimOnModel("x.y", True, None, [], "violated", math.inf).to_json()
    assert json.loads(json.dumps(doc, allow_nan=False))["worst_ratio"] == "inf"
    assert fmt_number(doc["worst_ratio"]) == "∞"
    assert ClaimOnModel("x.y", True, None, [], "holds", 0.5).to_json()["worst_ratio"] == 0.5


def test_a_chaotic_sequence_whose_growth_overflows_float64_is_compared_as_log2_values():
    """J_t = 1.5·I for T = 2000 (a tanh RNN with W = 1.5·I at its zero state): λ₁ = ln 1.5 > 0, e^(Tλ₁) =
    ‖∂h_T/∂h_0‖₂ = 1.5^2000 ≈ 1e352, past float64. laurent2017.chaos_explodes.general's ratio is 1 (equality), where
    inf/inf read as NaN, a violation."""
    from rnnaudit.bounds.laurent2017.chaos_explodes_general import chaos_explodes_general

    case = linear_regime_case(2, 2000, 1.5)
    with pytest.raises(OverflowError):
        math.exp(2000 * math.log(1.5))  # the left side as a number
    ratio, _ = measure_case(chaos_explodes_general, case)
    assert math.isfinite(ratio) and abs(ratio - 1) < 1e-10, ratio


@pytest.mark.parametrize("claim_path", ["rnnaudit.bounds.miller_hardt2019.rnn_stable:rnn_stable",
                                        "rnnaudit.bounds.echo_state.sufficient:sufficient"])
def test_two_trajectories_decaying_below_1e_154_are_not_read_as_a_violation(claim_path):
    """W = 0.7·I, zero inputs and biases: two trajectories' difference shrinks by exactly 0.7 a step and reaches the
    subnormal range after ~2000 steps. torch's vector_norm squares entries (0 below ~1e−154) and subnormal
    arithmetic rounds absolutely: the claims read 1.43 and 1.14 ("violated", assumptions holding) at T = 2086. With
    the scaled norm and the underflow term of the rounding allowance the ratio is ≤ 1."""
    import importlib

    module, name = claim_path.split(":")
    claim = getattr(importlib.import_module(module), name)
    ratio, _ = measure_case(claim, linear_regime_case(2, 2086, 0.7))
    assert ratio <= 1 + 1e-12, ratio


def test_an_expanding_rnn_over_three_thousand_steps_is_measured_not_a_crash():
    """J_t = 1.5·I for T = 3000 (1.5^3000 ≈ 1e528): pascanu2013.exploding's growth assumption and
    enrnn.theorem3.1.general formed the products unscaled until inf·0 = NaN reached an SVD (an internal error of the
    audit). Now the growth reads as inf (> 1) and the ratios are finite."""
    from rnnaudit.bounds.enrnn.theorem3_1_general import theorem3_1_general
    from rnnaudit.bounds.pascanu2013.exploding import _layer_growth, exploding

    case = linear_regime_case(2, 3000, 1.5)
    assert math.isinf(float(_layer_growth(case)))
    for claim in (exploding, theorem3_1_general):
        ratio, _ = measure_case(claim, case)
        assert math.isfinite(ratio), (claim.id, ratio)
    ratio, _ = measure_case(theorem3_1_general, case)
    assert abs(ratio - 1) < 1e-10  # ‖∏ J‖ = 1.5^τ = ‖W‖^τ: equality, far past float64


def test_spectral_rnn_bounds_with_a_zero_factor_stay_zero_when_the_growth_overflows():
    """An nn.RNN that ignores its inputs (W_ih = 0, so ‖M‖ = 0) with W_hh = 1.5·I over T = 3000: max{‖W‖^(t−1), 1}
    passes 1e308, and Lemma 3's and eq. 24's right sides, 0·inf, read NaN, which with the assumptions holding is a
    violation. Every side is 0 now, and so is every measured difference (the state stays 0)."""
    from torch import nn

    from rnnaudit.bounds.on_model import ModelView
    from rnnaudit.bounds.spectral_rnn.eq24 import eq24
    from rnnaudit.bounds.spectral_rnn.lemma3 import lemma3
    from rnnaudit.cells.adapters import wrap

    rnn = nn.RNN(2, 2, batch_first=True).double()
    with torch.no_grad():
        for p in rnn.parameters():
            p.zero_()
        rnn.weight_hh_l0.copy_(1.5 * torch.eye(2))
    x = torch.ones(1, 3000, 2, dtype=F64) / math.sqrt(2)
    view = ModelView(wrap(rnn), x, None, 3000, F64)
    for claim in (lemma3, eq24):
        for case in claim.cases.from_model(view):
            ratio, _ = measure_case(claim, case)
            assert ratio == 0.0, (claim.id, ratio)


def test_step_jacobians_with_entries_below_1e_154_have_their_largest_norm_found():
    """Step Jacobians of entries ~1e−165 (a saturated gate's derivative, or W scaled that small): the norm brackets
    square the entries and read 0, so the largest norm was taken to be the first one (η understated 40 %, and three
    claims "violated"); the certified ‖M‖₂ of a box read 0 the same way. Each matrix is scaled by a power of two
    first now."""
    from rnnaudit.analysis.contraction import spectral_upper

    eye = torch.eye(2, dtype=F64)
    value, i = PairNorms(torch.stack([v * 1e-165 * eye for v in (1.0, 2.0, 1.5)])).max()
    assert i == 1 and float(value) == pytest.approx(2e-165, rel=1e-14)
    A = torch.tensor([[1.0, 2.0], [0.0, 1.0]], dtype=F64)
    exact = float(torch.linalg.matrix_norm(A, ord=2))
    for scale in (1.0, 1e-170, 1e150):
        upper = spectral_upper(A * scale) / scale
        assert exact <= upper <= exact * (1 + 1e-6), (scale, upper)


def test_the_finite_time_exponent_of_steps_below_1e_154_is_finite():
    """J_t = 1e−165·I: λ₁(T; q₀) = ln 1e−165 ≈ −379.9 per step, not −∞ (torch's vector_norm squared the tangent
    vector's entries to 0)."""
    from rnnaudit.bounds.laurent2017.chaos import finite_time_exponent

    J = torch.stack([1e-165 * torch.eye(3, dtype=F64)] * 50)
    assert float(finite_time_exponent(J)) == pytest.approx(math.log(1e-165), rel=1e-12)


def test_a_differentiable_comparison_warns_nothing_and_keeps_its_gradient():
    """An ascent moves the bound and the products' exponents: reading them as numbers (which range to take) must not
    convert a tensor that requires grad (torch warns, and the check printed the warning to the user's terminal)."""
    import warnings

    M = torch.diag(torch.tensor([1.0, 2.0], dtype=F64))[None].repeat(3, 1, 1)
    log2 = torch.zeros(3, dtype=F64, requires_grad=True)
    bound = torch.tensor([1.0, 2.0, 3.0], dtype=F64, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m, b = ScaledNorms(PairNorms(M), log2).worst_log2(bound)
        (m / b).backward()
    assert float((m / b).detach()) == pytest.approx(1.0) and bound.grad is not None and float(bound.grad.abs().sum()) > 0
