"""Claims of nc_gru.md (GRU gradient analysis, NC-GRU, Neumann-Cayley update) as executable checks.

Claim ids and where they live in the paper:

- ``nc_gru.theorem1``             Theorem 1, eq. 8–12 (proof SM 7, eq. 23–45), as printed: max_i [h]_i
- ``nc_gru.theorem1.corrected``   the same with max_i |h_i|, max_i |c_i| (what eq. 41 proves)
- ``nc_gru.corollary1``           Corollary 1, eq. 13 (proof eq. 46–58), α and β as printed
- ``nc_gru.corollary1.corrected`` |[h_t]_i|, |[c_t]_i| ≤ 1 and eq. 13 for the |·| α, β of theorem1.corrected
- ``nc_gru.corollary2``           Corollary 2, eq. 14–15 (proof eq. 59–64), "≲" read as ≤ y(1 + ε)
- ``nc_gru.corollary2.corrected`` eq. 14–15 with the error term ε(1 − ε)[(H + C)‖U_u‖₂ + H‖U_r‖₂] written out
- ``nc_gru.corollary3``           Corollary 3, eq. 21–22 (proof eq. 65–68), NC-GRU of eq. 19
- ``nc_gru.corollary3.corrected`` eq. 21–22 for every NC-GRU variant, with ‖U_r‖₂, ‖U_u‖₂, H, C explicit
- ``nc_gru.eq18``                 eq. 16–18: Neumann series of (I + A^(k))^{-1}, convergence and order-p error
- ``nc_gru.eq18.corrected``       Algorithm 1 as run (stored Ã in line 7): exact residual recursion
- ``nc_gru.eq5``                  eq. 5–6: the scaled Cayley gradient ∇_A L = Vᵀ − V against autograd

Gate claims (Theorem 1, Corollaries 1–3) measure ∂h_t/∂h_{t−1} with autograd (``torch.func.jacrev``
of the cell's own step), never with the paper's eq. 40, so a wrong derivation would show. Theorem 1
and Corollary 1 run whole sequences of the GRU of eq. 1 from h_0 = 0 and take the worst step;
Corollaries 2–3 are statements about one step whose gates are ε-saturated, so their cases are
single steps t with h_{t−1} stored as the case's h0 and T = 1.

Saturation tolerance (Corollaries 2–3). "Nearly 0 or 1" is made explicit as: every [u_t]_i and
[r_t]_i lies in [0, ε] ∪ [1 − ε, 1] (eq. 14, 21); "nearly the zero vector or the vector of all ones"
as: max u_t ≤ ε or min u_t ≥ 1 − ε, and the same for r_t (eq. 15, 22). The printed "x ≲ y" is read
as x ≤ y(1 + ε), an error of the order of the saturation tolerance. ε is drawn from
:data:`EPS_GRID` and every part is named with its ε, so ``worst_parts`` gives the ratio as a
function of ε.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor
from torch.func import jacrev, vmap

from rnnaudit.cells import GRU, NCGRU, orthogonality_defect, scaling_diagonal, scornn_skew_init
from rnnaudit.bounds.core import Assumption, Claim

__all__ = ["GRUCase", "GRUSteps", "gru_steps", "NeumannCase", "CayleyGradientCase", "EPS_GRID",
           "sample_trajectory_case", "sample_saturated_case", "sample_neumann_case", "sample_cayley_gradient_case",
           "neumann_algorithm1", "theorem1_alpha_beta", "saturated_bound", "CLAIMS", "theorem1", "theorem1_corrected", "corollary1",
           "corollary1_corrected", "corollary2", "corollary2_corrected", "corollary3", "corollary3_corrected",
           "eq18", "eq18_corrected", "eq5"]

#: Saturation tolerances ε the gate corollaries are checked at (parts are reported per ε).
EPS_GRID = (0.1, 0.01, 0.001)
#: Relative slack of the assumption predicates: the projections land exactly on a constraint up to a
#: few float64 roundings (≈ 1e-16 each), far below this.
ASSUMPTION_RTOL = 1e-9
#: ‖UᵀU − I‖₂ below which a Cayley matrix counts as orthogonal: an exact Ã gives ≈ 1e-15 in float64.
ORTHOGONALITY_TOL = 1e-10
#: Largest ‖M‖₂ = ‖(I + A)^{-1}δA‖₂ the Neumann projection allows: strictly inside the condition
#: q < 1 of eq. 17–18, close enough to 1 that the 1/(1 − q) factor of the tail bound is exercised.
Q_MAX = 0.999


def _draw(gen: torch.Generator) -> float:
    return torch.rand((), generator=gen, dtype=torch.float64).item()


def _log_uniform(gen: torch.Generator, lo: float, hi: float) -> float:
    return math.exp(math.log(lo) + _draw(gen) * (math.log(hi) - math.log(lo)))


def _spectral(M: Tensor) -> Tensor:
    """‖M‖₂ of one matrix or of each matrix in a batch (largest singular value)."""
    return torch.linalg.matrix_norm(M, ord=2)


def _safe_ratios(measured: Tensor, bound: Tensor) -> Tensor:
    """Elementwise measured/bound as bounds.core computes it (0/0 = 0, m/0 = inf); detached, used only
    to pick the worst step of a sequence."""
    m, b = measured.detach(), bound.detach()
    r = m / torch.where(b == 0, torch.ones_like(b), b)
    return torch.where(b == 0, torch.where(m == 0, torch.zeros_like(r), torch.full_like(r, math.inf)), r)


def _worst(measured: Tensor, bound: Tensor) -> tuple[Tensor, Tensor]:
    """The (measured, bound) pair of the worst entry of two 1-D tensors (e.g. over time steps)."""
    i = int(torch.argmax(_safe_ratios(measured, bound)))
    return measured[i], bound[i]


# ============================================================================================ GRU cases
@dataclass
class GRUCase:
    """A sequence through the GRU of eq. 1 or an NC-GRU of eq. 19.

    For Theorem 1 and Corollary 1: x is a whole sequence and h0 = 0 (eq. 1). For Corollaries 2–3:
    T = 1 and h0 holds h_{t−1}, the state before the one step the corollary is about.

    Attributes:
        cell: :class:`cells.GRU` or :class:`cells.NCGRU` (float64 in the checks).
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

    def state(self) -> dict:
        """Tensors and config, detached copies, for :func:`bounds.core.save_counterexample`."""
        cell = self.cell
        config = {"kind": type(cell).__name__, "input_size": cell.input_size, "hidden_size": cell.hidden_size}
        if isinstance(cell, NCGRU):
            config.update(orthogonal=list(cell.orthogonal), num_negative=next(iter(cell.cayley.values())).num_negative)
        params = {k: v.detach().clone() for k, v in cell.state_dict().items()}
        return {"config": config, "params": params, "x": self.x.detach().clone(), "h0": self.h0.detach().clone(),
                "eps": self.eps, "regime": self.regime, "u_side": self.u_side, "r_side": self.r_side}

    @classmethod
    def from_state(cls, state: dict, device="cpu", dtype=torch.float64) -> "GRUCase":
        """Rebuild a case from :meth:`state`.

        Raises:
            ValueError: unknown cell kind in the state.
        """
        cfg = state["config"]
        gen = torch.Generator().manual_seed(0)  # initial values are overwritten by the state dict
        if cfg["kind"] == "GRU":
            cell = GRU(cfg["input_size"], cfg["hidden_size"], generator=gen, dtype=dtype, device=device)
        elif cfg["kind"] == "NCGRU":
            cell = NCGRU(cfg["input_size"], cfg["hidden_size"], orthogonal=tuple(cfg["orthogonal"]),
                         num_negative=int(cfg["num_negative"]), generator=gen, dtype=dtype, device=device)
        else:
            raise ValueError(f"unknown cell kind {cfg['kind']!r} in case state (expected GRU or NCGRU)")
        cell.load_state_dict({k: v.to(device=device, dtype=dtype) for k, v in state["params"].items()})
        return cls(cell, state["x"].to(device=device, dtype=dtype), state["h0"].to(device=device, dtype=dtype),
                   float(state["eps"]), str(state["regime"]), int(state["u_side"]), int(state["r_side"]))


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
        ValueError: the cell's own input checks (see :meth:`cells.base.RecurrentCell.forward`).
    """
    cell = case.cell
    x = case.x[0]
    hs = cell(case.x, case.h0[None])[0]
    prev = torch.cat([case.h0[None], hs[:-1]])
    g = cell.gates(x, prev)
    J = vmap(jacrev(lambda x_t, h: cell.step(x_t[None], h[None])[0], argnums=1))(x, prev)
    norms = {k[-1]: _spectral(U) for k, U in cell.recurrent_matrices().items()}
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
        a, b, kappa = 0.5 + 0.45 * _draw(gen), 0.3 * _draw(gen), _log_uniform(gen, 2.0, 12.0)
        with torch.no_grad():
            for p in cell.parameters():
                p.zero_()
            eye = torch.eye(h, dtype=f64)
            cell.U_u.copy_(kappa * (torch.roll(eye, 1, 0) - eye))
            cell.U_r.copy_(torch.randn(h, h, generator=gen, dtype=f64) / math.sqrt(h))
            cell.U_c.copy_(0.3 * _draw(gen) * torch.randn(h, h, generator=gen, dtype=f64) / math.sqrt(h))
            cell.b_r.copy_(torch.randn(h, generator=gen, dtype=f64))
            cell.W_u[:, 0] = 20.0            # u_1 ≈ 1: h_1 ≈ c_1 ≈ −a·1
            cell.W_c[:, 0] = math.atanh(-a)
            cell.W_c[:, 1] = math.atanh(-b)  # later candidates ≈ −b
        x = torch.zeros(T, n, dtype=f64)
        x[0, 0] = 1.0
        x[1:, 1] = 1.0
    else:
        n = 1 if _draw(gen) < 0.5 else 3
        cell = GRU(n, h, generator=gen, dtype=f64)
        with torch.no_grad():
            _scale_parameters(cell, _log_uniform(gen, 0.3, 10.0))
            if kind == 1:
                for b in (cell.b_r, cell.b_u, cell.b_c):
                    b.copy_(torch.sign(torch.randn(h, generator=gen, dtype=f64)) * (2 + 6 * torch.rand(
                        h, generator=gen, dtype=f64)))
            if kind == 2:
                for U in (cell.U_r, cell.U_u, cell.U_c):
                    Q, _ = torch.linalg.qr(torch.randn(h, h, generator=gen, dtype=f64))
                    U.copy_(Q)
        x = torch.randn(T, n, generator=gen, dtype=f64) * _log_uniform(gen, 0.3, 3.0)
    cell = cell.to(device=device, dtype=dtype)
    return GRUCase(cell, x[None].to(device=device, dtype=dtype), torch.zeros(h, dtype=dtype, device=device))


def _preactivations(case: GRUCase) -> tuple[Tensor, Tensor]:
    """Pre-activations of r_t and u_t at the case's one step (T = 1), each (h,)."""
    cell, x, h = case.cell, case.x[0, 0], case.h0
    U = cell.recurrent_matrices()
    z_r = cell.W_r @ x + U["U_r"] @ h + cell.b_r
    z_u = cell.W_u @ x + U["U_u"] @ h + cell.b_u
    return z_r, z_u


