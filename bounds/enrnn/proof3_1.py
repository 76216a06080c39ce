"""enrnn.md, Sec. 8.1 (proof of Theorem 3.1), a proof-step check: each step against autograd, on ReLU
ENRNNs whose W^(S) need not satisfy the theorem's hypothesis ‖W^(S)‖₂ < 1. No step uses it, which is why
the bounds hold without it (``enrnn.decay.corrected``); only the remark after the theorem (the bounds go
to zero) needs it."""

from __future__ import annotations

from dataclasses import replace

import torch
from torch import Tensor
from torch.func import jacrev

from rnnaudit.bounds.core import Claim, Supremum, no_projection, nothing_free
from rnnaudit.bounds.enrnn.cases import A_UPPER, ENRNNCase, input_weights_and_bias, recurrent_matrix
from rnnaudit.bounds.enrnn.decay import _DECAY_CASES, sample_decay_case, short_products, symmetric_case
from rnnaudit.bounds.enrnn.theorem3_1 import A_RELU, _step_jacobians
from rnnaudit.cells import enrnn_recurrence

__all__ = ["proof3_1", "proof31_parts", "STEP_RTOL"]

#: The chain-rule identities compare autograd with the same products formed in another order: a few
#: roundings per entry of O(τ) matrix products, ≤ 1e-13 relative for T ≤ 30 and entries ≤ 1e3;
#: 1e-11 leaves a 100× margin.
STEP_RTOL = 1e-11


def _hidden_states(case: ENRNNCase, x: Tensor) -> Tensor:
    cell = case.cell
    U, b = input_weights_and_bias(cell)
    W = recurrent_matrix(case)
    return enrnn_recurrence(x[None] @ U.mT, W, b, x.new_zeros(1, cell.hidden_size), cell.activation)[0]


def _pair_ratio(pair: tuple[Tensor, Tensor]) -> float:
    m, b = (float(v.detach()) for v in pair)
    return m / b if b > 0 else 0.0


def proof31_parts(case: ENRNNCase, *, drop_gate: bool = False) -> dict[str, tuple[Tensor, ...]]:
    """The proof's steps on one trajectory.

    ``drop_gate`` forms ∂h^(S)_{t+τ}/∂x_t without the factor G_t (a step a careless chain rule makes); the tests
    use it to show the identity check sees a wrong formula.
    """
    cell = case.cell
    q = cell.long_size
    T = case.x.shape[1]
    W = recurrent_matrix(case)
    J_h, _ = _step_jacobians(case, W)
    _, _, _, d, W_full = short_products(case)
    d_S, W_S = d[:, q:], W_full[q:, q:]
    step = d_S[:, :, None] * W_S  # G_k W^(S), k = 1..T
    err_step = (J_h[:, q:, q:] - step).abs().max()
    ref_step = J_h[:, q:, q:].abs().max()
    # ∂h^(S)_s/∂x_t for all s > t from autograd of the whole unrolled recurrence, (T, p, T, m)
    full = jacrev(lambda x: _hidden_states(case, x)[:, q:])(case.x[0])
    U_S = cell.U_S
    err_x, ref_x = W.new_zeros(()), W.new_zeros(())
    sub_m, sub_b = [W.new_zeros(())], [W.new_ones(())]
    w_norm = torch.linalg.matrix_norm(W_S, ord=2)
    for t in range(T):
        P = torch.eye(W_S.shape[0], dtype=W.dtype, device=W.device)
        g_norms = W.new_ones(())
        for s in range(t + 1, T):
            P = step[s] @ P
            g_norms = g_norms * d_S[s].abs().max()
            formula = P @ (U_S if drop_gate else d_S[t, :, None] * U_S)
            err_x = torch.maximum(err_x, (full[s, :, t, :] - formula).abs().max())
            ref_x = torch.maximum(ref_x, full[s, :, t, :].abs().max())
            sub_m.append(torch.linalg.matrix_norm(P, ord=2))
            sub_b.append(g_norms * w_norm ** (s - t))
    scale = 1 + torch.linalg.matrix_norm(W, ord=2) ** T
    return {
        "∂h^(S)_k/∂h^(S)_{k−1} = G_k W^(S), G_k = diag(σ'(a_k))": (err_step, STEP_RTOL * scale * (1 + ref_step),
                                                                    ref_step),
        "‖G_k‖₂ ≤ 1 (ReLU)": (d_S.abs().max() if d_S.numel() else W.new_zeros(()), W.new_ones(())),
        "∂h^(S)_{t+τ}/∂x_t = (∂h^(S)_{t+τ}/∂h^(S)_t) G_t U^(S)": (
            err_x, STEP_RTOL * scale * (1 + ref_x) * (1 + U_S.abs().max()), ref_x),
        "‖Π_k G_k W^(S)‖₂ ≤ Π_k ‖G_k‖₂ ‖W^(S)‖₂": max(zip(sub_m, sub_b), key=_pair_ratio),
    }


