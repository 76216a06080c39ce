"""Hand-made enrnn.md cases and the small search sizes shared by the claim tests."""

import torch

from rnnaudit.bounds import check_claim
from rnnaudit.bounds.enrnn import (baselines, comparisons, complexity, conjugate, coupling, decay, eq3, eq4, eq5, eq7,
                                   normalisation, proof3_1, proof3_2, proposition3_2, sec5, spectral_norm, table1,
                                   theorem3_1, transient)
from rnnaudit.bounds.enrnn.cases import ENRNNCase
from rnnaudit.cells import ENRNN
from tests.bounds.helpers import TINY, with_sizes

F64 = torch.float64
SMALL = {coupling.id: [(2, 1), (5, 1), (8, 1)], theorem3_1.id: [(1, 2), (3, 5), (5, 8)],
         proposition3_2.id: [(2, 1), (4, 4), (6, 6)], eq5.id: [(1024, 1)], spectral_norm.id: [(1, 1), (3, 1)],
         transient.id: [(2, 1), (4, 1)], eq3.id: [(1, 3), (4, 4)], decay.id: [(1, 4), (2, 6), (3, 6)],
         normalisation.id: [(1, 1), (3, 1)], conjugate.id: [(2, 1), (4, 1)], eq4.id: [(2, 1), (3, 1)],
         complexity.id: [(8, 4), (64, 8)], sec5.id: [(1, 1)], baselines.id: [(1, 2000)], table1.id: [(1, 1), (5, 1)],
         comparisons.id: [(1, 1)], proof3_1.id: [(1, 3), (2, 4)], proof3_2.id: [(1, 1), (3, 1)],
         eq7.id: [(2, 1), (3, 1)]}


def small(claim):
    """``claim`` at the small sizes of its root claim (a ``.corrected`` form uses its original's)."""
    return with_sizes(claim, SMALL[claim.id.removesuffix(".corrected")])


def assert_exact_agrees(claim, result):
    """The sympy verdict and the numerical one say the same: proved ⇔ holds, violated ⇔ violated."""
    assert result.exact is not None
    assert (result.exact.verdict == "violated") == result.fails, result.exact.detail


def assert_holds_inside_its_assumptions(claim, tmp_path):
    """The small search finds no violation and every case stays inside the assumptions."""
    result = check_claim(small(claim), TINY, seed=1, out_dir=tmp_path)
    assert result.verdict == "holds", result.notes_text()
    assert result.errors == []
    assert result.worst_ratio <= 1 + claim.tolerance
    return result


def hand_cell(q, p, T, *, activation="relu", eps=0.0, W_C=None, latched=False, b=0.0):
    """ENRNN with Θ = 0 (W^(L) = I), the given T (W^(S) by the Sec. 4 rule) and W^(C); m = 1."""
    cell = ENRNN(1, q, p, eps=eps, coupling=W_C is not None, activation=activation, dtype=F64).eval()
    with torch.no_grad():
        cell.phi.theta.zero_()
        cell.T.copy_(torch.as_tensor(T, dtype=F64))
        if W_C is not None:
            cell.W_C.copy_(torch.as_tensor(W_C, dtype=F64))
        cell.b_L.fill_(b)
        cell.b_S.fill_(b)
        cell.normalizing.fill_(latched)
    return cell


def case_of(cell, T=6, W_lower=None, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(1, T, cell.input_size, generator=g, dtype=F64)
    v = torch.randn(T, cell.hidden_size, generator=g, dtype=F64)
    return ENRNNCase(cell, x, v, None if W_lower is None else torch.as_tensor(W_lower, dtype=F64))
