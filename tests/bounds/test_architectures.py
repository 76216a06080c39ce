"""bounds/architectures.py: the weight-given step is torch's own (RNN, GRU, LSTM, stacked), and models become cases of
the right kind."""

import math

import pytest
import torch
from torch import nn

from rnnaudit.bounds.architectures import (ArchCase, arch_cases_from_model, layer_cases, product_norms,
                                            step_jacobians, trajectory)
from rnnaudit.bounds.core import NotApplicable
from tests.bounds.models import IndRNN, modules, view

F64 = torch.float64


@pytest.mark.parametrize("name", ["lstm", "gru2", "rnn_tanh", "rnn_relu"])
def test_the_step_is_torchs_own_forward(name):
    torch.manual_seed(2)
    m = {"lstm": nn.LSTM(3, 4, 2), "gru2": nn.GRU(3, 4, 2), "rnn_tanh": nn.RNN(3, 4, 2),
         "rnn_relu": nn.RNN(3, 4, 2, nonlinearity="relu")}[name].double().eval()
    x = torch.randn(1, 9, 3, dtype=F64)
    (case,) = arch_cases_from_model(view(m, x.float()))
    out, _ = m(x.transpose(0, 1))
    states = trajectory(case)[1:]
    # the last layer's h is the packed state's last h block; float64 both ways, 9 steps of O(10) operations
    assert torch.allclose(states[:, 4:8], out[:, 0], atol=1e-13)


def test_models_become_cases_of_their_kind():
    kinds = {name: arch_cases_from_model(view(m))[0] for name, m in modules().items()}
    assert {n: (c.kind, c.layers) for n, c in kinds.items()} == {
        "lstm": ("lstm", 1), "lstmcell": ("lstm", 1), "gru1": ("gru", 1), "gru2": ("gru", 2),
        "rnn_tanh": ("rnn_tanh", 1), "rnn_relu": ("rnn_relu", 1)}
    step = arch_cases_from_model(view(IndRNN(3, 5)))
    assert step[0].kind == "step" and len(step) == 2 and step[0].size() == (5, 12)


def test_a_claim_for_other_kinds_says_why():
    with pytest.raises(NotApplicable, match="gru"):
        arch_cases_from_model(view(nn.GRU(3, 4)), ("rnn_tanh",), what="X")
    with pytest.raises(NotApplicable, match="proj_size"):
        arch_cases_from_model(view(nn.LSTM(3, 4, proj_size=2)), ("lstm",))


def test_layer_cases_feed_each_layer_the_states_below():
    (case,) = arch_cases_from_model(view(nn.GRU(3, 4, 2), torch.randn(1, 6, 3)))
    lower, upper = layer_cases(case)
    assert torch.allclose(upper.x, trajectory(case)[1:, :4]) and lower.x.shape == (6, 3)
    assert torch.allclose(trajectory(upper)[1:], trajectory(case)[1:, 4:], atol=1e-14)


def test_product_norms_are_the_jacobian_products():
    (case,) = arch_cases_from_model(view(nn.RNN(3, 4), torch.randn(1, 5, 3)))
    J, _ = step_jacobians(case)
    prods, bounds, taus = product_norms(J)
    assert prods.shape == (15,) and float(taus.max()) == 5
    full = torch.func.jacrev(lambda h0: trajectory(type(case)(case.kind, case.weights, case.x, h0))[-1])(case.h0)
    assert abs(float(prods[4]) - float(torch.linalg.matrix_norm(full, ord=2))) < 1e-12  # k = 0, t = 5
    assert bool((prods <= bounds * (1 + 1e-12)).all())


def test_a_long_sequence_is_measured_on_a_schedule_of_pairs():
    """On a model's long sequence the products are taken at 4 starts and about two lags per octave, always including
    the last step; a short sequence gets every pair."""
    from rnnaudit.bounds.architectures import MAX_STARTS, pair_schedule

    assert sum(len(ts) for ts in pair_schedule(10, MAX_STARTS).values()) == 55  # T(T + 1)/2
    long = pair_schedule(200, MAX_STARTS)
    assert sorted(long) == [0, 66, 133, 199] and all(200 in ts for ts in long.values())
    assert {1, 2, 3, 4, 6, 8, 11, 16, 23, 32, 45, 64, 91, 128, 181, 200} == long[0]


