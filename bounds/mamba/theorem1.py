"""Mamba (Gu & Dao 2023, arXiv 2312.00752), Theorem 1: when N = 1, A = −1, B = 1, s_Δ = Linear(x) and
τ_Δ = softplus, the selective SSM recurrence (Algorithm 2) takes the form of a gated recurrence,
g_t = σ(Linear(x_t)), h_t = (1 − g_t) h_{t−1} + g_t x_t (the statement as the issue gives it; the paper's wording
was not read, see bounds/mamba/__init__.py).

Under the paper's zero-order hold it is an exact identity: with Δ = softplus(z), exp(ΔA) = exp(−Δ) =
1/(1 + e^z) = 1 − σ(z) and B̄ = (ΔA)⁻¹(exp(ΔA) − 1)ΔB = 1 − exp(−Δ) = σ(z) (exact verdict). The reference
implementations (mamba_ssm's selective scan, ``mambapy``) discretise B̄ = ΔB instead: then B̄ = softplus(z) ≠ σ(z)
(at z = 0: log 2 against 1/2), and the recurrence is h_t = σ(−z_t)h_{t−1} + softplus(z_t)x_t, not a gated
(convex) one. That setting is the Reading "B̄ = ΔB", checked and shown beside the headline.

Both sides are computed by the case's cell: Δ_t and z_t = Parameter + s_Δ(x_t) from
:meth:`rnnaudit.cells.SelectiveSSM.delta_logits`, Ā and B̄ from :func:`rnnaudit.cells.selective_ssm.discretise`
with B_t = 1 (the theorem's B; the cell's own B_t = s_B(x_t) is not used).
"""

from __future__ import annotations

import sympy as sp
import torch
from torch.nn import functional as F

from rnnaudit.bounds.cell_case import CellCase, from_model_of
from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, ExactVerdict, Reading
from rnnaudit.cells import SelectiveSSM
from rnnaudit.cells.selective_ssm import discretise

__all__ = ["theorem1", "THEOREM1_ULPS", "sample_theorem1"]

#: Per step: softplus, exp, expm1, a quotient, the sigmoid and two fused updates, each a few roundings of values
#: of order max|x|; over T contracting steps the errors add: 16·2⁻⁵³·T·max(1, max|x|, max|h|).
THEOREM1_ULPS = 16


