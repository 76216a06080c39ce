"""minGRU/minLSTM (arXiv 2410.01201): the Jacobian through time is diagonal, ∂h_t/∂h_s = Π_{k=s+1..t} diag(a_k) with
a_k = 1 − z_k (minGRU) or f'_k (minLSTM), entries in (0, 1) independent of h, so ‖∂h_t/∂h_s‖₂ = max_j Π_k a_{k,j}
< 1 for s < t: no gradient can explode through h, and vanishing is set by the gates alone. rnnaudit's derivation
(the paper states no theorem on it that was read).

Measured by the probes: ‖∂h_t/∂h_s‖₂ for all pairs (:func:`rnnaudit.analysis.jacobian.hidden_jacobian_maps` on
the general path, certified spectral norms) against max_j Π a_{k,j} from the cell's declared :meth:`transition`,
and the off-diagonal mass of the one-step Jacobians (:func:`rnnaudit.analysis.jacobian.step_jacobians`) against 0.
"""

from __future__ import annotations

import torch

from rnnaudit.analysis.jacobian import CERTIFIED_RTOL, hidden_jacobian_maps, step_jacobians
from rnnaudit.bounds.cell_case import CellCase, from_model_of
from rnnaudit.bounds.core import CaseSpace, Claim, worst_pair
from rnnaudit.bounds.min_rnn.bounded import A_CONVEX
from rnnaudit.bounds.min_rnn.cases import sample_min_rnn
from rnnaudit.cells import MinGRU, MinLSTM

__all__ = ["jacobian", "products"]


def products(case: CellCase) -> torch.Tensor:
    """P (T + 1, T + 1) with P[t, s] = max_j Π_{k=s+1..t} |a_{k,j}| for s ≤ t (1 on the diagonal), 0 above: the
    spectral norm of a product of diagonal matrices (|a| so that a transition outside (0, 1) is measured, not NaN)."""
    a = case.cell.transition(case.x[0]).detach()               # (T, h), a_k for k = 1..T
    T = a.shape[0]
    logs = torch.cat([a.new_zeros(1, a.shape[1]), torch.log(a.abs()).cumsum(0)])   # Σ_{k≤t} log|a_k|
    P = a.new_zeros(T + 1, T + 1)
    for t in range(T + 1):
        P[t, : t + 1] = torch.exp(logs[t] - logs[: t + 1]).max(-1).values
    return P


def _measure(case: CellCase):
    with torch.no_grad():
        # the general path (products of autograd step Jacobians), never the cell's declared diagonal: the claim
        # compares the probes with max_j Π a_{k,j}, which the fast path would compute from the declaration itself
        norms = hidden_jacobian_maps(case.cell, case.x, case.h0, norms=("spectral",), method="products").spectral
        P = products(case)
        J, _ = step_jacobians(case.cell, case.x, case.h0)
    T = P.shape[0] - 1
    lower = torch.tril(torch.ones_like(P), -1).bool()           # s < t
    off = (J - torch.diag_embed(torch.diagonal(J, dim1=-2, dim2=-1))).abs().max()
    # the certified norms are within CERTIFIED_RTOL of exact; P is exact to T roundings per entry
    tol = (CERTIFIED_RTOL + 4 * T * 2.0 ** -53) * P[lower].abs().max() if T else P.new_ones(())
    return {
        "‖∂h_t/∂h_s‖₂ = max_j Π a_{k,j} (s < t)": ((norms[lower] - P[lower]).abs().max() if T else P.new_zeros(()),
                                                  tol, P[lower].abs().max() if T else P.new_ones(())),
        "‖∂h_t/∂h_s‖₂ < 1 (s < t)": worst_pair(norms[lower], torch.ones_like(norms[lower])),
        "∂h_t/∂h_(t−1) is diagonal": (off, P.new_full((), 2.0 ** -52), P.new_ones(())),
    }


#: The claim on a user's model: one case per input sequence, from a float64 copy of its cell.
_FROM_MODEL = from_model_of(MinGRU, MinLSTM, what="minGRU/minLSTM's diagonal Jacobian (arXiv 2410.01201)")


jacobian = Claim(
    id="min_rnn.jacobian",
    source="Feng et al. 2024 (arXiv 2410.01201), the update equations (the gates do not see h); the "
           "Jacobian statement is rnnaudit's derivation",
    statement="∂h_t/∂h_s = Π_{k=s+1..t} diag(a_k), a_k = 1 − z_k (minGRU) or f'_k (minLSTM) ∈ (0, 1)ʰ, hence "
              "‖∂h_t/∂h_s‖₂ = max_j Π a_{k,j} < 1 for s < t",
    assumptions=(A_CONVEX,),
    measure="‖∂h_t/∂h_s‖₂ for every pair by the probes (general path, not the declared diagonal), one-step "
            "Jacobians by step_jacobians",
    bound="max_j Π a_{k,j} from the cell's transition(x_t) (to CERTIFIED_RTOL); 1; 0 off the diagonal",
    evaluate=_measure,
    cases=CaseSpace(case_type=CellCase, from_model=_FROM_MODEL, sample=sample_min_rnn,
                    sizes={"quick": [(2, 4), (5, 12)], "full": [(2, 4), (5, 12), (16, 60)]}),
    explanation="A gate that saw h_(t−1) (the GRU's, the LSTM's) would add off-diagonal terms and a factor that can "
                "exceed 1.",
    notes="Holds (rnnaudit's derivation). The norm is < 1 strictly unless a gate rounds to 0 (z = 0: a = 1 in "
          "floating point), where ‖∂h_t/∂h_s‖₂ = 1.",
)