def test_a_maps_products_on_four_starts_are_each_pairs_own_chain_product():
    """StepMap.products on a long sequence (the pair schedule's four starts, each start's chain stopped at the next
    start and carried on by the later start's held products): every pair (k, t) holds J_t ⋯ J_{k+1} (scaled by its
    power of two), to rounding, in the schedule's order (a 2-layer LSTM over 90 steps)."""
    from rnnaudit.bounds.architectures import MAX_STARTS, pair_schedule, sample_arch
    from rnnaudit.bounds.step_maps import StepMap

    case = sample_arch(torch.Generator().manual_seed(4), "lstm", 5, 90, layers=2)
    shared = StepMap(case)
    norms, taus = shared.products()
    M, log2 = norms.norms.M, norms.log2
    i = 0
    for k, ts in pair_schedule(90, MAX_STARTS).items():
        P = torch.eye(shared.J.shape[-1], dtype=F64)
        for t in range(k + 1, max(ts) + 1):
            P = shared.J[t - 1] @ P
            if t in ts:
                assert float(taus[i]) == t - k
                assert torch.allclose(M[i] * 2.0 ** float(log2[i]), P, rtol=1e-10, atol=1e-14 * float(P.abs().max()))
                i += 1
    assert i == M.shape[0] and len(pair_schedule(90, MAX_STARTS)) == 4


def test_a_maps_input_products_from_the_start_rows_alone_equal_those_from_every_row():
    """StepMap.inputs forms ∂h_s/∂x_s only at the pair schedule's start times in the closed form: the products and
    their norms are those of the whole ∂h_t/∂x_t, to rounding (a 2-layer LSTM over 40 steps)."""
    from rnnaudit.bounds.architectures import MAX_STARTS, pair_schedule, sample_arch
    from rnnaudit.bounds.step_maps import StepMap

    case = sample_arch(torch.Generator().manual_seed(2), "lstm", 5, 40, layers=2)
    shared = StepMap(case)
    norms, log2_base, taus = shared.inputs()
    _, B = step_jacobians(case, state=False)
    want, want_base = [], []
    for s, ts in pair_schedule(39, MAX_STARTS).items():
        P = B[s]
        for t in range(s + 1, max(ts) + 1):
            P = shared.J[t] @ P
            if t in ts:
                want.append(torch.linalg.matrix_norm(P, 2))
                want_base.append(torch.linalg.matrix_norm(B[s], 2))
    assert torch.allclose(norms.all(), torch.stack(want), rtol=1e-12, atol=0)
    assert torch.allclose(torch.exp2(log2_base), torch.stack(want_base), rtol=1e-12, atol=0)


@pytest.mark.parametrize("make", [lambda: nn.LSTM(3, 5, 3), lambda: nn.GRU(3, 5, 2), lambda: nn.RNN(3, 5, 2)],
                         ids=["lstm3", "gru2", "rnn2"])
def test_a_layers_map_inside_an_audit_is_the_packed_maps_block_and_equals_the_layers_own(make):
    """Inside shared_maps a stack's layer map copies its diagonal block of the packed map (held by an earlier claim)
    instead of forming it: the same numbers as the layer's own closed form, to rounding (2e-16 relative; the same
    formulas on the same states)."""
    from rnnaudit.bounds import step_maps

    torch.manual_seed(3)
    (case,) = arch_cases_from_model(view(make().double(), torch.randn(1, 40, 3)))
    own = [step_jacobians(layer, inputs=False)[0] for layer in layer_cases(case)]
    with step_maps.shared_maps():
        step_maps.step_map(case)  # the packed map, as the claims before hold it
        layers = layer_cases(case)
        for layer, J in zip(layers, own):
            block = step_maps._packed_block(step_maps._case_key(layer))
            assert block is not None and block.shape == J.shape
            shared = step_maps.step_map(layer).J
            assert torch.allclose(shared, J, rtol=2e-16 * J.shape[-1], atol=1e-300)
    assert not step_maps._LAYER_OF  # forgotten with the audit's maps
    with step_maps.shared_maps():  # no packed map held: the layer forms its own
        assert step_maps._packed_block(step_maps._case_key(layer_cases(case)[0])) is None


