"""The case families of nc_gru.md's gate claims (:data:`TRAJECTORIES`, :data:`SATURATED_GRU_STEPS`), their
structured starts, and the ε → 0 limit of the corollaries' saturated steps.

Structured starts carry the constructions that reach the claims' known suprema (Theorem 1 and Corollary 1 tight at
the zero state, the edges of tanh, the all-negative sequence that breaks the printed signed maxima, the gate
patterns that make Corollary 2's corrected bound an equality, the √2 extreme of Corollary 3's limit) and the scalar
(h = 1) cases with ‖U_u‖₂ = 1000 on which the uniform reading of the corollaries' "≲" fails by two orders of
magnitude. :func:`saturated_limit` gives the asymptotic reading: the same weights with every gate pre-activation at
|z| ≥ 60.
"""

from __future__ import annotations

import copy
import math

import torch
from torch import Tensor
from torch.func import jacrev

from rnnaudit.bounds.core import CaseSpace, NotApplicable
from rnnaudit.bounds.nc_gru.cases import (EPS_GRID, GRUCase, GRUSteps, preactivations, project_saturated,
                                          sample_saturated_case, sample_trajectory_case)
from rnnaudit.cells import GRU, NCGRU

__all__ = ["DEEP", "START_KAPPAS", "START_MAX_H", "H_CORNER", "gru_step_starts", "ncgru_step_starts", "copy_to",
           "saturated_limit", "step_jacobian", "limit_steps", "trajectory_starts", "free_step", "STEP_SIZES",
           "trajectory_cases_from_model", "TRAJECTORIES", "SATURATED_GRU_STEPS"]


# ------------------------------------------------------------------------------------ structured starts
#: Pre-activation magnitude of a "deep" gate entry: σ(60) = 1 exactly in float64 and σ(−60) ≈ 8.8e-27, so
#: δ = σ(1 − σ) < 1e-26: a gate as saturated as float64 can hold it. :func:`saturated_limit` moves every
#: gate entry there, which is the ε → 0 limit of the corollaries with the weights held fixed.
DEEP = 60.0
#: ‖U_u‖₂ (and ‖U_r‖₂ for GRU) of the corollaries' structured starts: the dropped error term of eq. 14–15 and
#: eq. 21–22 is ε(1 − ε)[(H + C)‖U_u‖₂ + H‖U_r‖₂], so the ratio of the printed "≲" grows linearly with it.
START_KAPPAS = (1000.0,)
#: The one-step starts are built at h ≤ 3 only: every construction above needs at most three coordinates, and
#: the random cases and the ascent cover the larger widths.
START_MAX_H = 3
#: Just inside the cube [−1, 1]^h that holds every state of eq. 1 from h_0 = 0 (tanh never reaches ±1).
H_CORNER = 1 - 1e-9


def _gate_pattern(h: int, regime: str) -> tuple[list[float], list[float]]:
    """Pre-activations (z_u, z_r) of a structured start before projection: ±DEEP entries stay (they are within ε
    of 0 or 1 already), +1e-6 entries are moved by :func:`project_saturated` to exactly +L, the edge of the
    tolerance, where δ = ε(1 − ε) is largest. ``"entries"``: u = (0, edge, 1, edge, …), r = (edge, 1, edge, …),
    so max(1 − u) = max u = max r = 1 and δ_u = δ_r = ε(1 − ε) at h ≥ 3 (every term of eq. 9–10 at its
    largest); at h = 1 both gates sit on the edge near 1. ``"vectors"``: every entry on the edge near 1."""
    if regime == "vectors" or h == 1:
        return [1e-6] * h, [1e-6] * h
    u = [(-DEEP, 1e-6, DEEP)[i % 3] if i < 3 else 1e-6 for i in range(h)]
    r = [1e-6 if i % 2 == 0 else DEEP for i in range(h)]
    return u, r


