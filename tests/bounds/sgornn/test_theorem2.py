"""sgornn.theorem2 (eq. 7–8): FastRNN's non-orthogonal U breaks it."""

from rnnaudit.bounds import evaluate_cases
from rnnaudit.bounds.sgornn import theorem2
from rnnaudit.bounds.sgornn.theorem2 import local_M_phi
from tests.bounds.sgornn.cases import aligned_case


def test_theorem2_violated_for_fastrnn_with_non_orthogonal_U():
    """FastRNN with ‖U‖₂ = 2 and α + β = 1 (so only orthogonality fails): gradients explode."""
    case = aligned_case(0.5, 0.5 - 1e-9, kind="FastRNN")
    assert local_M_phi(case).item() == 1.0
    result = evaluate_cases(theorem2, [case])
    assert result.verdict == "violated"
    assert [f for f in result.records[0].failed_assumptions if f.startswith("U = φ(Θ) orthogonal")]
