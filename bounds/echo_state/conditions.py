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
sufficient for the ESP (nor necessary with nonzero input); that is not checked here (their constructions were
not read).

Read from: the issue's paraphrase and the standard statements of these conditions; Jaeger's report and Yildiz et
al.'s article were not among the readable sources, so their wording is not quoted.
"""

from __future__ import annotations

import torch
from torch import Tensor

from rnnaudit.bounds.architectures import ArchCase, arch_cases_from_model, sample_arch, spectral, trajectory
from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, Supremum, worst_pair
from rnnaudit.bounds.miller_hardt2019.stability import A_W_BELOW, TORCH_VANILLA, second_start
from rnnaudit.bounds.pascanu2013.cases import draw, per_layer, project_lambda, sample_contractive_vanilla, vanilla_free

__all__ = ["sufficient", "necessary"]


def _measure(case: ArchCase) -> dict[str, tuple[Tensor, Tensor]]:
    m, b = [], []
    for layer in per_layer(case):
        first = trajectory(layer)
        other = trajectory(ArchCase(layer.kind, layer.weights, layer.x, second_start(layer)))
        s = spectral(layer.recurrent_matrix(0))
        d = torch.linalg.vector_norm(first - other, dim=-1)
        n = torch.arange(first.shape[0], dtype=d.dtype, device=d.device)
        m.append(d[1:])
        b.append((s ** n * d[0])[1:])
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
    bound="σ_max(W)^n ‖x(0) − x'(0)‖₂",
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


def _rho_above(case: ArchCase) -> tuple[bool, str]:
    if case.kind != "rnn_tanh" or case.layers != 1:
        return False, f"not a one-layer tanh reservoir ({case.kind}, {case.layers} layers)"
    r = float(torch.linalg.eigvals(case.weights[0][1].detach()).abs().max())
    return r > 1, f"ρ(W) = {r:.6g}"


def _zero_drive(case: ArchCase) -> tuple[bool, str]:
    w = case.weights[0]
    size = max(float(case.x.detach().abs().max()), float(w[2].detach().abs().max()), float(w[3].detach().abs().max()),
               float(case.h0.detach().abs().max()))
    return size == 0, f"max |input|, |bias|, |x(0)| = {size:.3g}"


def _necessary(case: ArchCase) -> dict[str, tuple[Tensor, Tensor]]:
    """ρ(W)^n against ‖∂x(n)/∂x(0)‖₂ at the zero state (ratio > 1 would be a perturbation growing slower than ρ^n)."""
    W = case.weights[0][1]
    rho = torch.linalg.eigvals(W).abs().max()
    # (T + 1, S, S): ∂x(n)/∂x(0) for every n
    J = torch.func.jacrev(lambda h0: trajectory(ArchCase(case.kind, case.weights, case.x, h0)))(case.h0)
    n = torch.arange(J.shape[0], dtype=W.dtype, device=W.device)
    return {"ρ(W)^n ≤ ‖∂x(n)/∂x(0)‖₂ (perturbations of the zero state grow)": worst_pair(rho ** n[1:],
                                                                                       spectral(J[1:]))}


def _sample_necessary(gen, h, T, device="cpu", dtype=torch.float64) -> ArchCase:
    case = sample_arch(gen, "rnn_tanh", h, T, norm=1.0, device=device, dtype=dtype)
    W = case.weights[0][1]
    with torch.no_grad():
        W.mul_((1.01 + 2 * draw(gen)) / torch.linalg.eigvals(W).abs().max())
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
