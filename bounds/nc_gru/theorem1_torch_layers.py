"""nc_gru.md, Theorem 1's argument in torch.nn.GRU's form (nc_gru.theorem1_torch) for every layer of a stacked GRU.

Layer l of a stacked torch GRU is a one-layer GRU whose input sequence is layer l − 1's states (torch's
stacking; dropout between layers is off in evaluation). theorem1_torch's bound holds for a one-layer GRU with
any input sequence and any h_(t−1), so it holds for ∂h^(l)_t/∂h^(l)_(t−1) of every layer, each with its own
gates and ‖W_hr‖₂, ‖W_hz‖₂, ‖W_hn‖₂. The case space is theorem1_torch's (a layer is such a case); only the way
a model becomes cases differs: one case per (sequence, layer).
"""

from __future__ import annotations

import dataclasses

import torch

from rnnaudit.bounds.architectures import arch_cases_from_model, layer_cases
from rnnaudit.bounds.nc_gru.theorem1_torch import TorchGRUCase, theorem1_torch

__all__ = ["theorem1_torch_layers", "gru_layer_cases_from_model"]


def gru_layer_cases_from_model(view) -> list[TorchGRUCase]:
    """A torch GRU/GRUCell of any depth as one :class:`TorchGRUCase` per input sequence and layer, from h_0 = 0.

    Raises:
        NotApplicable: not a torch GRU.
    """
    out = []
    for case in arch_cases_from_model(view, ("gru",), what="Theorem 1's argument for torch.nn.GRU"):
        with torch.no_grad():
            for layer in layer_cases(case):
                w_ih, w_hh, b_ih, b_hh = layer.weights[0]
                out.append(TorchGRUCase(w_ih, w_hh, b_ih, b_hh, layer.x, layer.h0))
    return out


theorem1_torch_layers = dataclasses.replace(
    theorem1_torch,
    id="nc_gru.theorem1_torch.layers",
    source="nc_gru.md, Theorem 1 (eq. 8–12) and its proof (SM 7), carried over by rnnaudit to torch.nn.GRU's form "
           "(nc_gru.theorem1_torch) and to every layer of a stacked torch GRU",
    statement="For every layer l of a stacked torch.nn.GRU: ‖∂h^(l)_t/∂h^(l)_(t−1)‖₂ ≤ α'_l + β'_l (theorem1_torch's "
              "bound with that layer's gates, states and recurrent blocks)",
    measure="‖∂h^(l)_t/∂h^(l)_(t−1)‖₂ by autograd through torch.nn.GRUCell's forward with layer l's weights and "
            "inputs (layer l − 1's states); worst step and layer",
    # the quick search is theorem1_torch's at one size: the layers' case space is the same
    cases=dataclasses.replace(theorem1_torch.cases, from_model=gru_layer_cases_from_model,
                              sizes={"quick": [(2, 4)], "full": theorem1_torch.cases.sizes["full"]}),
    notes=theorem1_torch.notes + " Layer by layer: the bound is about each layer's own recurrence at fixed input; the "
          "packed state's Jacobian also has the blocks ∂h^(l)_t/∂h^(l−1)_(t−1), which it does not bound. The "
          "assumption ‖h_0‖_∞ ≤ 1 fails on a model audited from a state outside [−1, 1]^H (a GRU's states stay "
          "in it from any state inside).",
)
