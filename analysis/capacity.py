"""Empirical Rademacher complexity of a recurrent function class, probed from below
(sgornn.md Sec. 2.1, Appendix A.1 eq. 12 and 16–22).

For a sample S = {X^(i)}_{i=1}^m and the class v∘F_T of eq. 5 (SGORNN with ReLU, no bias,
‖W‖_F ≤ R_W, Θ free, α and β fixed, ‖v‖₂ ≤ R_v),

    R̂_m(v∘F_T) = E_ε [ sup_{v, W, Θ} (1/m) Σ_i ε_i vᵀh_T^(i) ]                       (eq. 16)
               = E_ε [ sup_{W, Θ} (R_v/m) ‖Σ_i ε_i h_T^(i)‖₂ ]                          (eq. 17–19)

The sup over v is exact and closed-form (vᵀs ≤ ‖v‖‖s‖ with equality at v = R_v s/‖s‖), so eq. 18–19
hold with equality. The sup over (W, Θ) is non-concave: it is searched by projected gradient
ascent from several starts, and the best value found for each ε is a **lower estimate of the
supremum**; averaged over draws of ε it is a lower estimate of R̂_m, with its standard error.
The paper's upper bound (eq. 22 times R_v, i.e. eq. 23 before the 1-Lipschitz loss) is
2αT R_W R_x R_v/√m; :func:`capacity_records` puts the two side by side.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Callable

import torch
from torch import Tensor
from torch.func import functional_call

from rnnaudit.cells.base import RecurrentCell

__all__ = ["RademacherEstimate", "maximize_over_balls", "rademacher_lower_estimate", "cell_rademacher",
           "sgornn_rademacher_bound", "capacity_records"]

KIND = "lower estimate of the supremum (projected gradient ascent); the true R_m is at least this, up to ε sampling"


@dataclass(frozen=True)
class RademacherEstimate:
    """Result of :func:`rademacher_lower_estimate`.

    Attributes:
        estimate: mean over the ε draws of the best objective found (a lower estimate of R̂_m).
        stderr: standard error of that mean over ε (0 when every sign vector was enumerated).
        values: (n_draws,) best value per ε draw (float64, CPU).
        n_draws: number of ε vectors; exhaustive: whether all 2^m were enumerated (then the mean
            is the exact expectation over ε of the values found).
        kind: what the number is (:data:`KIND`).
    """

    estimate: float
    stderr: float
    values: Tensor
    n_draws: int
    exhaustive: bool
    kind: str = KIND


def _project(p: Tensor, radius: float) -> None:
    """In-place Euclidean (Frobenius) projection onto {‖p‖ ≤ radius}."""
    norm = torch.linalg.vector_norm(p)
    if norm > radius:
        p.mul_(radius / norm)


def maximize_over_balls(objective: Callable[[dict[str, Tensor]], Tensor], starts: list[dict[str, Tensor]],
                        balls: dict[str, float], *, steps: int = 200, lr: float = 0.1) -> float:
    """Best value of ``objective`` over parameters with ‖p‖_F ≤ radius for p in ``balls`` and the
    rest free, by projected gradient ascent from each start.

    Step k moves every parameter block along its own normalised gradient,
    p ← P(p + η_k s_p g_p/‖g_p‖), with s_p the ball radius (or max(1, rms of the start) for a free
    block), η_k = lr·(1 − k/steps) decaying to 0, and P the projection onto the ball. Every iterate
    is feasible, so the largest value seen is a lower bound of the supremum.

    Args:
        objective: params dict → 0-d tensor (differentiable).
        starts: list of params dicts (copied, not modified).
        balls: name → radius > 0 for the constrained parameters.

    Returns:
        The largest objective value seen (a Python float).

    Raises:
        ValueError: empty ``starts``, non-positive radius, steps < 0.
    """
    if not starts:
        raise ValueError("starts must hold at least one parameter dict")
    if steps < 0:
        raise ValueError(f"steps must be >= 0, got {steps}")
    for name, radius in balls.items():
        if not (isinstance(radius, (int, float)) and math.isfinite(radius) and radius > 0):
            raise ValueError(f"ball radius for {name!r} must be a finite number > 0, got {radius!r}")
    best = -math.inf
    for start in starts:
        params = {k: v.detach().clone() for k, v in start.items()}
        scale = {k: balls[k] if k in balls else max(1.0, float(p.square().mean().sqrt())) for k, p in params.items()}
        for name, radius in balls.items():
            _project(params[name], radius)
        for step in range(steps + 1):
            for p in params.values():
                p.requires_grad_(True)
            value = objective(params)
            best = max(best, float(value.detach()))
            if step == steps:
                break
            grads = torch.autograd.grad(value, list(params.values()), allow_unused=True)
            eta = lr * (1 - step / steps)
            with torch.no_grad():
                new = {}
                for (k, p), g in zip(params.items(), grads):
                    p = p.detach()
                    if g is not None:
                        gn = torch.linalg.vector_norm(g)
                        if gn > 0:
                            p = p + eta * scale[k] * g / gn
                    if k in balls:
                        _project(p, balls[k])
                    new[k] = p
                params = new
    return best


def rademacher_lower_estimate(value: Callable[[dict[str, Tensor], Tensor], Tensor], m: int,
                              start_fn: Callable[[torch.Generator], dict[str, Tensor]], balls: dict[str, float], *,
                              n_draws: int | None = 32, n_starts: int = 3, steps: int = 200, lr: float = 0.1,
                              generator: torch.Generator | None = None, dtype=torch.float64) -> RademacherEstimate:
    """E_ε sup_θ value(θ, ε) estimated from below (sgornn.md eq. 12 and 16).

    Args:
        value: (params, ε of shape (m,)) → 0-d tensor, e.g. (1/m) Σ ε_i f_θ(x_i).
        m: sample size ≥ 1.
        start_fn: generator → a params dict (one call per start).
        balls: name → radius of the Frobenius ball the parameter is confined to.
        n_draws: number of Rademacher vectors ε; ``None`` enumerates all 2^m (m ≤ 16), which makes
            the average the exact expectation over ε of the values found.
        n_starts, steps, lr: see :func:`maximize_over_balls`.
        generator: CPU generator for ε and the starts.

    Returns:
        :class:`RademacherEstimate`.

    Raises:
        ValueError: m < 1, n_draws < 2, enumeration with m > 16, n_starts < 1.
    """
    if isinstance(m, bool) or not isinstance(m, int) or m < 1:
        raise ValueError(f"m (sample size) must be an int >= 1, got {m!r}")
    if n_starts < 1:
        raise ValueError(f"n_starts must be >= 1, got {n_starts}")
    gen = generator if generator is not None else torch.Generator().manual_seed(0)
    if n_draws is None:
        if m > 16:
            raise ValueError(f"enumerating all 2^m sign vectors needs m <= 16, got m={m}")
        eps_all = torch.tensor(list(itertools.product((-1.0, 1.0), repeat=m)), dtype=dtype)
    else:
        if n_draws < 2:
            raise ValueError(f"n_draws must be >= 2 (for a standard error) or None, got {n_draws}")
        eps_all = (torch.randint(0, 2, (n_draws, m), generator=gen) * 2 - 1).to(dtype)
    values = torch.empty(eps_all.shape[0], dtype=torch.float64)
    for d, eps in enumerate(eps_all):
        starts = [start_fn(gen) for _ in range(n_starts)]
        values[d] = maximize_over_balls(lambda p: value(p, eps), starts, balls, steps=steps, lr=lr)
    n = values.numel()
    stderr = 0.0 if n_draws is None else float(values.std(unbiased=True) / math.sqrt(n))
    return RademacherEstimate(float(values.mean()), stderr, values, n, n_draws is None)


def _role_names(cell: RecurrentCell, roles) -> dict[str, str]:
    """role → module parameter name, through identity of the tensors."""
    by_id = {id(p): name for name, p in cell.named_parameters()}
    table = cell.parameters_by_role()
    out = {}
    for role in roles:
        if role not in table or id(table[role]) not in by_id:
            raise ValueError(f"role {role!r} is not a parameter of {type(cell).__name__} "
                             f"(roles: {sorted(table)})")
        out[role] = by_id[id(table[role])]
    return out


def cell_rademacher(cell: RecurrentCell, X: Tensor, *, R_W: float, R_v: float, R_x: float | None = None,
                    ball_role: str = "W", free_roles=("Theta",), n_draws: int | None = 32, n_starts: int = 3,
                    steps: int = 150, lr: float = 0.05, generator: torch.Generator | None = None) -> RademacherEstimate:
    """Lower estimate of R̂_m(v∘F_T) on the sample X (sgornn.md eq. 16–19) for the class of ``cell``:
    ‖ball_role‖_F ≤ R_W, ``free_roles`` unconstrained, every other parameter (α, β, bias) fixed at
    the cell's current value; the sup over ‖v‖ ≤ R_v is taken in closed form, R_v‖Σ ε_i h_T^(i)‖/m.

    For eq. 5's class use ``SGORNN(n, h, bias=False)`` (ReLU, no bias) with the fixed α, β of interest.
    Starts: the ball parameter uniform on the sphere of radius R_W, free parameters uniform in
    [−π, π) (VPRNN angles; any other free role: the cell's value plus N(0, 1)).

    Args:
        cell: the cell defining the class (its parameters are not modified).
        X: the sample, (m, T, n), the cell's dtype; h_0 = 0 (sgornn.md Sec. 2).
        R_W, R_v: radii > 0. R_x: if given, every ‖x_t‖₂ must be ≤ R_x (the class's input space).
        others: see :func:`rademacher_lower_estimate`.

    Raises:
        ValueError: bad X (via the cell), ‖x_t‖ > R_x, unknown roles, radii ≤ 0.
    """
    cell.initial_state(X, None)
    for name, r in (("R_W", R_W), ("R_v", R_v)) + ((("R_x", R_x),) if R_x is not None else ()):
        if not (isinstance(r, (int, float)) and math.isfinite(r) and r > 0):
            raise ValueError(f"{name} must be a finite number > 0, got {r!r}")
    if R_x is not None:
        largest = float(torch.linalg.vector_norm(X, dim=-1).max())
        if largest > R_x * (1 + 1e-12):
            raise ValueError(f"every input must satisfy ||x_t||_2 <= R_x = {R_x}, found {largest:.6g}")
    names = _role_names(cell, (ball_role, *free_roles))
    fixed = {n: p.detach() for n, p in cell.named_parameters()}
    m = X.shape[0]

    def value(params: dict[str, Tensor], eps: Tensor) -> Tensor:
        full = dict(fixed)
        full.update({names[r]: params[r] for r in params})
        h_T = functional_call(cell, full, (X,))[:, -1]            # (m, h)
        return R_v / m * torch.linalg.vector_norm(eps @ h_T)      # sup over ‖v‖ ≤ R_v, eq. 18–19

    shape = {r: fixed[names[r]].shape for r in names}

    def start(gen: torch.Generator) -> dict[str, Tensor]:
        kw = {"dtype": X.dtype}
        w = torch.randn(shape[ball_role], generator=gen, **kw)
        params = {ball_role: (R_W * w / torch.linalg.vector_norm(w)).to(X.device)}
        for r in free_roles:
            if r == "Theta":
                params[r] = ((torch.rand(shape[r], generator=gen, **kw) * 2 - 1) * math.pi).to(X.device)
            else:
                params[r] = fixed[names[r]] + torch.randn(shape[r], generator=gen, **kw).to(X.device)
        return params

    return rademacher_lower_estimate(value, m, start, {ball_role: R_W}, n_draws=n_draws, n_starts=n_starts,
                                     steps=steps, lr=lr, generator=generator, dtype=X.dtype)


def sgornn_rademacher_bound(alpha: float, T: int, R_W: float, R_x: float, R_v: float, m: int) -> float:
    """R̂_m(v∘F_T) ≤ 2αT R_W R_x R_v/√m: eq. 22 (R̂_m(F_T) ≤ 2αT R_W R_x/√m) times R_v from eq. 19;
    it is eq. 23's bound 2C αT/√m with C = R_v R_W R_x. Needs β ≤ 1 − 2α (eq. 3) and h_0 = 0.

    Raises:
        ValueError: non-positive arguments.
    """
    for name, v in (("alpha", alpha), ("T", T), ("R_W", R_W), ("R_x", R_x), ("R_v", R_v), ("m", m)):
        if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0):
            raise ValueError(f"{name} must be > 0, got {v!r}")
    return 2 * alpha * T * R_W * R_x * R_v / math.sqrt(m)


def capacity_records(cell_factory: Callable[[], RecurrentCell], Ts, ms, *, R_W: float = 1.0, R_x: float = 1.0,
                     R_v: float = 1.0, n_draws: int = 16, n_starts: int = 3, steps: int = 100, lr: float = 0.05,
                     seed: int = 0) -> list[dict]:
    """The lower estimate of R̂_m(v∘F_T) beside the bound 2αT R_W R_x R_v/√m, for every T in ``Ts``
    and m in ``ms`` (sgornn.md Theorem 1, eq. 22–23).

    The sample: m sequences of length T with x_t uniform on the sphere ‖x_t‖₂ = R_x (the largest
    inputs the class admits). α is read from the cell (``cell.alpha``); β must satisfy eq. 3.

    Args:
        cell_factory: () → a fresh cell (e.g. ``lambda: SGORNN(2, 16, bias=False, dtype=torch.float64)``).
        Ts, ms: iterables of positive ints.
        others: see :func:`cell_rademacher`.

    Returns:
        One dict per (T, m): ``T``, ``m``, ``alpha``, ``beta``, ``estimate``, ``stderr``, ``bound``,
        ``ratio`` (estimate/bound), ``kind`` (:data:`KIND`), ``R_W``, ``R_x``, ``R_v``, ``n_draws``.

    Raises:
        ValueError: empty Ts or ms, a cell without scalar α, or see :func:`cell_rademacher`.
    """
    Ts, ms = list(Ts), list(ms)
    if not Ts or not ms:
        raise ValueError("Ts and ms must be non-empty")
    records = []
    for T in Ts:
        for m in ms:
            gen = torch.Generator().manual_seed(seed)
            cell = cell_factory()
            if not hasattr(cell, "alpha"):
                raise ValueError(f"{type(cell).__name__} has no scalar gate alpha; the bound 2αT R_W R_x R_v/√m "
                                 "is for SGORNN's class (eq. 5)")
            dtype = next(cell.parameters()).dtype
            x = torch.randn(m, T, cell.input_size, generator=gen, dtype=dtype)
            x = R_x * x / torch.linalg.vector_norm(x, dim=-1, keepdim=True)
            est = cell_rademacher(cell, x, R_W=R_W, R_v=R_v, R_x=R_x, n_draws=n_draws, n_starts=n_starts,
                                  steps=steps, lr=lr, generator=gen)
            with torch.no_grad():
                alpha = float(cell.alpha)
                beta = float(cell.beta) if hasattr(cell, "beta") else float("nan")
            bound = sgornn_rademacher_bound(alpha, T, R_W, R_x, R_v, m)
            records.append({"T": T, "m": m, "alpha": alpha, "beta": beta, "estimate": est.estimate,
                            "stderr": est.stderr, "bound": bound, "ratio": est.estimate / bound, "kind": est.kind,
                            "R_W": R_W, "R_x": R_x, "R_v": R_v, "n_draws": est.n_draws})
    return records
