"""laurent2017: the exhibited zero-input LSTM and GRU are chaotic (λ₁ > 3 SE, cross-checked by the QR method), the
CFN decays, and the any-cell forms hold, apply to every model, and their assumptions fail where they should."""

import pytest
import torch
from torch import nn

from rnnaudit import wrap
from rnnaudit.analysis import lyapunov_spectrum
from rnnaudit.bounds import check_claim, evaluate_cases
from rnnaudit.bounds.laurent2017 import (cfn_zero_input, chaos_explodes_general, chaotic_gru, chaotic_lstm,
                                         no_chaos_general)
from rnnaudit.bounds.laurent2017.cfn_zero_input import _sample as sample_cfn
from rnnaudit.bounds.laurent2017.chaos import example, top_exponent
from tests.bounds.helpers import TINY, assert_has_power, with_sizes
from tests.bounds.models import IndRNN, assessed, modules, view


@pytest.mark.parametrize("claim", [chaotic_lstm, chaotic_gru, cfn_zero_input, no_chaos_general,
                                   chaos_explodes_general], ids=lambda c: c.id)
def test_laurent2017_claims_hold(claim):
    result = check_claim(claim, TINY)
    assert result.verdict == "holds" and result.errors == []


@pytest.mark.parametrize("kind", ["lstm", "gru"])
def test_laurent2017_chaotic_example_is_not_chaotic_when_its_gains_shrink(kind):
    """Negative control: the same network with W_hh/10 contracts, λ₁ < 0, and the existence check fails."""
    case = example(kind)
    with torch.no_grad():
        case.weights[0][1].div_(10)
    assert evaluate_cases(chaotic_lstm if kind == "lstm" else chaotic_gru, [case]).verdict == "false"


@pytest.mark.parametrize("kind", ["lstm", "gru"])
def test_laurent2017_top_exponent_agrees_with_the_qr_method(kind):
    """An independent estimate: rnnaudit.analysis.lyapunov_spectrum on torch's own cell with the example's weights."""
    case = example(kind, 1500)
    w_ih, w_hh, b_ih, b_hh = case.weights[0]
    H = w_hh.shape[1]
    m = (nn.LSTMCell if kind == "lstm" else nn.GRUCell)(1, H, dtype=torch.float64)
    with torch.no_grad():
        for name, t in zip(("weight_ih", "weight_hh", "bias_ih", "bias_hh"), (w_ih, w_hh, b_ih, b_hh), strict=True):
            getattr(m, name).copy_(t)
    spec = lyapunov_spectrum(wrap(m), case.x, k=1, h0=case.h0, warmup=150, seed=0)
    lam, se = top_exponent(case)
    assert float(lam) > 5 * float(se) > 0
    assert abs(float(spec.exponents[0]) - float(lam)) < 4 * (float(se) + float(spec.stderr[0]))


def test_laurent2017_cfn_decay_needs_zero_input_and_has_power():
    case = sample_cfn(torch.Generator().manual_seed(0), 3, 8)
    case.h0.mul_(0.01)
    case.input_scale = 1.0  # fed a constant input the units no longer decay
    result = evaluate_cases(cfn_zero_input, [case])
    assert result.verdict == "false" and "zero input" in result.errors[0]
    assert_has_power(with_sizes(cfn_zero_input, [(3, 8)]), 1.05)


@pytest.mark.parametrize("claim", [no_chaos_general, chaos_explodes_general], ids=lambda c: c.id)
def test_laurent2017_general_forms_have_power(claim):
    assert_has_power(claim, 1.05)


@pytest.mark.parametrize("name", ["lstm", "lstmcell", "gru1", "gru2", "rnn_tanh", "rnn_relu", "indrnn"])
def test_laurent2017_general_forms_apply_to_every_model(name):
    model = IndRNN(3, 6) if name == "indrnn" else modules()[name]
    for claim in (no_chaos_general, chaos_explodes_general):
        on = assessed(claim, view(model))
        assert on.applies and on.assumptions and on.verdict == "holds"
    # an untrained small model is not chaotic: the chaos assumption fails
    assert not assessed(chaos_explodes_general, view(model)).assumptions_hold


def test_laurent2017_chaos_assumption_holds_on_the_chaotic_lstm_as_a_user_module():
    case = example("lstm", 200)
    w_ih, w_hh, b_ih, b_hh = case.weights[0]
    m = nn.LSTMCell(1, 2, dtype=torch.float64)
    with torch.no_grad():
        for name, t in zip(("weight_ih", "weight_hh", "bias_ih", "bias_hh"), (w_ih, w_hh, b_ih, b_hh), strict=True):
            getattr(m, name).copy_(t)
    m.eval()
    from rnnaudit.bounds.on_model import ModelView
    on = assessed(chaos_explodes_general, ModelView(wrap(m), torch.zeros(1, 200, 1, dtype=torch.float64)))
    assert on.assumptions_hold and on.verdict == "holds"
    assert not assessed(no_chaos_general, ModelView(wrap(m), torch.zeros(1, 200, 1, dtype=torch.float64))
                        ).assumptions_hold


def test_chaos_explodes_lambda1_is_the_one_vector_rate_without_warm_up_and_says_so():
    """The claim's λ₁(T; q₀) and the diagnostics' λ₁ are different numbers by design, and the assumption's line
    names which it prints. Where the conventions coincide (one unit, so the start vector does not matter; no
    warm-up; one sequence) the analysis engine gives the same number to rounding; with the diagnostics' warm-up
    the transient of a tanh unit started far from its fixed point makes them differ."""
    from rnnaudit.analysis import lyapunov_estimate
    from rnnaudit.bounds.architectures import step_jacobians
    from rnnaudit.bounds.laurent2017.chaos import finite_time_exponent
    from rnnaudit.bounds.laurent2017.chaos_explodes_general import A_CHAOTIC
    from rnnaudit.bounds.pascanu2013.cases import linear_regime_case

    case = linear_regime_case(1, 40, 1.5, "cpu", torch.float64)
    J, _ = step_jacobians(case)
    ok, detail = A_CHAOTIC.check(case)
    assert ok and "no warm-up" in detail and "not the diagnostics'" in detail
    cell = wrap(lambda x_t, h: 1.5 * h + 0 * x_t.sum(-1, keepdim=True), input_size=case.x.shape[-1], state_size=1)
    engine = lyapunov_estimate(cell, case.x, warmup=0)
    assert float(engine.exponents[0]) == pytest.approx(float(finite_time_exponent(J)), abs=1e-12)
    tanh = wrap(lambda x_t, h: torch.tanh(0.8 * h + 0 * x_t), input_size=1, state_size=1)
    x, h0 = torch.zeros(1, 50, 1, dtype=torch.float64), 3 * torch.ones(1, dtype=torch.float64)
    from rnnaudit.analysis.jacobian import step_jacobians as engine_steps

    J_tanh, _ = engine_steps(tanh, x, h0)
    whole = float(finite_time_exponent(J_tanh.reshape(50, 1, 1)))
    after_warm_up = float(lyapunov_estimate(tanh, x, h0=h0).exponents[0])
    assert abs(whole - after_warm_up) > 0.01
