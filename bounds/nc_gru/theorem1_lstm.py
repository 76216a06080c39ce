"""nc_gru.md, Theorem 1's argument (SM 7, eq. 23–45: product rule, triangle inequality, ‖diag(v)‖₂ = max_i |v_i|,
σ' = σ(1 − σ), |tanh'| ≤ 1) carried over to torch.nn.LSTM, layer by layer.

torch's LSTM step on the state s = (h, c), with i, f, g, o = σ, σ, tanh, σ of W_i· x + b_i· + W_h· h + b_h·:

    c' = f ⊙ c + i ⊙ g,   h' = o ⊙ tanh(c').

The product rule gives the four blocks of ∂s'/∂s:

    ∂c'/∂c = diag(f),   ∂h'/∂c = diag(o ⊙ (1 − tanh²c') ⊙ f),
    ∂c'/∂h = diag(c ⊙ f(1 − f)) W_hf + diag(g ⊙ i(1 − i)) W_hi + diag(i ⊙ (1 − g²)) W_hg,
    ∂h'/∂h = diag(tanh c' ⊙ o(1 − o)) W_ho + diag(o ⊙ (1 − tanh²c')) ∂c'/∂h,

and, as in eq. 40–42, the triangle inequality bounds each block's norm: D = max f, B = max|o(1 − tanh²c') f|,
C = max|c f(1 − f)|‖W_hf‖₂ + max|g i(1 − i)|‖W_hi‖₂ + max|i(1 − g²)|‖W_hg‖₂,
A = max|tanh c' o(1 − o)|‖W_ho‖₂ + max|o(1 − tanh²c')| C. For v = (v_h, v_c),
‖Jv‖² ≤ (A‖v_h‖ + B‖v_c‖)² + (C‖v_h‖ + D‖v_c‖)², so

    ‖∂s_t/∂s_(t−1)‖₂ ≤ B_t := ‖[[A, B], [C, D]]‖₂,   and   ‖∂s_t/∂s_k‖₂ ≤ ∏_(j=k+1)^t B_j.

The bound holds for any state; the claim's assumption is the use the paper makes of Theorem 1 (Sec. 3: a step
bound below 1 certifies that gradients vanish rather than explode): max_t B_t < 1 on the data. It fails on a
trained LSTM whose forget gates sit near 1 (then D ≈ 1 and B > 0), which is the LSTM's design.
Each layer of a stacked LSTM is checked as its own recurrence (inputs: the layer below's h).
"""

from __future__ import annotations

import torch
from torch import Tensor

from rnnaudit.bounds.architectures import (
    MAX_STARTS,
    ArchCase,
    arch_cases_from_model,
    layer_cases,
    sample_arch,
    spectral,
    step_map,
    trajectory,
)
from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, Supremum, safe_ratio, worst_pair
from rnnaudit.bounds.scaled_products import schedule_log2_products

__all__ = ["theorem1_lstm", "lstm_step_bounds"]


def lstm_step_bounds(layer: ArchCase) -> Tensor:
    """B_t (T,) of a one-layer LSTM case along its trajectory (module docstring)."""
    w_ih, w_hh, b_ih, b_hh = layer.weights[0]
    H = w_hh.shape[1]
    states = trajectory(layer)
    h, c = states[:-1, :H], states[:-1, H:]
    a = layer.x @ w_ih.mT + b_ih + h @ w_hh.mT + b_hh
    ai, af, ag, ao = a.chunk(4, -1)
    i, f, g, o = torch.sigmoid(ai), torch.sigmoid(af), torch.tanh(ag), torch.sigmoid(ao)
    c_new = f * c + i * g
    tc = torch.tanh(c_new)
    W_i, W_f, W_g, W_o = (spectral(W) for W in w_hh.split(H))
    mx = lambda v: v.abs().amax(-1)  # noqa: E731
    D = mx(f)
    B = mx(o * (1 - tc * tc) * f)
    C = mx(c * f * (1 - f)) * W_f + mx(g * i * (1 - i)) * W_i + mx(i * (1 - g * g)) * W_g
    A = mx(tc * o * (1 - o)) * W_o + mx(o * (1 - tc * tc)) * C
    M = torch.stack([torch.stack([A, B], -1), torch.stack([C, D], -1)], -2)  # (T, 2, 2)
    return spectral(M)


def _bounds_below_one(case: ArchCase) -> tuple[bool, str]:
    if case.kind != "lstm":
        return False, f"not an LSTM ({case.kind})"
    worst = [float(lstm_step_bounds(layer).max().detach()) for layer in layer_cases(case)]
    return max(worst) < 1, "max_t B_t per layer = " + ", ".join(f"{v:.6g}" for v in worst)


A_BOUND_BELOW = Assumption("the step bound certifies contraction on the data: max_t B_t < 1 in every layer",
                           _bounds_below_one)


