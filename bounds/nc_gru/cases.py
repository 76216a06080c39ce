"""The GRU cases of nc_gru.md's gate claims (Theorem 1, Corollaries 1–3) and the helpers the paper's claims share.

Gate claims measure ∂h_t/∂h_{t−1} with autograd (``torch.func.jacrev`` of the cell's own step),
never with the paper's eq. 40, so a wrong derivation would show. Theorem 1 and Corollary 1 run
whole sequences of the GRU of eq. 1 from h_0 = 0 and take the worst step (:data:`TRAJECTORIES`);
Corollaries 2–3 are statements about one step whose gates are ε-saturated, so their cases are
single steps t with h_{t−1} stored as the case's h0 and T = 1 (:func:`sample_saturated_case`).

Saturation tolerance (Corollaries 2–3). "Nearly 0 or 1" is made explicit as: every [u_t]_i and
[r_t]_i lies in [0, ε] ∪ [1 − ε, 1] (eq. 14, 21); "nearly the zero vector or the vector of all ones"
as: max u_t ≤ ε or min u_t ≥ 1 − ε, and the same for r_t (eq. 15, 22). The printed "x ≲ y" has two
readings, checked as separate parts: uniform, x ≤ y(1 + ε) for every weight (an error of the order
of the saturation tolerance; these parts are named with their ε, drawn from :data:`EPS_GRID`, so
``worst_parts`` gives the ratio as a function of ε), and asymptotic, lim_{ε→0} x ≤ y at the case's
own weights (:func:`saturated_limit` moves every gate pre-activation to |z| ≥ 60).

Structured starts (:func:`gru_step_starts`, :func:`ncgru_step_starts`, :func:`trajectory_starts`)
carry the constructions that reach the claims' known suprema and the scalar (h = 1) cases with
‖U_u‖₂ = 1000 on which the uniform reading fails by two orders of magnitude.

Shared here: :class:`GRUCase` with its samplers, projection and search spaces, the per-step
quantities of Theorem 1 (:func:`gru_steps`, :func:`theorem1_alpha_beta`), the explicit form of the
corollaries' "≲" (:func:`saturated_bound`), the assumptions several claims use, and the small
sampling helpers the Neumann and Cayley cases use too.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass

import torch
from torch import Tensor
from torch.func import jacrev, vmap

from rnnaudit.bounds.core import Assumption, CaseSpace, NotApplicable, assumption_tolerances
from rnnaudit.cells import GRU, NCGRU

__all__ = ["GRUCase", "GRUSteps", "gru_steps", "theorem1_alpha_beta", "saturated_bound", "H_C", "EPS_GRID",
           "EPS_NOTE", "sample_trajectory_case", "sample_saturated_case", "project_saturated", "free_step",
           "TRAJECTORIES", "trajectory_cases_from_model", "SATURATED_GRU_STEPS", "STEP_SIZES", "A_GRU", "A_H0",
           "A_STATE", "A_ONE_STEP", "A_EPS", "A_SAT", "A_SAT_VEC", "TRAJECTORY_ASSUMPTIONS", "assumption_check", "draw",
           "log_uniform", "spectral", "DEEP", "START_KAPPAS", "H_CORNER", "gru_step_starts", "ncgru_step_starts",
           "saturated_limit", "trajectory_starts", "copy_to", "step_jacobian", "limit_steps", "START_MAX_H",
           "preactivations"]

#: Saturation tolerances ε the gate corollaries are checked at (parts are reported per ε).
EPS_GRID = (0.1, 0.01, 0.001)

EPS_NOTE = ("Saturation is explicit: every gate entry within ε of 0 or 1 (eq. 14/21), or u_t, r_t each within ε "
            "of the zero or all-ones vector (eq. 15/22); ε ∈ {0.1, 0.01, 0.001} and every part is named with its "
            "ε, so worst_parts gives the ratio as a function of ε.")


def draw(gen: torch.Generator) -> float:
    """One uniform draw in [0, 1) from ``gen``, as a float."""
    return torch.rand((), generator=gen, dtype=torch.float64).item()


def log_uniform(gen: torch.Generator, lo: float, hi: float) -> float:
    """One log-uniform draw in [lo, hi) from ``gen``."""
    return math.exp(math.log(lo) + draw(gen) * (math.log(hi) - math.log(lo)))


def spectral(M: Tensor) -> Tensor:
    """‖M‖₂ of one matrix or of each matrix in a batch (largest singular value)."""
    return torch.linalg.matrix_norm(M, ord=2)


# ============================================================================================ GRU cases
@dataclass
class GRUCase:
    """A sequence through the GRU of eq. 1 or an NC-GRU of eq. 19.

    For Theorem 1 and Corollary 1: x is a whole sequence and h0 = 0 (eq. 1). For Corollaries 2–3:
    T = 1 and h0 holds h_{t−1}, the state before the one step the corollary is about.

    Attributes:
        cell: :class:`rnnaudit.cells.GRU` or :class:`rnnaudit.cells.NCGRU` (float64 in the checks).
        x: inputs, shape (1, T, n).
        h0: initial state (h,).
        eps: saturation tolerance ε of Corollaries 2–3 (0 where unused).
        regime: ``"none"``, ``"entries"`` (each gate entry within ε of 0 or 1: eq. 14, 21) or
            ``"vectors"`` (u_t and r_t each within ε of the zero or all-ones vector: eq. 15, 22).
        u_side, r_side: for ``"vectors"``, +1 (near all ones) or −1 (near zero) for u_t and r_t.
    """

    cell: GRU | NCGRU
    x: Tensor
    h0: Tensor
    eps: float = 0.0
    regime: str = "none"
    u_side: int = 0
    r_side: int = 0

    def size(self) -> tuple[int, int]:
        """(h, T)."""
        return self.cell.hidden_size, self.x.shape[1]


@dataclass
class GRUSteps:
    """Per-step quantities of Theorem 1 along a case's sequence (T steps, width h), all differentiable.

    Attributes:
        prev: h_{t−1}, (T, h). hs: h_t, (T, h). r, u, c: the gates r_t, u_t and candidate c_t, (T, h).
        J: ∂h_t/∂h_{t−1} by autograd, (T, h, h). norms: ‖U_r‖₂, ‖U_u‖₂, ‖U_c‖₂ keyed "r", "u", "c" (0-d).
    """

    prev: Tensor
    hs: Tensor
    r: Tensor
    u: Tensor
    c: Tensor
    J: Tensor
    norms: dict[str, Tensor]


def gru_steps(case: GRUCase) -> GRUSteps:
    """Forward pass, gates and autograd step Jacobians (``torch.func.jacrev`` of the cell's ``step``,
    vmapped over t) along the case's sequence; nc_gru.md eq. 1 / eq. 19.

    Raises:
        ValueError: the cell's own input checks (see :meth:`rnnaudit.cells.base.RecurrentCell.forward`).
    """
    cell = case.cell
    x = case.x[0]
    hs = cell(case.x, case.h0[None])[0]
    prev = torch.cat([case.h0[None], hs[:-1]])
    g = cell.gates(x, prev)
    J = vmap(jacrev(lambda x_t, h: cell.step(x_t[None], h[None])[0], argnums=1))(x, prev)
    norms = {k[-1]: spectral(U) for k, U in cell.recurrent_matrices().items()}
    return GRUSteps(prev, hs, g["r"], g["u"], g["c"], J, norms)


def theorem1_alpha_beta(s: GRUSteps, *, absolute: bool) -> tuple[Tensor, Tensor]:
    """α_t and β_t of nc_gru.md eq. 9–12 for every step, shape (T,) each.

    Args:
        s: :func:`gru_steps` of a case (uses the gates, h_{t−1}, ‖U_r‖₂ and ‖U_u‖₂).
        absolute: False for the printed max_i [v]_i of eq. 9–10, True for max_i |v_i|, the norm
            ‖diag(v)‖₂ that the proof's step eq. 41 actually uses.
    """
    m = (lambda v: v.abs().amax(-1)) if absolute else (lambda v: v.amax(-1))
    du = (s.u * (1 - s.u)).amax(-1)  # eq. 11
    dr = (s.r * (1 - s.r)).amax(-1)  # eq. 12
    alpha = du * (m(s.prev) + m(s.c)) * s.norms["u"] + (1 - s.u).amax(-1)
    beta = s.u.amax(-1) * (dr * s.norms["r"] * m(s.prev) + s.r.amax(-1))
    return alpha, beta


def saturated_bound(eps: float, H: Tensor, C: Tensor, norm_Uu: Tensor, norm_Ur: Tensor, *, vectors: bool) -> Tensor:
    """The explicit form of Corollary 2's "≲" (and, with ‖U_c‖₂ = 1, of Corollary 3's).

    With every gate entry within ε ≤ 1/2 of 0 or 1, δ_u, δ_r ≤ ε(1 − ε), max(1 − u) ≤ 1 and
    max u, max r ≤ 1, so eq. 9–10 (|·| reading) give

        α + β ≤ 2 + ε(1 − ε)[(H + C)‖U_u‖₂ + H‖U_r‖₂]                          (eq. 14)

    with H = max_i |[h_{t−1}]_i|, C = max_i |[c_t]_i|. If moreover u_t is within ε of 0 (then
    α ≤ … + 1, β ≤ ε(…)) or of 1 (then α ≤ … + ε) and r_t within ε of 0 or 1,

        α + β ≤ 1 + ε + ε(1 − ε)[(H + C)‖U_u‖₂ + H‖U_r‖₂]                      (eq. 15)

    Args:
        eps: ε. H, C, norm_Uu, norm_Ur: 0-d tensors. vectors: eq. 15 (True) or eq. 14 (False).

    Returns:
        0-d tensor.
    """
    tail = eps * (1 - eps) * ((H + C) * norm_Uu + H * norm_Ur)
    return (1 + eps + tail) if vectors else (2 + tail)


def H_C(s: GRUSteps) -> tuple[Tensor, Tensor]:
    """H = max_i |[h_{t−1}]_i| and C = max_i |[c_t]_i| at the first step of ``s`` (0-d each)."""
    return s.prev[0].abs().amax(), s.c[0].abs().amax()


# ------------------------------------------------------------------------------------------- samplers
def _scale_parameters(cell, scale: float) -> None:
    for name, p in cell.named_parameters():
        if not name.startswith("cayley."):
            p.mul_(scale)


def sample_trajectory_case(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> GRUCase:
    """A GRU of eq. 1 (Φ = tanh) and one input sequence, h_0 = 0 (Theorem 1, Corollary 1).

    Four kinds, equally likely: the default U(−1/√h, 1/√h) initialisation with weights scaled by a
    log-uniform factor in [0.3, 10] (large factors push ‖U‖₂ up and saturate the gates); the same with
    biases of magnitude 2–8 (saturated gates); ones with orthogonal U_r, U_u, U_c (the NC-GRU regime
    of Sec. 3.3 with tanh); and the all-negative family where every h_t and c_t is negative, which is
    where the printed max_i [·]_i of eq. 9–10 under-estimates (U_u = κ(P − I) with P a cyclic shift,
    so U_u maps constant vectors to 0 and u_t = 1/2 once h_{t−1} is constant).

    Args:
        gen: CPU torch.Generator. h: width ≥ 1. T: length ≥ 1. device, dtype: of the case.
    """
    kind = int(torch.randint(0, 4, (), generator=gen))
    f64 = torch.float64
    if kind == 3:
        n = 2
        cell = GRU(n, h, generator=gen, dtype=f64)
        a, b, kappa = 0.5 + 0.45 * draw(gen), 0.3 * draw(gen), log_uniform(gen, 2.0, 12.0)
        with torch.no_grad():
            for p in cell.parameters():
                p.zero_()
            eye = torch.eye(h, dtype=f64)
            cell.U_u.copy_(kappa * (torch.roll(eye, 1, 0) - eye))
            cell.U_r.copy_(torch.randn(h, h, generator=gen, dtype=f64) / math.sqrt(h))
            cell.U_c.copy_(0.3 * draw(gen) * torch.randn(h, h, generator=gen, dtype=f64) / math.sqrt(h))
            cell.b_r.copy_(torch.randn(h, generator=gen, dtype=f64))
            cell.W_u[:, 0] = 20.0            # u_1 ≈ 1: h_1 ≈ c_1 ≈ −a·1
            cell.W_c[:, 0] = math.atanh(-a)
            cell.W_c[:, 1] = math.atanh(-b)  # later candidates ≈ −b
        x = torch.zeros(T, n, dtype=f64)
        x[0, 0] = 1.0
        x[1:, 1] = 1.0
    else:
        n = 1 if draw(gen) < 0.5 else 3
        cell = GRU(n, h, generator=gen, dtype=f64)
        with torch.no_grad():
            _scale_parameters(cell, log_uniform(gen, 0.3, 10.0))
            if kind == 1:
                for b in (cell.b_r, cell.b_u, cell.b_c):
                    b.copy_(torch.sign(torch.randn(h, generator=gen, dtype=f64)) * (2 + 6 * torch.rand(
                        h, generator=gen, dtype=f64)))
            if kind == 2:
                for U in (cell.U_r, cell.U_u, cell.U_c):
                    Q, _ = torch.linalg.qr(torch.randn(h, h, generator=gen, dtype=f64))
                    U.copy_(Q)
        x = torch.randn(T, n, generator=gen, dtype=f64) * log_uniform(gen, 0.3, 3.0)
    cell = cell.to(device=device, dtype=dtype)
    return GRUCase(cell, x[None].to(device=device, dtype=dtype), torch.zeros(h, dtype=dtype, device=device))


def preactivations(case: GRUCase) -> tuple[Tensor, Tensor]:
    """Pre-activations of r_t and u_t at the case's one step (T = 1), each (h,)."""
    cell, x, h = case.cell, case.x[0, 0], case.h0
    U = cell.recurrent_matrices()
    z_r = cell.W_r @ x + U["U_r"] @ h + cell.b_r
    z_u = cell.W_u @ x + U["U_u"] @ h + cell.b_u
    return z_r, z_u


