"""Hand-made nc_gru.md cases and the checks shared by the claim tests."""

import math

import torch

from rnnaudit.bounds import check_claim
from rnnaudit.cells import GRU
from tests.bounds.helpers import TINY, assert_reproducible_violation, with_sizes
from tests.conftest import DEVICES  # noqa: F401  (re-exported for the test modules)

F64 = torch.float64

#: Shrunk (h, T) grids of the quick profile, per family of cases.
TRAJECTORY_SIZES = [(2, 1), (3, 4), (6, 6)]
STEP_SIZES = [(2, 1), (3, 1), (6, 1)]
NEUMANN_SIZES = [(2, 1), (3, 3), (6, 4)]
EQ5_SIZES = [(2, 1), (3, 2), (8, 4)]
#: J = [[0, 1], [−1, 0]], the 2×2 skew block.
J = torch.tensor([[0.0, 1.0], [-1.0, 0.0]], dtype=F64)


def logit(p):
    return math.log(p) - math.log1p(-p)


def zero_gru(h, n=2, cls=GRU):
    cell = cls(n, h, dtype=F64)
    with torch.no_grad():
        for p in cell.parameters():
            p.zero_()
    return cell


def assert_holds_inside_assumptions(claim, sizes, tmp_path):
    """``claim`` holds on the shrunk search, and every random and ascent case stayed inside its assumptions."""
    result = check_claim(with_sizes(claim, sizes), TINY, seed=1, out_dir=tmp_path)
    assert result.verdict == "holds", result.notes_text()
    assert result.errors == []  # every random and ascent case stayed inside the assumptions
    assert result.worst_ratio is not None and 0 <= result.worst_ratio <= 1 + claim.tolerance


def assert_violated_inside_assumptions(claim, sizes, tmp_path):
    """``claim`` (false as printed) fails on cases that satisfy every assumption; the saved counterexample
    reloads and reproduces its ratio."""
    case = assert_reproducible_violation(with_sizes(claim, sizes), TINY, tmp_path, seed=0, rel=1e-12)
    assert all(ok for ok, _ in (a.check(case) for a in claim.assumptions))


#: Small (h, T) grids per claim family for the tests that run every claim (the structured starts come at each size).
SMALL_SIZES = {"corollary": [(1, 1), (2, 1), (3, 1)], "trajectory": [(2, 1), (2, 4)], "neumann": [(2, 1), (3, 2)],
               "convergent": [(3, 1)], "cayley": [(1, 1), (2, 1)], "orthogonal": [(2, 1), (3, 1)],
               "gradient": [(2, 3)], "gate": [(1, 1), (2, 1)]}
_FAMILY = {"corollary2": "corollary", "corollary3": "corollary", "theorem1": "trajectory", "corollary1": "trajectory",
           "eq37": "trajectory", "eq47": "trajectory", "eq18": "neumann", "sec5_3": "convergent", "eq2": "cayley",
           "scaling_d": "orthogonal", "eq7": "gradient", "sec2_1": "gate"}


def small(claim):
    """``claim`` on its family's small grid (:data:`SMALL_SIZES`), or as it is when its grid is already small."""
    family = _FAMILY.get(claim.id.split(".")[1])
    return with_sizes(claim, SMALL_SIZES[family]) if family else claim