def _set_gates(case: GRUCase, z_u: list[float], z_r: list[float]) -> GRUCase:
    """Biases b_u, b_r that give the case's step the pre-activations z_u, z_r, then :func:`project_saturated`."""
    cell = case.cell
    with torch.no_grad():
        zr0, zu0 = preactivations(case)
        cell.b_u.add_(torch.tensor(z_u, dtype=zu0.dtype, device=zu0.device) - zu0)
        cell.b_r.add_(torch.tensor(z_r, dtype=zr0.dtype, device=zr0.device) - zr0)
        project_saturated(case)
    return case


def _zeroed(cell):
    with torch.no_grad():
        for name, p in cell.named_parameters():
            if not name.startswith("cayley."):
                p.zero_()
    return cell


def gru_step_starts(h: int, T: int, device="cpu", dtype=torch.float64) -> list[GRUCase]:
    """Structured one-step GRU cases of Corollary 2 (eq. 1, Φ = tanh), at every ε of :data:`EPS_GRID`, for
    h ≤ :data:`START_MAX_H` (none at larger h):
    h_{t−1} = (1 − 10⁻⁹)·1 (a corner of the state cube), c_t = tanh(20)·1, U_u = κ·11ᵀ/h and U_r = κI
    (‖U_u‖₂ = ‖U_r‖₂ = κ ∈ :data:`START_KAPPAS`), U_c = 0, gates by :func:`_gate_pattern` in both regimes.

    At h = 1 (the scalar GRU) with u_t = r_t = 1 − ε: α + β = ε(1 − ε)κ(H + C) + ε + (1 − ε)(ε(1 − ε)κH + 1 − ε),
    linear in κ (≈ 119 times eq. 14's 2(1 + ε) at ε = 0.1, κ = 1000). At h ≥ 3 the entries pattern makes
    α + β equal Corollary 2's corrected bound, and its ε → 0 limit equal 2, the printed constant.

    Raises:
        ValueError: T ≠ 1 (one step).
    """
    if T != 1:
        raise ValueError(f"T must be 1 for a one-step saturated case, got {T}")
    if h > START_MAX_H:
        return []
    f64 = torch.float64
    out = []
    for eps in EPS_GRID:
        for regime in ("entries", "vectors"):
            for kappa in START_KAPPAS:
                cell = _zeroed(GRU(1, h, dtype=f64))
                with torch.no_grad():
                    cell.U_u.copy_(kappa * torch.ones(h, h, dtype=f64) / h)
                    cell.U_r.copy_(kappa * torch.eye(h, dtype=f64))
                    cell.b_c.fill_(20.0)
                case = GRUCase(cell, torch.zeros(1, 1, 1, dtype=f64), torch.full((h,), H_CORNER, dtype=f64), eps,
                               regime, 1, 1)
                out.append(_set_gates(case, *_gate_pattern(h, regime)))
    return [copy_to(c, device, dtype) for c in out]


