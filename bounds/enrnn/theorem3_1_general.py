"""enrnn.md, Theorem 3.1 (proof in Sec. 8.1) carried over to any vanilla RNN with a 1-Lipschitz activation.

The proof writes ∂h^(S)_k/∂h^(S)_(k−1) = G_k W^(S) with G_k = diag(σ'(·)) and ‖G_k‖₂ ≤ 1 (ReLU), then bounds the
product by ‖W^(S)‖₂^τ, and the input Jacobian by one more factor ‖U^(S)‖₂. Nothing else of the ENRNN is used
(the lower coupling block only has to be absent, which it is in a plain RNN). So the same two inequalities
hold for every recurrence h_t = σ(W h_(t−1) + U x_t + b) with |σ'| ≤ 1: torch's nn.RNN with tanh or relu,
IndRNN (W = diag(u)), and each layer of a stacked nn.RNN (layer l's U is its weight_ih, its inputs the
states of layer l − 1). ``enrnn.theorem3.1.general`` checks them with Theorem 3.1's own hypothesis
‖W‖₂ < 1 (the inequalities hold without it; it is what makes them decay, and what a trained RNN often fails).
"""

from __future__ import annotations

import torch
from torch import Tensor

from rnnaudit.bounds.architectures import ArchCase, arch_cases_from_model, spectral, step_map
from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, Supremum, worst_pair
from rnnaudit.bounds.miller_hardt2019.rnn_stable import A_W_BELOW, TORCH_VANILLA
from rnnaudit.bounds.pascanu2013.cases import per_layer, project_lambda, sample_contractive_vanilla, vanilla_free
from rnnaudit.bounds.scaled_products import log2_parts_of, log2_spectral

__all__ = ["theorem3_1_general"]


def _input_matrix(layer: ArchCase) -> Tensor:
    return layer.weights[0][0]


def _measure(case: ArchCase) -> dict[str, tuple[Tensor, ...]]:
    # the layer's shared step map (its products formed once, rescaled by powers of two) and log₂ bounds: over a long
    # sequence ‖W‖₂^τ and the products leave float64's range as numbers
    hh, hx = [], []
    for layer in per_layer(case):
        # τ·log₂‖W‖₂ as τ·k (exact) + τ·log₂ m: no rounding at the size of τ·|log₂‖W‖₂| (scaled_products.log2_parts)
        # (at any magnitude: a subnormal W or U would be rounded on the subnormal grid as a number)
        whole_w, frac_w = log2_parts_of(spectral, layer.recurrent_matrix(0))
        log2_u = log2_spectral(_input_matrix(layer))
        shared = step_map(layer)
        norms, taus = shared.products()
        if len(norms):
            hh.append(norms.worst_log2(taus * frac_w, whole=taus * whole_w))
        inputs, _, in_taus = shared.inputs()
        if inputs is not None:
            hx.append(inputs.worst_log2(in_taus * frac_w + log2_u, whole=in_taus * whole_w))
    zero = case.x.new_zeros(())
    worst = lambda pairs: (worst_pair(torch.stack([m for m, _ in pairs]), torch.stack([b for _, b in pairs]))  # noqa: E731
                           if pairs else (zero, zero + 1))
    return {"‖∂h_(t+τ)/∂h_t‖₂ ≤ ‖W‖₂^τ": worst(hh), "‖∂h_(t+τ)/∂x_t‖₂ ≤ ‖W‖₂^τ ‖U‖₂": worst(hx)}


def _starts(h: int, T: int, device="cpu", dtype=torch.float64) -> list[ArchCase]:
    """Equality: relu, W = 0.9·I, U = I (n = h), biases 2, inputs 0.01: every unit on, J_t = W, B_t = U."""
    eye = torch.eye(h, dtype=dtype, device=device)
    z = torch.zeros(h, dtype=dtype, device=device)
    return [ArchCase("rnn_relu", ((eye, 0.9 * eye, z + 2, z),), torch.full((T, h), 0.01, dtype=dtype, device=device),
                     z + 1)]


A_LIPSCHITZ = Assumption("σ 1-Lipschitz, applied after the affine map (tanh, relu; ReLU in Theorem 3.1)",
                         lambda c: (c.kind in TORCH_VANILLA, c.kind))

theorem3_1_general = Claim(
    id="enrnn.theorem3.1.general",
    source="enrnn.md, Theorem 3.1 (Sec. 3; proof in Sec. 8.1), carried over by rnnaudit to any vanilla RNN with a "
           "1-Lipschitz activation (torch's nn.RNN tanh/relu, every layer; IndRNN)",
    statement="For h_t = σ(W h_(t−1) + U x_t + b) with |σ'| ≤ 1 and ‖W‖₂ < 1: ‖∂h_(t+τ)/∂h_t‖₂ ≤ ‖W‖₂^τ and "
              "‖∂h_(t+τ)/∂x_t‖₂ ≤ ‖W‖₂^τ ‖U‖₂",
    assumptions=(A_LIPSCHITZ, A_W_BELOW),
    measure="products of autograd step Jacobians of each layer's own recurrence; worst over all pairs (on a model's "
            "long sequences, 4 start times and about two lags per octave)",
    bound="‖W‖₂^τ and ‖W‖₂^τ ‖U‖₂ (U = the layer's weight_ih)",
    evaluate=_measure,
    cases=CaseSpace(case_type=ArchCase, sample=lambda g, h, T, device="cpu", dtype=torch.float64:
                    sample_contractive_vanilla(g, h, T, device, dtype, kinds=TORCH_VANILLA),
                    sizes={"quick": [(1, 3), (3, 5)], "full": [(1, 3), (2, 5), (4, 7), (8, 12), (16, 20)]},
                    free=vanilla_free, project=project_lambda, starts=_starts,
                    from_model=lambda view: arch_cases_from_model(view, TORCH_VANILLA, what="Theorem 3.1's argument")),
    explanation="Would mean the step Jacobian of a vanilla RNN is not G_k W with ‖G_k‖₂ ≤ 1.",
    notes="Holds; attained with relu's units all on and W = 0.9·I, U = I. On a trained nn.RNN the hypothesis "
          "‖W_hh‖₂ < 1 fails as soon as training grows it past 1; the inequalities then still hold but no longer "
          "decay.",
    supremum=Supremum(1.0, "‖∏ G_k W‖ ≤ ‖W‖^τ with G_k = I and W a multiple of I (structured start)", at=(2, 5)),
)
