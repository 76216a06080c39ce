"""nc_gru.md, Sec. 3.1, eq. 7: ∂L/∂h_i = ∂L/∂h_T ∏_{t=i+1}^T ∂h_t/∂h_{t−1}, "the gradients of the loss function L
with respect to intermediate hidden states ... can be found from the respective gradients of the final hidden state
h_T". True when L depends on the sequence through h_T alone (the adding task); false for a loss with terms at every
step (the copying, denoise and parenthesis tasks of Sec. 4.1, 4.2, 4.4), which eq. 7 silently drops. The corrected
form sums the direct terms."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, ExactVerdict
from rnnaudit.bounds.nc_gru.cases import A_GRU, A_H0, GRUCase, gru_steps, sample_trajectory_case
from rnnaudit.cells import GRU

__all__ = ["GradientCase", "sample_gradient_case", "step_losses", "eq7", "eq7_corrected", "EQ7_RTOL", "eq7_formula",
           "summed_formula"]

#: Relative tolerance of a chain of T ≤ 12 Jacobian products against autograd: each product adds ≲ h·u relative
#: error (h ≤ 12); 1e-10 is ≥ 10⁴ times what they accumulate and far below any missing term.
EQ7_RTOL = 1e-10


@dataclass
class GradientCase:
    """A GRU sequence (eq. 1, h_0 = 0) and a loss of its hidden states, ℓ_t(h_t) = ⟨y_t, h_t⟩ + ½ w_t‖h_t‖².

    Attributes:
        cell, x, h0: as :class:`rnnaudit.bounds.nc_gru.cases.GRUCase`. Y: (T, h), the y_t. w: (T,), the w_t.
        loss: ``"final"`` (L = ℓ_T(h_T), w and Y zero before T) or ``"per_step"`` (L = Σ_t ℓ_t(h_t), the
            per-step cross-entropy or squared error of Sec. 4.1, 4.2 and 4.4 in linear-quadratic form).
    """

    cell: GRU
    x: Tensor
    h0: Tensor
    Y: Tensor
    w: Tensor
    loss: str = "per_step"

    def size(self) -> tuple[int, int]:
        """(h, T)."""
        return self.cell.hidden_size, self.x.shape[1]


def step_losses(case: GradientCase, hs: Tensor) -> Tensor:
    """ℓ_t(h_t) for t = 1..T, shape (T,); zero before T for the ``"final"`` loss."""
    ell = (case.Y * hs).sum(-1) + 0.5 * case.w * (hs * hs).sum(-1)
    if case.loss == "final":
        ell = torch.cat([torch.zeros_like(ell[:-1]), ell[-1:]])
    return ell


def _truth_and_jacobians(case: GradientCase) -> tuple[Tensor, Tensor, Tensor]:
    """dL/dh_i for i = 1..T by autograd through the recurrence (each h_i as an intermediate node), the step Jacobians
    J_t = ∂h_t/∂h_{t−1} (t = 1..T) and the direct gradients ∂ℓ_t/∂h_t."""
    cell = case.cell
    with torch.enable_grad():
        h = case.h0
        hs = []
        for t in range(case.x.shape[1]):
            h = cell.step(case.x[:, t], h[None])[0]  # each h_t is the node both the loss and the next step use
            hs.append(h)
        H = torch.stack(hs)
        L = step_losses(case, H).sum()
        truth = torch.stack(torch.autograd.grad(L, hs, retain_graph=False))
    J = gru_steps(GRUCase(cell, case.x, case.h0)).J
    Hd = H.detach()
    direct = case.Y + case.w[:, None] * Hd
    if case.loss == "final":
        direct = torch.cat([torch.zeros_like(direct[:-1]), direct[-1:]])
    return truth, J, direct


def eq7_formula(J: Tensor, direct: Tensor) -> Tensor:
    """Eq. 7 for i = 1..T: g_T ∏_{t=T}^{i+1} J_t with g_T = ∂L/∂h_T (row vector times the Jacobians in decreasing t,
    the only order in which the chain rule composes them). Shape (T, h)."""
    T = J.shape[0]
    out = [direct[-1]]
    for i in range(T - 2, -1, -1):  # h_i with i = T−1 … 1 (0-based rows i)
        out.append(out[-1] @ J[i + 1])
    return torch.stack(out[::-1])


def summed_formula(J: Tensor, direct: Tensor) -> Tensor:
    """The corrected eq. 7: dL/dh_i = Σ_{s=i}^T ∂ℓ_s/∂h_s ∏_{t=s}^{i+1} J_t, by the backward recursion
    g_i = ∂ℓ_i/∂h_i + g_{i+1} J_{i+1}. Shape (T, h)."""
    T = J.shape[0]
    out = [direct[-1]]
    for i in range(T - 2, -1, -1):
        out.append(direct[i] + out[-1] @ J[i + 1])
    return torch.stack(out[::-1])


def _measure(case: GradientCase, formula) -> dict[str, tuple]:
    truth, J, direct = _truth_and_jacobians(case)
    err = torch.linalg.vector_norm(formula(J, direct) - truth, dim=-1)
    ref = torch.linalg.vector_norm(truth, dim=-1)
    scale = ref.max().clamp_min(1e-300)
    k = int(torch.argmax(err))
    name = "L = ℓ_T(h_T)" if case.loss == "final" else "L = Σ_t ℓ_t(h_t) (losses at every step)"
    return {f"{name}: max_i ‖formula_i − dL/dh_i‖₂": (err[k], EQ7_RTOL * scale, ref[k])}


def sample_gradient_case(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> GradientCase:
    """A GRU sequence of :func:`rnnaudit.bounds.nc_gru.cases.sample_trajectory_case` with Y standard normal and
    w uniform in [0, 1]; the loss is ``"final"`` or ``"per_step"`` with equal odds."""
    base = sample_trajectory_case(gen, h, T, device, dtype)
    loss = "final" if torch.rand((), generator=gen) < 0.5 else "per_step"
    Y = torch.randn(T, h, generator=gen, dtype=torch.float64).to(device=device, dtype=dtype)
    w = torch.rand(T, generator=gen, dtype=torch.float64).to(device=device, dtype=dtype)
    return GradientCase(base.cell, base.x, base.h0, Y, w, loss)


def _exact(printed: bool) -> ExactVerdict:
    """A scalar GRU (h = 1), T = 2, x = 0, all weights symbolic: dL/dh_1 for L = y_1 h_1 + y_2 h_2 by sympy's
    differentiation of the recurrence, against eq. 7's y_2 ∂h_2/∂h_1 (printed) or y_1 + y_2 ∂h_2/∂h_1 (corrected)."""
    import sympy

    ur, uu, uc, br, bu, bc, y1, y2, h1 = sympy.symbols("U_r U_u U_c b_r b_u b_c y_1 y_2 h_1", real=True)
    sig = lambda z: 1 / (1 + sympy.exp(-z))  # noqa: E731
    r, u = sig(ur * h1 + br), sig(uu * h1 + bu)
    h2 = (1 - u) * h1 + u * sympy.tanh(uc * r * h1 + bc)  # eq. 1 at t = 2, x_2 = 0
    L = y1 * h1 + y2 * h2
    truth = sympy.diff(L, h1)
    claimed = y2 * sympy.diff(h2, h1) if printed else y1 + y2 * sympy.diff(h2, h1)
    gap = sympy.simplify(truth - claimed)
    if printed:
        return ExactVerdict("violated" if gap != 0 else "proved",
                            f"scalar GRU, L = y_1 h_1 + y_2 h_2: dL/dh_1 − (eq. 7) = {gap} (sympy), nonzero for "
                            f"y_1 ≠ 0: eq. 7 drops the direct term ∂ℓ_1/∂h_1")
    return ExactVerdict("proved" if gap == 0 else "violated",
                        f"scalar GRU, L = y_1 h_1 + y_2 h_2: dL/dh_1 − (y_1 + y_2 ∂h_2/∂h_1) = {gap} (sympy)")


