"""The model summary at the head of an audit: known answers for diagonal and orthogonal recurrent
matrices, the parametrized class named as the user wrote it, non-finite weights, bad arguments, and the
summary first in report.md and report.html."""

import math

import pytest
import torch
from torch import nn

import rnnaudit
from rnnaudit.figures.audit_report import render_audit_html, render_audit_markdown
from rnnaudit.auditing.summary import model_summary


def _rnn_with(W: torch.Tensor) -> nn.RNN:
    rnn = nn.RNN(2, W.shape[0], batch_first=True).double()
    with torch.no_grad():
        rnn.weight_hh_l0.copy_(W)
    return rnn


def test_known_answer_for_a_diagonal_matrix():
    """W = diag(2, −0.5, 1): ‖W‖₂ = ρ(W) = 2, σ_min = 0.5, ‖WᵀW − I‖₂ = max|σ² − 1| = 3 (exact in float64)."""
    rnn = _rnn_with(torch.diag(torch.tensor([2.0, -0.5, 1.0], dtype=torch.float64)))
    s = model_summary(rnn, rnnaudit.wrap(rnn), torch.float64)
    assert (s["type"], s["input_size"], s["hidden_size"], s["trained_dtype"]) == ("RNN", 2, 3, "float64")
    assert s["parameters"] == 3 * 2 + 3 * 3 + 3 + 3
    W = s["recurrent"]["W_hh"]
    assert W["shape"] == [3, 3] and W["finite"]
    assert (W["spectral_norm"], W["spectral_radius"], W["sigma_min"], W["orthogonality_defect"]) == \
        pytest.approx((2.0, 2.0, 0.5, 3.0), rel=1e-14)


def test_orthogonal_parametrization_is_named_and_measured_orthogonal():
    torch.manual_seed(0)
    rnn = nn.utils.parametrizations.orthogonal(nn.RNN(1, 6, batch_first=True).double(), "weight_hh_l0")
    s = rnnaudit.audit(rnn, torch.rand(2, 10, 1, dtype=torch.float64), measure_bounds=False)["model"]
    assert s["type"] == "RNN (parametrized: weight_hh_l0)"
    W = s["recurrent"]["W_hh"]
    # an orthogonal map computed in float64: singular values within a few ulp of 1
    assert W["orthogonality_defect"] < 1e-12 and W["spectral_norm"] == pytest.approx(1.0, abs=1e-12)


def test_every_gate_matrix_of_a_gru():
    gru = nn.GRU(2, 4)
    s = model_summary(gru, rnnaudit.wrap(gru), torch.float32)
    assert list(s["recurrent"]) == ["W_hr", "W_hz", "W_hn"]
    assert all(e["shape"] == [4, 4] for e in s["recurrent"].values())


def test_non_finite_weights_are_reported_not_measured():
    rnn = _rnn_with(torch.full((3, 3), math.nan, dtype=torch.float64))
    W = model_summary(rnn, rnnaudit.wrap(rnn), torch.float64)["recurrent"]["W_hh"]
    assert W == {"shape": [3, 3], "finite": False}
    doc = {"source": "s", "latest": {"step": 0, "config": {}, "claims": []}, "model": {"type": "RNN", "recurrent":
                                                                                     {"W_hh": W}}}
    assert "| W_hh | 3 × 3 | not finite |" in render_audit_markdown(doc)


@pytest.mark.parametrize("model, dtype, name", [("not a module", torch.float32, "model"),
                                                (nn.RNN(1, 2), "float32", "trained_dtype")])
def test_bad_arguments_are_named(model, dtype, name):
    with pytest.raises(TypeError, match=f"^{name} must be"):
        model_summary(model, rnnaudit.wrap(nn.RNN(1, 2)), dtype)


def test_model_summary_comes_first_in_both_reports(tmp_path):
    rnn = _rnn_with(torch.diag(torch.tensor([2.0, -0.5, 1.0], dtype=torch.float64)))
    result = rnnaudit.audit(rnn, torch.rand(2, 8, 2, dtype=torch.float64), measure_bounds=False)
    doc = {"source": "mine.pt", "latest": {"step": None, "config": {}, "claims": result["claims"]},
           "model": result["model"]}
    md = render_audit_markdown(doc)
    assert md.index("## Model") < md.index("## Summary") < md.index("## Claims that apply")
    assert "| W_hh | 3 × 3 | 2 | 2 | 0.5 | 3 |" in md
    html = render_audit_html(doc, tmp_path)
    assert html.index("id='model'") < html.index("id='summary'") and "‖WᵀW − I‖₂" in html


def test_audit_of_a_module_without_recurrent_weights_names_model():
    with pytest.raises(ValueError, match=r"^model: wrap\(\) supports .* got Linear$"):
        rnnaudit.audit(nn.Linear(2, 3), torch.rand(3, 2))


def test_an_lru_summary_measures_the_complex_eigenvalues_not_their_real_parts():
    """Λ = diag(λ) of an LRU is complex: ρ(Λ) = ‖Λ‖₂ = max|λ_j| and σ_min = min|λ_j|. Its real part alone (what a
    cast to float64 keeps) has ρ = max|Re λ_j| < max|λ_j| for phases θ ∉ {0, π}, so this test fails on that cast."""
    from rnnaudit.cells import LRU

    lru = LRU(1, 6, r_min=0.5, r_max=0.9, max_phase=math.pi / 2, generator=torch.Generator().manual_seed(3),
              dtype=torch.float64)
    moduli = lru.lambdas().detach().abs()
    assert float(lru.lambdas().detach().real.abs().max()) < float(moduli.max()) - 1e-3  # the control is not vacuous
    Lam = model_summary(lru, lru, torch.float64)["recurrent"]["Lambda"]
    assert Lam["spectral_radius"] == pytest.approx(float(moduli.max()), rel=1e-12)
    assert Lam["spectral_norm"] == pytest.approx(float(moduli.max()), rel=1e-12)
    assert Lam["sigma_min"] == pytest.approx(float(moduli.min()), rel=1e-12)