def _project_saturated(case: GRUCase) -> None:
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
    z_r, z_u = _preactivations(case)
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
    regime = "vectors" if _draw(gen) < 0.4 else "entries"
    sides = [1 if _draw(gen) < 0.5 else -1 for _ in range(2)]
    n = 1 if _draw(gen) < 0.5 else 3
    if model == "GRU":
        cell = GRU(n, h, generator=gen, dtype=f64)
    else:
        orth = variants[model][int(torch.randint(0, len(variants[model]), (), generator=gen))]
        cell = NCGRU(n, h, orthogonal=orth, num_negative=int(torch.randint(0, h + 1, (), generator=gen)),
                     generator=gen, dtype=f64)
    with torch.no_grad():
        _scale_parameters(cell, _log_uniform(gen, 0.3, 10.0))
        if isinstance(cell, NCGRU):
            cell.b.copy_(torch.randn(h, generator=gen, dtype=f64))  # modReLU bias, both signs
            h_prev = torch.randn(h, generator=gen, dtype=f64) * _log_uniform(gen, 0.1, 5.0)
        else:
            cell.b_c.copy_(torch.randn(h, generator=gen, dtype=f64) * 2)
            if _draw(gen) < 1 / 3:
                h_prev = torch.sign(torch.randn(h, generator=gen, dtype=f64)) * (1 - 1e-3)
            else:
                h_prev = 2 * torch.rand(h, generator=gen, dtype=f64) - 1
        x = torch.randn(1, 1, n, generator=gen, dtype=f64)
        case = GRUCase(cell, x, h_prev, eps, regime, sides[0], sides[1])
        if _draw(gen) < 0.5:
            # pre-activations ±10⁻⁶ with random signs: the projection moves them to exactly ±L
            z_r, z_u = _preactivations(case)
            for z, b in ((z_r, cell.b_r), (z_u, cell.b_u)):
                b.sub_(z - 1e-6 * torch.sign(torch.randn(h, generator=gen, dtype=f64)))
        _project_saturated(case)
    cell = cell.to(device=device, dtype=dtype)
    return GRUCase(cell, x.to(device=device, dtype=dtype), h_prev.to(device=device, dtype=dtype), eps, regime,
                   sides[0], sides[1])


def _free_trajectory(case: GRUCase) -> list[Tensor]:
    return [*case.cell.parameters(), case.x]


def _free_step(case: GRUCase) -> list[Tensor]:
    return [*case.cell.parameters(), case.x, case.h0]


# --------------------------------------------------------------------------------------- assumptions
def _is_gru(c: GRUCase) -> bool:
    return type(c.cell) is GRU


def _defects(c: GRUCase) -> dict[str, float]:
    U = c.cell.recurrent_matrices()
    return {g: float(orthogonality_defect(U[f"U_{g}"].detach())) for g in ("r", "u", "c")}


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


def _check(value, ok, detail):
    """An Assumption check that computes ``value(case)`` once: case → (ok(v), detail(v))."""
    def check(case):
        v = value(case)
        return bool(ok(case, v)), detail(case, v)
    return check


A_GRU = Assumption("GRU of eq. 1 with Φ = tanh", lambda c: (_is_gru(c), type(c.cell).__name__))
A_H0 = Assumption("h_0 = 0 (eq. 1)", _check(
    lambda c: float(c.h0.detach().abs().max()), lambda c, v: v == 0, lambda c, v: f"max|h_0| = {v:.3g}"))
A_STATE = Assumption("‖h_{t−1}‖_∞ ≤ 1 (every state of eq. 1 from h_0 = 0, corollary1.corrected)", _check(
    lambda c: float(c.h0.detach().abs().max()), lambda c, v: v <= 1 + ASSUMPTION_RTOL,
    lambda c, v: f"max|h_(t-1)| = {v:.6g}"))
A_ONE_STEP = Assumption("one step t (T = 1, h_{t−1} = h0)", lambda c: (c.x.shape[1] == 1, f"T = {c.x.shape[1]}"))
A_EPS = Assumption("0 < ε ≤ 1/2", lambda c: (0 < c.eps <= 0.5, f"ε = {c.eps:g}"))
A_SAT = Assumption("every [u_t]_i, [r_t]_i within ε of 0 or 1", _check(
    _saturation, lambda c, v: max(v) <= c.eps * (1 + ASSUMPTION_RTOL),
    lambda c, v: "max_i min(g_i, 1 − g_i) = {:.6g} (u), {:.6g} (r), ε = {:g}".format(*v, c.eps)))
A_SAT_VEC = Assumption("eq. 15/22 cases: u_t, r_t each within ε of the zero or all-ones vector", _check(
    lambda c: _vector_saturation(c) if c.regime == "vectors" else None,
    lambda c, v: v is None or max(v) <= c.eps * (1 + ASSUMPTION_RTOL),
    lambda c, v: f"regime {c.regime}" if v is None else
    "regime vectors: distances {:.6g} (u), {:.6g} (r), ε = {:g}".format(*v, c.eps)))
A_NCGRU = Assumption("NC-GRU of eq. 19 (Φ = modReLU)", lambda c: (type(c.cell) is NCGRU, type(c.cell).__name__))
A_UR_UC_ORTH = Assumption("U_r(A_r), U_c(A_c) orthogonal (eq. 19)", _check(
    _defects, lambda c, v: max(v["r"], v["c"]) <= ORTHOGONALITY_TOL,
    lambda c, v: "‖UᵀU − I‖₂ = {r:.3g} (U_r), {c:.3g} (U_c)".format(**v)))
