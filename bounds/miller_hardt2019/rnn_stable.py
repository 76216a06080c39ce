"""miller_hardt2019 (Miller & Hardt 2019, "Stable Recurrent Models", ICLR; arXiv 1805.10369): stability as a
contractive state map, and its sufficient condition for vanilla RNNs.

Definition (stability): the state map φ_w is λ-contractive, ‖φ_w(h, x) − φ_w(h', x)‖ ≤ λ‖h − h'‖ with λ < 1, for
all states and inputs. For the vanilla RNN φ(h, x) = ρ(W h + U x) with ρ L_ρ-Lipschitz,
‖ρ(Wh + Ux) − ρ(Wh' + Ux)‖ ≤ L_ρ ‖W(h − h')‖ ≤ L_ρ‖W‖₂‖h − h'‖, so ‖W‖₂ < 1/L_ρ makes it stable with λ = L_ρ‖W‖₂.
The argument uses only that ρ is applied elementwise after one affine map of h, so it holds verbatim for torch's
nn.RNN (tanh, relu: L_ρ = 1; biases change nothing), for every layer of a stacked one (each layer's state map
at fixed input), and for IndRNN (W = diag(u), ‖W‖₂ = max|u_i|): ``miller_hardt2019.rnn_stable`` checks all.

Read from: the paper's abstract and introduction (ar5iv and arXiv-vanity renderings through the search tool);
the definitions and propositions themselves were not in the excerpts: the statements are the issue's
paraphrase ("stability = contractive state map; sufficient conditions for vanilla RNNs and LSTMs"), and the
vanilla RNN condition is the standard one derived above. The LSTM condition's printed constants were not read
and are not guessed (see COVERAGE).
"""

from __future__ import annotations

import torch
from torch import Tensor

from rnnaudit.analysis.norms import vector_norm
from rnnaudit.bounds.architectures import ArchCase, arch_cases_from_model, arch_step, step_rounding, trajectory
from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, Supremum, worst_pair
from rnnaudit.bounds.pascanu2013.cases import (
    layer_lambdas,
    per_layer,
    project_lambda,
    sample_contractive_vanilla,
    vanilla_free,
)

__all__ = ["rnn_stable", "TORCH_VANILLA", "second_start", "A_W_BELOW"]

#: vanilla kinds with σ applied after the affine map (Miller & Hardt's and torch's form); L_ρ = 1 for each
TORCH_VANILLA = ("rnn_tanh", "rnn_relu", "indrnn")


def second_start(case: ArchCase) -> Tensor:
    """The initial state of the second trajectory the contraction is measured against: −h_0 − 1/2 (another
    state for every h_0, and the zero state's opposite corner)."""
    return -case.h0 - 0.5


def _w_below(case: ArchCase) -> tuple[bool, str]:
    if case.kind not in TORCH_VANILLA:
        return False, f"not a vanilla RNN of the form ρ(Wh + Ux + b) ({case.kind})"
    lam = layer_lambdas(case)
    return max(lam) < 1, "L_ρ‖W‖₂ per layer = " + ", ".join(f"{v:.6g}" for v in lam) + " (L_ρ = 1)"


A_W_BELOW = Assumption("‖W‖₂ < 1/L_ρ in every layer (ρ = tanh or relu, L_ρ = 1)", _w_below)


def _measure(case: ArchCase) -> dict[str, tuple[Tensor, Tensor]]:
    m, b = [], []
    for layer in per_layer(case):
        first = trajectory(layer)[:-1]
        other = trajectory(ArchCase(layer.kind, layer.weights, layer.x, second_start(layer)))[:-1]
        lam = torch.linalg.matrix_norm(layer.recurrent_matrix(0), ord=2)
        for x_t, h, g in zip(layer.x, first, other):
            m.append(vector_norm(arch_step(layer, x_t, h) - arch_step(layer, x_t, g)))
            # the two evaluated steps each carry their rounding: once the trajectories merge, ‖h − h'‖ is at
            # that level, and only the allowance keeps rounding from reading as a failure of the map
            b.append(lam * vector_norm(h - g) + step_rounding(layer, x_t, h)
                     + step_rounding(layer, x_t, g))
    return {"‖φ(h, x) − φ(h', x)‖₂ ≤ L_ρ‖W‖₂‖h − h'‖₂": worst_pair(torch.stack(m), torch.stack(b))}


def _sample(gen, h, T, device="cpu", dtype=torch.float64) -> ArchCase:
    return sample_contractive_vanilla(gen, h, T, device, dtype, kinds=TORCH_VANILLA)


def _starts(h: int, T: int, device="cpu", dtype=torch.float64) -> list[ArchCase]:
    """Equality: relu with W = 0.9·I, biases 2, zero inputs, h_0 = 1 (second start −1.5): both pre-activations stay
    positive, so ρ' = 1 on the segment and ‖W(h − h')‖ = 0.9‖h − h'‖."""
    z = lambda *s: torch.zeros(*s, dtype=dtype, device=device)  # noqa: E731
    W = 0.9 * torch.eye(h, dtype=dtype, device=device)
    b = 2 * torch.ones(h, dtype=dtype, device=device)
    return [ArchCase("rnn_relu", ((z(h, 2), W, b, z(h)),), z(T, 2), torch.ones(h, dtype=dtype, device=device))]


rnn_stable = Claim(
    id="miller_hardt2019.rnn_stable",
    source="miller_hardt2019 (arXiv 1805.10369), stability definition and the vanilla-RNN sufficient condition "
           "(wording not read; see the module docstring); torch's nn.RNN every layer and IndRNN by rnnaudit",
    statement="If ρ is L_ρ-Lipschitz and ‖W‖₂ < 1/L_ρ, the RNN h_t = ρ(W h_(t−1) + U x_t) is stable: its state map is "
              "λ-contractive, λ < 1, with λ = L_ρ‖W‖₂",
    assumptions=(A_W_BELOW,),
    measure="‖φ(h, x_t) − φ(h', x_t)‖₂ with h, h' the states of two trajectories of the same inputs (from h_0 and "
            "−h_0 − 1/2), each layer's own state map; worst step",
    bound="L_ρ‖W‖₂‖h − h'‖₂ (plus the derived rounding of the two evaluated steps, architectures.step_rounding)",
    evaluate=_measure,
    cases=CaseSpace(case_type=ArchCase, sample=_sample, sizes={"quick": [(1, 3), (3, 5)], "full": [(1, 3), (3, 5),
                                                                                                 (8, 10), (32, 20)]},
                    free=vanilla_free, project=project_lambda, starts=_starts,
                    from_model=lambda view: arch_cases_from_model(view, TORCH_VANILLA,
                                                                  what="the vanilla-RNN stability condition")),
    explanation="Would mean ρ is not L_ρ-Lipschitz elementwise or the operator norm fails.",
    notes="Holds; attained with relu in its linear region and W a multiple of I. On a trained nn.RNN the "
          "assumption ‖W_hh‖₂ < 1 fails as soon as training grows ‖W_hh‖₂ past 1, which it usually does; the "
          "model may still be stable on its data (miller_hardt2019.data_dependent).",
    supremum=Supremum(1.0, "‖ρ(a) − ρ(a')‖ = ‖a − a'‖ where ρ' = 1 on the segment, and ‖W(h − h')‖ = ‖W‖‖h − h'‖ for "
                           "W = 0.9·I: a structured start", at=(3, 5)),
)
