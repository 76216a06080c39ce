"""The verdict rules themselves, on toy claims whose truth is known: vacuous, inconclusive, cases
outside the assumptions, the tolerance, which counterexample is saved, and the ratio rule."""

import dataclasses
import math

import pytest
import torch

from rnnaudit.bounds import (FLOAT32_TRAINED, FLOAT64_CASES, Assumption, CaseSpace, Claim, ExactVerdict, Profile,
                             Statement, Supremum, assumption_tolerances, check_claim, evaluate_cases,
                             load_counterexample, tolerances, within, worst_pair)
from rnnaudit.bounds.core import safe_ratio
from rnnaudit.bounds.search import save_counterexample

F64 = torch.float64


@dataclasses.dataclass
class ToyCase:
    """measured = a, bound = b, at size (h, T); ``inside`` is the toy assumption."""

    a: torch.Tensor
    b: torch.Tensor
    h: int = 1
    T: int = 1
    inside: bool = True

    def size(self):
        return self.h, self.T


def toy_claim(sample, *, vacuous=None, free=None, project=None, sizes=((1, 1),)):
    space = CaseSpace(case_type=ToyCase, sample=sample, sizes={"quick": list(sizes)},
                      **({"free": free} if free else {}), **({"project": project} if project else {}))
    return Claim(id="test.toy", source="test", statement="a ≤ b",
                 assumptions=(Assumption("inside", lambda c: (c.inside, f"inside = {c.inside}")),),
                 measure="a", bound="b", evaluate=lambda c: {"a ≤ b": (c.a, c.b)}, cases=space, explanation="toy",
                 vacuous=vacuous)


def constant(a, b):
    return lambda gen, h, T, device, dtype: ToyCase(torch.tensor(a, dtype=dtype), torch.tensor(b, dtype=dtype), h, T)


ONE = Profile("quick", n_random=3, restarts=0, ascent_steps=0)


def test_ratio_at_the_tolerance_holds_and_above_it_is_violated():
    claim = toy_claim(constant(1.0, 1.0))
    assert check_claim(dataclasses.replace(claim, cases=dataclasses.replace(
        claim.cases, sample=constant(1 + 0.5 * claim.tolerance, 1.0))), ONE).verdict == "holds"
    assert check_claim(dataclasses.replace(claim, cases=dataclasses.replace(
        claim.cases, sample=constant(1 + 2 * claim.tolerance, 1.0))), ONE).verdict == "false"


def test_zero_over_zero_holds_and_positive_over_zero_is_infinite():
    assert check_claim(toy_claim(constant(0.0, 0.0)), ONE).verdict == "holds"
    result = check_claim(toy_claim(constant(1e-300, 0.0)), ONE)
    assert result.verdict == "false" and math.isinf(result.worst_ratio)
    r = safe_ratio(torch.tensor([0.0, 2.0, 3.0, -1.0]), torch.tensor([0.0, 0.0, 2.0, 0.0]))
    assert r.tolist() == [0.0, math.inf, 1.5, 0.0]  # −1 ≤ 0 holds


def test_vacuous_only_when_every_case_says_so():
    assert check_claim(toy_claim(constant(0.5, 1.0), vacuous=lambda c: True), ONE).verdict == "vacuous"
    alternating = iter([True, False, True])
    assert check_claim(toy_claim(constant(0.5, 1.0), vacuous=lambda c: next(alternating)), ONE).verdict == "holds"
    # a violation is reported even where the bound is also vacuous elsewhere
    assert check_claim(toy_claim(constant(2.0, 1.0), vacuous=lambda c: True), ONE).verdict == "false"


def test_inconclusive_when_nothing_can_be_measured():
    def broken(case):
        raise ValueError("probe failed")
    claim = dataclasses.replace(toy_claim(constant(1.0, 1.0)), evaluate=broken)
    result = check_claim(claim, ONE)
    assert result.verdict == "inconclusive" and result.worst_ratio is None