def _measure(case: ArchCase) -> dict[str, tuple[Tensor, Tensor]]:
    # each layer's worst pair, then the worst of those: the same pair as the worst over all layers' pairs together
    steps, prods = [], []
    for layer in layer_cases(case):
        Bt = lstm_step_bounds(layer)
        shared = step_map(layer)
        steps.append(shared.steps.worst(Bt, safe_ratio))
        # ∏ B_j over (k, t], the same pairs as the products
        norms, _ = shared.products()
        if len(norms):  # as log₂ ratios: over a long sequence ∏ B_j and the product underflow as numbers
            prods.append(norms.worst_log2(schedule_log2_products(Bt, MAX_STARTS)))
    worst = lambda pairs: worst_pair(torch.stack([m for m, _ in pairs]), torch.stack([b for _, b in pairs]))  # noqa: E731
    out = {"‖∂s_t/∂s_(t−1)‖₂ ≤ B_t": worst(steps)}
    zero = case.x.new_zeros(())
    out["‖∂s_t/∂s_k‖₂ ≤ ∏ B_j"] = worst(prods) if prods else (zero, zero + 1)
    return out


def _sample(gen, h, T, device="cpu", dtype=torch.float64) -> ArchCase:
    """A one- or two-layer LSTM with ‖W_h·‖₂ log-uniform in [0.1, 3], rescaled (W_hh, W_ih and biases halved) until
    max_t B_t < 1; after 12 halvings the structured start."""
    layers = 2 if float(torch.rand((), generator=gen, dtype=torch.float64)) < 0.3 else 1
    case = sample_arch(gen, "lstm", h, T, layers=layers, device=device, dtype=dtype)
    with torch.no_grad():
        for _ in range(12):
            if _bounds_below_one(case)[0]:
                return case
            for w in case.weights:
                for t in w:
                    t.mul_(0.5)
    return _starts(h, T, device, dtype)[0]


def _starts(h: int, T: int, device="cpu", dtype=torch.float64) -> list[ArchCase]:
    """Equality: every W_h· = 0.3·I, biases 0.5, zero inputs, h_0 = 0, c_0 = 1: all units identical and every term
    positive, so each block is a multiple of I and the triangle inequalities are tight (B_t ≈ 0.7)."""
    eye = torch.eye(h, dtype=dtype, device=device)
    w_hh = torch.cat([0.3 * eye] * 4)
    b = torch.full((4 * h,), 0.25, dtype=dtype, device=device)
    h0 = torch.cat([torch.zeros(h, dtype=dtype, device=device), torch.ones(h, dtype=dtype, device=device)])
    return [ArchCase("lstm", ((torch.zeros(4 * h, 2, dtype=dtype, device=device), w_hh, b, b),),
                     torch.zeros(T, 2, dtype=dtype, device=device), h0)]


def _free(case: ArchCase) -> list[Tensor]:
    return [case.x, case.h0] + [t for w in case.weights for t in w]


def _project(case: ArchCase) -> None:
    """Halve the weights and biases until max_t B_t < 1 again (at most 12 times)."""
    for _ in range(12):
        if _bounds_below_one(case)[0]:
            return
        for w in case.weights:
            for t in w:
                t.mul_(0.5)


theorem1_lstm = Claim(
    id="nc_gru.theorem1_lstm",
    source="nc_gru.md, Theorem 1's argument (SM 7, eq. 23–45), carried over by rnnaudit to torch.nn.LSTM (every "
           "layer; LSTMCell)",
    statement="For torch.nn.LSTM on s = (h, c): ‖∂s_t/∂s_(t−1)‖₂ ≤ B_t = ‖[[A, B], [C, D]]‖₂ (block bounds in the "
              "module docstring) and ‖∂s_t/∂s_k‖₂ ≤ ∏ B_j",
    assumptions=(A_BOUND_BELOW,),
    measure="‖∂s_t/∂s_(t−1)‖₂ and ‖∂s_t/∂s_k‖₂ by autograd through torch's LSTM equations, each layer's own (h, c); "
            "worst step, worst pair (a long sequence: 4 starts, about two lags per octave)",
    bound="B_t from the gates, states and ‖W_hi‖₂, ‖W_hf‖₂, ‖W_hg‖₂, ‖W_ho‖₂ at that step; ∏ B_j",
    evaluate=_measure,
    cases=CaseSpace(case_type=ArchCase, sample=_sample, sizes={"quick": [(2, 4)],
                                                               "full": [(1, 3), (3, 5), (8, 10), (16, 20)]},
                    free=_free, project=_project, starts=_starts,
                    from_model=lambda view: arch_cases_from_model(view, ("lstm",), what="Theorem 1's argument for "
                                                                                        "torch.nn.LSTM")),
    explanation="Would mean the product-rule expansion of torch's LSTM or a triangle inequality is wrong.",
    notes="Holds; attained when every block is a positive multiple of I (structured start). The bound holds for "
          "any state; the assumption (max_t B_t < 1) is what makes it say the gradients vanish, and it fails on "
          "trained LSTMs whose forget gates saturate near 1.",
    supremum=Supremum(1.0, "each block bound is attained when the block is a positive multiple of I, and then "
                           "‖J‖₂ = ‖M‖₂ (structured start)", at=(2, 4), part="‖∂s_t/∂s_(t−1)‖₂ ≤ B_t"),
)