def project_saturated(case: GRUCase) -> None:
    """Move a one-step case back onto Corollaries 2–3's assumptions, in place.

    NC-GRU: A made exactly skew again and Ã reset to (I + A)^{-1} (so U_c, U_r are orthogonal, eq. 19).
    GRU: h_{t−1} clipped to the cube [−1, 1]^h, where every state of eq. 1 from h_0 = 0 lies.
    Then the biases b_r, b_u are shifted just enough that every pre-activation z satisfies
    |z| ≥ L = log((1 − ε)/ε), i.e. σ(z) ∈ [0, ε] ∪ [1 − ε, 1] (each entry keeps its side, or the
    case's side in the ``"vectors"`` regime).
    """
    cell = case.cell
    if isinstance(cell, NCGRU):
        for m in cell.cayley.values():
            m.A.copy_((m.A - m.A.mT) / 2)
            m.reset_inverse()
    else:
        case.h0.clamp_(-1.0, 1.0)
    L = math.log1p(-case.eps) - math.log(case.eps)
    z_r, z_u = preactivations(case)
    for z, b, side in ((z_r, cell.b_r, case.r_side), (z_u, cell.b_u, case.u_side)):
        s = torch.where(z >= 0, 1.0, -1.0).to(z.dtype) if case.regime == "entries" else z.new_full(z.shape, side)
        b.add_(s * torch.clamp(L - s * z, min=0.0))


