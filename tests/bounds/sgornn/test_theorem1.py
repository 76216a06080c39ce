"""sgornn.theorem1: no violation found inside eq. 3, violated outside it."""

import torch

from rnnaudit.bounds import Profile, check_claim, evaluate_cases
from rnnaudit.bounds.sgornn import theorem1
from rnnaudit.bounds.sgornn.cases import logit
from rnnaudit.bounds.sgornn.theorem1 import SampleCase
from rnnaudit.cells import SGORNN
from tests.bounds.helpers import with_sizes

F64 = torch.float64


def test_theorem1_no_violation_found_inside_and_violated_outside_eq3():
    """Inside eq. 3 the capacity probe's lower estimate stays under 2αT R_W R_x R_v/√m; with
    α + β = 1.3 the states grow like 1.3^T and the estimate passes the bound."""
    result = check_claim(with_sizes(theorem1, [(2, 1), (4, 5)]), Profile("quick", n_random=4, restarts=0,
                                                                         ascent_steps=0), seed=0)
    assert result.verdict == "holds" and result.errors == []
    cell = SGORNN(2, 4, bias=False, clip_beta=False, dtype=F64, generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        cell.alpha_logit.fill_(logit(0.4))
        cell.beta_logit.fill_(logit(0.9))
    X = torch.nn.functional.normalize(torch.randn(2, 20, 2, dtype=F64, generator=torch.Generator().manual_seed(1)),
                                      dim=-1)
    out = evaluate_cases(theorem1, [SampleCase(cell, X, 1.0, 1.0, 1.0, seed=0)])
    assert out.verdict == "violated"
    assert any(f.startswith("β ≤ 1 − 2α") for f in out.records[0].failed_assumptions)
