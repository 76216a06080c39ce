"""The echo state property (Jaeger 2001, GMD Report 148; Yildiz, Jaeger & Kiebel 2012, "Re-visiting the echo
state property", Neural Networks 35): a reservoir x(n + 1) = f(W x(n) + W_in u(n + 1)) has the ESP when its state
is asymptotically determined by the input history alone: trajectories of the same inputs from any two initial
states converge.

Sufficient condition (Jaeger): σ_max(W) < 1 for tanh units. With f 1-Lipschitz elementwise,
‖x(n) − x'(n)‖₂ ≤ σ_max(W)^n ‖x(0) − x'(0)‖₂, so the trajectories converge. The argument uses only that f is
1-Lipschitz and applied after one affine map of the state, so it holds for relu too, and for every layer of
torch's nn.RNN (biases and the layer's input sequence are part of the same-input drive) and for IndRNN
(``echo_state.sufficient``).

Necessary condition (Jaeger), for zero input and tanh (f(0) = 0, f'(0) = 1): the origin is a fixed point with
Jacobian W, so ‖∂x(n)/∂x(0)‖₂ at x(0) = 0 is ‖W^n‖₂ ≥ ρ(W)^n (Gelfand); with ρ(W) > 1 infinitesimal
perturbations of the zero state grow and the ESP fails. ``echo_state.necessary`` checks the growth on
zero-input, zero-bias tanh reservoirs with ρ(W) > 1. Yildiz et al. 2012 point out that ρ(W) < 1 is not
sufficient for the ESP: ``echo_state.rho_sufficient`` checks it on rnnaudit's own examples (theirs were not read).

Read from: the issue's paraphrase and the standard statements of these conditions; Jaeger's report was not among
the readable sources, and of Yildiz et al.'s article only the abstract was, so neither's wording is quoted.
"""

from __future__ import annotations

import torch
from torch import Tensor

from rnnaudit.analysis.norms import vector_norm
from rnnaudit.bounds.architectures import ArchCase, arch_cases_from_model, spectral, step_rounding, trajectory
from rnnaudit.bounds.core import CaseSpace, Claim, Supremum, worst_pair
from rnnaudit.bounds.miller_hardt2019.rnn_stable import A_W_BELOW, TORCH_VANILLA, second_start
from rnnaudit.bounds.pascanu2013.cases import per_layer, project_lambda, sample_contractive_vanilla, vanilla_free

__all__ = ["sufficient"]


def _measure(case: ArchCase) -> dict[str, tuple[Tensor, Tensor]]:
    m, b = [], []
    for layer in per_layer(case):
        first = trajectory(layer)
        other = trajectory(ArchCase(layer.kind, layer.weights, layer.x, second_start(layer)))
        s = spectral(layer.recurrent_matrix(0))
        d = vector_norm(first - other, dim=-1)  # scaled: differences below 1e−154 read exactly
        n = torch.arange(first.shape[0], dtype=d.dtype, device=d.device)
        # each computed trajectory is within E_n of the exact one, E_n = σ E_(n−1) + δ_n (the exact map is
        # σ-contractive, δ_n the rounding of step n): without it, trajectories that merged to the states' rounding
        # level (1e-17) read as exceeding σ^n d_0 once that falls below it
        allowance, E, E_other, sd = [], 0.0, 0.0, float(s.detach())
        for x_t, h, g in zip(layer.x, first[:-1], other[:-1]):
            E = sd * E + step_rounding(layer, x_t, h)
            E_other = sd * E_other + step_rounding(layer, x_t, g)
            allowance.append(E + E_other)
        m.append(d[1:])
        b.append((s ** n * d[0])[1:] + torch.stack(allowance))
    return {"‖x(n) − x'(n)‖₂ ≤ σ_max(W)^n ‖x(0) − x'(0)‖₂": worst_pair(torch.cat(m), torch.cat(b))}


def _starts(h: int, T: int, device="cpu", dtype=torch.float64) -> list[ArchCase]:
    """Equality: relu, W = 0.9·I, biases 2, zero inputs, x(0) = 1 and x'(0) = −1.5: the difference scales by 0.9 a step
    while both stay in relu's linear region."""
    z = lambda *s: torch.zeros(*s, dtype=dtype, device=device)  # noqa: E731
    W = 0.9 * torch.eye(h, dtype=dtype, device=device)
    return [ArchCase("rnn_relu", ((z(h, 2), W, 2 * torch.ones(h, dtype=dtype, device=device), z(h)),), z(T, 2),
                     torch.ones(h, dtype=dtype, device=device))]


sufficient = Claim(
    id="echo_state.sufficient",
    source="Jaeger 2001 (GMD Report 148), the sufficient condition σ_max(W) < 1 (wording not read; see the module "
           "docstring); extended by rnnaudit to relu, every layer of torch's nn.RNN, and IndRNN",
    statement="If σ_max(W) < 1 (and f is tanh, 1-Lipschitz), the network has the echo state property: trajectories of "
              "the same input from any two states converge, ‖x(n) − x'(n)‖ ≤ σ_max(W)^n ‖x(0) − x'(0)‖",
    assumptions=(A_W_BELOW,),
    measure="‖x(n) − x'(n)‖₂ of two trajectories of the same inputs from x(0) and −x(0) − 1/2, each layer's own "
            "state; every n",
    bound="σ_max(W)^n ‖x(0) − x'(0)‖₂ (plus the two trajectories' derived rounding, architectures.step_rounding)",
    evaluate=_measure,
    cases=CaseSpace(case_type=ArchCase, sample=lambda g, h, T, device="cpu", dtype=torch.float64:
                    sample_contractive_vanilla(g, h, T, device, dtype, kinds=TORCH_VANILLA),
                    sizes={"quick": [(1, 4), (3, 6)], "full": [(1, 4), (3, 6), (8, 12), (32, 30)]},
                    free=vanilla_free, project=project_lambda, starts=_starts,
                    from_model=lambda view: arch_cases_from_model(view, TORCH_VANILLA,
                                                                  what="the ESP's sufficient condition")),
    explanation="Would mean f is not 1-Lipschitz or the operator norm fails.",
    notes="Holds; attained in relu's linear region with W a multiple of I. On a trained nn.RNN the assumption "
          "σ_max(W_hh) < 1 fails whenever training grows ‖W_hh‖₂ past 1; the ESP may still hold (the condition is "
          "only sufficient).",
    supremum=Supremum(1.0, "equality in relu's linear region with W = 0.9·I (structured start)", at=(3, 6)),
)