def sample_saturated_case(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64, *,
                          model: str = "GRU") -> GRUCase:
    """One ε-saturated step (Corollaries 2–3): a cell, h_{t−1} (stored as h0) and x_t, T = 1.

    ε is drawn from :data:`EPS_GRID`; the regime is ``"vectors"`` (eq. 15/22) in 2 of 5 cases, else
    ``"entries"`` (eq. 14/21). Weights are scaled by a log-uniform factor in [0.3, 10]. In half the
    cases the gate biases are first set so every pre-activation is 0, and the projection then puts
    them exactly on |z| = L, where δ_u = δ_r = ε(1 − ε) is largest (the edge of the assumption).
    GRU: h_{t−1} uniform in [−1, 1]^h, or (1 case in 3) a ±(1 − 10⁻³) corner. NC-GRU (modReLU is
    unbounded, so are its states): h_{t−1} Gaussian with a log-uniform scale in [0.1, 5].

    Args:
        gen: CPU torch.Generator. h: width ≥ 1. T: must be 1. device, dtype: of the case.
        model: ``"GRU"`` (eq. 1), ``"NCGRU"`` (eq. 19: U_r and U_c orthogonal, optionally U_u too) or
            ``"NCGRU-any"`` (also NC-GRU(U_c), the model of most of Sec. 4, with U_r free).

    Raises:
        ValueError: T ≠ 1 or unknown model.
    """
    if T != 1:
        raise ValueError(f"T must be 1 for a one-step saturated case (h_(t-1) is the case's h0), got {T}")
    variants = {"NCGRU": [("r", "c"), ("r", "u", "c")], "NCGRU-any": [("c",), ("r", "c"), ("r", "u", "c")]}
    if model not in ("GRU", *variants):
        raise ValueError(f"model must be 'GRU', 'NCGRU' or 'NCGRU-any', got {model!r}")
    f64 = torch.float64
    eps = EPS_GRID[int(torch.randint(0, len(EPS_GRID), (), generator=gen))]
    regime = "vectors" if draw(gen) < 0.4 else "entries"
    sides = [1 if draw(gen) < 0.5 else -1 for _ in range(2)]
    n = 1 if draw(gen) < 0.5 else 3
    if model == "GRU":
        cell = GRU(n, h, generator=gen, dtype=f64)
    else:
        orth = variants[model][int(torch.randint(0, len(variants[model]), (), generator=gen))]
        cell = NCGRU(n, h, orthogonal=orth, num_negative=int(torch.randint(0, h + 1, (), generator=gen)),
                     generator=gen, dtype=f64)
    with torch.no_grad():
        _scale_parameters(cell, log_uniform(gen, 0.3, 10.0))
        if isinstance(cell, NCGRU):
            cell.b.copy_(torch.randn(h, generator=gen, dtype=f64))  # modReLU bias, both signs
            h_prev = torch.randn(h, generator=gen, dtype=f64) * log_uniform(gen, 0.1, 5.0)
        else:
            cell.b_c.copy_(torch.randn(h, generator=gen, dtype=f64) * 2)
            if draw(gen) < 1 / 3:
                h_prev = torch.sign(torch.randn(h, generator=gen, dtype=f64)) * (1 - 1e-3)
            else:
                h_prev = 2 * torch.rand(h, generator=gen, dtype=f64) - 1
        x = torch.randn(1, 1, n, generator=gen, dtype=f64)
        case = GRUCase(cell, x, h_prev, eps, regime, sides[0], sides[1])
        if draw(gen) < 0.5:
            # pre-activations ±10⁻⁶ with random signs: the projection moves them to exactly ±L
            z_r, z_u = preactivations(case)
            for z, b in ((z_r, cell.b_r), (z_u, cell.b_u)):
                b.sub_(z - 1e-6 * torch.sign(torch.randn(h, generator=gen, dtype=f64)))
        project_saturated(case)
    cell = cell.to(device=device, dtype=dtype)
    return GRUCase(cell, x.to(device=device, dtype=dtype), h_prev.to(device=device, dtype=dtype), eps, regime,
                   sides[0], sides[1])


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
                            f"before U_c; the model's cell is {type(view.cell).__name__}")
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


