"""srnn.md, Sec. 3, after eq. 11: with ReLU, "previous hidden states can only increase h_t, negative contributions
only arise due to the outputs of network b" — W_p h_{t−1} ≥ 0, hence z_t ≥ b(x_t) and h_t ≥ σ(b(x_t)).
"""

from __future__ import annotations

from dataclasses import replace

import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, Claim
from rnnaudit.bounds.srnn.cases import (A_RELU, SHUFFLE, ShuffleCase, cell_params, f64, perturbed_states, relu_starts,
                                        sample_relu_case)
from rnnaudit.cells import shift

__all__ = ["relu_nonnegative"]


def _measure(case: ShuffleCase) -> dict[str, tuple[Tensor, Tensor]]:
    params = cell_params(case, detach=True)
    with torch.no_grad():
        _, h = perturbed_states(case, params)
        bx = case.cell.b(case.x)[0]
    prev = torch.cat([case.h0, h[:-1]])
    zero = f64(0.0, h)
    return {
        "W_p h_{t−1} ≥ 0 (no negative contribution from previous states)": (torch.relu(-shift(prev)).max(), zero),
        "h_t ≥ σ(b(x_t)) (previous states can only increase h_t)": (torch.relu(torch.relu(bx) - h).max(), zero),
    }


A_H0_NONNEGATIVE = Assumption("h_0 ≥ 0 (Sec. 3 leaves h_0 unstated; 0 by default)",
                              lambda c: (bool((c.h0 >= 0).all()), f"min h_0 = {float(c.h0.min()):.3g}"))

relu_nonnegative = Claim(
    id="srnn.relu_nonnegative",
    source="srnn.md, Sec. 3, after eq. 11 ('Since previous hidden states can only increase h_t, …')",
    statement="For ReLU, previous hidden states can only increase h_t: W_p h_{t−1} ≥ 0, so negative contributions to "
              "z_t come from b(x_t) only",
    assumptions=(A_RELU, A_H0_NONNEGATIVE),
    measure="the largest negative part of W_p h_{t−1}, and of h_t − σ(b(x_t)), over t and units",
    bound="0 (both sides are compared in floating point, whose rounding is monotone: fl(s + b) ≥ b for s ≥ 0)",
    evaluate=_measure,
    cases=replace(SHUFFLE, sample=sample_relu_case, starts=relu_starts),
    explanation="Would need a negative entry in some h_{t−1}: impossible after a ReLU, so only a negative h_0 can "
                "break it — a hypothesis the paper leaves implicit (h_0 = 0 by default).",
    notes="Holds for t ≥ 2 whatever h_0 is; at t = 1 it needs h_0 ≥ 0 (the tests feed a "
          "negative h_0 and see the check fail). Decision: that the paper never states h_0 ≥ 0 is not counted as "
          "an error: its default h_0 = 0 satisfies it.",
)
