"""Hand-made sgornn.md cases shared by the claim tests."""

import math

import torch

from rnnaudit.bounds.sgornn.cases import GatedCase, logit
from rnnaudit.cells import SGORNN, FastRNN

F64 = torch.float64
SMALL_SIZES = [(2, 1), (4, 8), (8, 20)]


def aligned_case(alpha, beta, *, h=4, T=30, bias=0.0, x_scale=1.0, kind="SGORNN", theta=0.0):
    """Θ = 0 (U a permutation fixing 1), W = 1uᵀ/√h, constant input x_t = x_scale·u: h_t grows like
    (α + β)^t once α + β > 1, the fastest the recurrence allows."""
    u = torch.tensor([1.0, 0.0], dtype=F64)
    # a seeded generator fixes VPRNN's permutations: a few draws of them make ∂L/∂Θ vanish by
    # symmetry, and the global RNG would make the case depend on which tests ran before
    gen = torch.Generator().manual_seed(0)
    if kind == "SGORNN":
        cell = SGORNN(2, h, bias=bias != 0.0, clip_beta=False, dtype=F64, generator=gen)
        with torch.no_grad():
            cell.phi.theta.fill_(theta)
    else:
        cell = FastRNN(2, h, bias=bias != 0.0, dtype=F64, generator=gen)
        with torch.no_grad():
            cell.U.copy_(2 * torch.eye(h, dtype=F64))  # ‖U‖₂ = 2: not orthogonal
    with torch.no_grad():
        cell.W.copy_(torch.ones(h, 1, dtype=F64) @ u[None] / math.sqrt(h))
        cell.alpha_logit.fill_(logit(alpha))
        cell.beta_logit.fill_(logit(beta))
        if bias:
            cell.b.fill_(bias)
    x = (x_scale * u).expand(1, T, 2).clone()
    return GatedCase(cell, x, torch.ones(h, dtype=F64) / math.sqrt(h), R_W=1.0, R_x=x_scale, R_v=1.0)
