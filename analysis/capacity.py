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

:func:`rank_one_rademacher` is a second lower estimate, exact in ε: it enumerates all 2^m sign vectors
and, for each, takes the best member of a sub-class that a grid search covers densely (rank-one
W = R_W u wᵀ with u = 1/√h and Θ = 0, where U = φ(0) fixes u). At T = 1 that sub-class attains the
class's supremum (see the function), and it reaches half of the paper's bound at m = 1, which no
random start of the ascent above does reliably.
"""

from __future__ import annotations

import copy
import itertools
import math
from dataclasses import dataclass
from typing import Callable

import torch
from torch import Tensor
from torch.func import functional_call

from rnnaudit.cells.base import RecurrentCell

__all__ = ["RademacherEstimate", "maximize_over_balls", "rademacher_lower_estimate", "cell_rademacher",
           "sgornn_rademacher_bound", "capacity_records", "sign_vectors", "rank_one_directions", "rank_one_values",
           "rank_one_rademacher", "RANK_ONE_KIND", "MAX_ENUMERATED"]

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


#: What :func:`rank_one_rademacher` returns.
RANK_ONE_KIND = ("lower estimate of the supremum over the rank-one sub-class W = R_W u wᵀ, Θ = 0 (grid over w), "
                 "exact expectation over ε when every sign vector is enumerated")

#: Largest sample size whose 2^m sign vectors :func:`sign_vectors` enumerates (4096 vectors).
MAX_ENUMERATED = 12


def sign_vectors(m: int, *, n_draws: int = 256, generator: torch.Generator | None = None,
                 dtype=torch.float64) -> tuple[Tensor, bool]:
    """Rademacher vectors ε ∈ {−1, 1}^m: all 2^m of them when m ≤ :data:`MAX_ENUMERATED` (then an
    average over them is the exact expectation E_ε), else ``n_draws`` uniform draws.

    Returns:
        (ε of shape (E, m), exhaustive).

    Raises:
        ValueError: m < 1, n_draws < 2.
    """
    if isinstance(m, bool) or not isinstance(m, int) or m < 1:
        raise ValueError(f"m (sample size) must be an int >= 1, got {m!r}")
    if m <= MAX_ENUMERATED:
        return torch.tensor(list(itertools.product((-1.0, 1.0), repeat=m)), dtype=dtype), True
    if n_draws < 2:
        raise ValueError(f"n_draws must be >= 2, got {n_draws}")
    gen = generator if generator is not None else torch.Generator().manual_seed(0)
    return (torch.randint(0, 2, (n_draws, m), generator=gen) * 2 - 1).to(dtype), False


def rank_one_directions(X: Tensor, *, n_directions: int = 256, generator: torch.Generator | None = None) -> Tensor:
    """Unit directions w for the rank-one sub-class: for n = 2 an equispaced grid of ``n_directions``
    angles on the circle; for n > 2 the directions of the inputs x_t^(i) (both signs) and
    ``n_directions`` uniform random unit vectors. Shape (K, n), dtype of X, detached.

    Raises:
        ValueError: X not (m, T, n), n_directions < 1.
    """
    if X.dim() != 3:
        raise ValueError(f"X must be (m, T, n), got shape {tuple(X.shape)}")
    if n_directions < 1:
        raise ValueError(f"n_directions must be >= 1, got {n_directions}")
    n = X.shape[-1]
    if n == 1:
        return X.new_tensor([[1.0], [-1.0]])
    if n == 2:
        angle = torch.arange(n_directions, dtype=X.dtype, device=X.device) * (2 * math.pi / n_directions)
        return torch.stack((angle.cos(), angle.sin()), dim=-1)
    gen = generator if generator is not None else torch.Generator().manual_seed(0)
    x = X.detach().reshape(-1, n)
    x = x[torch.linalg.vector_norm(x, dim=-1) > 0]
    rand = torch.randn(n_directions, n, generator=gen, dtype=X.dtype).to(X.device)
    w = torch.cat((x, -x, rand))
    return w / torch.linalg.vector_norm(w, dim=-1, keepdim=True)


def rank_one_values(cell: RecurrentCell, X: Tensor, eps: Tensor, directions: Tensor, *, R_W: float,
                    R_v: float) -> Tensor:
    """For each sign vector ε, max over the directions w of (R_v/m)‖Σ_i ε_i h_T^(i)‖₂ for the member of
    the class with W = R_W u wᵀ (u = 1/√h, ‖W‖_F = R_W) and Θ = 0, every other parameter (α, β, b) the
    cell's own (sgornn.md eq. 16–19; the sup over ‖v‖ ≤ R_v in closed form).

    Each value is that of one member of the class, so it is at most the supremum in eq. 16: a lower
    estimate. The states are those of the cell's own forward pass (any σ, any φ), run once on inputs
    x̃_t^(k,i) = (w_kᵀx_t^(i)) e_1 with W = R_W u e_1ᵀ, which gives W x̃ = R_W u w_kᵀx_t, the same
    pre-activations as W = R_W u w_kᵀ on x. Differentiable in X (the adversarial search moves the sample).

    Args:
        cell: a cell with roles "W" (h, n) and "Theta" whose Θ = 0 gives a U that fixes u = 1/√h
            (VPRNN: U = Q_1⋯Q_k, a permutation; expm and Cayley: U = I). Not modified.
        X: sample (m, T, n). eps: (E, m). directions: (K, n) unit vectors.
        R_W, R_v: radii > 0.

    Returns:
        (E,) tensor of values.

    Raises:
        ValueError: missing roles, a φ(0) that does not fix u, bad shapes or radii.
    """
    for name, r in (("R_W", R_W), ("R_v", R_v)):
        if not (isinstance(r, (int, float)) and math.isfinite(r) and r > 0):
            raise ValueError(f"{name} must be a finite number > 0, got {r!r}")
    if X.dim() != 3 or eps.dim() != 2 or eps.shape[1] != X.shape[0] or directions.dim() != 2 \
            or directions.shape[1] != X.shape[2]:
        raise ValueError(f"X must be (m, T, n), eps (E, m) and directions (K, n); got {tuple(X.shape)}, "
                         f"{tuple(eps.shape)}, {tuple(directions.shape)}")
    roles = cell.parameters_by_role()
    if "W" not in roles or "Theta" not in roles:
        raise ValueError(f"{type(cell).__name__} has no roles W and Theta (roles: {sorted(roles)})")
    work = copy.deepcopy(cell)
    work.requires_grad_(False)
    h = work.hidden_size
    roles = work.parameters_by_role()
    u = X.new_full((h,), 1 / math.sqrt(h))
    with torch.no_grad():
        roles["Theta"].zero_()
        e1 = torch.zeros_like(roles["W"])
        e1[:, 0] = R_W * u
        roles["W"].copy_(e1)
        drift = float(torch.linalg.vector_norm(work.recurrent_matrix() @ u - u))
    if drift > 1e-12:
        raise ValueError(f"U = φ(0) of {type(cell).__name__} does not fix u = 1/√h (‖Uu − u‖ = {drift:.3g})")
    m, T, n = X.shape
    K = directions.shape[0]
    proj = torch.einsum("mtn,kn->kmt", X, directions.to(X))            # w_kᵀ x_t^(i)
    x_tilde = torch.cat((proj.reshape(K * m, T, 1), X.new_zeros(K * m, T, n - 1)), dim=-1)
    h_T = work(x_tilde)[:, -1].reshape(K, m, h)
    gram = h_T @ h_T.mT                                                 # (K, m, m)
    best = []
    for chunk in eps.to(X).split(1024):
        q = torch.einsum("em,kmn,en->ek", chunk, gram, chunk)           # ‖Σ ε_i h_T^(k,i)‖²
        best.append(q.amax(dim=1))
    return R_v / m * torch.cat(best).clamp_min(0).sqrt()


def rank_one_rademacher(cell: RecurrentCell, X: Tensor, *, R_W: float, R_v: float, R_x: float | None = None,
                        n_directions: int = 256, n_draws: int = 256,
                        generator: torch.Generator | None = None) -> RademacherEstimate:
    """Lower estimate of R̂_m(v∘F_T) on the sample X (sgornn.md eq. 16–19) from the rank-one sub-class of
    :func:`rank_one_values`, averaged over every sign vector when m ≤ :data:`MAX_ENUMERATED` (the exact
    expectation of the values found: stderr 0), else over ``n_draws`` sampled ones.

    Why this sub-class: at T = 1 it attains the supremum of the whole class up to the grid over w, since
    ‖Σ_i ε_i σ(W x_i)‖² = Σ_k ‖w_k‖² g(w_k/‖w_k‖)² with g(w) = Σ_i ε_i σ(wᵀx_i) for the rows w_k of W
    (σ = ReLU is positively homogeneous), which is largest with all of ‖W‖_F on one row, and any
    row direction u ≥ 0 of the rank-one W gives the same value. At m = 1, on a constant input x_t = R_x w
    with w on the grid, it attains sup ‖h_T‖ = α R_W R_x Σ_{s<T} (α + β)^s, the largest that the recurrence
    ‖h_t‖ ≤ α R_W R_x + (α + β)‖h_{t−1}‖ allows.

    Args:
        cell, X, R_W, R_v: see :func:`rank_one_values`. R_x: if given, every ‖x_t‖₂ must be ≤ R_x.
        n_directions: see :func:`rank_one_directions`. n_draws, generator: for m > :data:`MAX_ENUMERATED`.

    Returns:
        :class:`RademacherEstimate` with kind :data:`RANK_ONE_KIND`.

    Raises:
        ValueError: see :func:`rank_one_values`; ‖x_t‖ > R_x.
    """
    if R_x is not None:
        largest = float(torch.linalg.vector_norm(X, dim=-1).max())
        if largest > R_x * (1 + 1e-12):
            raise ValueError(f"every input must satisfy ||x_t||_2 <= R_x = {R_x}, found {largest:.6g}")
    eps, exhaustive = sign_vectors(X.shape[0], n_draws=n_draws, generator=generator, dtype=X.dtype)
    with torch.no_grad():
        values = rank_one_values(cell, X, eps, rank_one_directions(X, n_directions=n_directions,
                                                                   generator=generator), R_W=R_W, R_v=R_v)
    values = values.detach().cpu().to(torch.float64)
    stderr = 0.0 if exhaustive else float(values.std(unbiased=True) / math.sqrt(values.numel()))
    return RademacherEstimate(float(values.mean()), stderr, values, values.numel(), exhaustive, RANK_ONE_KIND)


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