def sample_theorem1(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> CellCase:
    """h = D channels, N = 1, A = −1 (A^log = 0), ZOH; the cell's Linear maps as initialised, their bias Δ-range
    drawn in [1e-3, 10] so that gates span (0, 1); inputs (1, T, D) ~ N(0, 4)."""
    lo = 10 ** (-3 + 3 * float(torch.rand((), generator=gen, dtype=torch.float64)))
    cell = SelectiveSSM(h, 1, dt_rank=1, discretisation="zoh", dt_min=lo, dt_max=10 * lo, generator=gen,
                        dtype=torch.float64)
    with torch.no_grad():
        cell.A_log.zero_()
        cell.x_proj.mul_(4.0)
    x = 2 * torch.randn(1, T, h, generator=gen, dtype=torch.float64)
    return CellCase(cell.to(device=device, dtype=dtype), x.to(device=device, dtype=dtype),
                    torch.zeros(h, device=device, dtype=dtype))


def _both(case: CellCase, discretisation: str) -> tuple[torch.Tensor, torch.Tensor]:
    cell, x = case.cell, case.x[0]
    ones = x.new_ones(x.shape[0], 1)
    z = cell.delta_logits(x)                                   # (T, D)
    Abar, Bbar = discretise(F.softplus(z), cell.A(), ones, discretisation)
    ssm, gated, hs, hg = [], [], case.h0, case.h0
    for t in range(x.shape[0]):
        hs = Abar[t, :, 0] * hs + Bbar[t, :, 0] * x[t]
        g = torch.sigmoid(z[t])
        hg = (1 - g) * hg + g * x[t]
        ssm.append(hs)
        gated.append(hg)
    return torch.stack(ssm), torch.stack(gated)


def _measure_with(discretisation: str):
    def measure(case: CellCase):
        ssm, gated = _both(case, discretisation)
        scale = torch.stack([case.x.abs().max(), gated.abs().max(), case.x.new_ones(())]).max()
        tol = THEOREM1_ULPS * 2.0 ** -53 * case.x.shape[1] * scale
        return {f"max_t ‖h_t(selective SSM, {discretisation}) − h_t(gated)‖_∞": ((ssm - gated).abs().max(), tol,
                                                                                 gated.abs().max())}
    return measure


def _n_one(case: CellCase) -> tuple[bool, str]:
    c = case.cell
    return isinstance(c, SelectiveSSM) and c.state_size == 1, f"N = {getattr(c, 'state_size', None)}"


def _a_minus_one(case: CellCase) -> tuple[bool, str]:
    dev = float((case.cell.A().detach() + 1).abs().max())
    return dev == 0, f"max|A + 1| = {dev:.3g}"


A_N1 = Assumption("N = 1", _n_one)
A_A = Assumption("A = −1", _a_minus_one)


def _exact_zoh() -> ExactVerdict:
    z = sp.Symbol("z", real=True)
    delta = sp.log(1 + sp.exp(z))
    sigma = 1 / (1 + sp.exp(-z))
    a_ok = sp.simplify(sp.exp(-delta) - (1 - sigma)) == 0
    b_ok = sp.simplify((sp.exp(-delta) - 1) / (-delta) * delta - sigma) == 0
    if a_ok and b_ok:
        return ExactVerdict("proved", "Δ = softplus(z): exp(−Δ) = 1 − σ(z) and (−Δ)⁻¹(exp(−Δ) − 1)Δ = σ(z), so "
                                      "h_t = (1 − g_t)h_(t−1) + g_t x_t with g_t = σ(z_t)")
    return ExactVerdict("violated", f"Ā identity {a_ok}, B̄ identity {b_ok}")


def _exact_euler() -> ExactVerdict:
    z = sp.Symbol("z", real=True)
    delta, sigma = sp.log(1 + sp.exp(z)), 1 / (1 + sp.exp(-z))
    at0 = (delta - sigma).subs(z, 0)
    if sp.simplify(at0) != 0:
        return ExactVerdict("violated", f"B̄ = Δ·B = softplus(z) but the gate is σ(z): at z = 0, "
                                        f"{sp.simplify(delta.subs(z, 0))} ≠ {sigma.subs(z, 0)}, so with x_t = 1, h_0 = 0: "
                                        "h_1 = log 2 ≠ 1/2")
    return ExactVerdict("proved", "softplus(z) = σ(z) at z = 0")


EULER = Reading(
    name="B̄ = ΔB (the reference implementations' discretisation)",
    statement="with Ā = exp(ΔA) and B̄ = ΔB, N = 1, A = −1, B = 1: h_t = (1 − g_t)h_(t−1) + g_t x_t",
    support="the released kernels compute B̄ = ΔB (read in mambapy's selective_scan; the paper's own remark on the "
            "simplification was not read): a user checking the theorem against those kernels gets this reading",
    evaluate=_measure_with("euler"),
    exact=_exact_euler,
)

#: The claim on a user's model: one case per input sequence, from a float64 copy of its cell.
_FROM_MODEL = from_model_of(SelectiveSSM, what="Mamba's Theorem 1 (arXiv 2312.00752)")


theorem1 = Claim(
    id="mamba.theorem1",
    source="Gu & Dao 2023 (arXiv 2312.00752), Theorem 1, Algorithm 2 (statement paraphrased from "
           "the issue; the theorem's wording was not read)",
    statement="When N = 1, A = −1, B = 1, s_Δ = Linear(x) and τ_Δ = softplus, the selective SSM recurrence takes the "
              "form g_t = σ(Linear(x_t)), h_t = (1 − g_t)h_(t−1) + g_t x_t",
    assumptions=(A_N1, A_A),
    measure="the selective SSM's h_t (cells.selective_ssm.discretise, ZOH, with the cell's Δ_t) against the gated "
            "recurrence with g_t = σ(the cell's Parameter + s_Δ(x_t)), every t",
    bound="THEOREM1_ULPS·2⁻⁵³·T·max(1, max|x|, max|h|)",
    evaluate=_measure_with("zoh"),
    cases=CaseSpace(case_type=CellCase, from_model=_FROM_MODEL, sample=sample_theorem1,
                    sizes={"quick": [(1, 5), (3, 20)], "full": [(1, 5), (3, 20), (16, 200)]}),
    explanation="Would mean exp(−softplus(z)) ≠ 1 − σ(z) or the ZOH B̄ ≠ σ(z).",
    notes="Holds as printed (exact identity under the paper's ZOH; sympy proof). Under the simplified B̄ = ΔB of the "
          "reference kernels (the Reading) it is false: B̄ = softplus(z) is not the gate σ(z), e.g. z = 0, x = 1 "
          "gives h_1 = log 2 against 1/2; the recurrence is still h_t = σ(−z_t)h_(t−1) + softplus(z_t)x_t, a leaky "
          "integrator whose input weight can exceed 1.",
    exact=_exact_zoh,
    readings=(EULER,),
)
