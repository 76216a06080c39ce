"""laurent2017 (Laurent & von Brecht 2017, "A recurrent neural network without chaos", ICLR; arXiv 1612.06212):
the chaos-free network (CFN) forgets its state when the input is zero.

The CFN: h_t = θ_t ⊙ tanh(h_(t−1)) + η_t ⊙ tanh(W x_t), θ_t = σ(U_θ h_(t−1) + V_θ x_t + b_θ),
η_t = σ(U_η h_(t−1) + V_η x_t + b_η). With x_t = 0 the second term vanishes and, since |tanh a| ≤ |a| and
θ ∈ (0, 1),

    |h_(t,i)| ≤ θ_(t,i) |h_(t−1,i)| < |h_(t−1,i)|   (h_(t−1,i) ≠ 0),

so every unit decays monotonically to 0: the zero state is the only attractor, the opposite of the chaotic
zero-input LSTM and GRU (laurent2017.chaotic_lstm, laurent2017.chaotic_gru).

Read from: the CFN's equations as documented by two independent implementations citing arXiv 1612.06212
(RecurrentLayers.jl, LuxRecurrentLayers.jl; the search tool's code corpus). The paper's own propositions (their
numbering and any decay rates it prints) were not readable here; this claim checks the elementary inequality
the CFN's construction rests on, not a printed constant.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, worst_pair

__all__ = ["CFNCase", "cfn_zero_input", "cfn_zero_input_states"]


@dataclass
class CFNCase:
    """A CFN run with zero input: U_θ (H, H), b_θ (H,), h_0 (H,), and the length T (x_t = 0 for t = 1..T).
    The input weights (W, V_θ, U_η, V_η, b_η) multiply zero or a zero term and are omitted; ``input_scale`` is
    the size of the input fed (0 inside the assumption; the negative control feeds 1)."""

    U_theta: Tensor
    b_theta: Tensor
    h0: Tensor
    T: int
    input_scale: float = 0.0

    def size(self) -> tuple[int, int]:
        return self.h0.shape[0], self.T


def cfn_zero_input_states(case: CFNCase) -> tuple[Tensor, Tensor]:
    """States h_0..h_T (T + 1, H) and gates θ_1..θ_T (T, H); with ``input_scale`` s > 0 the input term
    s·tanh(1)·(1/2) (η = 1/2, W x = s·1) is added, outside the claim's assumption."""
    h, hs, thetas = case.h0, [case.h0], []
    drive = case.input_scale * 0.5 * torch.tanh(torch.ones_like(case.h0))
    for _ in range(case.T):
        theta = torch.sigmoid(case.U_theta @ h + case.b_theta)
        h = theta * torch.tanh(h) + drive
        hs.append(h)
        thetas.append(theta)
    return torch.stack(hs), torch.stack(thetas)


def _measure(case: CFNCase) -> dict[str, tuple[Tensor, Tensor]]:
    hs, thetas = cfn_zero_input_states(case)
    return {"|h_(t,i)| ≤ θ_(t,i)|h_(t−1,i)| (zero input)": worst_pair(hs[1:].abs(), thetas * hs[:-1].abs())}


def _sample(gen, h, T, device="cpu", dtype=torch.float64) -> CFNCase:
    scale = float(torch.rand((), generator=gen, dtype=torch.float64)) * 6
    U = torch.randn(h, h, generator=gen, dtype=torch.float64) * scale / max(1, h) ** 0.5
    b = torch.randn(h, generator=gen, dtype=torch.float64) * 3
    h0 = torch.randn(h, generator=gen, dtype=torch.float64) * 3
    return CFNCase(*(t.to(device=device, dtype=dtype) for t in (U, b, h0)), T)


A_ZERO = Assumption("zero input (x_t = 0)", lambda c: (c.input_scale == 0, f"input scale {c.input_scale:g}"))

cfn_zero_input = Claim(
    id="laurent2017.cfn_zero_input",
    source="laurent2017 (arXiv 1612.06212), the CFN (equations as documented by implementations citing it) with "
           "zero input; the paper's own proposition wording not read",
    statement="With zero input the CFN's units decay monotonically: |h_(t,i)| ≤ θ_(t,i)|h_(t−1,i)|, so h_t → 0",
    assumptions=(A_ZERO,),
    measure="|h_(t,i)| along a zero-input run, every unit and step",
    bound="θ_(t,i)|h_(t−1,i)|",
    evaluate=_measure,
    cases=CaseSpace(case_type=CFNCase, sample=_sample, sizes={"quick": [(1, 5), (4, 10)],
                                                             "full": [(1, 5), (4, 10), (16, 40), (64, 100)]},
                    free=lambda c: [c.U_theta, c.b_theta, c.h0]),
    explanation="Would mean |tanh a| > |a| somewhere or θ ∉ (0, 1).",
    notes="Holds; the ratio tends to 1 as h → 0 (tanh a ≈ a) and is 1 in floating point once |h| < 1e-8 or so. "
          "The CFN is not a torch module, so the claim is checked on its own cases only.",
)
