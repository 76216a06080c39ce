"""Each paper's stated claims as falsifiable checks (uses ``rnnaudit.cells`` and ``rnnaudit.analysis``).

The id is the path: ``sgornn.theorem2`` lives in ``bounds/sgornn/theorem2.py`` (its
``.corrected`` form, when it has one, in the same file). Each paper's ``__init__`` lists its claims
in paper order (``CLAIMS``) and indexes every labelled statement of the paper (``COVERAGE``).

``core`` (the record, assumptions, tolerances; imports nothing else of bounds) ← ``cases`` (saving
and reloading cases), ``results`` ← ``search`` (random and adversarial search, verdicts) ← the papers ←
``registry`` (all claims, reloading counterexamples).
"""

from rnnaudit.bounds.cases import case_from_state, case_state, copy_case, load_params
from rnnaudit.bounds.core import (FAILING, FLOAT32_TRAINED, FLOAT64_CASES, PROFILES, VERDICTS, Assumption, CaseSpace,
                                  Claim, ExactVerdict, Finding, NotApplicable, Profile, Reading, Statement, Supremum,
                                  Tolerances, assumption_tolerances, tolerances, within, worst_pair)
from rnnaudit.bounds.results import RESULTS_FORMAT_VERSION, CaseRecord, ClaimResult, ReadingResult
from rnnaudit.bounds.registry import (CLAIMS_BY_PAPER, COVERAGE_BY_PAPER, PAPERS, all_claims, claim_by_id, coverage,
                                      load_counterexample)
from rnnaudit.bounds.search import check_claim, evaluate_cases, measure_case, save_counterexample

__all__ = ["PROFILES", "VERDICTS", "FAILING", "Reading", "ReadingResult", "Finding", "RESULTS_FORMAT_VERSION",
           "Assumption", "CaseRecord", "CaseSpace", "Claim", "ClaimResult", "Profile",
           "ExactVerdict", "NotApplicable", "Statement", "Supremum", "Tolerances", "FLOAT64_CASES", "FLOAT32_TRAINED",
           "tolerances", "assumption_tolerances", "within", "worst_pair", "check_claim", "evaluate_cases",
           "measure_case", "save_counterexample", "load_counterexample", "case_state", "case_from_state", "copy_case",
           "load_params", "CLAIMS_BY_PAPER", "COVERAGE_BY_PAPER", "PAPERS", "all_claims", "claim_by_id", "coverage"]
