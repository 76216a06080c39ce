"""The echo state property's necessary condition for zero input (Jaeger 2001, GMD Report 148): with tanh units,
zero input and zero bias the origin is a fixed point whose Jacobian is W (tanh'(0) = 1), so
‖∂x(n)/∂x(0)‖₂ = ‖W^n‖₂ ≥ ρ(W)^n (Gelfand): with ρ(W) > 1 perturbations of the zero state grow and the ESP fails.
See echo_state.sufficient for what was read.
"""

from __future__ import annotations

import torch
from torch import Tensor

from rnnaudit.bounds.architectures import ArchCase, sample_arch, spectral, trajectory
from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, worst_pair
from rnnaudit.bounds.pascanu2013.cases import draw
from rnnaudit.cells.linalg import eigvals

__all__ = ["necessary"]

def _rho_above(case: ArchCase) -> tuple[bool, str]:
    if case.kind != "rnn_tanh" or case.layers != 1:
        return False, f"not a one-layer tanh reservoir ({case.kind}, {case.layers} layers)"
    r = float(eigvals(case.weights[0][1].detach()).abs().max())
    return r > 1, f"ρ(W) = {r:.6g}"


def _zero_drive(case: ArchCase) -> tuple[bool, str]:
    w = case.weights[0]
    size = max(float(case.x.detach().abs().max()), float(w[2].detach().abs().max()), float(w[3].detach().abs().max()),
               float(case.h0.detach().abs().max()))
    return size == 0, f"max |input|, |bias|, |x(0)| = {size:.3g}"


def _necessary(case: ArchCase) -> dict[str, tuple[Tensor, Tensor]]:
    """ρ(W)^n against ‖∂x(n)/∂x(0)‖₂ at the zero state (ratio > 1 would be a perturbation growing slower than ρ^n)."""
    W = case.weights[0][1]
    rho = eigvals(W).abs().max()
    # (T + 1, S, S): ∂x(n)/∂x(0) for every n
    J = torch.func.jacrev(lambda h0: trajectory(ArchCase(case.kind, case.weights, case.x, h0)))(case.h0)
    n = torch.arange(J.shape[0], dtype=W.dtype, device=W.device)
    return {"ρ(W)^n ≤ ‖∂x(n)/∂x(0)‖₂ (perturbations of the zero state grow)": worst_pair(rho ** n[1:],
                                                                                       spectral(J[1:]))}


def _sample_necessary(gen, h, T, device="cpu", dtype=torch.float64) -> ArchCase:
    case = sample_arch(gen, "rnn_tanh", h, T, norm=1.0, device=device, dtype=dtype)
    W = case.weights[0][1]
    with torch.no_grad():
        W.mul_((1.01 + 2 * draw(gen)) / eigvals(W).abs().max())
        case.x.zero_()
        case.h0.zero_()
        for t in case.weights[0][2:]:
            t.zero_()
    return case


necessary = Claim(
    id="echo_state.necessary",
    source="Jaeger 2001 (GMD Report 148), the necessary condition ρ(W) < 1 for zero input (wording not read; see the "
           "module docstring)",
    statement="For zero input and tanh units, ρ(W) > 1 rules out the echo state property: the zero state is an "
              "unstable fixed point (perturbations grow at least as ρ(W)^n)",
    assumptions=(Assumption("ρ(W) > 1 (one tanh layer)", _rho_above),
                 Assumption("zero input and bias, trajectory from the zero state", _zero_drive)),
    measure="ρ(W)^n",
    bound="‖∂x(n)/∂x(0)‖₂ at x(0) = 0 by autograd through n steps",
    evaluate=_necessary,
    cases=CaseSpace(case_type=ArchCase, sample=_sample_necessary,
                    sizes={"quick": [(1, 4), (3, 6)], "full": [(1, 4), (3, 6), (8, 12)]}),
    explanation="Would mean the zero-input linearisation is not W (tanh'(0) = 1) or Gelfand's ρ^n ≤ ‖W^n‖ fails.",
    notes="Holds: ‖∂x(n)/∂x(0)‖₂ = ‖W^n‖₂ ≥ ρ(W)^n → ∞. With a bias or an input the fixed point moves off 0, tanh' < 1 "
          "there and the condition is no longer necessary in this form (the negative control: a case with bias "
          "is outside the assumptions and can come out violated). Not applied to models: a trained RNN has biases.",
)
