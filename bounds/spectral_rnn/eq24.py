"""spectral_rnn.md, App. A.6, eq. 23–24: the activation bound ‖h^(t)‖ ≤ B‖M‖ t max{‖W‖^{t−1}, 1} of the
RNN of eq. 17 under Assumption 1 (a step of the proof of Lemma 3)."""

from __future__ import annotations

import torch
from torch import Tensor

from rnnaudit.bounds.core import CaseSpace, Claim, Supremum, worst_pair
from rnnaudit.bounds.spectral_rnn.rnn17 import (RNN_ASSUMPTIONS, RNN_SIZES, RNNCase, free_rnn, growth, project_rnn, times,
                                                rnn_cases_from_model, rnn_starts, rnn_states, sample_rnn_case,
                                                spec_norm)

__all__ = ["eq24"]


def _sample(gen, h, T, device, dtype) -> RNNCase:
    return sample_rnn_case(gen, h, T, device, dtype, perturb=False)


def _measure(case: RNNCase) -> dict[str, tuple[Tensor, Tensor]]:
    hs = rnn_states(case.W, case.M, case.x, case.activation, case.b, case.h0)
    T = hs.shape[1]
    norms = torch.linalg.vector_norm(hs, dim=-1).amax(0)
    t = torch.arange(1, T + 1, dtype=hs.dtype, device=hs.device)
    bound = times(case.B * t, spec_norm(case.M), growth(spec_norm(case.W), T))
    return {"eq. 24: ‖h^(t)‖ ≤ B‖M‖ t max{‖W‖^{t−1}, 1} (worst t)": worst_pair(norms, bound)}


def _starts(h, T, device="cpu", dtype=torch.float64) -> dict[str, RNNCase]:
    return rnn_starts(h, T, device, dtype, perturb=False)


_STATES = CaseSpace(case_type=RNNCase, sample=_sample, free=lambda c: free_rnn(c, False),
                    project=lambda c: project_rnn(c, False), sizes=RNN_SIZES, starts=_starts,
                    from_model=rnn_cases_from_model)

eq24 = Claim(
    id="spectral_rnn.eq24",
    source="spectral_rnn.md, App. A.6, eq. 23–24 (activation bound in the proof of Lemma 3)",
    statement="‖h^(t)‖ ≤ B‖M‖ t max{‖W‖^{t−1}, 1} for the RNN of eq. 17 under Assumption 1",
    assumptions=RNN_ASSUMPTIONS,
    measure="hidden-state norms of eq. 17 (rnn_states), worst sequence and worst t",
    bound="B ‖M‖₂ t max{‖W‖₂^{t−1}, 1}, B = max_t ‖x_t‖ (the tightest B)",
    evaluate=_measure,
    cases=_STATES,
    supremum=Supremum(1.0, "each step of eq. 23 is an equality for W = I, φ the identity (or ReLU on a non-negative "
                           "M x) and x_t constant along M's top right singular vector: ‖h^(t)‖ = t B ‖M‖; the "
                           "sampler's aligned quarter draws exactly that case", at=(2, 7)),
    explanation="Needs ‖φ(x)‖ ≤ ‖x‖ (fails for the sigmoid, σ(0) = 1/2, although Sec. 6 lists it as satisfying "
                "Assumption 1b: spectral_rnn.assumption1, false), h^(0) = 0 and no bias.",
    notes="Attained (ratio 1) for W = I, φ = identity or ReLU on a non-negative M x, constant x along M's top right "
          "singular vector. Decision: Sec. 6's M ∈ ℝ^{n_i×n}, where App. A.6's M ∈ ℝ^{n×n_x} is the typable one, gets no verdict: a transposed shape in a definition, on which no bound depends (only ‖M‖₂ = ‖Mᵀ‖₂ enters).",
)
