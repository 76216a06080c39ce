"""The search counts a NaN measurement on finite inputs inside the assumptions as a violation (reported "NaN"), and
leaves out a NaN outside the assumptions or from non-finite inputs."""

import dataclasses
import math

import torch

from rnnaudit.bounds import Assumption, CaseSpace, Claim, check_claim, evaluate_cases
from tests.bounds.test_core import ONE, ToyCase, constant


def sqrt_claim(sample):
    """measured √a against bound b: a < 0 gives a NaN measurement while the assumption ``inside`` holds."""
    return Claim(id="test.sqrt", source="test", statement="√a ≤ b",
                 assumptions=(Assumption("inside", lambda c: (c.inside, f"inside = {c.inside}")),),
                 measure="√a", bound="b", evaluate=lambda c: {"√a ≤ b": (torch.sqrt(c.a), c.b)},
                 cases=CaseSpace(case_type=ToyCase, sample=sample, sizes={"quick": [(1, 1)]}), explanation="toy")


def test_a_nan_measurement_inside_the_assumptions_is_a_violation_reported_as_nan():
    result = check_claim(sqrt_claim(constant(-1.0, 1.0)), ONE)
    assert result.verdict == "false"
    assert result.worst_record.not_a_number and math.isinf(result.worst_ratio)
    out = result.to_json()
    assert out["worst_ratio"] == "NaN" and "ratio NaN" in out["notes"]
    assert result.counterexample_case is not None and result.counterexample_case.not_a_number


def test_a_finite_measurement_is_not_marked_nan():
    result = check_claim(sqrt_claim(constant(0.25, 1.0)), ONE)
    assert result.verdict == "holds" and not any(r.not_a_number for r in result.records)


def test_a_nan_measurement_outside_the_assumptions_stays_excluded():
    outside = lambda gen, h, T, device, dtype: ToyCase(torch.tensor(-1.0, dtype=dtype),  # noqa: E731
                                                      torch.tensor(1.0, dtype=dtype), h, T, inside=False)
    result = evaluate_cases(sqrt_claim(outside), [outside(None, 1, 1, "cpu", torch.float64)])
    assert result.verdict == "inconclusive" and not result.records[0].not_a_number


def test_a_nan_from_non_finite_inputs_fails_an_assumption_instead_of_counting():
    nan_input = constant(math.nan, 1.0)
    result = evaluate_cases(sqrt_claim(nan_input), [nan_input(None, 1, 1, "cpu", torch.float64)])
    (record,) = result.records
    assert not record.not_a_number and any("inputs are finite" in f for f in record.failed_assumptions)
    assert result.verdict == "inconclusive"


def test_an_infinite_measurement_against_a_finite_bound_is_a_violation():
    claim = dataclasses.replace(sqrt_claim(constant(1.0, 1.0)),
                                evaluate=lambda c: {"e^(10⁴a) ≤ b": (torch.exp(1e4 * c.a), c.b)})
    result = check_claim(claim, ONE)
    assert result.verdict == "false" and math.isinf(result.worst_ratio) and not result.worst_record.not_a_number
