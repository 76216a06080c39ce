"""arXiv 2303.06349 (the proposition on the forward pass at initialisation, and the γ normalisation it
motivates), in the form rnnaudit derives and checks; the proposition's own wording and constant were not read
(bounds/lru/__init__.py), so neither is quoted nor guessed.

rnnaudit's derivation. For u_k i.i.d. with E u_k = 0, E u_k u_kᵀ = I (white noise of unit variance) and x_0 = 0,
x_k = Σ_{i<k} λ^i ⊙ γ ⊙ B u_{k−i}, so E|x_{k,j}|² = γ_j² ‖B_j‖² (1 − |λ_j|^{2k})/(1 − |λ_j|²), B_j the j-th row.
Without normalisation (γ = 1) this grows like 1/(1 − |λ_j|²), which blows up as |λ_j| → 1; averaged over the ring
initialisation (|λ|² ~ U[r_min², r_max²]) the factor is E[1/(1 − |λ|²)] = log((1 − r_min²)/(1 − r_max²))/(r_max² −
r_min²) (exact verdict). With γ_j = sqrt(1 − |λ_j|²) it is ‖B_j‖²(1 − |λ_j|^{2k}), so

    E‖x_k‖² = Σ_j ‖B_j‖² (1 − |λ_j|^{2k}) ≤ ‖B‖_F² = E‖B u‖²   for every k, with equality as k → ∞.

The measured side is Σ_{s ≤ T} ‖∂x_T/∂u_s‖_F² (= E‖x_T‖² for unit white noise, the recurrence being linear), from
the probes' per-step Jacobians (:func:`rnnaudit.analysis.jacobian.step_jacobians`, ``input_jacobians``).
"""

from __future__ import annotations

import sympy as sp
import torch

from rnnaudit.analysis.jacobian import input_jacobians, step_jacobians
from rnnaudit.bounds.cell_case import CellCase, from_model_of
from rnnaudit.bounds.core import FLOAT64_CASES, Assumption, CaseSpace, Claim, ExactVerdict, Supremum, assumption_tolerances
from rnnaudit.bounds.lru.cases import lru_case, sample_lru
from rnnaudit.cells import LRU

__all__ = ["forward_norm", "A_GAMMA", "GAMMA_RTOL", "white_noise_energy"]

#: γ_j² against 1 − |λ_j|² at initialisation: log, sqrt, exp and the squares, a few roundings of values ≤ 1 divided
#: by 1 − |λ|² ≥ 1 − r_max² (a cancellation); 1e-9 covers r_max up to 1 − 1e-6 for float64 cases. It is the
#: ``rtol_computed`` of the tolerances in force (:func:`rnnaudit.bounds.core.assumption_tolerances`), so a model
#: initialised in float32 (lru-pytorch's, γ rounded to float32: 2.4e-7 measured) is held to FLOAT32_TRAINED's 1e-4.
GAMMA_RTOL = FLOAT64_CASES.rtol_computed


def white_noise_energy(case: CellCase) -> torch.Tensor:
    """Σ_{s=1..T} ‖∂h_T/∂x_s‖_F² along the case's sequence: E‖h_T‖² for unit white-noise inputs of a linear cell."""
    J, _ = step_jacobians(case.cell, case.x, case.h0)
    K = input_jacobians(case.cell, case.x, case.h0)
    T = K.shape[0]
    P = torch.eye(J.shape[-1], dtype=J.dtype, device=J.device)
    total = torch.linalg.matrix_norm(K[T - 1]) ** 2
    for s in range(T - 1, 0, -1):
        P = P @ J[s]
        total = total + torch.linalg.matrix_norm(P @ K[s - 1]) ** 2
    return total


def _measure(case: CellCase):
    cell = case.cell
    bound = (cell.B_re ** 2).sum() + (cell.B_im ** 2).sum()
    return {"E‖x_T‖² ≤ E‖Bu‖² = ‖B‖_F² (unit white noise, γ at initialisation)": (white_noise_energy(case),
                                                                               bound.detach())}


def _gamma(case: CellCase) -> tuple[bool, str]:
    cell = case.cell
    if not isinstance(cell, LRU):
        return False, type(cell).__name__
    g2, target = cell.gamma().detach() ** 2, 1 - cell.lambdas().detach().abs() ** 2
    err = float(((g2 - target).abs() / target.clamp_min(1e-300)).max())
    return err <= assumption_tolerances().rtol_computed, f"max_j |γ_j² − (1 − |λ_j|²)|/(1 − |λ_j|²) = {err:.3g}"