A_UC_ORTH = Assumption("U_c(A_c) orthogonal (every NC-GRU variant, Sec. 5.2)", _check(
    _defects, lambda c, v: v["c"] <= ORTHOGONALITY_TOL, lambda c, v: "‖U_cᵀU_c − I‖₂ = {c:.3g}".format(**v)))

TRAJECTORY_ASSUMPTIONS = (A_GRU, A_H0)
COR2_ASSUMPTIONS = (A_GRU, A_ONE_STEP, A_STATE, A_EPS, A_SAT, A_SAT_VEC)


# --------------------------------------------------------------------------------------- measurements
def _measure_theorem1(case: GRUCase, *, absolute: bool) -> dict[str, tuple[Tensor, Tensor]]:
    s = gru_steps(case)
    alpha, beta = theorem1_alpha_beta(s, absolute=absolute)
    bound = (alpha + beta * s.norms["c"]).clamp_min(0.0)  # a negative printed bound is exceeded by any norm
    name = "eq. 8 with max_i |·|" if absolute else "eq. 8 as printed (max_i [·]_i)"
    return {f"{name}: ‖∂h_t/∂h_(t−1)‖₂ ≤ α + β‖U_c‖₂": _worst(_spectral(s.J), bound)}


def _measure_corollary1(case: GRUCase) -> dict[str, tuple[Tensor, Tensor]]:
    s = gru_steps(case)
    alpha, beta = theorem1_alpha_beta(s, absolute=False)
    one = s.hs.new_ones(())
    return {
        "δ_u ≤ 1/4": ((s.u * (1 - s.u)).amax(), one / 4),
        "δ_r ≤ 1/4": ((s.r * (1 - s.r)).amax(), one / 4),
        "[h_t]_i ≤ 1 for all i, t": (s.hs.amax(), one),
        "eq. 13: α ≤ ½‖U_u‖₂ + 1 (printed α)": (alpha.amax(), s.norms["u"] / 2 + 1),
        "eq. 13: β ≤ ¼‖U_r‖₂ + 1 (printed β)": (beta.amax(), s.norms["r"] / 4 + 1),
    }


def _measure_corollary1_corrected(case: GRUCase) -> dict[str, tuple[Tensor, Tensor]]:
    s = gru_steps(case)
    alpha, beta = theorem1_alpha_beta(s, absolute=True)
    one = s.hs.new_ones(())
    a_max, b_max = s.norms["u"] / 2 + 1, s.norms["r"] / 4 + 1
    return {
        "|[h_t]_i| ≤ 1 for all i, t": (s.hs.abs().amax(), one),
        "|[c_t]_i| ≤ 1 for all i, t": (s.c.abs().amax(), one),
        "eq. 13: α ≤ ½‖U_u‖₂ + 1 (|·| α)": (alpha.amax(), a_max),
        "eq. 13: β ≤ ¼‖U_r‖₂ + 1 (|·| β)": (beta.amax(), b_max),
        "eq. 8 + 13: ‖∂h_t/∂h_(t−1)‖₂ ≤ ½‖U_u‖₂ + 1 + (¼‖U_r‖₂ + 1)‖U_c‖₂": (
            _spectral(s.J).amax(), a_max + b_max * s.norms["c"]),
    }


def _H_C(s: GRUSteps) -> tuple[Tensor, Tensor]:
    return s.prev[0].abs().amax(), s.c[0].abs().amax()


def _measure_corollary2(case: GRUCase) -> dict[str, tuple[Tensor, Tensor]]:
    s, eps = gru_steps(case), case.eps
    parts = {}
    for reading, absolute in (("printed α, β", False), ("|·| α, β", True)):
        alpha, beta = theorem1_alpha_beta(s, absolute=absolute)
        total = alpha[0] + beta[0]
        parts[f"eq. 14 (ε = {eps:g}): α + β ≤ 2(1 + ε), {reading}"] = (total, total.new_tensor(2 * (1 + eps)))
        if case.regime == "vectors":
            parts[f"eq. 15 (ε = {eps:g}): α + β ≤ 1 + ε, {reading}"] = (total, total.new_tensor(1 + eps))
    return parts


def _measure_corollary2_corrected(case: GRUCase) -> dict[str, tuple[Tensor, Tensor]]:
    s, eps = gru_steps(case), case.eps
    alpha, beta = theorem1_alpha_beta(s, absolute=True)
    total, (H, C) = alpha[0] + beta[0], _H_C(s)
    parts = {f"eq. 14 (ε = {eps:g}): α + β ≤ 2 + ε(1−ε)[(H+C)‖U_u‖₂ + H‖U_r‖₂]": (
        total, saturated_bound(eps, H, C, s.norms["u"], s.norms["r"], vectors=False))}
    if case.regime == "vectors":
        parts[f"eq. 15 (ε = {eps:g}): α + β ≤ 1 + ε + ε(1−ε)[(H+C)‖U_u‖₂ + H‖U_r‖₂]"] = (
            total, saturated_bound(eps, H, C, s.norms["u"], s.norms["r"], vectors=True))
    return parts


def _measure_corollary3(case: GRUCase) -> dict[str, tuple[Tensor, Tensor]]:
    s, eps = gru_steps(case), case.eps
    J = _spectral(s.J[0])
    parts = {f"eq. 21 (ε = {eps:g}): ‖∂h_t/∂h_(t−1)‖₂ ≤ 2(1 + ε)": (J, J.new_tensor(2 * (1 + eps)))}
    if case.regime == "vectors":
        parts[f"eq. 22 (ε = {eps:g}): ‖∂h_t/∂h_(t−1)‖₂ ≤ 1 + ε"] = (J, J.new_tensor(1 + eps))
    return parts


def _measure_corollary3_corrected(case: GRUCase) -> dict[str, tuple[Tensor, Tensor]]:
    s, eps = gru_steps(case), case.eps
    J, (H, C) = _spectral(s.J[0]), _H_C(s)
    parts = {f"eq. 21 (ε = {eps:g}): ‖∂h_t/∂h_(t−1)‖₂ ≤ 2 + ε(1−ε)[(H+C)‖U_u‖₂ + H‖U_r‖₂]": (
        J, saturated_bound(eps, H, C, s.norms["u"], s.norms["r"], vectors=False))}
    if case.regime == "vectors":
        parts[f"eq. 22 (ε = {eps:g}): ‖∂h_t/∂h_(t−1)‖₂ ≤ 1 + ε + ε(1−ε)[(H+C)‖U_u‖₂ + H‖U_r‖₂]"] = (
            J, saturated_bound(eps, H, C, s.norms["u"], s.norms["r"], vectors=True))
    return parts


# ===================================================================================== Neumann cases
@dataclass
class NeumannCase:
    """K steps of Algorithm 1: A^(0) and the updates δA^(1..K), with A^(k) = A^(k−1) − δA^(k) (line 6).

    Attributes:
        A0: A^(0), (h, h), skew. dA: δA^(1), …, δA^(K), shape (K, h, h), skew.
        d: diagonal of D, (h,), ±1 (only the orthogonality part of eq18.corrected uses U = Ã(I − A)D).
    """

    A0: Tensor
    dA: Tensor
    d: Tensor

    def size(self) -> tuple[int, int]:
        """(h, K): K, the number of Algorithm-1 steps, plays the role of T."""
        return self.A0.shape[0], self.dA.shape[0]

    def iterates(self) -> Tensor:
        """A^(0), …, A^(K), shape (K + 1, h, h)."""
        return torch.cat([self.A0[None], self.A0[None] - torch.cumsum(self.dA, 0)])

    def state(self) -> dict:
        """Detached copies of A0, dA, d, for :func:`bounds.core.save_counterexample`."""
        return {"A0": self.A0.detach().clone(), "dA": self.dA.detach().clone(), "d": self.d.detach().clone()}

    @classmethod
    def from_state(cls, state: dict, device="cpu", dtype=torch.float64) -> "NeumannCase":
        """Rebuild a case from :meth:`state` on ``device`` in ``dtype``."""
        return cls(*(state[k].to(device=device, dtype=dtype) for k in ("A0", "dA", "d")))


