"""The global optimiser beside the ascent (bounds/global_search.py): differential evolution on claims with at most 20
free scalars with the ascent's budget, CMA-ES on larger ones with the profile's own budget and clock; its cases count
only inside the assumptions, results.json records each method's best ratio per part and the method that found each
worst case, and the report lists the parts where they disagree."""

import dataclasses
import math

import numpy as np
import torch

from rnnaudit.bounds import Assumption, CaseSpace, Claim, Profile, check_claim
from rnnaudit.bounds.global_search import AGREEMENT_LOG_TOL, MAX_CMA_PARAMETERS, MAX_FREE_PARAMETERS, disagreements
from rnnaudit.figures.report import render_markdown

PROFILE = Profile("quick", n_random=4, restarts=2, ascent_steps=15)


@dataclasses.dataclass
class Box:
    """x ∈ [0, 1]^n, the free tensor."""

    x: torch.Tensor

    def size(self):
        return self.x.numel(), 1


def _sample(gen, h, T, device="cpu", dtype=torch.float64):
    return Box(0.5 * torch.rand(h, generator=gen, dtype=dtype))


def _clamp(case):
    case.x.clamp_(0.0, 1.0)


def _toy(evaluate, *, n=2, assumptions=(), project=_clamp, claim_id="toy.step"):
    cases = CaseSpace(case_type=Box, sample=_sample, sizes={"quick": [(n, 1)]}, free=lambda c: [c.x],
                      project=project)
    return Claim(id=claim_id, source="none", statement="toy", assumptions=assumptions, measure="m", bound="b",
                 evaluate=evaluate, cases=cases, explanation="toy")


def _step(case):
    """Ratio 0.5, or 2 where every coordinate is above 0.8: flat almost everywhere, so the gradient is 0 and
    the ascent cannot move, while a population search finds the corner."""
    m = torch.where((case.x > 0.8).all(), 2.0, 0.5) + 0 * case.x.sum()
    return {"step": (m, torch.ones((), dtype=torch.float64))}


def test_the_optimiser_finds_what_a_zero_gradient_hides_and_the_report_lists_it():
    result = check_claim(_toy(_step), PROFILE, seed=0)
    entry = result.to_json()
    methods = entry["search"]["methods"]["step"]
    assert methods["global"] == 2.0 and methods["ascent"] == 0.5
    assert result.verdict == "false" and result.errors == []
    assert result.worst_counterexample_case.origin == "global"
    assert result.worst_counterexample_case.failed_assumptions == []
    assert 0 < entry["search"]["evaluations"] <= entry["search"]["budget"] == PROFILE.restarts * PROFILE.ascent_steps
    assert disagreements(entry["search"]) == [("step", 0.5, 2.0)]
    page = render_markdown({"rnnaudit_version": "x", "created": "now", "device": "cpu", "dtype": "float64",
                            "seed": 0, "profile": "quick", "claims": [entry]})
    assert "## Search methods that disagree" in page and "| `toy.step` | step | 0.5 | 2 |" in page
    assert entry["worst_found_by"] == "differential_evolution" and "| step | 2 | differential_evolution |" in page
    older = {k: v for k, v in entry.items() if k not in ("worst_found_by", "worst_parts_found_by")}
    page = render_markdown({"rnnaudit_version": "x", "created": "now", "device": "cpu", "dtype": "float64",
                            "seed": 0, "profile": "quick", "claims": [older]})
    assert "| step | 2 | – |" in page  # a results.json written before the key renders without it


def test_cases_outside_the_assumptions_never_count():
    """The projection clamps to [0, 1] but the assumption asks x ≤ 0.5; the ratio exceeds 1 only above 0.6. The
    optimiser's population visits such points, and they are rejected, not recorded: the verdict stays holds."""
    def below(c):
        return bool((c.x.detach() <= 0.5).all()), f"max x = {float(c.x.detach().max()):.3g}"

    claim = _toy(lambda c: {"x ≤ 0.6": (c.x.max(), torch.tensor(0.6, dtype=torch.float64))},
                 assumptions=(Assumption("x ≤ 1/2", below),), project=_clamp, claim_id="toy.outside")
    result = check_claim(claim, PROFILE, seed=0)
    entry = result.to_json()["search"]
    assert entry["rejected"] > 0
    assert result.verdict == "holds" and all(r.origin != "global" or not r.failed_assumptions
                                             for r in result.records)
    assert entry["methods"]["x ≤ 0.6"]["global"] <= 0.5 / 0.6 + 1e-12


#: PROFILE with CMA-ES's budget for claims of more than 20 free scalars.
WIDE = dataclasses.replace(PROFILE, cma_evaluations=200)