def _zero_start(case: CellCase) -> tuple[bool, str]:
    m = float(case.h0.abs().max())
    return m == 0, f"max|x_0| = {m:g}"


A_GAMMA = Assumption("γ_j = sqrt(1 − |λ_j|²) (the normalisation at initialisation)", _gamma)
A_ZERO = Assumption("x_0 = 0", _zero_start)


def _starts(h: int, T: int, device="cpu", dtype=torch.float64) -> list[CellCase]:
    """|λ| ≤ 0.01: the state forgets within a step, E‖x_T‖² = ‖B‖_F²(1 − |λ|^{2T}) is within 1e-4 of the bound."""
    return [lru_case(torch.Generator().manual_seed(1), max(1, h // 2), T, 0.0, 0.01, 1.0, device=device,
                     dtype=dtype)]


def _exact() -> ExactVerdict:
    """F(b) = (b − a)·closed form is the integral of 1/(1 − s) from a to b: F(a) = 0 and F'(b) = 1/(1 − b) (symbolic);
    and with γ² = 1 − s a mode's energy γ²(1 − s^k)/(1 − s) is 1 − s^k ≤ 1."""
    s, a, b = sp.symbols("s a b", positive=True)
    k = sp.Symbol("k", integer=True, positive=True)
    F = sp.log((1 - a) / (1 - b))
    integral = sp.simplify(F.subs(b, a)) == 0 and sp.simplify(sp.diff(F, b) - 1 / (1 - b)) == 0
    normalised = sp.simplify((1 - s) * (1 - s ** k) / (1 - s) - (1 - s ** k)) == 0
    detail = ("E over |λ|² ~ U[a, b] of 1/(1 − |λ|²) = log((1 − a)/(1 − b))/(b − a), the unnormalised blow-up factor; "
              "with γ² = 1 − |λ|² a mode's energy after k steps is 1 − |λ|^(2k) ≤ 1")
    return ExactVerdict("proved" if integral and normalised else "violated", detail)


#: The claim on a user's model: one case per input sequence, from a float64 copy of its cell.
_FROM_MODEL = from_model_of(LRU, what="the LRU forward-pass norm (arXiv 2303.06349)")


forward_norm = Claim(
    id="lru.forward_norm",
    source="Orvieto et al. 2023 (arXiv 2303.06349), the proposition on the forward pass at initialisation "
           "and the γ normalisation (rnnaudit's derivation; the proposition's wording was not read)",
    statement="With γ_j = sqrt(1 − |λ_j|²), x_0 = 0 and unit white-noise inputs, E‖x_k‖² ≤ E‖B u‖² = ‖B‖_F² for every "
              "k (equality as k → ∞); without γ the factor over the ring is log((1 − r_min²)/(1 − r_max²))/(r_max² − "
              "r_min²)",
    assumptions=(A_GAMMA, A_ZERO),
    measure="Σ_s ‖∂x_T/∂u_s‖_F² from the probes' step and input Jacobians (E‖x_T‖² of the linear recurrence)",
    bound="‖B‖_F² = ‖B_re‖_F² + ‖B_im‖_F²",
    evaluate=_measure,
    cases=CaseSpace(case_type=CellCase, from_model=_FROM_MODEL, sample=sample_lru, starts=_starts,
                    sizes={"quick": [(4, 5), (8, 12)], "full": [(4, 5), (8, 12), (32, 40), (64, 100)]}),
    explanation="Would mean γ does not normalise: E|x_j|² = γ_j²‖B_j‖²(1 − |λ_j|^{2k})/(1 − |λ_j|²) exceeds ‖B_j‖².",
    notes="Holds by rnnaudit's derivation (per mode (1 − |λ|^{2k}) ≤ 1). The assumption γ_j = sqrt(1 − |λ_j|²) holds "
          "at initialisation only: γ^log is trained, so a trained LRU can fail it, and the test of a γ = 1 cell shows "
          "the bound then fails.",
    supremum=Supremum(1.0, "E‖x_T‖²/‖B‖_F² = Σ‖B_j‖²(1 − |λ_j|^{2T})/Σ‖B_j‖² → 1 as |λ| → 0 or T → ∞ (structured "
                           "start |λ| ≤ 0.01)", at=(4, 5)),
    exact=_exact,
)