def neumann_algorithm1(A0: Tensor, dA: Tensor, order: int) -> list[Tensor]:
    """Ã^(0), …, Ã^(K) of nc_gru.md Algorithm 1 (differentiable).

    Line 2: Ã^(0) = (I + A^(0))^{-1} (the algorithm stores the inverse itself, so it is formed with
    ``torch.linalg.inv``); line 7 generalised to order p (Sec. 5.1 uses p = 1, 2, 3; line 7 is p = 2):
    Ã^(k) = (Σ_{i≤p} (Ã^(k−1) δA^(k))^i) Ã^(k−1).

    Args:
        A0: (h, h). dA: (K, h, h). order: p ≥ 1.

    Returns:
        list of K + 1 tensors (h, h).

    Raises:
        ValueError: order < 1 or shapes that do not match.
    """
    if order < 1:
        raise ValueError(f"order (Neumann order p) must be >= 1, got {order}")
    h = A0.shape[-1]
    if A0.shape != (h, h) or dA.dim() != 3 or dA.shape[1:] != (h, h):
        raise ValueError(f"A0 must be (h, h) and dA (K, h, h), got {tuple(A0.shape)} and {tuple(dA.shape)}")
    eye = torch.eye(h, dtype=A0.dtype, device=A0.device)
    X = [torch.linalg.inv(eye + A0)]
    for k in range(dA.shape[0]):
        M = X[-1] @ dA[k]
        series = eye
        for _ in range(order):  # Horner: I + M(I + M(…)) = I + M + … + M^p
            series = eye + M @ series
        X.append(series @ X[-1])
    return X


def _rounding(h: int, A: Tensor) -> Tensor:
    """Float allowance for comparing two computed inverses of I + A (A (…, h, h)): a backward-stable
    inversion has relative error ≲ h·u·κ with κ = ‖I + A‖₂‖(I + A)^{-1}‖₂ ≤ 1 + ‖A‖₂ for skew A
    (≤ (1 + ‖A‖₂)² in general); ‖A‖_F ≥ ‖A‖₂ stands in for the spectral norm (no SVD), and 16× covers
    the few extra products of the series."""
    u = torch.finfo(A.dtype).eps
    return 16 * h * u * (1 + torch.linalg.matrix_norm(A.detach())) ** 2


