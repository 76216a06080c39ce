"""Hand-made spectral_rnn.md cases and helpers shared by the claim tests.

Everything runs in float64; the claims' own tolerances are documented in their modules under
bounds/spectral_rnn/. Tests that compare numbers use exact integer equality (flop and parameter
counts) or 1e-12 relative (float64 quantities of a few hundred flops).
"""

import math

import torch

from rnnaudit.bounds import check_claim
from rnnaudit.bounds.spectral_rnn.rnn17 import RNNCase
from tests.bounds.helpers import TINY, with_sizes
from tests.conftest import DEVICES  # noqa: F401  (re-exported for the test modules)

F64 = torch.float64


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


def haar(n, seed=0):
    Q, R = torch.linalg.qr(torch.randn(n, n, generator=gen(seed), dtype=F64))
    return Q * torch.sign(torch.diagonal(R))


def failed(result, prefix):
    """The failed assumptions of the first record that start with ``prefix``."""
    return [f for f in result.records[0].failed_assumptions if f.startswith(prefix)]


def assert_holds_inside(claim, sizes, out_dir, expected="holds"):
    """``claim``, searched at ``sizes``, gives ``expected`` with every case inside its assumptions."""
    result = check_claim(with_sizes(claim, sizes), TINY, seed=1, out_dir=out_dir)
    assert result.verdict == expected, result.notes_text()
    assert result.errors == []  # every random and ascent case stayed inside the assumptions
    assert 0 <= result.worst_ratio <= 1 + claim.tolerance


def rnn_case(n=3, T=6, activation="identity", *, W=None, x_scale=1.0, b=None, h0=None, dW=None):
    """W = W or I/2, M = the first two columns of I, Y = 1, constant input of norm ``x_scale`` (= B)."""
    W = 0.5 * torch.eye(n, dtype=F64) if W is None else W
    M, Y = torch.eye(n, 2, dtype=F64), torch.ones(2, n, dtype=F64)
    x = x_scale * torch.ones(1, T, 2, dtype=F64) / math.sqrt(2)
    dW = torch.zeros_like(W) if dW is None else dW
    return RNNCase(W, M, Y, dW, torch.zeros_like(M), torch.zeros_like(Y), x, float(x_scale), activation, b, h0)