# --------------------------------------------------------------------------------------- assumptions
def assumption_check(value, ok, detail):
    """An Assumption check that computes ``value(case)`` once: case → (ok(case, v), detail(case, v))."""
    def check(case):
        v = value(case)
        return bool(ok(case, v)), detail(case, v)
    return check


def _saturation(c: GRUCase) -> tuple[float, float]:
    """Entry saturation max_i min(g_i, 1 − g_i) of u_t and r_t at the case's step."""
    with torch.no_grad():
        g = c.cell.gates(c.x[0, :1], c.h0[None])
    return tuple(float(torch.minimum(g[k], 1 - g[k]).max()) for k in ("u", "r"))


def _vector_saturation(c: GRUCase) -> tuple[float, float]:
    """Distance of u_t (r_t) from the all-ones (side +1) or zero (side −1) vector, in max-norm."""
    with torch.no_grad():
        g = c.cell.gates(c.x[0, :1], c.h0[None])
    dist = lambda v, side: float((1 - v).max() if side > 0 else v.max())  # noqa: E731
    return dist(g["u"], c.u_side), dist(g["r"], c.r_side)


# A_SAT and A_SAT_VEC compare gates out of a forward pass, and 1 − σ(z) cancels at the edge |z| = L
# where the projection puts them, hence rtol_computed; A_STATE allows the same slack
A_GRU = Assumption("GRU of eq. 1 with Φ = tanh", lambda c: (type(c.cell) is GRU, type(c.cell).__name__))
A_H0 = Assumption("h_0 = 0 (eq. 1)", assumption_check(
    lambda c: float(c.h0.detach().abs().max()), lambda c, v: v == 0, lambda c, v: f"max|h_0| = {v:.3g}"))