def ncgru_step_starts(h: int, T: int, device="cpu", dtype=torch.float64) -> list[GRUCase]:
    """Structured one-step NC-GRU cases of Corollary 3 (eq. 19, U_r and U_c orthogonal), at every ε, for
    h ≤ :data:`START_MAX_H` (none at larger h):

    - NC-GRU(U_r, U_c) with A_r = A_c = 0 and D = −I (U_r = U_c = −I), U_u = κ·11ᵀ/h (κ ∈ :data:`START_KAPPAS`),
      x_t = 0, h_{t−1} = 1, modReLU bias b = 1: c_t = −(r_t + 1) has the sign opposite to h_{t−1}, so
      |c_t − h_{t−1}| = H + C and the term diag(c_t − h_{t−1})diag(u(1 − u))U_u of ∂h_t/∂h_{t−1} is as large as
      Theorem 1's α allows; gates by :func:`_gate_pattern` in both regimes.
    - NC-GRU(U_r, U_u, U_c) (every U orthogonal, −I) with h_{t−1} = 100·1: modReLU is unbounded, so the
      same term grows with the state even at ‖U_u‖₂ = 1.
    - (h ≥ 2) the ε → 0 extreme of eq. 21: U_c = R ⊕ I with R the rotation by π/2 (A_c = [[0, 1], [−1, 0]] ⊕ 0,
      D = I), u_t = (0, 1, 0, …), r_t = 1 (all deep): ∂h_t/∂h_{t−1} = diag(1 − u) + diag(u)U_c has norm √2,
      the largest any saturated NC-GRU step reaches (‖(I − P)x‖² + ‖PU_c x‖² ≤ 2‖x‖² for a 0/1 diagonal P).

    Raises:
        ValueError: T ≠ 1.
    """
    if T != 1:
        raise ValueError(f"T must be 1 for a one-step saturated case, got {T}")
    if h > START_MAX_H:
        return []
    f64 = torch.float64
    out = []
    for eps in EPS_GRID:
        for regime in ("entries", "vectors"):
            for kappa in START_KAPPAS:
                cell = _zeroed(NCGRU(1, h, orthogonal=("r", "c"), num_negative=h, dtype=f64))
                with torch.no_grad():
                    for m in cell.cayley.values():
                        m.A.zero_()
                        m.reset_inverse()
                    cell.U_u.copy_(kappa * torch.ones(h, h, dtype=f64) / h)
                    cell.b.fill_(1.0)
                case = GRUCase(cell, torch.zeros(1, 1, 1, dtype=f64), torch.ones(h, dtype=f64), eps, regime, 1, 1)
                out.append(_set_gates(case, *_gate_pattern(h, regime)))
        cell = _zeroed(NCGRU(1, h, orthogonal=("r", "u", "c"), num_negative=h, dtype=f64))
        with torch.no_grad():
            for m in cell.cayley.values():
                m.A.zero_()
                m.reset_inverse()
            cell.b.fill_(1.0)
        case = GRUCase(cell, torch.zeros(1, 1, 1, dtype=f64), torch.full((h,), 100.0, dtype=f64), eps, "entries", 1, 1)
        out.append(_set_gates(case, *_gate_pattern(h, "entries")))
        if h >= 2:
            cell = _zeroed(NCGRU(1, h, orthogonal=("r", "c"), num_negative=0, dtype=f64))
            with torch.no_grad():
                cell.cayley["r"].A.zero_()
                A = torch.zeros(h, h, dtype=f64)
                A[0, 1], A[1, 0] = 1.0, -1.0
                cell.cayley["c"].A.copy_(A)
                cell.reset_inverse()
            case = GRUCase(cell, torch.zeros(1, 1, 1, dtype=f64), torch.ones(h, dtype=f64), eps, "entries", 1, 1)
            z_u = [-DEEP if i != 1 else DEEP for i in range(h)]
            out.append(_set_gates(case, z_u, [DEEP] * h))
    return [copy_to(c, device, dtype) for c in out]


def copy_to(case: GRUCase, device, dtype) -> GRUCase:
    """The case on ``device`` in ``dtype`` (cells moved, tensors copied)."""
    return GRUCase(case.cell.to(device=device, dtype=dtype), case.x.to(device=device, dtype=dtype),
                   case.h0.to(device=device, dtype=dtype), case.eps, case.regime, case.u_side, case.r_side)