def _worst_input_ratio(shared, rate=None):
    norms, log2_base, taus = shared.inputs(rate=rate)
    measured, bound = norms.worst_log2(taus * torch.log2(shared.eta()) + log2_base)
    return len(norms), float(measured / bound)


@pytest.mark.parametrize("make, n", [(lambda: nn.GRU(64, 64), 64), (lambda: nn.LSTM(6, 16, 2), 6),
                                     (lambda: nn.RNN(4, 32), 4)], ids=["gru", "lstm2", "rnn"])
def test_the_input_products_against_a_rate_keep_the_worst_pair_of_all_the_pairs(make, n):
    """StepMap.inputs(rate=η) forms each chain ∂h_t/∂x_s only while its ratio to η^(t−s)‖∂h_s/∂x_s‖₂ can be the
    largest: the worst pair and its value are exactly those of every pair (the same matrices, the same bits), from
    fewer products on these default-initialised models (whose steps expand, η > 1, so the ratios fall along a chain)."""
    from rnnaudit.bounds.step_maps import StepMap

    torch.manual_seed(4)
    (case,) = arch_cases_from_model(view(make(), torch.randn(1, 46, n)))
    every, pruned = StepMap(case), StepMap(case)
    n_all, worst = _worst_input_ratio(every)
    n_kept, kept_worst = _worst_input_ratio(pruned, pruned.eta())
    assert kept_worst == worst and 0 < worst <= 1
    assert n_kept < n_all / 3, (n_kept, n_all)