A_STATE = Assumption("‖h_{t−1}‖_∞ ≤ 1 (every state of eq. 1 from h_0 = 0, corollary1.corrected)", assumption_check(
    lambda c: float(c.h0.detach().abs().max()), lambda c, v: v <= 1 + assumption_tolerances().rtol_computed,
    lambda c, v: f"max|h_(t-1)| = {v:.6g}"))
A_ONE_STEP = Assumption("one step t (T = 1, h_{t−1} = h0)", lambda c: (c.x.shape[1] == 1, f"T = {c.x.shape[1]}"))
A_EPS = Assumption("0 < ε ≤ 1/2", lambda c: (0 < c.eps <= 0.5, f"ε = {c.eps:g}"))
A_SAT = Assumption("every [u_t]_i, [r_t]_i within ε of 0 or 1", assumption_check(
    _saturation, lambda c, v: max(v) <= c.eps * (1 + assumption_tolerances().rtol_computed),
    lambda c, v: "max_i min(g_i, 1 − g_i) = {:.6g} (u), {:.6g} (r), ε = {:g}".format(*v, c.eps)))
A_SAT_VEC = Assumption("eq. 15/22 cases: u_t, r_t each within ε of the zero or all-ones vector", assumption_check(
    lambda c: _vector_saturation(c) if c.regime == "vectors" else None,
    lambda c, v: v is None or max(v) <= c.eps * (1 + assumption_tolerances().rtol_computed),
    lambda c, v: f"regime {c.regime}" if v is None else
    "regime vectors: distances {:.6g} (u), {:.6g} (r), ε = {:g}".format(*v, c.eps)))

TRAJECTORY_ASSUMPTIONS = (A_GRU, A_H0)