def saturated_limit(case: GRUCase) -> GRUCase:
    """The corollaries' ε → 0 limit with the weights held fixed: a detached copy of the one-step case whose gate
    biases are shifted until every pre-activation of u_t and r_t has |z| ≥ :data:`DEEP` on its own side (each
    entry's side in the ``"entries"`` regime, the case's side in ``"vectors"``); U_r, U_u, U_c, W, x_t, h_{t−1}
    and the candidate's bias are unchanged. No gradient flows through it (the ascent moves the uniform parts)."""
    cell = copy.deepcopy(case.cell)
    with torch.no_grad():
        for p in cell.parameters():
            p.requires_grad_(False)
        lim = GRUCase(cell, case.x.detach().clone(), case.h0.detach().clone(), case.eps, case.regime,
                      case.u_side, case.r_side)
        z_r, z_u = preactivations(lim)
        for z, b, side in ((z_r, cell.b_r, case.r_side), (z_u, cell.b_u, case.u_side)):
            s = torch.where(z >= 0, 1.0, -1.0).to(z.dtype) if case.regime == "entries" else z.new_full(z.shape, side)
            b.add_(s * torch.clamp(DEEP - s * z, min=0.0))
    return lim


def step_jacobian(case: GRUCase) -> Tensor:
    """∂h_t/∂h_{t−1} at the one step of a T = 1 case by autograd (``torch.func.jacrev`` of the cell's ``step``),
    shape (h, h); nc_gru.md eq. 1 / eq. 19. Cheaper than :func:`gru_steps` when only the Jacobian is needed."""
    cell, x_t = case.cell, case.x[0, :1]
    return jacrev(lambda h: cell.step(x_t, h[None])[0])(case.h0)


def limit_steps(case: GRUCase, norms: dict[str, Tensor]) -> GRUSteps:
    """The gates of :func:`saturated_limit` as a one-step :class:`GRUSteps` (no Jacobian, J = None; ``norms``
    are the case's own ‖U_r‖₂, ‖U_u‖₂, ‖U_c‖₂, which the bias shift leaves unchanged), for the α, β of the
    corollaries' ε → 0 limit."""
    lim = saturated_limit(case)
    g = lim.cell.gates(lim.x[0, :1], lim.h0[None])
    return GRUSteps(lim.h0[None], None, g["r"], g["u"], g["c"], None, norms)


def trajectory_starts(h: int, T: int, device="cpu", dtype=torch.float64) -> list[GRUCase]:
    """Structured GRU sequences of Theorem 1 and Corollary 1 (eq. 1, h_0 = 0, x = 0):

    - every weight 0 except U_r = U_u = I and U_c = 4I: u_t = r_t = 1/2, c_t = 0 (Φ'(0) = 1) and h_t = 0 at every
      step, so ∂h_t/∂h_{t−1} = (1/2 + 4/4)I equals α + β‖U_c‖₂ = 1/2 + (1/2)(1/2)·4 exactly (Theorem 1 is tight),
      ‖∂r_t/∂h_{t−1}‖₂ = δ_r‖U_r‖₂ and ‖∂u_t/∂h_{t−1}‖₂ = δ_u‖U_u‖₂ (eq. 30, 33), δ_u = δ_r = 1/4 (Corollary 1);
    - every weight 0 except b_c = ±40: c_t = ±tanh(40) = ±1 in float64, the edges of |[c_t]_i| ≤ 1 (with −1, the
      furthest a tanh candidate gets from the proof's premise 0 ≤ [c_t]_i, eq. 47);
    - (T ≥ 2) an all-negative sequence: x_1 = e_1 with W_u[:, 0] = 40 and W_c[:, 0] = atanh(−0.9) gives
      h_1 ≈ −0.9·1; then x_t = e_2, U_r = 8I, b_r = 7.2·1 (r_2 = 1/2), U_c = I: the printed max_i [h_{t−1}]_i < 0
      makes the bracket δ_r‖U_r‖₂ max_i [h_{t−1}]_i + max_i [r_t]_i of eq. 37–38 (and eq. 10) negative.
    """
    f64 = torch.float64
    out = []
    for setup in ("uc", "bc", "-bc", "negative"):
        if setup == "negative" and T < 2:
            continue
        cell = _zeroed(GRU(2, h, dtype=f64))
        x = torch.zeros(1, T, 2, dtype=f64)
        with torch.no_grad():
            if setup == "uc":
                cell.U_r.copy_(torch.eye(h, dtype=f64))
                cell.U_u.copy_(torch.eye(h, dtype=f64))
                cell.U_c.copy_(4.0 * torch.eye(h, dtype=f64))
            elif setup in ("bc", "-bc"):
                cell.b_c.fill_(40.0 if setup == "bc" else -40.0)
            else:
                cell.W_u[:, 0] = 40.0
                cell.W_c[:, 0] = math.atanh(-0.9)
                cell.U_r.copy_(8.0 * torch.eye(h, dtype=f64))
                cell.b_r.fill_(7.2)
                cell.U_c.copy_(torch.eye(h, dtype=f64))
                x[0, 0, 0] = 1.0
                x[0, 1:, 1] = 1.0
        out.append(GRUCase(cell.to(device=device, dtype=dtype), x.to(device=device, dtype=dtype),
                           torch.zeros(h, dtype=dtype, device=device)))
    return out