def test_a_sampled_case_outside_the_assumptions_is_excluded_and_reported():
    def sample(gen, h, T, device, dtype):
        return ToyCase(torch.tensor(5.0, dtype=dtype), torch.tensor(1.0, dtype=dtype), inside=False)
    result = check_claim(toy_claim(sample), ONE)
    # a violating case outside the assumptions is never a counterexample: nothing is left to judge
    assert result.verdict == "inconclusive"
    assert result.errors and "left the assumptions" in result.errors[0]


def test_hand_fed_cases_outside_the_assumptions_are_measured_and_listed():
    case = ToyCase(torch.tensor(3.0), torch.tensor(1.0), inside=False)
    result = evaluate_cases(toy_claim(constant(1.0, 1.0)), [case])
    assert result.verdict == "false" and result.records[0].failed_assumptions == ["inside (inside = False)"]


def test_the_saved_counterexample_is_the_smallest_violating_case(tmp_path):
    sizes = iter([(8, 10, 3.0), (2, 3, 1.5), (2, 3, 2.5), (4, 1, 9.0), (2, 2, 0.5)])

    def sample(gen, h, T, device, dtype):
        h, T, a = next(sizes)
        return ToyCase(torch.tensor(a, dtype=dtype), torch.tensor(1.0, dtype=dtype), h, T)
    result = check_claim(toy_claim(sample), Profile("quick", n_random=4, restarts=0, ascent_steps=0), out_dir=tmp_path)
    ce = result.counterexample_case
    assert (ce.h, ce.T, ce.ratio) == (4, 1, 9.0)  # h·T = 4 is the smallest; equal sizes prefer the larger ratio
    assert (tmp_path / "test.toy.pt").is_file()


def test_counterexample_of_an_unregistered_claim_is_refused_on_reload(tmp_path):
    claim = toy_claim(constant(2.0, 1.0))
    result = check_claim(claim, ONE)
    save_counterexample(tmp_path / "x.pt", claim, result.counterexample_case)
    with pytest.raises(ValueError, match="names the claim .test.toy., which this version of rnnaudit does not have"):
        load_counterexample(tmp_path / "x.pt")


def test_the_ascent_finds_a_violation_random_cases_miss():
    """measured = x, bound = 1, x starts at 0.5 and the projection caps it at 2: only the ascent can find x > 1."""
    def sample(gen, h, T, device, dtype):
        return ToyCase(torch.tensor(0.5, dtype=dtype), torch.tensor(1.0, dtype=dtype))
    claim = toy_claim(sample, free=lambda c: [c.a], project=lambda c: c.a.clamp_(max=2.0))
    assert check_claim(claim, ONE).verdict == "holds"
    result = check_claim(claim, Profile("quick", n_random=2, restarts=1, ascent_steps=40, lr=0.1))
    assert result.verdict == "false" and result.worst_ratio == pytest.approx(2.0)


def test_worst_pair_follows_the_ratio_rule():
    m, b = worst_pair(torch.tensor([1.0, 3.0, 0.0, 1.0]), torch.tensor([1.0, 4.0, 0.0, 0.5]))
    assert (float(m), float(b)) == (1.0, 0.5)
    m, b = worst_pair(torch.tensor([[0.0, 1e-9, 5.0]], dtype=F64), torch.tensor([[0.0, 0.0, 1.0]], dtype=F64))
    assert float(m) == 1e-9  # m/0 = inf beats the finite ratio 5


def test_tolerances_default_to_float64_and_the_context_restores_them():
    assert assumption_tolerances() is FLOAT64_CASES
    assert within(1.0 + 1e-13, 1.0) and not within(1.0 + 1e-9, 1.0)
    with tolerances(FLOAT32_TRAINED):
        assert within(1.0 + 1e-7, 1.0) and not within(1.0 + 1e-5, 1.0)
    assert assumption_tolerances() is FLOAT64_CASES


def test_paper_is_derived_from_the_id():
    assert toy_claim(constant(1.0, 1.0)).paper == "test"


