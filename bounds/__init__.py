"""Each paper's stated claims as falsifiable checks (uses ``cells`` and ``analysis``).

Find a claim by paper and number: ``bounds/<paper>.py`` holds one :class:`bounds.core.Claim`
per statement, named after it (``bounds.sgornn.theorem2``); ids are ``<paper>.<label>``.
"""

from rnnaudit.bounds.core import (PROFILES, VERDICTS, Assumption, CaseRecord, Claim, ClaimResult, Profile, check_claim,
                         evaluate_cases, load_counterexample, measure_case, save_counterexample)
from rnnaudit.bounds.registry import CLAIMS_BY_PAPER, PAPERS, all_claims, claim_by_id

__all__ = ["PROFILES", "VERDICTS", "Assumption", "CaseRecord", "Claim", "ClaimResult", "Profile", "check_claim",
           "evaluate_cases", "load_counterexample", "measure_case", "save_counterexample", "CLAIMS_BY_PAPER", "PAPERS",
           "all_claims", "claim_by_id"]
