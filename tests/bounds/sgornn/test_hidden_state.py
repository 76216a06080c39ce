"""sgornn.hidden_state (Appendix A.2): attained at the aligned edge case, violated with a bias, and the
search has the power to cross a bound set just below the attained supremum."""

import dataclasses

from rnnaudit.bounds import check_claim, evaluate_cases
from rnnaudit.bounds.sgornn import hidden_state
from tests.bounds.helpers import TINY, with_sizes
from tests.bounds.sgornn.cases import SMALL_SIZES, aligned_case


def test_hidden_state_violated_with_a_bias():
    """Eq. 5's class has no bias; b ≠ 0 with tiny inputs breaks ‖h_t‖ ≤ αT R_W R_x."""
    result = evaluate_cases(hidden_state, [aligned_case(0.1, 0.9, bias=5.0, x_scale=1e-3)])
    assert result.verdict == "false"
    assert any(f.startswith("b = 0") for f in result.records[0].failed_assumptions)


def test_adversarial_search_breaks_a_deliberately_tightened_bound(tmp_path):
    """The search is strong enough to cross a bound set at 0.9 × the true supremum (which is attained)."""
    def tightened(case):
        return {k: (m, 0.9 * b) for k, (m, b) in hidden_state.evaluate(case).items()}
    claim = dataclasses.replace(with_sizes(hidden_state, SMALL_SIZES), id="test.hidden_state_0.9", evaluate=tightened)
    result = check_claim(claim, TINY, seed=3, out_dir=tmp_path)
    assert result.verdict == "false" and result.counterexample_case.failed_assumptions == []