def sample_neumann_case(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> NeumannCase:
    """K = T steps of Algorithm 1 from a skew A^(0), with skew updates δA^(k) inside the Neumann condition.

    A^(0) is scoRNN's initialisation (Sec. 3.2), a Gaussian skew matrix with a log-uniform norm in
    [10⁻², 10²], or (1 case in 3) 2×2 blocks a·J with a log-uniform in [1, 10³], where (I + A)^{-1}δA
    has an eigenvalue close to its norm and the tail bound q^{p+1}/(1 − q) is nearly attained.
    Each δA^(k) is Gaussian skew with ‖δA‖₂ log-uniform in [10⁻⁴, 1] (a training step with a
    learning rate in the range of Sec. 4), or, in one case in 4, in the same direction as A^(0)'s
    blocks; the projection then caps ‖(I + A)^{-1}δA‖₂ at :data:`Q_MAX`. D has a random number of −1s.

    Args:
        gen: CPU generator. h: size ≥ 1. T: number of steps K ≥ 1. device, dtype: of the case.
    """
    f64 = torch.float64
    kind = int(torch.randint(0, 3, (), generator=gen))
    J = torch.zeros(h, h, dtype=f64)
    idx = torch.arange(0, h - 1, 2)
    J[idx, idx + 1], J[idx + 1, idx] = 1.0, -1.0

    def skew(scale):
        B = torch.randn(h, h, generator=gen, dtype=f64)
        S = B - B.mT
        nrm = _spectral(S)
        return S * (scale / nrm) if nrm > 0 else S

    if kind == 0:
        A0 = scornn_skew_init(h, generator=gen, dtype=f64)
    elif kind == 1:
        A0 = skew(_log_uniform(gen, 1e-2, 1e2))
    else:
        A0 = _log_uniform(gen, 1.0, 1e3) * J
    aligned = _draw(gen) < 0.25
    steps = []
    for _ in range(T):
        # aligned: δA = s·J, s > 0, gives M = (I + aJ)^{-1}sJ an eigenvalue s(a ± i)/(1 + a²) near its norm
        # when A^(0) = aJ with a ≫ 1; the projection rescales s so that q ≤ Q_MAX
        steps.append(_log_uniform(gen, 1e-2, 1e3) * J if aligned else skew(_log_uniform(gen, 1e-4, 1.0)))
    dA = torch.stack(steps) if steps else torch.zeros(0, h, h, dtype=f64)
    d = scaling_diagonal(h, int(torch.randint(0, h + 1, (), generator=gen)), dtype=f64)
    case = NeumannCase(A0, dA, d)
    with torch.no_grad():
        _project_neumann(case)
    return NeumannCase.from_state(case.state(), device, dtype)


def _project_neumann(case: NeumannCase) -> None:
    """Skew-symmetrise A^(0) and every δA^(k), then, step by step, scale δA^(k) down so that both the
    exact ‖(I + A^(k−1))^{-1}δA^(k)‖₂ (eq. 17–18) and the stored ‖Ã^(k−1)δA^(k)‖₂ (Alg. 1 line 7,
    order 3, the largest order checked, whose Ã drifts most) are ≤ :data:`Q_MAX`. In place."""
    case.A0.copy_((case.A0 - case.A0.mT) / 2)
    case.dA.copy_((case.dA - case.dA.mT) / 2)
    h = case.A0.shape[0]
    eye = torch.eye(h, dtype=case.A0.dtype, device=case.A0.device)
    A = case.A0.clone()
    stored = {p: torch.linalg.inv(eye + A) for p in (1, 2, 3)}
    for k in range(case.dA.shape[0]):
        exact = torch.linalg.inv(eye + A)
        q = max([float(_spectral(exact @ case.dA[k]))] + [float(_spectral(X @ case.dA[k])) for X in stored.values()])
        if q > Q_MAX:
            case.dA[k].mul_(Q_MAX / q)
        for p, X in stored.items():
            M = X @ case.dA[k]
            series = eye
            for _ in range(p):
                series = eye + M @ series
            stored[p] = series @ X
        A = A - case.dA[k]


def _free_neumann(case: NeumannCase) -> list[Tensor]:
    return [case.A0, case.dA]


def _skew_defect(c: NeumannCase) -> float:
    A0, dA = c.A0.detach(), c.dA.detach()
    return max(float((A0 + A0.mT).abs().max()), float((dA + dA.mT).abs().max()) if dA.numel() else 0.0)


def _steps_mm(*factors) -> Tensor:
    """Per-step products: each factor is a (K, h, h) tensor or a list of K (h, h) matrices; returns the stack of
    the K products. Algorithm 1 is sequential in k anyway, and 2-D products avoid batched BLAS/LAPACK calls,
    which are slow on a loaded machine (OpenMP barriers across the batch)."""
    out = []
    for mats in zip(*factors):
        prod = mats[0]
        for m in mats[1:]:
            prod = prod @ m
        out.append(prod)
    return torch.stack(out)


def _exact_inverses(A: Tensor) -> list[Tensor]:
    """(I + A^(k))^{-1} for each matrix of A (K + 1, h, h); eq. 16–18 are about the inverse itself."""
    eye = torch.eye(A.shape[-1], dtype=A.dtype, device=A.device)
    return [torch.linalg.inv(eye + a) for a in A]


def _exact_q(c: NeumannCase) -> float:
    with torch.no_grad():
        return float(_spectral(_steps_mm(_exact_inverses(c.iterates())[:-1], c.dA)).max())


def _stored_q(c: NeumannCase) -> float:
    with torch.no_grad():
        return float(_spectral(torch.cat([_steps_mm(neumann_algorithm1(c.A0, c.dA, p)[:-1], c.dA)
                                          for p in ORDERS])).max())


A_SKEW = Assumption("A^(k), δA^(k) skew-symmetric (Sec. 3.2: opt_A keeps A and its gradient skew)", lambda c: (
    _skew_defect(c) <= 64 * torch.finfo(c.A0.dtype).eps * max(1.0, float(c.A0.detach().abs().max())),
    f"max|A + Aᵀ| = {_skew_defect(c):.3g}"))
A_Q_EXACT = Assumption("‖(I + A^(k−1))^{-1}δA^(k)‖₂ < 1 for every k (eq. 17–18)", _check(
    _exact_q, lambda c, v: v < 1, lambda c, v: f"max_k ‖(I + A^(k−1))^(-1) δA^(k)‖₂ = {v:.6g}"))
A_Q_STORED = Assumption("‖Ã^(k−1)δA^(k)‖₂ < 1 for every k (Alg. 1 line 7, stored Ã)", _check(
    _stored_q, lambda c, v: v < 1, lambda c, v: f"max_k ‖Ã^(k−1) δA^(k)‖₂ = {v:.6g}"))

ORDERS = (1, 2, 3)


def _spectral_many(*batches: Tensor) -> list[Tensor]:
    """‖·‖₂ of every matrix in several (k_i, h, h) batches with one SVD call (one batched LAPACK call is much
    cheaper than many on a loaded machine); returns one (k_i,) tensor per batch."""
    norms = _spectral(torch.cat(batches))
    return list(torch.split(norms, [b.shape[0] for b in batches]))


def _measure_eq18(case: NeumannCase) -> dict[str, tuple[Tensor, Tensor]]:
    A = case.iterates()
    h = A.shape[-1]
    inverses = _exact_inverses(A)  # eq. 16–18 are stated with the exact (I + A^(k−1))^{-1}
    X = torch.stack(inverses)
    M = _steps_mm(inverses[:-1], case.dA)  # (I + A^(k−1))^{-1} δA^(k)
    allowance = _rounding(h, A[1:]) + _rounding(h, A[:-1])  # two inverses compared
    errors, series, power = [], X[:-1], X[:-1]
    for p in range(1, max(ORDERS) + 1):
        power = _steps_mm(M, power)            # M^p X
        series = series + power                # Σ_{i≤p} M^i X
        if p in ORDERS:
            errors.append(X[1:] - series)
    q, norm_X, *errs = _spectral_many(M, X[:-1], *errors)
    parts = {}
    for p, err in zip(ORDERS, errs):
        tail = torch.where(q < 1, q ** (p + 1) * norm_X / (1 - q).clamp_min(1e-300), torch.full_like(q, math.inf))
        parts[f"eq. 18, order p = {p}: ‖(I + A^(k))^(-1) − Σ_(i≤p) M^i (I + A^(k−1))^(-1)‖₂ "
              f"≤ q^(p+1)‖(I + A^(k−1))^(-1)‖₂/(1 − q)"] = _worst(err, tail + allowance)
    with torch.no_grad():  # eigenvalues only report; their gradient is ill-conditioned at pairs ±iλ
        rho = torch.linalg.eigvals(M).abs().amax(-1)
    parts["eq. 17–18 converge: spectral radius ρ((I + A^(k−1))^(-1)δA^(k)) < 1"] = (rho.max(), rho.new_ones(()))
    return parts


def _measure_eq18_corrected(case: NeumannCase) -> dict[str, tuple[Tensor, Tensor]]:
    A = case.iterates()
    K, h = case.dA.shape[0], A.shape[-1]
    eye = torch.eye(h, dtype=A.dtype, device=A.device)
    inverses = _exact_inverses(A)
    exact = torch.stack(inverses)
    batches = [_steps_mm(inverses[:-1], case.dA), case.dA]
    for p in ORDERS:
        X = neumann_algorithm1(case.A0, case.dA, p)  # Ã^(0), …, Ã^(K)
        U = _steps_mm(X[1:], eye - A[1:]) * case.d
        batches += [_steps_mm(X[:-1], case.dA), _steps_mm(X, eye + A) - eye, torch.stack(X[1:]) - exact[1:],
                    _steps_mm(U.mT, U) - eye]
    q_exact, norm_dA, *norms = _spectral_many(*batches)
    # every step adds one rounding of the order of an inversion to Ã, hence (k + 1) allowances at step k
    allowance = torch.arange(1, K + 2, dtype=A.dtype, device=A.device) * _rounding(h, A)
    parts = {}
    for i, p in enumerate(ORDERS):
        c, R, inverse_error, defect = norms[4 * i: 4 * i + 4]
        b = [R[0]]  # b_0 = ‖R_0‖₂, rounding only (Ã^(0) is exact)
        for k in range(K):
            b.append(sum(c[k] ** j for j in range(p + 1)) * b[-1] + c[k] ** (p + 1))
        b = torch.stack(b)
        tag = f"order p = {p}"
        # k ≥ 1 only: at k = 0 the bounds hold by the definition of b_0
        parts[f"{tag}: ‖Ã^(k)(I + A^(k)) − I‖₂ ≤ b_k"] = _worst(R[1:], b[1:] + allowance[1:])
        parts[f"{tag}: ‖Ã^(k) − (I + A^(k))^(-1)‖₂ ≤ b_k"] = _worst(inverse_error, b[1:] + allowance[1:])
        parts[f"{tag}: ‖U^(k)ᵀU^(k) − I‖₂ ≤ 2b_k + b_k²"] = _worst(defect, 2 * b[1:] + b[1:] ** 2 + 2 * allowance[1:])
        if K >= 2:  # at k = 1, Ã^(0) is the exact inverse and both sides coincide
            parts[f"{tag}: ‖Ã^(k−1)δA^(k)‖₂ ≤ ‖(I + A^(k−1))^(-1)δA^(k)‖₂ + b_(k−1)‖δA^(k)‖₂"] = _worst(
                c[1:], q_exact[1:] + b[1:-1] * norm_dA[1:] + allowance[1:-1])
    return parts


# ====================================================================================== eq. 5–6 cases
@dataclass
class CayleyGradientCase:
    """A loss L(U) = ⟨Y, U⟩ + ‖tanh(U X)‖_F² of the scaled Cayley matrix U = (I + A)^{-1}(I − A)D.

    Attributes:
        A: skew (h, h). d: (h,) ±1. X: (h, m). Y: (h, h).
        parametrization: ``"skew"`` (A's free entries, A = Θ − Θᵀ: the gradient eq. 5 is about) or
            ``"full"`` (every entry of A independent: outside eq. 5's assumptions).
    """

    A: Tensor
    d: Tensor
    X: Tensor
    Y: Tensor
    parametrization: str = "skew"

    def size(self) -> tuple[int, int]:
        """(h, m): m, the number of columns of X, plays the role of T."""
        return self.A.shape[0], self.X.shape[1]

    def state(self) -> dict:
        """Detached copies of A, d, X, Y and the parametrization, for :func:`bounds.core.save_counterexample`."""
        return {"A": self.A.detach().clone(), "d": self.d.detach().clone(), "X": self.X.detach().clone(),
                "Y": self.Y.detach().clone(), "parametrization": self.parametrization}

    @classmethod
    def from_state(cls, state: dict, device="cpu", dtype=torch.float64) -> "CayleyGradientCase":
        """Rebuild a case from :meth:`state` on ``device`` in ``dtype``."""
        return cls(*(state[k].to(device=device, dtype=dtype) for k in ("A", "d", "X", "Y")),
                   str(state["parametrization"]))


def sample_cayley_gradient_case(gen: torch.Generator, h: int, T: int, device="cpu",
                                dtype=torch.float64) -> CayleyGradientCase:
    """A case for eq. 5–6: skew A (scoRNN's initialisation, A = 0, or Gaussian with ‖A‖₂ log-uniform in
    [10⁻³, 10³], the large end making I + A badly conditioned), D with a random number of −1s (0 to h),
    X (h, T) and Y (h, h) standard normal.

    Args:
        gen: CPU torch.Generator. h: size ≥ 1. T: columns of X ≥ 1. device, dtype: of the case.
    """
    f64 = torch.float64
    kind = int(torch.randint(0, 3, (), generator=gen))
    if kind == 0:
        A = scornn_skew_init(h, generator=gen, dtype=f64)
    elif kind == 1 and h > 1:
        B = torch.randn(h, h, generator=gen, dtype=f64)
        A = (B - B.mT) * (_log_uniform(gen, 1e-3, 1e3) / _spectral(B - B.mT))
    else:
        A = torch.zeros(h, h, dtype=f64)
    d = scaling_diagonal(h, int(torch.randint(0, h + 1, (), generator=gen)), dtype=f64)
    X = torch.randn(h, T, generator=gen, dtype=f64)
    Y = torch.randn(h, h, generator=gen, dtype=f64)
    return CayleyGradientCase(*(t.to(device=device, dtype=dtype) for t in (A, d, X, Y)))


def _cayley(A: Tensor, d: Tensor) -> Tensor:
    eye = torch.eye(A.shape[-1], dtype=A.dtype, device=A.device)
    return torch.linalg.solve(eye + A, eye - A) * d  # eq. 2; "* d" right-multiplies by D


def _loss(case: CayleyGradientCase, U: Tensor) -> Tensor:
    return (case.Y * U).sum() + torch.tanh(U @ case.X).pow(2).sum()


def _measure_eq5(case: CayleyGradientCase) -> dict[str, tuple[Tensor, Tensor]]:
    with torch.enable_grad():
        A = case.A.detach()
        if case.parametrization == "skew":
            theta = (A / 2).requires_grad_()  # A = Θ − Θᵀ; ∂L/∂Θ is the gradient over the free entries
            param, A_of = theta, theta - theta.mT
        else:
            param = A.clone().requires_grad_()
            A_of = param
        (auto,) = torch.autograd.grad(_loss(case, _cayley(A_of, case.d)), [param])
        U = _cayley(A, case.d).detach().requires_grad_()
        (G,) = torch.autograd.grad(_loss(case, U), [U])  # ∇_U L by standard backpropagation
    eye = torch.eye(A.shape[-1], dtype=A.dtype, device=A.device)
    V = torch.linalg.solve((eye + A).mT, G @ (torch.diag(case.d) + U.detach().mT))  # eq. 6
    formula = V.mT - V                                                              # eq. 5
    err = torch.linalg.matrix_norm(formula - auto)
    return {"eq. 5–6 vs autograd: ‖(Vᵀ − V) − ∂L/∂A‖_F ≤ tol": (err, _eq5_tolerance(case, G))}


def _eq5_tolerance(case: CayleyGradientCase, G: Tensor) -> Tensor:
    """64·h·u·κ·‖∇_U L‖_F with κ = 1 + ‖A‖₂ ≥ cond(I + A) for skew A (‖(I + A)^{-1}‖₂ ≤ 1): V and autograd's
    gradient each pass ∇_U L through one solve with I + A (relative forward error ≲ h·u·κ) and use U, itself a
    solve (error ≲ h·u·κ, and ‖D + Uᵀ‖₂ ≤ 2). Measured errors stay below 2 % of this for ‖A‖₂ up to 10⁴."""
    h = case.A.shape[0]
    kappa = 1 + _spectral(case.A.detach())
    return 64 * h * torch.finfo(case.A.dtype).eps * kappa * torch.linalg.matrix_norm(G.detach())


A_EQ5_SKEW = Assumption("A skew-symmetric (eq. 2)", lambda c: (
    float((c.A + c.A.mT).abs().max()) <= 64 * torch.finfo(c.A.dtype).eps * max(1.0, float(c.A.abs().max())),
    f"max|A + Aᵀ| = {float((c.A + c.A.mT).abs().max()):.3g}"))
A_EQ5_PARAM = Assumption("∇_A L over the free entries of skew A (A = Θ − Θᵀ)", lambda c: (
    c.parametrization == "skew", f"parametrization = {c.parametrization}"))
A_EQ5_D = Assumption("D diagonal with entries ±1", lambda c: (
    bool(((c.d == 1) | (c.d == -1)).all()), f"d = {c.d.tolist()}"))


# ============================================================================================== claims
_TRAJ_QUICK = [(2, 1), (2, 4), (4, 6), (8, 8), (12, 10)]
_TRAJ_FULL = _TRAJ_QUICK + [(16, 24), (32, 50), (64, 50)]
_STEP_QUICK = [(2, 1), (3, 1), (4, 1), (8, 1), (16, 1)]
_STEP_FULL = _STEP_QUICK + [(32, 1), (64, 1), (128, 1)]
_NEU_QUICK = [(2, 1), (2, 3), (4, 4), (8, 6), (16, 6)]
_NEU_FULL = _NEU_QUICK + [(32, 10), (64, 10), (128, 4), (256, 2)]
_EQ5_QUICK = [(2, 1), (3, 2), (4, 4), (8, 8), (16, 8), (64, 16)]
_EQ5_FULL = _EQ5_QUICK + [(128, 32), (256, 32)]

_TRAJ = dict(paper="nc_gru", sample=sample_trajectory_case, free=_free_trajectory,
             case_type=GRUCase, sizes={"quick": _TRAJ_QUICK, "full": _TRAJ_FULL},
             assumptions=TRAJECTORY_ASSUMPTIONS)


def _step_common(model: str, assumptions) -> dict:
    return dict(paper="nc_gru", free=_free_step, project=_project_saturated, case_type=GRUCase,
                sizes={"quick": _STEP_QUICK, "full": _STEP_FULL}, assumptions=assumptions,
                sample=lambda gen, h, T, device, dtype: sample_saturated_case(gen, h, T, device, dtype, model=model))


_EPS_NOTE = ("Saturation is explicit: every gate entry within ε of 0 or 1 (eq. 14/21), or u_t, r_t each within ε "
             "of the zero or all-ones vector (eq. 15/22); ε ∈ {0.1, 0.01, 0.001} and every part is named with its "
             "ε, so worst_parts gives the ratio as a function of ε.")

theorem1 = Claim(
    id="nc_gru.theorem1",
    source="nc_gru.md, Theorem 1, eq. 8–12 (proof SM 7, eq. 23–45)",
    statement="‖∂h_t/∂h_{t−1}‖₂ ≤ α + β‖U_c‖₂, α = δ_u(max_i [h_{t−1}]_i + max_i [c_t]_i)‖U_u‖₂ + max_i(1 − [u_t]_i), "
              "β = max_i [u_t]_i (δ_r‖U_r‖₂ max_i [h_{t−1}]_i + max_i [r_t]_i), δ_u = max_i [u_t]_i(1 − [u_t]_i), "
              "δ_r = max_i [r_t]_i(1 − [r_t]_i)",
    measure="‖∂h_t/∂h_{t−1}‖₂ by autograd (jacrev of GRU.step) at every step of a sequence from h_0 = 0; worst step",
    bound="α_t + β_t‖U_c‖₂ with the maxima as printed (signed entries); clamped at 0 (a negative bound fails)",
    evaluate=lambda c: _measure_theorem1(c, absolute=False),
    explanation="Eq. 9–10 write max_i [h_{t−1}]_i and max_i [c_t]_i, but the proof's step eq. 41 bounds "
                "‖diag(h_{t−1})‖₂ and ‖diag(c_t)‖₂, which are max_i |·|; with tanh, h_t and c_t can be entirely "
                "negative, the signed maxima are then negative and the printed α (even α + β‖U_c‖₂) falls below "
                "‖∂h_t/∂h_{t−1}‖₂ (e.g. h_{t−1} ≈ −0.9·1, c_t ≈ −0.1·1, u_t = 1/2 through U_u = κ(P − I)). "
                "The |·| reading is proved by eq. 41 as written; see nc_gru.theorem1.corrected.",
    notes="Ratio inf means the printed bound was ≤ 0 at the worst step.",
    **_TRAJ,
)

theorem1_corrected = Claim(
    id="nc_gru.theorem1.corrected",
    source="nc_gru.md, Theorem 1, eq. 8–12, corrected by rnnaudit (max_i |·| as in eq. 41)",
    statement="‖∂h_t/∂h_{t−1}‖₂ ≤ α + β‖U_c‖₂ with max_i |[h_{t−1}]_i| and max_i |[c_t]_i| in eq. 9–10",
    measure="‖∂h_t/∂h_{t−1}‖₂ by autograd at every step of a sequence from h_0 = 0; worst step",
    bound="α_t + β_t‖U_c‖₂, α, β of eq. 9–12 with absolute values",
    evaluate=lambda c: _measure_theorem1(c, absolute=True),
    explanation="Would mean the triangle-inequality chain eq. 40–42 is wrong; it needs only σ' = σ(1 − σ) and "
                "|Φ'| ≤ 1 (tanh).",
    notes="The proof does not use h_0 = 0; the bound holds for any h_{t−1}.",
    **_TRAJ,
)

corollary1 = Claim(
    id="nc_gru.corollary1",
    source="nc_gru.md, Corollary 1, eq. 13 (proof SM 7, eq. 46–58)",
    statement="For Φ = tanh: δ_u, δ_r ≤ 1/4, [h_t]_i ≤ 1 for all i, t, α ≤ ½‖U_u‖₂ + 1 and β ≤ ¼‖U_r‖₂ + 1",
    measure="δ_u, δ_r, max h_t and α_t, β_t (printed, signed maxima) over every step of a sequence from h_0 = 0",
    bound="1/4, 1/4, 1, ½‖U_u‖₂ + 1, ¼‖U_r‖₂ + 1",
    evaluate=_measure_corollary1,
    explanation="Would need h_0 ≠ 0 (the induction eq. 47–52 starts from h_0 = 0) or a candidate with |Φ| > 1.",
    notes="The statement holds, but its proof (eq. 47–52) assumes 0 ≤ [c_t]_i ≤ 1, false for tanh (c_t ∈ (−1, 1)); "
          "the conclusion survives because h_t is a convex combination of h_{t−1} and c_t. δ_u = 1/4 is attained "
          "(u = 1/2), so ratios of exactly 1 are expected. The printed α, β are those of nc_gru.theorem1, which is "
          "false; nc_gru.corollary1.corrected bounds the |·| α, β that make Theorem 1 true.",
    **_TRAJ,
)

corollary1_corrected = Claim(
    id="nc_gru.corollary1.corrected",
    source="nc_gru.md, Corollary 1, eq. 13, corrected by rnnaudit (proof without 0 ≤ c_t)",
    statement="For Φ = tanh and h_0 = 0: |[h_t]_i| ≤ 1, |[c_t]_i| ≤ 1, and the |·| α, β of theorem1.corrected "
              "satisfy α ≤ ½‖U_u‖₂ + 1, β ≤ ¼‖U_r‖₂ + 1, hence ‖∂h_t/∂h_{t−1}‖₂ ≤ ½‖U_u‖₂ + 1 + (¼‖U_r‖₂ + 1)‖U_c‖₂",
    measure="max |h_t|, max |c_t|, α_t, β_t (|·| reading) and ‖∂h_t/∂h_{t−1}‖₂ (autograd) over every step",
    bound="1, 1, ½‖U_u‖₂ + 1, ¼‖U_r‖₂ + 1, ½‖U_u‖₂ + 1 + (¼‖U_r‖₂ + 1)‖U_c‖₂",
    evaluate=_measure_corollary1_corrected,
    explanation="Would mean |[h_t]_i| ≤ 1 fails; by induction h_t = (1 − u_t)h_{t−1} + u_t c_t is a convex "
                "combination of two vectors in [−1, 1]^h when h_0 = 0 and Φ = tanh.",
    notes="Replaces the proof's premise 0 ≤ [c_t]_i ≤ 1 (eq. 47–52) by |[c_t]_i| < 1.",
    **_TRAJ,
)

corollary2 = Claim(
    id="nc_gru.corollary2",
    source="nc_gru.md, Corollary 2, eq. 14–15 (proof SM 7, eq. 59–64)",
    statement="Gates u_t, r_t nearly 0 or 1 entrywise ⇒ α + β ≲ 2 (eq. 14); u_t, r_t nearly the zero or all-ones "
              "vector ⇒ α + β ≲ 1 (eq. 15); read with saturation tolerance ε as α + β ≤ 2(1 + ε) and ≤ 1 + ε",
    measure="α + β of eq. 9–12 at one ε-saturated GRU step, for the printed (signed) and the |·| maxima",
    bound="2(1 + ε) (eq. 14) and 1 + ε (eq. 15, vector regime only)",
    evaluate=_measure_corollary2,
    explanation="The proof drops δ_u(max|h| + max|c|)‖U_u‖₂ and δ_r‖U_r‖₂ max|h| as ≈ 0 because δ_u, δ_r ≈ 0, but "
                "δ_u, δ_r ≤ ε(1 − ε) only, so the error is ε(1 − ε)[(H + C)‖U_u‖₂ + H‖U_r‖₂] (H = max|h_{t−1}|, "
                "C = max|c_t|): it grows with ‖U_u‖₂, ‖U_r‖₂, so no tolerance depending on ε alone (here y·ε) "
                "covers it: with H = C ≈ 1 and gates on the edge of the tolerance, α + β exceeds 2(1 + ε) once "
                "2‖U_u‖₂ + ‖U_r‖₂ ≳ 5, at every ε (also from h_{t−1} = h_0 = 0, with ‖U_u‖₂ ≳ 5). The ≲ holds only "
                "as ε‖U‖₂ → 0. See nc_gru.corollary2.corrected for the explicit bound.",
    notes=_EPS_NOTE + " h_{t−1} ranges over [−1, 1]^h, which contains every state of eq. 1 from h_0 = 0. For fixed "
          "weights the ratio tends to ≤ 1 as ε → 0, but at every ε there are weights that break it.",
    **_step_common("GRU", COR2_ASSUMPTIONS),
)

corollary2_corrected = Claim(
    id="nc_gru.corollary2.corrected",
    source="nc_gru.md, Corollary 2, eq. 14–15, corrected by rnnaudit (error term written out)",
    statement="With every gate entry within ε ≤ 1/2 of 0 or 1: α + β ≤ 2 + ε(1 − ε)[(H + C)‖U_u‖₂ + H‖U_r‖₂]; "
              "with u_t, r_t each within ε of 0 or 1 (vectors): α + β ≤ 1 + ε + ε(1 − ε)[(H + C)‖U_u‖₂ + H‖U_r‖₂]; "
              "H = max_i |[h_{t−1}]_i| ≤ 1, C = max_i |[c_t]_i| ≤ 1 for tanh",
    measure="α + β of eq. 9–12 (|·| reading, the one Theorem 1 proves) at one ε-saturated GRU step",
    bound="the two right-hand sides, with the case's H, C, ‖U_u‖₂, ‖U_r‖₂",
    evaluate=_measure_corollary2_corrected,
    explanation="Would mean δ ≤ ε(1 − ε) fails for σ ∈ [0, ε] ∪ [1 − ε, 1], impossible for ε ≤ 1/2.",
    notes=_EPS_NOTE + " With H, C ≤ 1 the excess over 2 (or 1) is at most ε(1 − ε)(2‖U_u‖₂ + ‖U_r‖₂) (eq. 14) and "
          "ε + ε(1 − ε)(2‖U_u‖₂ + ‖U_r‖₂) (eq. 15).",
    **_step_common("GRU", COR2_ASSUMPTIONS),
)

corollary3 = Claim(
    id="nc_gru.corollary3",
    source="nc_gru.md, Corollary 3, eq. 21–22 (proof SM 7, eq. 65–68)",
    statement="NC-GRU (eq. 19): ‖U_r‖₂ = ‖U_c‖₂ = 1 and gates nearly 0 or 1 ⇒ ‖∂h_t/∂h_{t−1}‖₂ ≲ 2 (eq. 21); gates "
              "nearly the zero or all-ones vector ⇒ ≲ 1 (eq. 22); read as ≤ 2(1 + ε) and ≤ 1 + ε",
    measure="‖∂h_t/∂h_{t−1}‖₂ by autograd (jacrev of NCGRU.step) at one ε-saturated step, any h_{t−1}",
    bound="2(1 + ε) (eq. 21) and 1 + ε (eq. 22, vector regime only)",
    evaluate=_measure_corollary3,
    explanation="Inherits Corollary 2's dropped term ε(1 − ε)[(H + C)‖U_u‖₂ + H‖U_r‖₂], and worse: Corollary 2 "
                "used H, C ≤ 1 (Corollary 1, tanh), but NC-GRU's Φ = modReLU is unbounded, so H = max|h_{t−1}| and "
                "C = max|c_t| are not bounded by 1 and the error grows with the state even for fixed weights; "
                "‖U_u‖₂ is free unless U_u is orthogonal too. In NC-GRU(U_c), the model of most of Sec. 4, U_r is "
                "not orthogonal either, so ‖U_r‖₂ = 1 fails. See nc_gru.corollary3.corrected.",
    notes=_EPS_NOTE + " Theorem 1 applies to modReLU since |Φ'| ≤ 1. Cases are NC-GRU(U_r, U_c) and "
          "NC-GRU(U_r, U_u, U_c) with exact Ã (orthogonal to 1e-15).",
    **_step_common("NCGRU", (A_NCGRU, A_UR_UC_ORTH, A_ONE_STEP, A_EPS, A_SAT, A_SAT_VEC)),
)

corollary3_corrected = Claim(
    id="nc_gru.corollary3.corrected",
    source="nc_gru.md, Corollary 3, eq. 21–22, corrected by rnnaudit (‖U_r‖₂, ‖U_u‖₂, H, C explicit)",
    statement="NC-GRU with U_c orthogonal (any of Sec. 5.2's variants), gate entries within ε of 0 or 1: "
              "‖∂h_t/∂h_{t−1}‖₂ ≤ 2 + ε(1 − ε)[(H + C)‖U_u‖₂ + H‖U_r‖₂]; u_t, r_t within ε of 0 or 1 (vectors): "
              "≤ 1 + ε + ε(1 − ε)[(H + C)‖U_u‖₂ + H‖U_r‖₂]; H = max|h_{t−1}|, C = max|c_t| (unbounded for modReLU)",
    measure="‖∂h_t/∂h_{t−1}‖₂ by autograd at one ε-saturated NC-GRU step",
    bound="the right-hand sides with the case's H, C, ‖U_u‖₂, ‖U_r‖₂ and ‖U_c‖₂ = 1",
    evaluate=_measure_corollary3_corrected,
    explanation="Would mean Theorem 1 (|·| reading) fails for modReLU or ‖U_c‖₂ ≠ 1; U_c = Ã(I − A)D is orthogonal "
                "only while Ã = (I + A)^{-1}.",
    notes=_EPS_NOTE + " Includes NC-GRU(U_c) (U_r free). ‖U_r‖₂ = 1 only for orthogonal U_r.",
    **_step_common("NCGRU-any", (A_NCGRU, A_UC_ORTH, A_ONE_STEP, A_EPS, A_SAT, A_SAT_VEC)),
)

_NEU = dict(paper="nc_gru", sample=sample_neumann_case, free=_free_neumann, project=_project_neumann,
            case_type=NeumannCase, sizes={"quick": _NEU_QUICK, "full": _NEU_FULL})

eq18 = Claim(
    id="nc_gru.eq18",
    source="nc_gru.md, Sec. 3.2, eq. 16–18 and the order-p error stated after them (Sec. 5.1 orders 1–3)",
    statement="If q = ‖(I + A^(k−1))^{-1}δA^(k)‖₂ < 1 then (I + A^(k))^{-1} = Σ_{i≥0} M^i (I + A^(k−1))^{-1} with "
              "M = (I + A^(k−1))^{-1}δA^(k), A^(k) = A^(k−1) − δA^(k), and the order-p truncation errs by "
              "O(M^{p+1}), explicitly ≤ q^{p+1}‖(I + A^(k−1))^{-1}‖₂/(1 − q)",
    measure="‖(I + A^(k))^{-1} − Σ_{i≤p} M^i (I + A^(k−1))^{-1}‖₂ for p = 1, 2, 3 at every step k, exact inverses; "
            "spectral radius of M",
    bound="q^{p+1}‖(I + A^(k−1))^{-1}‖₂/(1 − q) + float allowance 16h·u·(1 + ‖A‖_F)² per inverse; ρ(M) < 1",
    assumptions=(A_SKEW, A_Q_EXACT),
    evaluate=_measure_eq18,
    explanation="Would mean the geometric tail bound fails; it needs only ‖M‖₂ < 1 "
                "((I − M)^{-1} = Σ M^i with ‖(I − M)^{-1}‖₂ ≤ 1/(1 − q)). Outside q < 1 the series can diverge "
                "(ρ(M) > 1), which the spectral-radius part reports.",
    notes="The sign convention is consistent: Alg. 1 line 6 A^(k) = A^(k−1) − δA^(k) is eq. 16's I + A^(k−1) − δA^(k), "
          "so δA is minus the optimizer's step; with the opposite sign the series approximates "
          "(I + A^(k−1) + δA)^{-1} and the error is first order. The 2×2-block cases a·J with large a make the bound "
          "nearly tight (M has an eigenvalue near q). For skew A^(k) the error also equals "
          "M^{p+1}(I + A^(k))^{-1} exactly, so ≤ q^{p+1} even when q ≥ 1: the condition is what makes it small.",
    **_NEU,
)

eq18_corrected = Claim(
    id="nc_gru.eq18.corrected",
    source="nc_gru.md, Algorithm 1 lines 2–8 with eq. 16–18, corrected by rnnaudit (stored Ã in line 7)",
    statement="Algorithm 1 as run: with M_k = Ã^(k−1)δA^(k) (stored Ã, c_k = ‖M_k‖₂) and R_k = Ã^(k)(I + A^(k)) − I, "
              "R_k = (Σ_{i≤p} M_k^i)R_{k−1} − M_k^{p+1} exactly, so ‖R_k‖₂, ‖Ã^(k) − (I + A^(k))^{-1}‖₂ ≤ b_k with "
              "b_0 = ‖R_0‖₂, b_k = (Σ_{i≤p} c_k^i)b_{k−1} + c_k^{p+1}; ‖U^(k)ᵀU^(k) − I‖₂ ≤ 2b_k + b_k²; and "
              "c_k ≤ ‖(I + A^(k−1))^{-1}δA^(k)‖₂ + b_{k−1}‖δA^(k)‖₂",
    measure="Algorithm 1 run K steps for p = 1, 2, 3 from the exact Ã^(0): residual, inverse error, orthogonality "
            "defect of U = Ã(I − A)D, and c_k, at every k",
    bound="b_k (+ float allowance (k + 1)·16h·u·(1 + ‖A‖_F)²), 2b_k + b_k², "
          "‖(I + A^(k−1))^{-1}δA^(k)‖₂ + b_{k−1}‖δA^(k)‖₂",
    assumptions=(A_SKEW, A_Q_STORED),
    evaluate=_measure_eq18_corrected,
    explanation="Would mean the residual recursion is wrong; it is algebra, and ‖(I + A^(k))^{-1}‖₂ ≤ 1 needs A^(k) "
                "skew.",
    notes="Eq. 18's error O(((I + A^(k−1))^{-1}δA^(k))^{p+1}) and Sec. 5.3's monitored condition are stated with the "
          "exact inverse, but line 7 multiplies by the stored Ã^(k−1), which after the first step is itself a "
          "truncation: each step's new error is M_k^{p+1}, and the inherited residual is carried along (×Σ c_k^i), "
          "so after K steps the error is ≈ Σ_k c_k^{p+1}, not the last step's c_K^{p+1} (the paper's warning that "
          "errors 'can accumulate', made exact). The recursion needs no convergence condition; c_k < 1 is what "
          "keeps b_k small.",
    **_NEU,
)

eq5 = Claim(
    id="nc_gru.eq5",
    source="nc_gru.md, Sec. 2.2, eq. 5–6 (scoRNN's gradient, used by Algorithm 1 lines 4–5)",
    statement="∇_A L(U(A)) = Vᵀ − V with V = (I + A)^{-T} ∇_U L (D + Uᵀ), U = (I + A)^{-1}(I − A)D",
    measure="‖(Vᵀ − V) − ∂L/∂Θ‖_F, ∂L/∂Θ by autograd through eq. 2 with A = Θ − Θᵀ, L(U) = ⟨Y, U⟩ + ‖tanh(UX)‖_F²",
    bound="64·h·u·(1 + ‖A‖₂)·‖∇_U L‖_F (float allowance of the solves with I + A)",
    assumptions=(A_EQ5_SKEW, A_EQ5_PARAM, A_EQ5_D),
    evaluate=_measure_eq5,
    paper="nc_gru",
    sample=sample_cayley_gradient_case,
    sizes={"quick": _EQ5_QUICK, "full": _EQ5_FULL},
    case_type=CayleyGradientCase,
    explanation="Eq. 5 is the gradient with respect to the free entries of a skew A; autograd with every entry of A "
                "independent gives −V instead (G − Gᵀ = Vᵀ − V).",
    notes="An identity: measured = the error, bound = a float allowance, no ascent. ∇_U L is linear in the loss, so "
          "one nonlinear L with random X, Y exercises the general formula.",
)

CLAIMS = (theorem1, theorem1_corrected, corollary1, corollary1_corrected, corollary2, corollary2_corrected,
          corollary3, corollary3_corrected, eq18, eq18_corrected, eq5)