def test_structured_starts_are_measured_at_every_size_and_can_carry_the_worst_case():
    def starts(h, T, device, dtype):
        return [ToyCase(torch.tensor(0.9 * h, dtype=dtype), torch.tensor(float(h), dtype=dtype), h, T)]
    claim = toy_claim(constant(0.1, 1.0), sizes=((1, 1), (2, 1)))
    claim = dataclasses.replace(claim, cases=dataclasses.replace(claim.cases, starts=starts))
    result = check_claim(claim, ONE)
    structured = [r for r in result.records if r.origin == "structured"]
    assert [(r.h, r.T) for r in structured] == [(1, 1), (2, 1)] and result.worst_ratio == pytest.approx(0.9)


def test_results_name_the_structured_start_that_found_the_worst_case_of_the_claim_and_of_each_part():
    def starts(h, T, device, dtype):
        return {"corner": ToyCase(torch.tensor(0.9 * h, dtype=dtype), torch.tensor(float(h), dtype=dtype), h, T)}
    claim = toy_claim(constant(0.1, 1.0), sizes=((1, 1), (2, 1)))
    claim = dataclasses.replace(claim, cases=dataclasses.replace(claim.cases, starts=starts))
    entry = check_claim(claim, ONE).to_json()
    assert entry["worst_ratio"] == pytest.approx(0.9) and entry["worst_found_by"] == "structured:corner"
    assert set(entry["worst_parts_found_by"].values()) == {"structured:corner"}
    low = dataclasses.replace(claim, cases=dataclasses.replace(claim.cases, starts=lambda *a: {
        "low": ToyCase(torch.tensor(0.0, dtype=F64), torch.tensor(1.0, dtype=F64), 1, 1)}))
    assert check_claim(low, ONE).to_json()["worst_found_by"] == "random"


def test_identities_report_the_relative_error_of_the_formula():
    """error/tolerance says only that the formula fails; the relative error says by how much."""
    def evaluate(case):
        return {"formula = truth": (case.a, case.b, torch.tensor(4.0, dtype=F64))}
    claim = dataclasses.replace(toy_claim(constant(2.0, 1e-12)), evaluate=evaluate)
    entry = check_claim(claim, ONE).to_json()
    assert entry["verdict"] == "false" and entry["worst_ratio"] == pytest.approx(2e12)
    assert entry["relative_error"] == pytest.approx(0.5) and entry["absolute_error"] == pytest.approx(2.0)


def test_both_the_smallest_and_the_worst_counterexample_are_saved(tmp_path):
    values = iter([(8, 10, 3.0), (2, 3, 1.5), (4, 4, 9.0)])

    def sample(gen, h, T, device, dtype):
        h, T, a = next(values)
        return ToyCase(torch.tensor(a, dtype=dtype), torch.tensor(1.0, dtype=dtype), h, T)
    result = check_claim(toy_claim(sample), ONE, out_dir=tmp_path)
    assert (result.counterexample_case.h, result.counterexample_case.ratio) == (2, 1.5)
    assert (result.worst_counterexample_case.h, result.worst_counterexample_case.ratio) == (4, 9.0)
    assert result.counterexample.endswith("test.toy.pt") and result.worst_counterexample.endswith("test.toy.worst.pt")
    assert "Worst counterexample: h = 4, T = 4, ratio 9" in result.notes_text()


def test_exact_verdicts_and_known_suprema_reach_the_results():
    claim = dataclasses.replace(toy_claim(constant(0.5, 1.0)), exact=lambda: ExactVerdict("proved", "a ≤ b for all"),
                                supremum=Supremum(0.8, "a/b ≤ 4/5 by construction", at=(1, 1)))
    entry = check_claim(claim, ONE).to_json()
    assert entry["exact"] == {"verdict": "proved", "detail": "a ≤ b for all"}
    assert entry["supremum"] == 0.8 and entry["supremum_reached"] == pytest.approx(0.625)
    with pytest.raises(ValueError):
        ExactVerdict("maybe", "")
    with pytest.raises(ValueError, match="reason"):
        Statement("Theorem 9")
    assert Statement("Theorem 9", ("x.y",)).status == "checked"
    assert Statement("eq. (1)", reason="a definition").status == "not checkable"