A_LOSS = Assumption("L a differentiable loss of the hidden states h_1, …, h_T (Sec. 3.1)", lambda c: (
    c.loss in ("final", "per_step"), f"loss = {c.loss}"))

_SIZES = [(1, 1), (2, 3), (4, 6), (8, 8), (12, 10)]
_GRADIENTS = CaseSpace(case_type=GradientCase, sample=sample_gradient_case,
                       sizes={"quick": _SIZES, "full": _SIZES + [(32, 50), (64, 50)]})

eq7 = Claim(
    id="nc_gru.eq7",
    source="nc_gru.md, Sec. 3.1, eq. 7 and the sentence before it",
    statement="∂L/∂h_i = ∂L/∂h_T ∏_{t=i+1}^T ∂h_t/∂h_{t−1}: the gradients of the loss with respect to the intermediate "
              "hidden states are found from the gradient at the final hidden state h_T",
    assumptions=(A_GRU, A_H0, A_LOSS),
    measure="max_i ‖(eq. 7)_i − dL/dh_i‖₂, dL/dh_i by autograd through the recurrence, ∂h_t/∂h_(t−1) by autograd, "
            "∂L/∂h_T the gradient at h_T",
    bound="1e-10 · max_i ‖dL/dh_i‖₂ (rounding of T Jacobian products); reference ‖dL/dh_i‖₂",
    evaluate=lambda c: _measure(c, eq7_formula),
    cases=_GRADIENTS,
    explanation="Eq. 7 holds only if L depends on h_1, …, h_T through h_T alone. For a loss with a term at every step "
                "(the per-step cross-entropy of the copying and denoise tasks, Sec. 4.2 and 4.4, whose baseline "
                "10 log 8/(T + 20) averages over all T + 20 steps; the parenthesis counts of Sec. 4.1), dL/dh_i = "
                "Σ_{s ≥ i} ∂ℓ_s/∂h_s ∏_{t=s}^{i+1} ∂h_t/∂h_{t−1}: eq. 7 keeps only the s = T term. The missing "
                "hypothesis is 'L = ℓ(h_T)'. See nc_gru.eq7.corrected.",
    notes="Reading of ∏: factors in decreasing t (∂L/∂h_T ∂h_T/∂h_(T−1) ⋯ ∂h_(i+1)/∂h_i, row-vector gradients), the "
          "only order in which the chain rule composes them; the loss is linear-quadratic in each h_t, which covers "
          "every loss through its gradient. Half the cases use L = ℓ_T(h_T), on which eq. 7 holds to rounding. The "
          "paper "
          "says only 'a loss function L' and that every gradient 'can be found from … the final hidden state h_T'; "
          "the restriction L = ℓ(h_T) is the usual simplification (Arjovsky et al. write the same) and costs little: "
          "the per-step gradient is a sum of the same Jacobian products, so Theorem 1's motivation is unaffected. "
          "Low severity.",
    exact=lambda: _exact(True),
)

eq7_corrected = Claim(
    id="nc_gru.eq7.corrected",
    source="nc_gru.md, Sec. 3.1, eq. 7, corrected by rnnaudit (the direct terms of a per-step loss)",
    statement="dL/dh_i = Σ_{s=i}^T ∂ℓ_s/∂h_s ∏_{t=s}^{i+1} ∂h_t/∂h_{t−1} for L = Σ_t ℓ_t(h_t); eq. 7 is the case "
              "ℓ_t = 0 for t < T",
    assumptions=(A_GRU, A_H0, A_LOSS),
    measure="max_i ‖(summed formula)_i − dL/dh_i‖₂ against autograd",
    bound="1e-10 · max_i ‖dL/dh_i‖₂",
    evaluate=lambda c: _measure(c, summed_formula),
    cases=_GRADIENTS,
    explanation="Would mean the chain rule through the recurrence is wrong.",
    exact=lambda: _exact(False),
)