def test_the_input_products_against_a_rate_keep_every_pair_that_can_tie_and_match_on_random_cases():
    """Where every ratio is 1 (J_t = 0.9·I, ∂h_s/∂x_s = I: the claim's attaining case) nothing is left out; on
    random cases of every kind, contracting and expanding, 3 to 80 steps, the worst ratio is that of all the pairs
    (to the last bit, or within one ulp where two pairs tie: the worst-pair search's tie-break rounds differently)."""
    from rnnaudit.bounds.miller_hardt2019.data_dependent import _starts
    from rnnaudit.bounds.pascanu2013.cases import sample_any
    from rnnaudit.bounds.step_maps import StepMap

    (tie,) = _starts(4, 20)
    n_all, worst = _worst_input_ratio(StepMap(tie))
    n_kept, kept = _worst_input_ratio(StepMap(tie), StepMap(tie).eta())
    assert n_kept == n_all and kept == worst == pytest.approx(1, abs=1e-15)
    gen, dropped = torch.Generator().manual_seed(3), 0
    for i in range(60):
        case = sample_any(gen, [1, 3, 8][i % 3], [3, 13, 40, 80][(i // 3) % 4], "cpu", F64, contractive=bool(i % 2))
        n_all, worst = _worst_input_ratio(StepMap(case))
        n_kept, kept = _worst_input_ratio(StepMap(case), StepMap(case).eta())
        assert kept == pytest.approx(worst, rel=4e-16, abs=0), (i, case.kind)
        dropped += n_all - n_kept
    assert dropped > 0


def test_the_input_products_refuse_a_rate_below_a_step_norm():
    from rnnaudit.bounds.step_maps import StepMap

    torch.manual_seed(4)
    (case,) = arch_cases_from_model(view(nn.GRU(3, 8), torch.randn(1, 12, 3)))
    shared = StepMap(case)
    eta = shared.eta()
    with pytest.raises(ValueError, match="rate must be a number at least every step norm"):
        shared.inputs(rate=eta * (1 - 1e-12))
    for bad in (torch.tensor(float("nan"), dtype=F64), "1.0", eta.repeat(2), True):
        with pytest.raises(ValueError, match="rate must be"):
            shared.inputs(rate=bad)
    assert len(shared.inputs(rate=float(eta))[0]) <= len(shared.inputs()[0])  # a Python float is a rate too
    with pytest.raises(ValueError, match="rate must be"):  # refused also where the whole set is held already
        shared.inputs(rate=float(eta) / 2)


def test_the_input_products_against_a_rate_keep_every_chain_whose_factors_are_near_underflow():
    """A product of subnormal numbers rounds by up to half the smallest subnormal however small it is, so a ratio can
    rise along a chain (a 1-unit tanh RNN with weight_hh = 5·2^−1074, found by the referee): no chain is shortened
    there, and the worst pair is the one every pair gives."""
    from rnnaudit.bounds.architectures import ArchCase
    from rnnaudit.bounds.step_maps import StepMap

    x = torch.tensor([-1.7295970550370954, -0.3669021910237751, -0.12032415979667199, 1.3104300085888432,
                      -0.3483456534668088, -0.2621604436149494, -0.17367634842332347, 0.05345972277840927,
                      -1.672438599603295, 0.030784201459151284, -0.4803497139018327], dtype=F64)[:, None]
    w = (torch.tensor([[1.5928900195835465]], dtype=F64), torch.tensor([[5 * 2.0 ** -1074]], dtype=F64),
         torch.zeros(1, dtype=F64), torch.zeros(1, dtype=F64))
    case = ArchCase("rnn_tanh", (w,), x, torch.zeros(1, dtype=F64))
    n_all, worst = _worst_input_ratio(StepMap(case))
    n_kept, kept = _worst_input_ratio(StepMap(case), StepMap(case).eta())
    assert n_kept == n_all and kept == worst


@pytest.mark.slow
def test_the_input_products_against_a_rate_cover_the_rounding_of_long_log_ratios():
    """Over 30,000 steps at λ = 1.95e−271 the log₂ ratios are sums near 10⁷ whose ulps (~2e−9) exceed the products'
    rounding margin; every true ratio is exactly 1 there (J_t = λ, ∂h_s/∂x_s = 1: the claim's attaining structure),
    so nothing may be left out, and the worst is the one every pair gives (the referee's case)."""
    from rnnaudit.bounds.pascanu2013.cases import linear_regime_case
    from rnnaudit.bounds.step_maps import StepMap

    case = linear_regime_case(1, 30000, 0.9)
    with torch.no_grad():
        case.weights[0][1].fill_(1.953920677037347e-271)
        case.weights[0][0][:, 0] = 1.0
    n_all, worst = _worst_input_ratio(StepMap(case))
    n_kept, kept = _worst_input_ratio(StepMap(case), StepMap(case).eta())
    assert n_kept == n_all and kept == worst


@pytest.mark.parametrize("claim", ["miller_hardt2019.data_dependent", "pascanu2013.vanishing.general"])
def test_long_log_ratios_are_not_rounded_at_the_size_of_their_exponent(claim):
    """J_t = λ = 1.95e−271 exactly and ∂h_s/∂x_s = 1 over T = 2000 steps (the claims' attaining structure): every
    true ratio ‖∂h_t/∂x_s‖₂ / (λ^τ‖∂h_s/∂x_s‖₂) and ‖∂h_t/∂h_k‖₂ / η^τ is exactly 1. τ·log₂ λ (up to 1.8e6) rounded as
    one number was off by ~1e−10 (the referee's T = 30,000 gave 1 + 1.6e−9, past the 1e−9 tolerance: a false
    violation); split as τ·k + τ·log₂ m (scaled_products.log2_parts) what is left is rounding at the size of T:
    the products' T·u, τ·log₂ m's T·u and one ulp of T, under 4·T·u = 8.9e−13."""
    from rnnaudit.bounds.miller_hardt2019.data_dependent import _measure
    from rnnaudit.bounds.pascanu2013.cases import linear_regime_case
    from rnnaudit.bounds.pascanu2013.vanishing_general import _measure_general

    T = 2000
    case = linear_regime_case(1, T, 0.9)
    with torch.no_grad():
        case.weights[0][1].fill_(1.953920677037347e-271)
        case.weights[0][0][:, 0] = 1.0
    measure = _measure if claim == "miller_hardt2019.data_dependent" else _measure_general
    (m, b), = measure(case).values()
    assert abs(float(m / b) - 1) <= 4 * T * 2.0 ** -53


def _subnormal_rnn_case() -> ArchCase:
    """The referee's case: torch's tanh RNN, one unit, weight_hh = 5·2⁻¹⁰⁷⁴, so every step J_t = w(1 − h_t²) is a
    subnormal number; in exact rational arithmetic every ratio of both claims below is ≤ 1 (/work/notes/referee8)."""
    x = [-1.7295970550370954, -0.3669021910237751, -0.12032415979667199, 1.3104300085888432, -0.3483456534668088,
         -0.2621604436149494, -0.17367634842332347, 0.05345972277840927, -1.672438599603295, 0.030784201459151284,
         -0.4803497139018327]
    w = (torch.tensor([[1.5928900195835465]], dtype=F64), torch.tensor([[5 * 2.0 ** -1074]], dtype=F64),
         torch.zeros(1, dtype=F64), torch.zeros(1, dtype=F64))
    return ArchCase("rnn_tanh", (w,), torch.tensor(x, dtype=F64)[:, None], torch.zeros(1, dtype=F64))


@pytest.mark.parametrize("claim", ["miller_hardt2019.data_dependent", "pascanu2013.vanishing.general"])
def test_products_of_subnormal_steps_keep_their_relative_accuracy(claim):
    """Multiplied as they are, products of subnormal steps round on the subnormal grid by up to half their size, and
    the data-dependent claim read 1.071 for a theorem that holds (a false violation); each step is now brought into
    range by a power of two first (StepMap.times), so both claims read 1 to rounding (the 1e−9 tolerance)."""
    from rnnaudit.bounds.miller_hardt2019.data_dependent import _measure
    from rnnaudit.bounds.pascanu2013.vanishing_general import _measure_general

    measure = _measure if claim == "miller_hardt2019.data_dependent" else _measure_general
    (m, b), = measure(_subnormal_rnn_case()).values()
    assert float(m / b) <= 1 + 1e-12
    assert float(m / b) >= 1 - 1e-12  # the worst pair is a single step's own norm over λ: exactly 1


def _tiny_rnn(wih, whh, x) -> ArchCase:
    S = len(whh)
    return ArchCase("rnn_tanh", ((torch.tensor(wih, dtype=F64), torch.tensor(whh, dtype=F64), torch.zeros(S, dtype=F64),
                                  torch.zeros(S, dtype=F64)),), x, torch.zeros(S, dtype=F64))


_U = 2.0 ** -1074
_R = 2.0 ** -536.5 * torch.tensor([[math.cos(0.3), -math.sin(0.3)], [math.sin(0.3), math.cos(0.3)]], dtype=F64)
#: the second referee's cases (/work/notes/referee9): every assumption holds and every true worst ratio is 1
_FAR_FROM_ONE = {
    "first product underflows": _tiny_rnn([[2.0 ** -537]], [[1.6 * 2.0 ** -537]], torch.ones(6, 1, dtype=F64)),
    "subnormal input matrix": _tiny_rnn([[_U], [_U]], [[0.5, 0], [0, 0.5]], torch.ones(6, 1, dtype=F64)),
    "subnormal steps": _tiny_rnn([[2.0 ** -600], [0.0]], [[_U, 0], [_U, 0]], torch.ones(8, 1, dtype=F64)),
    "bound below 2^-1022": _tiny_rnn([[0.0], [0.0]], _R.tolist(), torch.zeros(8, 1, dtype=F64)),
    "small ordinary weights": _tiny_rnn([[0.0], [0.0]], (1e-5 * torch.tensor([[math.cos(0.1), -math.sin(0.1)],
                                                                              [math.sin(0.1), math.cos(0.1)]],
                                                                             dtype=F64)).tolist(),
                                        torch.zeros(64, 1, dtype=F64)),
}


@pytest.mark.parametrize("name", sorted(_FAR_FROM_ONE))
@pytest.mark.parametrize("claim_id", ["miller_hardt2019.data_dependent", "enrnn.theorem3.1.general",
                                      "pascanu2013.vanishing.general", "pascanu2013.vanishing"])
def test_true_theorems_read_no_violation_far_from_one(claim_id, name):
    """Factors, norms and bounds far from 1 in size are taken as powers of two times numbers near 1: a first product
    J·B_s of two factors near 2^−537, ‖[u, u]‖₂ = √2·u of a subnormal input matrix or step (u = 2⁻¹⁰⁷⁴; as a float64
    number it reads u), and a bound λ^τ below 2^−1022 each read 1.25, 1.414 or 1.5 as the search records a case
    (false violations of true theorems); now every ratio is at most 1 to rounding."""
    from rnnaudit.bounds.registry import claim_by_id
    from rnnaudit.bounds.search import _record

    claim = claim_by_id(claim_id)
    record = _record(claim, _FAR_FROM_ONE[name], "test")
    assert record.failed_assumptions or record.ratio <= 1 + 1e-12
