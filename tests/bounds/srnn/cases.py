"""Hand-made srnn.md cases and the shrunk sizes shared by the claim tests."""

import dataclasses

import torch

from rnnaudit.bounds.srnn.cases import ShuffleCase
from rnnaudit.cells import SRNN
from tests.bounds.helpers import with_sizes

F64 = torch.float64
SMALL = {"srnn.eq4": [(1, 1), (3, 4), (8, 9)],
         "srnn.table1": [(16384, 4)],
         "srnn.gamblers_ruin": [(16, 1), (32, 2), (64, 4)]}
GRAD_SMALL = [(1, 2), (2, 4), (4, 6)]


def small(claim):
    """``claim`` at the test sizes of its root (the gradient claims share GRAD_SMALL)."""
    return with_sizes(claim, SMALL.get(claim.id.removesuffix(".corrected"), GRAD_SMALL))


def tiny_srnn(w, c, x, *, h0=None, x0=None, g=None, activation="relu"):
    """d_h = d_i = 1, b(x) = w x + c (f_r a single affine map, no gate)."""
    cell = SRNN(1, 1, fr_hidden=(), gating=False, activation=activation, dtype=F64)
    with torch.no_grad():
        cell.b.f_r[0].weight.fill_(w)
        cell.b.f_r[0].bias.fill_(c)
    x = torch.tensor(x, dtype=F64).reshape(1, -1, 1)
    T = x.shape[1]
    h0 = torch.zeros(1, 1, dtype=F64) if h0 is None else torch.tensor([[h0]], dtype=F64)
    g = torch.ones(T, 1, dtype=F64) if g is None else torch.tensor(g, dtype=F64).reshape(T, 1)
    x0 = None if x0 is None else torch.tensor([[x0]], dtype=F64)
    return ShuffleCase(cell, x, h0, g, x0)


def with_evaluate(claim, evaluate):
    """``claim`` measured by another ``evaluate`` (a deliberately wrong formula, for the power tests)."""
    return dataclasses.replace(claim, evaluate=evaluate)


def with_identity_error(claim, rel):
    """``claim`` with every identity part's formula off by ``rel`` × ‖truth‖ (error + rel·reference): the tolerance
    must catch a formula wrong by that much."""
    def evaluate(case):
        return {k: (v[0] + rel * v[2], *v[1:]) if len(v) == 3 else v for k, v in claim.evaluate(case).items()}
    return with_evaluate(claim, evaluate)


def assert_exact_agrees(result):
    """The sympy verdict agrees with the numerical one: ``proved`` beside ``holds``, ``violated`` beside
    ``violated``."""
    assert result.exact is not None, result.claim.id
    assert result.exact.verdict == ("violated" if result.fails else "proved"), result.exact.detail
