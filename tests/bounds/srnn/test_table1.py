"""srnn.table1: the shifted recurrence's operation count has exponent ≤ 1 in d_h; a dense W_p measures ≈ 2."""

import pytest
import torch

from rnnaudit.bounds import check_claim, evaluate_cases
from rnnaudit.bounds.srnn import table1
from rnnaudit.bounds.srnn.table1 import RecurrenceCase, count_operations, count_recurrence, fit_exponent
from tests.bounds.helpers import TINY, assert_has_power, assert_reaches_supremum
from tests.bounds.srnn.cases import small


def test_table1_holds_inside_its_assumptions(tmp_path):
    result = check_claim(small(table1), TINY, seed=1, out_dir=tmp_path)
    assert result.verdict == "holds", result.notes_text()
    assert result.errors == []
    assert result.worst_ratio <= 1 + table1.tolerance


def test_fit_exponent_known_answers():
    assert fit_exponent({d: 3e-6 * d for d in (8, 32, 128)}) == pytest.approx(1.0)
    assert fit_exponent({d: 1e-9 * d**2 for d in (8, 32, 128)}) == pytest.approx(2.0)
    with pytest.raises(ValueError, match="two distinct"):
        fit_exponent({8: 1.0})
    with pytest.raises(ValueError, match="positive"):
        fit_exponent({8: 1.0, 16: 0})


def test_count_includes_the_roll_and_the_elementwise_work_flopcountermode_misses():
    x = torch.zeros(10, dtype=torch.float64)
    assert count_operations(lambda: torch.roll(x, 1)) == (0, 10)
    assert count_operations(lambda: torch.relu(x + x)) == (0, 20)
    A, B = torch.zeros(3, 4, dtype=torch.float64), torch.zeros(4, 5, dtype=torch.float64)
    assert count_operations(lambda: A @ B) == (2 * 3 * 4 * 5, 0)
    assert count_operations(lambda: torch.zeros(7)) == (0, 7)  # a fill writes every element
    assert count_operations(lambda: x.reshape(2, 5)[0]) == (0, 0)  # views cost nothing


def test_count_of_the_matrix_vector_and_dot_products_flopcountermode_lacks():
    """aten.mv and addmv: 2·m·n; aten.dot and vdot: 2·n (FlopCounterMode's registry has only the 2-D forms, and
    one operation per output element would count a dense 1024×1024 W times a 1-D state as 1024)."""
    W, h = torch.zeros(1024, 512, dtype=torch.float64), torch.zeros(512, dtype=torch.float64)
    b = torch.zeros(1024, dtype=torch.float64)
    assert count_operations(lambda: W @ h) == (2 * 1024 * 512, 0)
    assert count_operations(lambda: torch.mv(W, h)) == (2 * 1024 * 512, 0)
    assert count_operations(lambda: torch.addmv(b, W, h)) == (2 * 1024 * 512, 0)
    assert count_operations(lambda: h @ h) == (2 * 512, 0)
    assert count_operations(lambda: torch.vdot(h, h)) == (2 * 512, 0)


def test_srnn_count_is_affine_in_d_h():
    """Per step: roll, add and ReLU of d_h numbers; b(x): products into d_h plus the gate; so the count's second
    difference over equally spaced widths is 0."""
    c = count_recurrence(RecurrenceCase((64, 128, 192), T=5, d_i=3, fr_hidden=(4, 4), seed=0))
    assert c[192] - 2 * c[128] + c[64] == 0
    assert c[128] > c[64]


def test_table1_violated_for_a_dense_recurrent_matrix():
    """The negative control: W_p as a dense d_h×d_h product (a learned recurrent matrix, the O(T d_h²) rows of
    Table 1) costs 2 d_h² FLOPs per step, and the count's exponent is ≈ 2 > 1 whatever the machine's load."""
    case = RecurrenceCase((64, 256, 1024), T=4, d_i=2, fr_hidden=(8,), seed=0, recurrence="dense")
    result = evaluate_cases(table1, [case])
    assert result.verdict == "false", result.records[0].parts
    assert result.records[0].ratio > 1.9
    assert any(f.startswith("W_p applied as a permutation") for f in result.records[0].failed_assumptions)


def test_table1_violated_for_a_dense_recurrent_matrix_on_a_1d_state():
    """The negative control for the 1-D products: W_p dense applied to a 1-D hidden state (aten.mv, 2 d_h² FLOPs
    per step) must fail like the batched form; counted one per output element it would measure exponent ≈ 1."""
    case = RecurrenceCase((64, 256, 1024), T=4, d_i=2, fr_hidden=(8,), seed=0, recurrence="dense_vector")
    result = evaluate_cases(table1, [case])
    assert result.verdict == "false", result.records[0].parts
    assert result.records[0].ratio > 1.9
    assert count_recurrence(case)[1024] >= 4 * 2 * 1024**2  # T = 4 products of 2 d_h² FLOPs each


def test_table1_has_power():
    """Bound divided by 1.01 (exponent ≤ 0.99): the shifted recurrence's count at h = 16384 has exponent
    0.9993 > 0.99."""
    assert_has_power(small(table1), 1.01)


def test_table1_search_reaches_the_supremum():
    assert_reaches_supremum(table1)