def _sum_beyond(case):
    """Ratio #{x_i > 0.8} / (n/4): 0 at every case the sampler draws (x ≤ 1/2), above 1 once more than a quarter of
    the coordinates pass 0.8; flat almost everywhere (the ascent cannot move), so only a population search finds it."""
    n = case.x.numel()
    return {"mean": ((case.x > 0.8).sum() + 0 * case.x.sum(), torch.tensor(0.25 * n, dtype=torch.float64))}


def test_cma_searches_claims_beyond_twenty_free_scalars_within_its_budget_and_records_its_name():
    n = MAX_FREE_PARAMETERS + 20
    before = np.random.get_state()[1].copy()
    result = check_claim(_toy(_sum_beyond, n=n, claim_id="toy.cma"), WIDE, seed=0)
    assert np.array_equal(np.random.get_state()[1], before)  # CMA-ES draws from its own generator only
    entry = result.to_json()
    search = entry["search"]
    assert search["optimiser"] == "cma" and search["free_parameters"] == n and search["stopped"] == "budget"
    assert 0 < search["evaluations"] <= search["budget"] == WIDE.cma_evaluations
    assert search["methods"]["mean"]["global"] > 1.0 > search["methods"]["mean"]["sampling"]
    assert result.verdict == "false" and entry["worst_found_by"] == "cma"
    assert result.worst_counterexample_case.method == "cma" and result.worst_counterexample_case.origin == "global"
    again = check_claim(_toy(_sum_beyond, n=n, claim_id="toy.cma"), WIDE, seed=0).to_json()["search"]
    assert again == search


def test_cma_cases_outside_the_assumptions_never_count():
    def below(c):
        return bool((c.x.detach() <= 0.5).all()), f"max x = {float(c.x.detach().max()):.3g}"

    claim = _toy(_sum_beyond, n=MAX_FREE_PARAMETERS + 20, assumptions=(Assumption("x ≤ 1/2", below),),
                 claim_id="toy.cma_outside")
    result = check_claim(claim, WIDE, seed=0)
    assert result.to_json()["search"]["rejected"] > 0 and result.verdict == "holds"
    assert all(not r.failed_assumptions for r in result.records if r.origin == "global")


def test_the_clock_stops_the_optimiser_and_results_say_so():
    frozen = dataclasses.replace(WIDE, global_seconds=0.0)
    search = check_claim(_toy(_sum_beyond, n=MAX_FREE_PARAMETERS + 20, claim_id="toy.clock"), frozen,
                         seed=0).to_json()["search"]
    assert search["stopped"] == "time" and search["evaluations"] == 0


def test_claims_with_more_free_scalars_or_none_are_not_searched_globally():
    wide = check_claim(_toy(_step, n=MAX_FREE_PARAMETERS + 1, claim_id="toy.wide"), PROFILE, seed=0)
    assert wide.to_json()["search"]["methods"] is None
    assert wide.to_json()["search"]["free_parameters"] == MAX_FREE_PARAMETERS + 1
    assert not any(r.origin == "global" for r in wide.records)  # PROFILE gives CMA-ES no evaluations
    huge = check_claim(_toy(_step, n=MAX_CMA_PARAMETERS + 1, claim_id="toy.huge"), WIDE, seed=0)
    assert huge.to_json()["search"]["methods"] is None
    fixed = dataclasses.replace(_toy(_step), cases=dataclasses.replace(_toy(_step).cases,
                                                                      free=lambda c: []))
    assert check_claim(fixed, PROFILE, seed=0).to_json()["search"]["methods"] is None


def test_agreement_is_one_percent_in_log_and_infinity_agrees_only_with_infinity():
    def search(a, g):
        return {"methods": {"p": {"ascent": a, "global": g, "sampling": None}}}
    assert disagreements(search(1.0, 1.0 * math.exp(0.9 * AGREEMENT_LOG_TOL))) == []
    assert disagreements(search(1.0, 1.0 * math.exp(1.1 * AGREEMENT_LOG_TOL))) != []
    assert disagreements(search("inf", "inf")) == []
    assert disagreements(search("inf", 1e300)) == [("p", math.inf, 1e300)]
    assert disagreements(search(0.0, 0.0)) == []
    assert disagreements(search(0.0, 1e-3)) != []
    assert disagreements(search(None, 2.0)) == []  # a method with no measured case is not a disagreement
    assert disagreements({"methods": None}) == [] and disagreements(None) == []


def test_the_search_is_reproducible():
    a = check_claim(_toy(_step), PROFILE, seed=3).to_json()["search"]
    b = check_claim(_toy(_step), PROFILE, seed=3).to_json()["search"]
    assert a == b
