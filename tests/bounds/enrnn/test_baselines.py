"""enrnn.baselines (Sec. 5.1–5.2): 0.167 = 1/6 and 10 log 8/(T + 20) hold; the copying layout described is T + 22
(T + 12 symbols), not T + 20."""

import dataclasses
import math

from rnnaudit.bounds import check_claim
from rnnaudit.bounds.enrnn import baselines
from rnnaudit.bounds.enrnn.baselines import _measure, adding_baseline, copying_baseline
from tests.bounds.enrnn.cases import assert_exact_agrees, small
from tests.bounds.helpers import TINY, assert_reproducible_violation


def test_enrnn_adding_and_copying_baselines():
    assert math.isclose(adding_baseline(), 1 / 6, rel_tol=1e-14)
    assert math.isclose(copying_baseline(2000), 10 * math.log(8) / 2020, rel_tol=1e-12)


def test_enrnn_copying_length_of_the_described_layout_is_violated(tmp_path):
    assert_reproducible_violation(small(baselines), TINY, tmp_path)
    result = check_claim(small(baselines), TINY, seed=0)
    bad = {k for k, v in result.worst_parts().items() if v > 1 + 1e-9}
    assert bad == {"Sec. 5.2: length of the described layout, 10 + 1 + T + 1 + 10 output steps = T + 20"}
    assert result.worst_ratio == 4.0  # T + 22 against T + 20, outputs counted
    # the other reading (outputs not counted: T + 12 against T + 20) fails too, so the headline is false
    (reading,) = result.readings
    assert result.verdict == "false" and reading.verdict == "false" and reading.worst_ratio == 16.0
    assert_exact_agrees(baselines, result)


def test_enrnn_adding_baseline_check_sees_a_wrong_prediction():
    wrong = dataclasses.replace(baselines, evaluate=lambda c: {
        k: v for k, v in _measure(c, prediction=0.5).items() if k.startswith("Sec. 5.1")}, exact=None)
    assert check_claim(small(wrong), TINY, seed=0).verdict == "false"
