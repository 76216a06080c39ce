"""The GRU cases of nc_gru.md's gate claims (Theorem 1, Corollaries 1–3) and the helpers the paper's claims share.

Gate claims measure ∂h_t/∂h_{t−1} with autograd (``torch.func.jacrev`` of the cell's own step),
never with the paper's eq. 40, so a wrong derivation would show. Theorem 1 and Corollary 1 run
whole sequences of the GRU of eq. 1 from h_0 = 0 and take the worst step (``spaces.TRAJECTORIES``);
Corollaries 2–3 are statements about one step whose gates are ε-saturated, so their cases are
single steps t with h_{t−1} stored as the case's h0 and T = 1 (:func:`sample_saturated_case`).

Saturation tolerance (Corollaries 2–3). "Nearly 0 or 1" is made explicit as: every [u_t]_i and
[r_t]_i lies in [0, ε] ∪ [1 − ε, 1] (eq. 14, 21); "nearly the zero vector or the vector of all ones"
as: max u_t ≤ ε or min u_t ≥ 1 − ε, and the same for r_t (eq. 15, 22). The printed "x ≲ y" has two
readings, checked as separate parts: uniform, x ≤ y(1 + ε) for every weight (an error of the order
of the saturation tolerance; these parts are named with their ε, drawn from :data:`EPS_GRID`, so
``worst_parts`` gives the ratio as a function of ε), and asymptotic, lim_{ε→0} x ≤ y at the case's
own weights (``spaces.saturated_limit`` moves every gate pre-activation to |z| ≥ 60).

The case families built on these cases, with their structured starts, are in ``spaces``.

Shared here: :class:`GRUCase` with its samplers and projection, the per-step
quantities of Theorem 1 (:func:`gru_steps`, :func:`theorem1_alpha_beta`), the explicit form of the
corollaries' "≲" (:func:`saturated_bound`), the assumptions several claims use, and the small
sampling helpers the Neumann and Cayley cases use too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor
from torch.func import jacrev, vmap

from rnnaudit.bounds.core import Assumption, assumption_tolerances
from rnnaudit.cells import GRU, NCGRU

__all__ = ["GRUCase", "GRUSteps", "gru_steps", "theorem1_alpha_beta", "saturated_bound", "H_C", "EPS_GRID",
           "EPS_NOTE", "sample_trajectory_case", "sample_saturated_case", "project_saturated", "preactivations",
           "A_GRU", "A_H0", "A_STATE", "A_ONE_STEP", "A_EPS", "A_SAT", "A_SAT_VEC", "TRAJECTORY_ASSUMPTIONS",
           "assumption_check", "draw", "log_uniform", "spectral"]

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
    """‖M‖₂ of one matrix or of each matrix in a batch (largest singular value):
    :func:`rnnaudit.analysis.norms.spectral`."""
    from rnnaudit.analysis.norms import spectral as norm2

    return norm2(M)


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
