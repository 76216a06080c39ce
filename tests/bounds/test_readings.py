"""The claims whose verdict rests on a reading of the paper's text (docs/verdicts.md): each misprinted claim fails as
printed and holds under its reading; the negative control gives the reading the printed evaluation (a reading that
does not change what is measured), and the same search must then say ``false``."""

import dataclasses

import pytest
import torch

from rnnaudit.bounds import check_claim, claim_by_id
from tests.bounds.helpers import TINY

#: Every claim whose headline is misprinted, with the reading that holds.
MISPRINTED = ["sgornn.eq2.domain", "spectral_rnn.algorithm1", "spectral_rnn.algorithm3",
              "spectral_rnn.theorem3_construction", "nc_gru.theorem1", "nc_gru.eq37", "nc_gru.corollary2",
              "nc_gru.corollary3", "srnn.hidden_gradient", "srnn.gamblers_ruin", "enrnn.eq3_sentence",
              "enrnn.proposition3.2", "enrnn.eq4", "spectral_rnn.copy_baseline", "sgornn.sec3.model_count",
              "srnn.table1_count", "enrnn.conjugate", "spectral_rnn.theorem4"]


#: Claims whose first two quick sizes are too small to fail (h = 1, or no coupling block): all their sizes.
ALL_SIZES = {"enrnn.eq3_sentence": 4, "spectral_rnn.theorem4": 4}


def _first_sizes(claim, n=2):
    quick = claim.cases.sizes["quick"][:n]
    out = dataclasses.replace(claim, cases=dataclasses.replace(claim.cases, sizes={"quick": quick}))
    readings = tuple(dataclasses.replace(r, cases=dataclasses.replace(r.cases, sizes={"quick": r.cases.sizes["quick"]
                                                                                       [:n]}))
                     if r.cases is not None else r for r in claim.readings)
    return dataclasses.replace(out, readings=readings)


@pytest.mark.parametrize("claim_id", MISPRINTED)
def test_misprinted_claim_fails_as_printed_and_holds_under_its_reading(claim_id):
    claim = _first_sizes(claim_by_id(claim_id), ALL_SIZES.get(claim_id, 2))
    result = check_claim(claim, TINY, seed=0)
    assert result.verdict == "misprinted", (claim_id, result.verdict, result.worst_ratio)
    assert any(r.verdict == "holds" for r in result.readings)
    # the negative control: the reading measured as printed is no reading at all, and the claim is false
    unchanged = dataclasses.replace(claim, readings=tuple(dataclasses.replace(r, evaluate=claim.evaluate,
                                                                              cases=None, assumptions=None)
                                                          for r in claim.readings))
    assert check_claim(unchanged, TINY, seed=0).verdict == "false", claim_id


#: Claims that hold as printed and carry a reading that is false (the report shows both).
HOLDS_WITH_A_FALSE_READING = ["nc_gru.sec4_data", "nc_gru.sec4_3", "nc_gru.sec4_lm"]


@pytest.mark.parametrize("claim_id", HOLDS_WITH_A_FALSE_READING)
def test_a_holding_claim_shows_its_false_reading(claim_id):
    claim = _first_sizes(claim_by_id(claim_id), 3)
    result = check_claim(claim, TINY, seed=0)
    assert result.verdict == "holds" and [r.verdict for r in result.readings] == ["false"], (claim_id, result.verdict)
    # the negative control: the reading measured as printed holds like the printed form
    same = dataclasses.replace(claim, readings=tuple(dataclasses.replace(
        r, evaluate=claim.evaluate, cases=None, assumptions=None, exact=claim.exact if r.exact is not None else None)
        for r in claim.readings))
    assert [r.verdict for r in check_claim(same, TINY, seed=0).readings] == ["holds"]


def test_shift_wlog_holds_for_single_cycles_and_its_every_permutation_reading_is_false():
    claim = _first_sizes(claim_by_id("srnn.shift_wlog"), n=5)
    result = check_claim(claim, TINY, seed=0)
    (reading,) = result.readings
    assert result.verdict == "holds" and reading.verdict == "false" and reading.exact.verdict == "violated"
    # the negative control: the printed form measured as the every-permutation reading is false
    wide = dataclasses.replace(claim, evaluate=claim.readings[0].evaluate, cases=claim.readings[0].cases,
                               assumptions=claim.readings[0].assumptions, readings=())
    assert check_claim(wide, TINY, seed=0).verdict == "false"


def test_relu_vanishing_holds_per_path_and_its_two_whole_state_readings_are_false():
    """Sec. 3's 'z_{t'} < 0' read for the whole state (some unit, or every unit at one step) is false on the claim's
    structured starts (d_h = 2), while the per-path printed form holds; the negative control measures each reading
    as the per-path form, and both then hold."""
    claim = _first_sizes(claim_by_id("srnn.relu_vanishing"), n=3)
    result = check_claim(claim, TINY, seed=0)
    assert result.verdict == "holds" and [r.verdict for r in result.readings] == ["false", "false"]
    same = dataclasses.replace(claim, readings=tuple(dataclasses.replace(r, evaluate=claim.evaluate)
                                                     for r in claim.readings))
    assert [r.verdict for r in check_claim(same, TINY, seed=0).readings] == ["holds", "holds"]


def test_table4s_printed_depth_rule_and_its_minimum_variant_are_false_readings():
    """App. C.1's depth rule as printed (and with 'minimum' for 'maximum') disagrees with Table 4's depth column
    (exactly, row by row); the negative control: a table whose depth column follows each rule holds under it."""
    from rnnaudit.bounds.spectral_rnn.table4 import depth_literal, depth_smallest_ni, table4_case

    claim = claim_by_id("spectral_rnn.table4")
    result = check_claim(claim, TINY, seed=0)
    assert result.verdict == "false" and [r.verdict for r in result.readings] == ["false", "false"]
    assert [r.exact.verdict for r in result.readings] == ["violated", "violated"]
    case = table4_case("cpu", torch.float64)
    for reading, rule in zip(claim.readings, (depth_literal, depth_smallest_ni)):
        ruled = dataclasses.replace(case, depth=torch.tensor([rule(x) for x in case.L.tolist()]))
        ((measured, bound),) = reading.evaluate(ruled).values()
        assert float(measured) == float(bound)
        ((measured, bound),) = reading.evaluate(case).values()
        assert float(measured) > float(bound)


#: Cases the full suite runs (python -m pytest --full); the fast suite keeps the family's other cases.
SLOW_CASES = {
    "test_misprinted_claim_fails_as_printed_and_holds_under_its_reading": {"nc_gru.corollary2", "nc_gru.corollary3",
                                                                           "nc_gru.theorem1", "enrnn.conjugate"},
}
