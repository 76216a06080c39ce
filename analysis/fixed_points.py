"""Fixed points and slow points of a recurrent cell's autonomous map, and the linear dynamics around each.

Source: D. Sussillo & O. Barak, "Opening the black box: low-dimensional dynamics in high-dimensional recurrent
neural networks", Neural Computation 25(3):626–649 (2013), doi:10.1162/NECO_a_00409. For a system with a
constant input x*, their auxiliary function q = ½‖F(h)‖² (continuous time; for a discrete-time map, as here,
F(h) − h takes the place of F(h)) is zero exactly at the fixed points, and its local minima with a small but
non-zero value are the *slow points*, where the linearisation is still a good description of the motion. They
find both by minimising q from many starts taken on the network's own trajectories, and read each point
through the eigenvalues of the Jacobian there (stable and unstable directions, time constants).

Here, for the step map h_t = F(x_t, h_{t−1}) of any cell :func:`rnnaudit.cells.wrap` accepts (the packed state:
an LSTM's (h, c), every layer of a stack), with x_t ≡ x*:

1. **Starts**: ``n_starts`` states the data visit (the trajectories of the given sequences, h_0 included),
   drawn with a seeded generator, plus Gaussian noise of ``noise`` times the per-unit standard deviation of
   those states (so that starts on one trajectory do not all fall into one basin by construction).
2. **Minimisation** of Σ_i q(h_i) over all starts at once with ``torch.optim.LBFGS`` (strong-Wolfe line
   search) in float64; the rows of a step are independent, so the sum's gradient is each start's own.
3. **Newton refinement** of every point, h ← h − α (J − I)⁻¹ (F(h) − h) with J = ∂F/∂h formed by forward mode
   (:func:`rnnaudit.analysis.jacobian._jacobians_at`) and α halved until q decreases: quadratic convergence to
   a non-degenerate fixed point, so a fixed point's residual reaches rounding level, where LBFGS alone stops
   orders of magnitude above it. At a slow point J − I is (nearly) singular and no step decreases q: it stays.
4. **Classification** (tolerances below): *fixed* where ‖F(h) − h‖₂ ≤ the rounding level of the residual,
   *slow* where it is above that but at most :data:`SLOW_FRACTION` of the data's own speed, discarded
   otherwise. **Deduplication**: two points are one when their distance is within the sum of their location
   uncertainties.
5. **Linearisation**: the eigenvalues λ of J at each point (``torch.linalg.eigvals``), its stability for a
   discrete map (|λ| < 1 every direction: stable; some |λ| > 1: unstable, that many unstable directions) and
   the time constants τ = −1/log|λ| in steps.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor

from rnnaudit.analysis.grid_maps import default_memory_limit
from rnnaudit.analysis.jacobian import _jacobians_at, _sequences
from rnnaudit.cells.adapters import wrap
from rnnaudit.cells.base import RecurrentCell
from rnnaudit.cells.linalg import eigvals

__all__ = ["FixedPoints", "find_fixed_points", "constant_input", "RESIDUAL_FACTOR", "EIGENVALUE_FACTOR",
           "SLOW_FRACTION", "START_NOISE"]

#: The fixed-point tolerance on the residual r = F(h) − h, per point:
#: ‖r‖₂ ≤ RESIDUAL_FACTOR·(S + n + 1)·u·(‖h‖₂ + ‖J‖_F‖h‖₂ + ‖F(h)‖₂ + ‖x*‖₂ + 1), u the unit roundoff.
#: Why: one step forms pre-activations as inner products of length S + n (+ a bias); each carries an error of at
#: most γ_{S+n+1} ≈ (S + n + 1)·u times the size of its terms (Higham 2002, Sec. 3.1), which the activation then
#: scales by its slope (the factor J = ∂F/∂h carries: ‖J‖_F‖h‖ bounds the recurrent terms as they reach the
#: output; the input and bias terms stand at the scale ‖x*‖ + 1), and the subtraction F(h) − h adds
#: u·(‖F(h)‖ + ‖h‖). The factor 4 covers the constants of these first-order bounds. A residual below it is
#: rounding noise: no computation in float64 can tell such a point from an exact fixed point.
RESIDUAL_FACTOR = 4.0
#: Eigenvalues within EIGENVALUE_FACTOR·S·u·‖J‖_F of the unit circle count as marginal (neither stable nor
#: unstable): the QR algorithm's computed eigenvalues are exact for J + E with ‖E‖₂ of order S·u·‖J‖
#: (Golub & Van Loan, Matrix Computations, 4th ed., Sec. 7.5.6), and for a normal J an eigenvalue moves by at
#: most ‖E‖₂ (Bauer–Fike). A strongly non-normal J can move its eigenvalues further: its verdict near the circle
#: is then less certain than this band says.
EIGENVALUE_FACTOR = 8.0
#: A slow point moves at most this fraction of the median speed ‖F(x*, h) − h‖₂ of the data's own states under
#: the same input (rnnaudit's choice: a hundred times slower than where the data go, so that the linearisation
#: there describes the motion over many steps; Sussillo & Barak leave the threshold to the user).
SLOW_FRACTION = 1e-2
#: Noise added to each start, as a fraction of the per-unit standard deviation of the visited states.
START_NOISE = 1e-2

#: S × S float64 arrays held per point at the peak (J, J − I, the eigensolver's and the SVD's working copies)
JACOBIAN_COPIES = 4

_STATUS = ("stable", "unstable", "marginal")


@dataclass(frozen=True)
class FixedPoints:
    """Result of :func:`find_fixed_points`: K distinct points, fixed points first, each group by speed.

    Attributes:
        points: (K, S) float64, the states h with F(x*, h) ≈ h (S: the packed state width).
        speed: (K,) float64, ‖F(x*, h) − h‖₂ (so q = ½ speed²).
        q: (K,) float64, q(h) = ½‖F(x*, h) − h‖₂² (Sussillo & Barak's auxiliary function).
        is_fixed: (K,) bool, speed ≤ ``residual_tol`` (a fixed point to rounding); False: a slow point.
        residual_tol: (K,) float64, each point's rounding level of the residual (:data:`RESIDUAL_FACTOR`).
        eigenvalues: (K, S) complex128, the eigenvalues of J = ∂F/∂h at each point, by |λ| descending.
        eigenvalue_tol: (K,) float64, the band around |λ| = 1 counted as marginal (:data:`EIGENVALUE_FACTOR`).
        n_unstable: (K,) int64, how many eigenvalues have |λ| > 1 + ``eigenvalue_tol`` (unstable directions).
        stability: K strings: "stable" (every |λ| < 1 − tol), "unstable" (some |λ| > 1 + tol) or "marginal".
        time_constants: (K, S) float64, τ = −1/log|λ| in steps, in the order of ``eigenvalues``: τ > 0 is the
            steps over which that mode decays by a factor e, τ < 0 (|λ| > 1) its growth by e in |τ| steps,
            ±inf at |λ| = 1, 0 at λ = 0.
        hits: (K,) int64, how many starts converged onto each point.
        input: (n,) float64, the constant input x*.
        slow_tol: the speed above which a point is discarded (:data:`SLOW_FRACTION` of the data's median speed,
            at least the largest ``residual_tol``).
        data_speed: the median speed ‖F(x*, h) − h‖₂ over the starts before noise (the data's own states).
        n_starts: starts minimised. discarded: starts that ended faster than ``slow_tol``.
    """

    points: Tensor
    speed: Tensor
    q: Tensor
    is_fixed: Tensor
    residual_tol: Tensor
    eigenvalues: Tensor
    eigenvalue_tol: Tensor
    n_unstable: Tensor
    stability: list[str]
    time_constants: Tensor
    hits: Tensor
    input: Tensor
    slow_tol: float
    data_speed: float
    n_starts: int
    discarded: int

    def __len__(self) -> int:
        return self.points.shape[0]

    @property
    def kinds(self) -> list[str]:
        """Each point's kind, "fixed" or "slow" (from ``is_fixed``)."""
        return ["fixed" if bool(f) else "slow" for f in self.is_fixed]

    def to_json(self, max_points: int = 8, max_modes: int = 3) -> dict:
        """Counts and the leading modes, JSON-ready (the audit's "Fixed points" section).

        Args:
            max_points: points listed (fixed points first, slowest first). max_modes: eigenvalues per point.

        Returns:
            {"input_norm", "n_starts", "discarded", "fixed", "slow", "stable", "unstable", "marginal" (counts over
            the fixed points), "data_speed", "slow_tol", "slowest_stable_mode" (the largest |λ| < 1 over the stable
            fixed points and its τ, or None), "most_unstable_mode" (the largest |λ| over the unstable points and
            its growth time −τ, or None), "points": [per point: kind, speed, stability, unstable_directions, hits,
            modes: [|λ|, arg λ (radians), τ]]}.
        """
        def num(v: float):
            return float(v) if math.isfinite(v) else ("inf" if v > 0 else "-inf")

        fixed = [i for i in range(len(self)) if bool(self.is_fixed[i])]
        count = {s: sum(self.stability[i] == s for i in fixed) for s in _STATUS}
        slowest, unstable = None, None
        for i in fixed:
            mod = self.eigenvalues[i].abs()
            if self.stability[i] == "stable" and mod.numel():
                m = float(mod.max())
                if slowest is None or m > slowest["modulus"]:
                    slowest = {"modulus": m, "tau": num(-1 / math.log(m)) if m > 0 else 0.0, "point": i}
            if self.stability[i] == "unstable":
                m = float(mod.max())
                if unstable is None or m > unstable["modulus"]:
                    unstable = {"modulus": m, "growth_steps": num(1 / math.log(m)), "point": i,
                                "unstable_directions": int(self.n_unstable[i])}
        points = []
        for i in range(min(len(self), max_points)):
            lam = self.eigenvalues[i, :max_modes]
            points.append({"kind": self.kinds[i], "speed": float(self.speed[i]), "stability": self.stability[i],
                           "unstable_directions": int(self.n_unstable[i]), "hits": int(self.hits[i]),
                           "modes": [[float(v.abs()), float(v.angle()), num(float(t))]
                                     for v, t in zip(lam, self.time_constants[i, :max_modes])]})
        return {"input_norm": float(self.input.norm()), "n_starts": self.n_starts, "discarded": self.discarded,
                "fixed": len(fixed), "slow": len(self) - len(fixed), **count, "data_speed": self.data_speed,
                "slow_tol": self.slow_tol, "slowest_stable_mode": slowest, "most_unstable_mode": unstable,
                "points": points}


def constant_input(x: Tensor, input, n: int) -> Tensor:
    """The constant input x* (n,) float64 that ``input`` names.

    Args:
        x: the sequences (batch, T, n), for ``"mean"``. input: ``"zero"``, ``"mean"`` (over sequences and time)
            or a tensor of n numbers. n: the input width.

    Raises:
        ValueError: another string, a tensor of the wrong size, or not finite.
    """
    if isinstance(input, str):
        if input == "zero":
            return torch.zeros(n, dtype=torch.float64, device=x.device)
        if input == "mean":
            return x.reshape(-1, x.shape[-1]).mean(0).to(torch.float64)
        raise ValueError(f"input must be 'zero', 'mean' or a tensor of {n} numbers, got {input!r}")
    if not isinstance(input, Tensor) or input.numel() != n or not input.is_floating_point():
        what = f"{input.dtype} of shape {tuple(input.shape)}" if isinstance(input, Tensor) else type(input).__name__
        raise ValueError(f"input must be 'zero', 'mean' or a real tensor of {n} numbers, got {what}")
    if not torch.isfinite(input).all():
        raise ValueError("input must be finite (found NaN or Inf)")
    return input.detach().reshape(n).to(dtype=torch.float64, device=x.device)


def _int_option(name: str, value, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ValueError(f"{name} must be an int >= {low}, got {value!r}")
    return value


def _residual(cell: RecurrentCell, xs: Tensor, h: Tensor) -> Tensor:
    return cell.step(xs[:h.shape[0]], h) - h


def _minimise(cell: RecurrentCell, xs: Tensor, H0: Tensor, max_iter: int) -> Tensor:
    """LBFGS on Σ_i q(h_i) from the starts H0 (K, S); returns the end points (K, S)."""
    H = H0.clone().requires_grad_(True)
    u = torch.finfo(torch.float64).eps / 2
    # stop where the largest gradient entry (J − I)ᵀr is below u, or q changes by less than u², both below what a
    # residual at rounding level gives: LBFGS only has to reach Newton's basin, and iterating on at rounding level
    # runs into subnormal numbers, which cost orders of magnitude more per operation
    opt = torch.optim.LBFGS([H], lr=1.0, max_iter=max_iter, history_size=20, line_search_fn="strong_wolfe",
                            tolerance_grad=u, tolerance_change=u * u)

    def closure():
        r = _residual(cell, xs, H)
        loss = 0.5 * r.square().sum()
        # the gradient in H alone: backward() would also accumulate the (unused) gradients of the cell's weights
        (H.grad,) = torch.autograd.grad(loss, H)
        return loss

    with torch.enable_grad():
        opt.step(closure)
    return H.detach()


def _scales(cell, xs, H, J, xstar):
    """The per-point rounding level of the residual (:data:`RESIDUAL_FACTOR`)."""
    S, n = H.shape[1], xs.shape[1]
    u = torch.finfo(torch.float64).eps / 2
    with torch.no_grad():
        F = cell.step(xs[:H.shape[0]], H)
    hn = H.norm(dim=1)
    size = hn + torch.linalg.matrix_norm(J) * hn + F.norm(dim=1) + float(xstar.norm()) + 1
    return RESIDUAL_FACTOR * (S + n + 1) * u * size


def _newton(cell: RecurrentCell, xs: Tensor, H: Tensor, steps: int, xstar: Tensor) -> tuple[Tensor, dict]:
    """Damped Newton on F(h) − h = 0, each row on its own: a step is taken only where it lowers q; a row stops
    when its residual is at rounding level (:func:`_scales`) or no step along the Newton direction lowers q.
    Returns the end points (K, S) and {row: ∂F/∂h (S, S) at its end point} for the rows that stopped (they did not
    move after their last Jacobian)."""
    H = H.clone()
    at_end: dict[int, Tensor] = {}
    eye = torch.eye(H.shape[1], dtype=H.dtype, device=H.device)
    active = torch.ones(H.shape[0], dtype=torch.bool, device=H.device)
    for _ in range(steps):
        if not bool(active.any()):
            break
        idx = active.nonzero().squeeze(1)
        h = H[idx]
        with torch.no_grad():
            r = _residual(cell, xs, h)
        with torch.enable_grad():
            J, _ = _jacobians_at(cell, xs[:idx.numel()], h, inputs=False)
        q = 0.5 * r.square().sum(1)
        done = r.norm(dim=1) <= _scales(cell, xs, h, J, xstar)
        d, info = torch.linalg.solve_ex(J - eye, -r)
        ok = (info == 0) & torch.isfinite(d).all(1) & ~done
        accepted = torch.zeros_like(ok)
        alpha = torch.ones_like(q)
        with torch.no_grad():
            for _ in range(12):  # halve until q decreases, down to 2^-11 of the Newton step
                trial = h + alpha[:, None] * torch.where(ok[:, None], d, torch.zeros_like(d))
                q_new = 0.5 * _residual(cell, xs, trial).square().sum(1)
                better = ok & ~accepted & torch.isfinite(q_new) & (q_new < q)
                h = torch.where(better[:, None], trial, h)
                accepted |= better
                alpha = torch.where(accepted, alpha, alpha / 2)
                if bool((accepted | ~ok).all()):
                    break
        H[idx] = h
        stopped = ~accepted
        active[idx[stopped]] = False
        for k in stopped.nonzero().squeeze(1).tolist():  # h[k] is where J[k] was formed
            at_end[int(idx[k])] = J[k]
    return H, at_end


def _unique(H: Tensor, speed: Tensor, tol: Tensor, smin) -> tuple[list[int], list[int]]:
    """Greedy clustering, slowest first: a point joins the first kept point within the sum of the two radii
    ‖r‖/max(σ_min(J − I), √u) + tol. Returns the kept indices and, per kept point, how many points joined it (itself
    included).

    ``smin(i)`` gives point i's σ_min(J − I) (an SVD): asked only where the two radii's bounds tol ≤ radius ≤
    ‖r‖/√u + tol leave the comparison open, so points within tol of each other (the usual case: every start in one
    basin) cost no SVD, and each decision is the one the radii themselves give."""
    floor = math.sqrt(torch.finfo(torch.float64).eps / 2)
    known: dict[int, float] = {}

    def radius(i: int) -> float:
        if i not in known:
            known[i] = float(speed[i] / max(float(smin(i)), floor) + tol[i])
        return known[i]

    order = torch.argsort(speed, stable=True).tolist()
    kept, hits = [], []
    for i in order:
        for k, j in enumerate(kept):
            dist = float((H[i] - H[j]).norm())
            if dist <= float(tol[i]) + float(tol[j]):
                near = True
            elif dist > float(speed[i] / floor + tol[i]) + float(speed[j] / floor + tol[j]):
                near = False
            else:
                near = dist <= radius(i) + radius(j)
            if near:
                hits[k] += 1
                break
        else:
            kept.append(i)
            hits.append(1)
    return kept, hits


def find_fixed_points(cell, x: Tensor, input="zero", *, n_starts: int = 64, seed: int = 0,
                      noise: float = START_NOISE, max_iter: int = 200, newton_steps: int = 30,
                      slow_fraction: float = SLOW_FRACTION, h0: Tensor | None = None) -> FixedPoints:
    """Fixed points and slow points of h ↦ F(x*, h) found from the data's own states (module docstring;
    Sussillo & Barak 2013).

    Args:
        cell: a :class:`~rnnaudit.cells.base.RecurrentCell` or anything :func:`rnnaudit.cells.wrap` accepts, in
            float64 (the state is the packed state: (h, c) for an LSTM, every layer of a stack).
        x: sequences whose visited states are the starts, (T, n) or (batch, T, n), the cell's dtype.
        input: the constant input x*: ``"zero"``, ``"mean"`` (of x over sequences and time) or a tensor (n,).
        n_starts: how many starts (≥ 1), drawn from the visited states h_0 … h_T of every sequence (with
            replacement when there are fewer).
        seed: of the draw and the noise. noise: start noise as a fraction of the per-unit std of the states (≥ 0).
        max_iter: LBFGS iterations (≥ 1). newton_steps: Newton refinement steps (≥ 0).
        slow_fraction: a slow point's speed is at most this fraction of the data's median speed (> 0).
        h0: the initial state (S,) of every sequence; zeros by default.

    Returns:
        :class:`FixedPoints` (float64 / complex128 on x's device), possibly empty (K = 0).

    Raises:
        ValueError: x of the wrong shape or dtype (as :func:`rnnaudit.analysis.step_jacobians`), a bad ``input``,
            a bad option, a trajectory that is not finite, or Jacobians at ``n_starts`` points whose memory
            (:data:`JACOBIAN_COPIES`·n_starts·S²·8 bytes) is above :func:`rnnaudit.analysis.default_memory_limit`.
    """
    cell = wrap(cell)
    x = _sequences(cell, x, single=False)
    n_starts = _int_option("n_starts", n_starts, 1)
    max_iter = _int_option("max_iter", max_iter, 1)
    newton_steps = _int_option("newton_steps", newton_steps, 0)
    seed = _int_option("seed", seed, 0)
    for name, value, strict in (("noise", noise, False), ("slow_fraction", slow_fraction, True)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or \
                value < 0 or (strict and value == 0):
            raise ValueError(f"{name} must be a finite number {'>' if strict else '>='} 0, got {value!r}")
    B, T, n = x.shape
    S = cell.hidden_size
    # the n_starts Jacobians (S × S, float64) are held at once, with J − I and the eigensolver's copies beside them
    need = JACOBIAN_COPIES * n_starts * S * S * 8
    if need > default_memory_limit(x.device):
        raise ValueError(f"n_starts = {n_starts}: the Jacobians at {n_starts} points of a state of width S = {S} need "
                         f"about {need / 2 ** 30:.3g} GiB, above the memory limit of "
                         f"{default_memory_limit(x.device) / 2 ** 30:.3g} GiB; use fewer starts")
    xstar = constant_input(x, input, n).to(x.dtype)
    start = cell.initial_state(x, None if h0 is None else h0[None].expand(B, -1))
    with torch.no_grad():
        visited = torch.cat([start[:, None], cell(x, start)], dim=1).reshape(-1, S)
    if not bool(torch.isfinite(visited).all()):
        raise ValueError("x: the trajectory is not finite (the state overflowed); the starts must be finite states")
    gen = torch.Generator().manual_seed(seed)
    pick = (torch.randperm(visited.shape[0], generator=gen)[:n_starts] if visited.shape[0] >= n_starts
            else torch.randint(visited.shape[0], (n_starts,), generator=gen))
    H0 = visited[pick.to(visited.device)]
    xs = xstar.expand(n_starts, n).contiguous()
    with torch.no_grad():
        data_speed = float(_residual(cell, xs, H0).norm(dim=1).median())
    spread = visited.std(0) if visited.shape[0] > 1 else torch.zeros(S, dtype=x.dtype, device=x.device)
    H0 = H0 + noise * spread * torch.randn(n_starts, S, generator=gen, dtype=x.dtype).to(x.device)

    H, at_end = _newton(cell, xs, _minimise(cell, xs, H0, max_iter), newton_steps, xstar)
    with torch.no_grad():
        speed = _residual(cell, xs, H).norm(dim=1)
    missing = [i for i in range(n_starts) if i not in at_end]  # rows Newton moved after its last Jacobian
    J = H.new_empty(n_starts, S, S)
    if missing:
        with torch.enable_grad():
            J[missing] = _jacobians_at(cell, xs[:len(missing)], H[missing], inputs=False)[0]
    for i, Ji in at_end.items():
        J[i] = Ji
    tol = _scales(cell, xs, H, J, xstar)
    slow_tol = max(slow_fraction * data_speed, float(tol.max()))
    keep = torch.isfinite(speed) & (speed <= slow_tol)
    discarded = int((~keep).sum())
    idx = keep.nonzero().squeeze(1)
    H, speed, J, tol = H[idx], speed[idx], J[idx], tol[idx]
    eye = torch.eye(S, dtype=x.dtype, device=x.device)
    u = torch.finfo(torch.float64).eps / 2
    # location uncertainty: ‖h − h*‖ ≲ ‖r‖/σ_min(J − I) to first order (exact for an affine map), with σ_min
    # floored at √u, below which the point is numerically degenerate and its location no better known
    kept, hits = _unique(H, speed, tol, lambda i: torch.linalg.svdvals(J[i] - eye)[-1])
    fixed = speed[kept] <= tol[kept]
    order = sorted(range(len(kept)), key=lambda k: (not bool(fixed[k]), float(speed[kept[k]])))
    sel = torch.tensor([kept[k] for k in order], dtype=torch.long, device=x.device)
    H, speed, J, tol = H[sel], speed[sel], J[sel], tol[sel]
    hits_t = torch.tensor([hits[k] for k in order], dtype=torch.int64)
    lam = eigvals(J.to(torch.float64)) if sel.numel() else torch.zeros(0, S, dtype=torch.complex128)
    mod = lam.abs()
    lam = torch.gather(lam, 1, torch.argsort(mod, dim=1, descending=True, stable=True))
    mod = lam.abs()
    eig_tol = EIGENVALUE_FACTOR * S * u * torch.linalg.matrix_norm(J.to(torch.float64)) if sel.numel() else speed
    n_unstable = (mod > 1 + eig_tol[:, None]).sum(1).to(torch.int64)
    stable = (mod < 1 - eig_tol[:, None]).all(1)
    stability = ["unstable" if int(k) > 0 else "stable" if bool(s) else "marginal" for k, s in zip(n_unstable, stable)]
    with torch.no_grad():
        logs = mod.log()
        tau = torch.where(logs == 0, torch.full_like(logs, math.inf), -1 / logs)  # |λ| = 1: +inf, not −1/0
    return FixedPoints(points=H.to(torch.float64), speed=speed.to(torch.float64),
                       q=0.5 * speed.to(torch.float64).square(), is_fixed=(speed <= tol), residual_tol=tol,
                       eigenvalues=lam, eigenvalue_tol=eig_tol, n_unstable=n_unstable, stability=stability,
                       time_constants=tau, hits=hits_t, input=xstar.to(torch.float64), slow_tol=slow_tol,
                       data_speed=data_speed, n_starts=n_starts, discarded=discarded)