# ------------------------------------------------------------------------- false, misprinted, readings
def _reading(evaluate, name="b doubled"):
    from rnnaudit.bounds import Reading

    return Reading(name, "a ≤ 2b", "the toy's own text", evaluate)


def test_printed_form_failing_with_a_reading_that_holds_is_misprinted():
    claim = dataclasses.replace(toy_claim(constant(1.5, 1.0)),
                                readings=(_reading(lambda c: {"a ≤ 2b": (c.a, 2 * c.b)}),))
    result = check_claim(claim, ONE)
    assert result.verdict == "misprinted" and result.fails
    (reading,) = result.readings
    assert reading.verdict == "holds" and reading.worst_ratio == pytest.approx(0.75) and reading.n_cases == 3
    entry = result.to_json()
    assert entry["readings"] == [{"name": "b doubled", "statement": "a ≤ 2b", "support": "the toy's own text",
                                  "verdict": "holds", "worst_ratio": pytest.approx(0.75), "n_cases": 3,
                                  "exact": None}]
    assert result.counterexample_case is not None  # saved for misprinted as for false


def test_printed_form_failing_with_no_reading_that_holds_is_false():
    # the negative control of the test above: the same reading, on a case where it fails too
    claim = dataclasses.replace(toy_claim(constant(3.0, 1.0)),
                                readings=(_reading(lambda c: {"a ≤ 2b": (c.a, 2 * c.b)}),))
    result = check_claim(claim, ONE)
    assert result.verdict == "false" and result.readings[0].verdict == "false"
    assert result.readings[0].worst_ratio == pytest.approx(1.5)


def test_printed_form_holding_is_holds_whatever_a_reading_says():
    claim = dataclasses.replace(toy_claim(constant(0.5, 1.0)),
                                readings=(_reading(lambda c: {"a ≤ b/4": (c.a, c.b / 4)}, "b quartered"),))
    result = check_claim(claim, ONE)
    assert result.verdict == "holds" and result.readings[0].verdict == "false"


def test_evaluate_cases_measures_the_readings_on_the_given_cases():
    claim = dataclasses.replace(toy_claim(constant(1.0, 1.0)),
                                readings=(_reading(lambda c: {"a ≤ 2b": (c.a, 2 * c.b)}),))
    inside = evaluate_cases(claim, [ToyCase(torch.tensor(1.5, dtype=F64), torch.tensor(1.0, dtype=F64))])
    assert inside.verdict == "misprinted"
    far = evaluate_cases(claim, [ToyCase(torch.tensor(5.0, dtype=F64), torch.tensor(1.0, dtype=F64))])
    assert far.verdict == "false"


def test_an_exact_counterexample_decides_a_strict_inequality_attained_with_equality():
    """Ratio exactly 1 holds in floating point; an exact verdict that the strict form is attained makes it false."""
    attained = ExactVerdict("violated", "a = b exactly, where a < b is stated")
    claim = dataclasses.replace(toy_claim(constant(1.0, 1.0)), exact=lambda: attained)
    result = check_claim(claim, ONE)
    assert result.verdict == "false" and result.counterexample_case is not None
    # the negative control: the same cases with an exact proof hold
    proved = dataclasses.replace(claim, exact=lambda: ExactVerdict("proved", "a ≤ b"))
    assert check_claim(proved, ONE).verdict == "holds"


def test_a_reading_needs_the_text_that_supports_it():
    from rnnaudit.bounds import Reading

    with pytest.raises(ValueError, match="supports"):
        Reading("x", "a ≤ 2b", "", lambda c: {})


def test_a_finding_names_a_claim_of_its_entry_and_a_failing_verdict():
    from rnnaudit.bounds.core import Finding

    Statement("eq. 1", ("p.eq1",), finding=Finding("false", "p.eq1", "wrong"))
    with pytest.raises(ValueError, match="not among its claims"):
        Statement("eq. 1", ("p.eq1",), finding=Finding("false", "p.eq2", "wrong"))
    with pytest.raises(ValueError, match="verdict"):
        Finding("violated", "p.eq1", "wrong")