_PROOF31_CASES = replace(
    _DECAY_CASES, sizes={"quick": [(1, 3), (2, 4), (3, 5)], "full": [(1, 3), (2, 4), (3, 5), (6, 8), (10, 12)]},
    sample=lambda gen, h, T, device="cpu", dtype=torch.float64: sample_decay_case(
        gen, h, T, device, dtype, any_norm=True, activations=("relu",)),
    starts=lambda h, T, device="cpu", dtype=torch.float64: [symmetric_case(h, T, device, dtype)], free=nothing_free,
    project=no_projection)

proof3_1 = Claim(
    id="enrnn.proof3.1",
    source="enrnn.md, Sec. 8.1 (proof of Theorem 3.1), without the hypothesis ‖W^(S)‖₂ < 1",
    statement="∂h^(S)_{t+τ}/∂h^(S)_t = Π_k ∂h^(S)_k/∂h^(S)_{k−1} = Π_k G_k W^(S); ‖·‖₂ ≤ Π_k ‖G_k‖₂‖W^(S)‖₂ ≤ "
              "‖W^(S)‖₂^τ; ∂h^(S)_{t+τ}/∂x_t = (∂h^(S)_{t+τ}/∂h^(S)_t) G_t U^(S)",
    assumptions=(A_RELU, A_UPPER),
    measure="per-step Jacobians by torch.func.jacrev of one step of eq. 3 (S-block) and ∂h^(S)_s/∂x_t by jacrev of "
            "the whole unrolled recurrence, against G_k = diag(σ'(a_k)) from the pre-activations; the norms of "
            "the products",
    bound="0 up to STEP_RTOL (identities); 1 (‖G_k‖₂); Π‖G_k‖₂‖W^(S)‖₂ (submultiplicativity)",
    evaluate=proof31_parts,
    cases=_PROOF31_CASES,
    explanation="Would mean a step of the proof is wrong: h^(S) fed by h^(L), or |σ'| > 1.",
    notes="The hypothesis ‖W^(S)‖₂ < 1 is used by no step (the cases include ‖W^(S)‖₂ > 1 and Sec. 5's ε = 0, where "
          "‖W^(S)‖₂ ≥ ρ(W^(S)) = 1): it is needed only for the remark that the bounds go to zero, and by the "
          "paper's own Sec. 3 it is an extra assumption ('if we assume that this holds for the 2-norm'), which the "
          "normalisation by ρ does not provide (enrnn.decay). So the stated hypotheses suffice for every step. "
          "Decision: the one stated hypothesis no step uses is not a gap. At σ'(0) ReLU is not differentiable; autograd and "
          "the gates both take 0 there.",
    supremum=Supremum(1.0, "‖G_k‖₂ = 1 as soon as one unit is on, and ‖Π G_k W‖₂ = Π‖G_k‖₂‖W‖₂ for symmetric W^(S) "
                           "with every unit on (symmetric_case)", at=(2, 4)),
)
