"""spectral_rnn.dimensions: the dimension counts of Sec. 3 and Sec. 5 and the reflector-count equivalences hold,
exactly and by the rank of the parametrisation's Jacobian."""

import importlib

from rnnaudit.bounds import check_claim, measure_case
from rnnaudit.bounds.spectral_rnn import dimensions
from rnnaudit.bounds.spectral_rnn.dimensions import DimCase, input_dims, jacobian_rank
from tests.bounds.helpers import TINY, with_sizes
from tests.bounds.spectral_rnn.cases import assert_holds_inside

dimensions_module = importlib.import_module("rnnaudit.bounds.spectral_rnn.dimensions")


def test_dimensions_hold_and_are_proved_exactly(tmp_path):
    assert_holds_inside(dimensions, [(1, 1), (3, 1), (4, 1)], tmp_path)
    assert dimensions.exact().verdict == "proved"


def test_known_counts_and_ranks():
    """n = 3: 3² + 2·3 = 15 inputs, 9 with unit vectors; a 2 × 4 matrix has 8 dimensions, its Jacobian rank 8."""
    assert input_dims(3, 3, unit=False) == 15 and input_dims(3, 3, unit=True) == 9
    assert input_dims(2, 4, unit=True) == 8 and jacobian_rank(DimCase(2, 4, 0)) == 8
    assert jacobian_rank(DimCase(3, 3, 1)) == 9


def test_dimensions_check_has_power_against_counting_k_for_unit_vectors(monkeypatch):
    """Counting dim u_k = k also for unit vectors (forgetting the sphere) gives n² + n, not n²: caught."""
    monkeypatch.setattr(dimensions_module, "input_dims", lambda p, q, unit: input_dims(p, q, unit=False))
    result = check_claim(with_sizes(dimensions, [(2, 1)]), TINY, seed=0)
    assert result.verdict == "false"
    assert measure_case(dimensions, DimCase(2, 2, 0))[1]["Sec. 3: with ‖u_k‖ = ‖v_k‖ = 1 exactly n²"] > 1
