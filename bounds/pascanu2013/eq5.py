"""pascanu2013 (arXiv 1211.5063), eq. (5): the step Jacobian of the vanilla RNN x_t = W_rec σ(x_{t−1}) + W_in u_t + b
as printed, ∂x_i/∂x_{i−1} = W_recᵀ diag(σ'(x_{i−1})), against autograd; and the corrected form
W_rec diag(σ'(x_{i−1})).

The chain rule gives ∂x_i/∂x_{i−1} = W_rec diag(σ'(x_{i−1})) (numerator layout); in denominator layout it is
its transpose diag(σ'(x_{i−1})) W_recᵀ. The printed W_recᵀ diag(σ') is neither unless W_rec is symmetric, and no
reading of the printed text makes it the Jacobian (it is the denominator-layout Jacobian of the other model,
x_i = σ(W_rec x_(i−1) + …), with σ' taken at the wrong point), so by docs/verdicts.md the claim is false, not
misprinted: the corrected form is a separate claim. The norm bound the section draws from it, ‖·‖ ≤ ‖W_rec‖ γ, is unaffected (‖Wᵀ‖₂ = ‖W‖₂), so Sec. 2.1's
conditions stand (pascanu2013.vanishing).

Read from: eq. (5) as quoted in a mathematics Q&A thread about this paper (search tool, corpus "pages"), which
reports the same form in both arXiv versions; the paper's own PDF was not readable here.
"""

from __future__ import annotations

import torch
from torch import Tensor

from rnnaudit.bounds.architectures import ACTIVATIONS, ArchCase, sample_arch, step_jacobians
from rnnaudit.bounds.core import Assumption, CaseSpace, Claim
from rnnaudit.bounds.pascanu2013.cases import draw, pick

__all__ = ["eq5", "eq5_corrected", "EQ5_RTOL"]

#: autograd's Jacobian and the formula are two O(n) float64 computations of each entry: 1e-12 relative to
#: ‖J‖₂ is ~10⁴ roundings.
EQ5_RTOL = 1e-12


def _sigma_prime(kind: str, x: Tensor) -> Tensor:
    s = ACTIVATIONS[kind](x)
    return 1 - s * s if kind == "pascanu_tanh" else s * (1 - s)


def _parts(case: ArchCase, transpose: bool) -> dict[str, tuple[Tensor, Tensor, Tensor]]:
    J, _ = step_jacobians(case)
    from rnnaudit.bounds.architectures import trajectory
    states = trajectory(case)[:-1]
    W = case.weights[0][1]
    Wp = W.mT if transpose else W
    printed = Wp[None] * _sigma_prime(case.kind, states)[:, None, :]  # W diag(σ'(x_{i−1})) for every i
    err = torch.linalg.matrix_norm(printed - J, ord=2).max()
    ref = torch.linalg.matrix_norm(J, ord=2).max()
    return {"∂x_i/∂x_(i−1) = " + ("W_recᵀ" if transpose else "W_rec") + " diag(σ'(x_(i−1)))":
            (err, EQ5_RTOL * torch.clamp(ref, min=1.0), ref)}


def _sample(gen, h, T, device="cpu", dtype=torch.float64) -> ArchCase:
    kind = pick(gen, ("pascanu_tanh", "pascanu_sigmoid"))
    return sample_arch(gen, kind, h, T, norm=0.2 + 2 * draw(gen), device=device, dtype=dtype)


_A_FORM = Assumption("the vanilla RNN x_t = W_rec σ(x_(t−1)) + W_in u_t + b (arXiv eq. (11); σ before W_rec)",
                     lambda c: (c.kind in ("pascanu_tanh", "pascanu_sigmoid"), c.kind))
_CASES = CaseSpace(case_type=ArchCase, sample=_sample,
                   sizes={"quick": [(1, 2), (3, 3)], "full": [(1, 2), (3, 3), (8, 6)]})

eq5 = Claim(
    id="pascanu2013.eq5",
    source="pascanu2013 (arXiv 1211.5063), eq. (5) (as quoted in a Q&A thread; see the module docstring)",
    statement="∂x_i/∂x_(i−1) = W_recᵀ diag(σ'(x_(i−1)))",
    assumptions=(_A_FORM,),
    measure="‖printed − autograd‖₂ over the steps of a sequence",
    bound=f"{EQ5_RTOL:g}·max(1, ‖J‖₂)",
    evaluate=lambda c: _parts(c, True),
    cases=_CASES,
    explanation="The transpose is misplaced: the chain rule of x_i = W_rec σ(x_(i−1)) + … gives "
                "W_rec diag(σ'(x_(i−1))) "
                "(pascanu2013.eq5.corrected); the printed form is right only for symmetric W_rec (1×1 included).",
    notes="False, not misprinted: W_recᵀ diag(σ') is neither the Jacobian W_rec diag(σ') nor its transpose "
          "diag(σ') W_recᵀ, so no reading of the printed text holds (an independent re-derivation agreed). The norms "
          "Sec. 2.1 bounds are the same for W and Wᵀ, so no conclusion of the paper changes.",
)

eq5_corrected = Claim(
    id="pascanu2013.eq5.corrected",
    source="pascanu2013 (arXiv 1211.5063), eq. (5), corrected by rnnaudit",
    statement="∂x_i/∂x_(i−1) = W_rec diag(σ'(x_(i−1)))",
    assumptions=(_A_FORM,),
    measure="‖formula − autograd‖₂ over the steps of a sequence",
    bound=f"{EQ5_RTOL:g}·max(1, ‖J‖₂)",
    evaluate=lambda c: _parts(c, False),
    cases=_CASES,
    notes="Holds to rounding.",
)
