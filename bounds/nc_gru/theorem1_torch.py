"""nc_gru.md, Theorem 1's argument (SM 7, eq. 23–45) carried over to ``torch.nn.GRU``'s form.

torch.nn.GRU is not eq. 1: its candidate applies the reset gate after the recurrent product and its update
gate weights the old state,

    r = σ(W_ir x + b_ir + W_hr h + b_hr),  z = σ(W_iz x + b_iz + W_hz h + b_hz),
    n = tanh(W_in x + b_in + r ⊙ (W_hn h + b_hn)),  h' = (1 − z) ⊙ n + z ⊙ h,

so Theorem 1's α and β do not apply as printed. The proof's argument does: the product rule gives

    ∂h'/∂h = diag(z) + diag((h − n) ⊙ z(1 − z)) W_hz
             + diag((1 − z) ⊙ (1 − n²)) [diag(r) W_hn + diag((W_hn h + b_hn) ⊙ r(1 − r)) W_hr],

and the triangle inequality with ‖diag(v)‖₂ = max_i |v_i|, |tanh'| ≤ 1 and σ' = σ(1 − σ) bounds it by

    α' + β',  α' = max_i z_i + δ_z max_i |h_i − n_i| ‖W_hz‖₂,
              β' = max_i (1 − z_i) (max_i r_i ‖W_hn‖₂ + δ_r max_i |(W_hn h + b_hn)_i| ‖W_hr‖₂),

δ_g = max_i g_i(1 − g_i). This module checks that bound on torch's own cell (``torch.nn.GRUCell``,
differentiated by autograd), so the audit of a user's ``torch.nn.GRU`` has a Theorem 1 to apply.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor
from torch.func import functional_call, jacrev, vmap

from rnnaudit.bounds.architectures import _case_key, _memo, step_map, trajectory
from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, NotApplicable, Supremum, safe_ratio, worst_pair
from rnnaudit.bounds.nc_gru.cases import draw, log_uniform, spectral

__all__ = ["TorchGRUCase", "theorem1_torch", "torch_gru_cases_from_model"]


@dataclass
class TorchGRUCase:
    """One sequence through a single-layer ``torch.nn.GRU`` given by its weights (torch's names and shapes).

    Attributes:
        weight_ih: (3H, n), blocks r, z, n. weight_hh: (3H, H). bias_ih, bias_hh: (3H,).
        x: inputs (T, n). h0: initial state (H,).
    """

    weight_ih: Tensor
    weight_hh: Tensor
    bias_ih: Tensor
    bias_hh: Tensor
    x: Tensor
    h0: Tensor

    def size(self) -> tuple[int, int]:
        """(H, T)."""
        return self.weight_hh.shape[1], self.x.shape[0]

    def params(self) -> dict[str, Tensor]:
        return {"weight_ih": self.weight_ih, "weight_hh": self.weight_hh, "bias_ih": self.bias_ih,
                "bias_hh": self.bias_hh}


def _cell(case: TorchGRUCase) -> torch.nn.GRUCell:
    n, H = case.weight_ih.shape[1], case.weight_hh.shape[1]
    return torch.nn.GRUCell(n, H, dtype=case.weight_hh.dtype, device=case.weight_hh.device)


def _measure(case: TorchGRUCase) -> dict[str, tuple[Tensor, Tensor]]:
    cell, p, H = _cell(case), case.params(), case.weight_hh.shape[1]

    def step(x_t: Tensor, h: Tensor) -> Tensor:
        return functional_call(cell, p, (x_t[None], h[None]))[0]

    arch = _as_arch(case)
    # a model's case (no gradient needed) reads the shared map of the same recurrence and its trajectory, formed once
    # for every claim (rnnaudit.bounds.architectures' GRU step is torch's equations, checked against torch.nn.GRU by
    # a test); a case the ascent moves differentiates torch's own cell along its own forward pass
    shared = None if _case_key(arch) is None else step_map(arch)
    if shared is not None:
        prev = trajectory(arch)[:-1]
    else:
        hs, h = [], case.h0
        for x_t in case.x:
            h = step(x_t, h)
            hs.append(h)
        prev = torch.stack([case.h0] + hs[:-1])
    J = shared.J if shared is not None else vmap(jacrev(step, argnums=1))(case.x, prev)  # ∂h_t/∂h_{t−1}
    # the three norms once per weights (theorem1_torch and its .layers read the same recurrence)
    norm_r, norm_z, norm_n = _memo("gru_recurrent_norms", arch, lambda c: tuple(
        spectral(W) for W in c.weights[0][1].split(H)))
    gi = case.x @ case.weight_ih.mT + case.bias_ih
    gh = prev @ case.weight_hh.mT + case.bias_hh
    r = torch.sigmoid(gi[:, :H] + gh[:, :H])
    z = torch.sigmoid(gi[:, H:2 * H] + gh[:, H:2 * H])
    hn = gh[:, 2 * H:]  # W_hn h + b_hn
    n = torch.tanh(gi[:, 2 * H:] + r * hn)
    delta_z, delta_r = (z * (1 - z)).amax(-1), (r * (1 - r)).amax(-1)
    alpha = z.amax(-1) + delta_z * (prev - n).abs().amax(-1) * norm_z
    beta = (1 - z).amax(-1) * (r.amax(-1) * norm_n + delta_r * hn.abs().amax(-1) * norm_r)
    norms = shared.steps if shared is not None else None
    return {"‖∂h_t/∂h_(t−1)‖₂ ≤ α' + β' (Theorem 1's argument in torch.nn.GRU's form)":
            norms.worst(alpha + beta, safe_ratio) if norms is not None else worst_pair(spectral(J), alpha + beta)}


def _as_arch(case: TorchGRUCase):
    from rnnaudit.bounds.architectures import ArchCase

    return ArchCase("gru", ((case.weight_ih, case.weight_hh, case.bias_ih, case.bias_hh),), case.x, case.h0)


def _sample(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> TorchGRUCase:
    """torch's U(−1/√H, 1/√H) initialisation with the weights scaled by a log-uniform factor in [0.3, 10]
    (large factors saturate the gates), biases of magnitude up to 8 in a third of the cases, h_0 = 0 or a
    random state in [−1, 1]^H, Gaussian inputs of a log-uniform scale."""
    n = 1 if draw(gen) < 0.5 else 3
    bound, scale = h ** -0.5, log_uniform(gen, 0.3, 10.0)
    uni = lambda *shape: (torch.rand(*shape, generator=gen, dtype=torch.float64) * 2 - 1) * bound * scale  # noqa: E731
    w_ih, w_hh, b_ih, b_hh = uni(3 * h, n), uni(3 * h, h), uni(3 * h), uni(3 * h)
    if draw(gen) < 1 / 3:
        b_ih = torch.sign(torch.randn(3 * h, generator=gen, dtype=torch.float64)) * 8 * torch.rand(
            3 * h, generator=gen, dtype=torch.float64)
    h0 = torch.zeros(h, dtype=torch.float64) if draw(gen) < 0.5 else uni(h).sign() * torch.rand(
        h, generator=gen, dtype=torch.float64)
    x = torch.randn(T, n, generator=gen, dtype=torch.float64) * log_uniform(gen, 0.3, 3.0)
    conv = lambda t: t.to(device=device, dtype=dtype)  # noqa: E731
    return TorchGRUCase(*(conv(t) for t in (w_ih, w_hh, b_ih, b_hh, x, h0)))


def _starts(h: int, T: int, device="cpu", dtype=torch.float64) -> list[TorchGRUCase]:
    """The attaining case: zero inputs, weights and state except W_hz = W_hr = I and W_hn = 4I, so z = r = 1/2,
    n = 0 and ∂h_t/∂h_{t−1} = (1/2)I + (1/2)(1/2)(4I) = (3/2)I = α' + β' at every step."""
    eye = torch.eye(h, dtype=dtype, device=device)
    w_hh = torch.cat([eye, eye, 4 * eye])
    zeros = lambda *shape: torch.zeros(*shape, dtype=dtype, device=device)  # noqa: E731
    return [TorchGRUCase(zeros(3 * h, 1), w_hh, zeros(3 * h), zeros(3 * h), zeros(T, 1), zeros(h))]


def torch_gru_cases_from_model(view) -> list[TorchGRUCase]:
    """A single-layer ``torch.nn.GRU``/``GRUCell`` (wrapped) as cases, one per input sequence, from h_0 = 0.

    Raises:
        NotApplicable: not a torch GRU, or one with several layers (Theorem 1 is about one recurrence).
    """
    from rnnaudit.cells.adapters import TorchRecurrent

    cell = view.cell
    if not isinstance(cell, TorchRecurrent) or cell.kind != "gru":
        raise NotApplicable(f"this is Theorem 1's argument in torch.nn.GRU's form; the model's cell is "
                            f"{type(cell).__name__}")
    if cell.num_layers != 1:
        raise NotApplicable(f"the model's torch GRU has {cell.num_layers} layers; Theorem 1 bounds one recurrence")
    m, H = cell.module, cell.units
    suffix = "" if cell.is_cell else "_l0"

    def param(name: str) -> Tensor:  # the parametrized weight as the module uses it; zeros for an absent bias
        t = getattr(m, f"{name}{suffix}", None)
        return torch.zeros(3 * H, dtype=torch.float64) if t is None else t.detach().double()
    w_ih, w_hh, b_ih, b_hh = (param(name) for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"))
    return [TorchGRUCase(w_ih, w_hh, b_ih, b_hh, x.detach().double(), torch.zeros(H, dtype=torch.float64))
            for x in view.inputs]


_SIZES = {"quick": [(1, 1), (2, 4), (4, 6), (8, 8)], "full": [(1, 1), (2, 4), (4, 6), (8, 8), (16, 24), (64, 50)]}
_TORCH_GRUS = CaseSpace(case_type=TorchGRUCase, sample=_sample, sizes=_SIZES, starts=_starts,
                        free=lambda c: [c.weight_ih, c.weight_hh, c.bias_ih, c.bias_hh, c.x, c.h0],
                        project=lambda c: c.h0.clamp_(-1.0, 1.0), from_model=torch_gru_cases_from_model)

A_H0 = Assumption("‖h_0‖_∞ ≤ 1 (every state of the recurrence from a state in [−1, 1]^H stays there)", lambda c: (
    float(c.h0.detach().abs().max()) <= 1.0, f"max|h_0| = {float(c.h0.detach().abs().max()):.6g}"))

theorem1_torch = Claim(
    id="nc_gru.theorem1_torch",
    source="nc_gru.md, Theorem 1 (eq. 8–12) and its proof (SM 7, eq. 23–45), carried over by rnnaudit to "
           "torch.nn.GRU's form",
    statement="For torch.nn.GRU: ‖∂h_t/∂h_{t−1}‖₂ ≤ α' + β', α' = max z + δ_z max|h − n| ‖W_hz‖₂, "
              "β' = max(1 − z)(max r ‖W_hn‖₂ + δ_r max|W_hn h + b_hn| ‖W_hr‖₂)",
    assumptions=(A_H0,),
    measure="‖∂h_t/∂h_{t−1}‖₂ by autograd through torch.nn.GRUCell's own forward (functional_call), every step of "
            "a sequence; worst step",
    bound="α'_t + β'_t from the gates, states and ‖W_hr‖₂, ‖W_hz‖₂, ‖W_hn‖₂ at that step",
    evaluate=_measure,
    cases=_TORCH_GRUS,
    explanation="Would mean the product-rule expansion of torch's GRU or the triangle inequality is wrong; the "
                "argument needs only σ' = σ(1 − σ) and |tanh'| ≤ 1, like eq. 40–42.",
    notes="torch.nn.GRU applies the reset gate after W_hn h and its update gate weights the old state, unlike "
          "eq. 1; Theorem 1 as printed is not about it, but its argument carries over term by term (module "
          "docstring), with the |·| maxima of theorem1.corrected. The bound holds for any h_{t−1}; the assumption "
          "only keeps the searched states in the range a tanh GRU visits.",
    supremum=Supremum(1.0, "triangle inequality and ‖diag(v)‖₂ = max|v_i|; equality when every term is a multiple "
                           "of I (zero inputs and state, W_hz = W_hr = I, W_hn = 4I: a structured start)",
                      at=(2, 1)),
)