def _free_trajectory(case: GRUCase) -> list[Tensor]:
    return [*case.cell.parameters(), case.x]


def free_step(case: GRUCase) -> list[Tensor]:
    """The tensors the ascent moves in a one-step case: every cell parameter, x_t and h_{t−1}."""
    return [*case.cell.parameters(), case.x, case.h0]


def _sample_gru_step(gen, h, T, device, dtype) -> GRUCase:
    return sample_saturated_case(gen, h, T, device, dtype, model="GRU")


_TRAJ_QUICK = [(2, 1), (2, 4), (4, 6), (8, 8), (12, 10)]
_TRAJ_FULL = _TRAJ_QUICK + [(16, 24), (32, 50), (64, 50)]
_STEP_QUICK = [(1, 1), (2, 1), (3, 1), (4, 1), (8, 1), (16, 1)]

#: Sizes (h, 1) of the one-step cases of Corollaries 2–3.
STEP_SIZES = {"quick": _STEP_QUICK, "full": _STEP_QUICK + [(32, 1), (64, 1), (128, 1)]}

def trajectory_cases_from_model(view) -> list[GRUCase]:
    """A model's sequences through its own cell from h_0 = 0, float64, one case per input sequence of
    ``view`` (:class:`rnnaudit.bounds.on_model.ModelView`).

    Raises:
        NotApplicable: the cell is not a gated recurrence of eq. 1's form (:class:`rnnaudit.cells.GRU`,
            or :class:`rnnaudit.cells.NCGRU`, eq. 19, which the assumptions then judge).
    """
    if not isinstance(view.cell, (GRU, NCGRU)):
        raise NotApplicable(f"nc_gru.md's gate claims are about the GRU of eq. 1, whose reset gate multiplies h_(t−1) "
                            f"before U_c; the model's cell is {type(view.cell).__name__} (for torch.nn.GRU, whose "
                            "reset gate "
                            f"multiplies W_hn h after the product, see nc_gru.theorem1_torch)")
    cell = copy.deepcopy(view.cell).double()
    zero = torch.zeros(cell.hidden_size, dtype=torch.float64)
    return [GRUCase(cell, x[None].detach().double(), zero) for x in view.inputs]


#: Whole sequences of the GRU of eq. 1 from h_0 = 0 (Theorem 1, Corollary 1), searched over every
#: parameter and the inputs.
TRAJECTORIES = CaseSpace(case_type=GRUCase, sample=sample_trajectory_case, free=_free_trajectory,
                         sizes={"quick": _TRAJ_QUICK, "full": _TRAJ_FULL}, starts=trajectory_starts,
                         from_model=trajectory_cases_from_model)

#: One ε-saturated step of the GRU of eq. 1 (Corollary 2), searched over the parameters, x_t and
#: h_{t−1} and projected back onto the saturation assumptions.
SATURATED_GRU_STEPS = CaseSpace(case_type=GRUCase, sample=_sample_gru_step, free=free_step,
                                project=project_saturated, sizes=STEP_SIZES, starts=gru_step_starts)
