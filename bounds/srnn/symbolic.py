"""Small SRNN and vanilla-RNN sequences in exact (sympy) arithmetic, for the ``exact=`` verdicts of
srnn.md's gradient formulas (eq. 2, 7–11) and of the hidden-state Jacobian.

The truth is sympy's own chain rule through the recurrence with a *generic* activation σ (an
undefined ``sympy.Function``), so a formula proved equal to it holds for every differentiable σ and
every network b; the printed formulas are then polynomials in the symbols below, and a counterexample
is a rational point of them.

Symbols (all 1-based in time, 0-based in units):

- ``d[t][r]`` = σ'(z_t)_r, ``e[t][r]`` = ∂b(x_t)_r/∂θ (SRNN) for one scalar parameter θ of b,
- ``g[t][r]`` = the explicit ∂L/∂h_t of L = Σ_t ⟨g_t, h_t⟩.

sympy is imported inside the functions: importing it costs ~0.5 s, paid only when an exact verdict
is asked for. The builders are cached (several claims share one sequence): do not mutate what they return.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

__all__ = ["SymbolicSRNN", "symbolic_srnn", "SymbolicVanilla", "symbolic_vanilla", "first_nonzero",
           "shift_index"]


def shift_index(r: int, d_h: int) -> int:
    """(W_p y)_r = y_{shift_index(r)} for eq. 4's shift: the unit one place further, cyclically."""
    return (r + 1) % d_h


@dataclass
class SymbolicSRNN:
    """An SRNN sequence of eq. 3 in sympy, differentiated by sympy (see the module docstring).

    Attributes:
        d_h, T: sizes. d, e, g: the symbols (lists [t][r], t = 0..T−1 for steps 1..T).
        dh: ∂h_t/∂θ by sympy's chain rule, in d and e. dL: ∂L/∂θ, in d, e, g.
        delta: the total ∂L/∂h_t (back-propagated through the later steps), in d and g.
    """

    d_h: int
    T: int
    d: list
    e: list
    g: list
    dh: list
    dL: Any
    delta: list


def _replace_derivatives(exprs, points, symbols, betas, e):
    """Replace σ'(z) (sympy ``Subs`` objects) by the symbol of the z they are taken at, and ∂β/∂θ by e."""
    import sympy as sp

    by_point = {points[t][r]: symbols[t][r] for t in range(len(points)) for r in range(len(points[t]))}
    out = []
    for ex in exprs:
        mapping = {}
        for s in ex.atoms(sp.Subs):
            mapping[s] = by_point[s.point[0]]
        if betas is not None:
            for dv in ex.atoms(sp.Derivative):
                for t, row in enumerate(betas):
                    for r, b in enumerate(row):
                        if dv.expr == b:
                            mapping[dv] = e[t][r]
        out.append(sp.expand(ex.xreplace(mapping)))
    return out


@lru_cache(maxsize=8)
def symbolic_srnn(d_h: int, T: int) -> SymbolicSRNN:
    """Build eq. 3, h_t = σ(W_p h_{t−1} + b(x_t)), with b(x_t)_r = β_{t,r}(θ) generic functions of one
    parameter θ, h_0 constant, and differentiate it with sympy.

    Raises:
        ValueError: d_h < 1 or T < 1.
    """
    import sympy as sp

    if d_h < 1 or T < 1:
        raise ValueError(f"d_h and T must be >= 1, got {d_h}, {T}")
    theta = sp.Symbol("theta")
    sigma = sp.Function("sigma")
    beta = [[sp.Function(f"beta_{t + 1}_{r}")(theta) for r in range(d_h)] for t in range(T)]
    eps = [[sp.Symbol(f"epsilon_{t + 1}_{r}") for r in range(d_h)] for t in range(T)]
    d = [[sp.Symbol(f"d_{t + 1}_{r}") for r in range(d_h)] for t in range(T)]
    e = [[sp.Symbol(f"e_{t + 1}_{r}") for r in range(d_h)] for t in range(T)]
    g = [[sp.Symbol(f"g_{t + 1}_{r}") for r in range(d_h)] for t in range(T)]
    h = [sp.Symbol(f"h0_{r}") for r in range(d_h)]
    zs, hs = [], []
    for t in range(T):
        z = [h[shift_index(r, d_h)] + beta[t][r] for r in range(d_h)]
        h = [sigma(z[r]) + eps[t][r] for r in range(d_h)]  # ε perturbs h_t: ∂L/∂ε_t is the total ∂L/∂h_t
        zs.append(z)
        hs.append(h)
    L = sum(g[t][r] * hs[t][r] for t in range(T) for r in range(d_h))
    at_zero = {s: 0 for row in eps for s in row}
    points = [[z.xreplace(at_zero) for z in row] for row in zs]
    flat_dh = [sp.diff(hs[t][r], theta).xreplace(at_zero) for t in range(T) for r in range(d_h)]
    flat_delta = [sp.diff(L, eps[t][r]).xreplace(at_zero) for t in range(T) for r in range(d_h)]
    dL = sp.diff(L, theta).xreplace(at_zero)
    done = _replace_derivatives(flat_dh + flat_delta + [dL], points, d, beta, e)
    n = T * d_h
    dh = [done[t * d_h:(t + 1) * d_h] for t in range(T)]
    delta = [done[n + t * d_h:n + (t + 1) * d_h] for t in range(T)]
    return SymbolicSRNN(d_h, T, d, e, g, dh, done[-1], delta)


@dataclass
class SymbolicVanilla:
    """A vanilla RNN of srnn.md eq. 1 in sympy: h_t = σ(W_1 h_{t−1} + c_t), c_t = W_2 x_t.

    Attributes:
        d_h, T: sizes. W1: sympy Matrix of symbols. h: h_0..h_T (lists of expressions; h_0 symbols).
        d, g: σ'(z_t) and explicit ∂L/∂h_t symbols ([t][r], steps 1..T).
        dW1: ∂L/∂W_1 (d_h × d_h nested list) by sympy's chain rule. delta: total ∂L/∂h_t.
        J: J[(t2, t1)] = ∂h_{t2}/∂h_{t1} (sympy Matrix) for 1 ≤ t1 < t2 ≤ T, by sympy.
    """

    d_h: int
    T: int
    W1: Any
    h: list
    d: list
    g: list
    dW1: list
    delta: list
    J: dict


@lru_cache(maxsize=8)
def symbolic_vanilla(d_h: int, T: int, *, sigma=None) -> SymbolicVanilla:
    """Build eq. 1 with a generic σ (or the given sympy ``Lambda``) and differentiate it with sympy.

    The Jacobians ∂h_{t2}/∂h_{t1} are sympy's derivatives of h_{t2} with respect to a perturbation
    added to h_{t1} (so they are the true total derivatives, not a product formula).

    Raises:
        ValueError: d_h < 1 or T < 1.
    """
    import sympy as sp

    if d_h < 1 or T < 1:
        raise ValueError(f"d_h and T must be >= 1, got {d_h}, {T}")
    generic = sigma is None
    sigma = sp.Function("sigma") if generic else sigma
    W1 = sp.Matrix(d_h, d_h, lambda a, b: sp.Symbol(f"w_{a}{b}"))
    c = [[sp.Symbol(f"c_{t + 1}_{r}") for r in range(d_h)] for t in range(T)]
    eps = [[sp.Symbol(f"epsilon_{t}_{r}") for r in range(d_h)] for t in range(T + 1)]
    d = [[sp.Symbol(f"d_{t + 1}_{r}") for r in range(d_h)] for t in range(T)]
    g = [[sp.Symbol(f"g_{t + 1}_{r}") for r in range(d_h)] for t in range(T)]
    h = sp.Matrix([sp.Symbol(f"h0_{r}") + eps[0][r] for r in range(d_h)])
    zs, hs = [], [h]
    for t in range(T):
        z = W1 * h + sp.Matrix(c[t])
        h = sp.Matrix([sigma(z[r]) + eps[t + 1][r] for r in range(d_h)])
        zs.append(list(z))
        hs.append(h)
    L = sum(g[t][r] * hs[t + 1][r] for t in range(T) for r in range(d_h))
    at_zero = {s: 0 for row in eps for s in row}
    points = [[z.xreplace(at_zero) for z in row] for row in zs]
    exprs = [sp.diff(L, W1[a, b]) for a in range(d_h) for b in range(d_h)]
    exprs += [sp.diff(L, eps[t + 1][r]) for t in range(T) for r in range(d_h)]
    pairs = [(t2, t1) for t2 in range(2, T + 1) for t1 in range(1, t2)]
    exprs += [sp.diff(hs[t2][a], eps[t1][b]) for t2, t1 in pairs for a in range(d_h) for b in range(d_h)]
    exprs = [x.xreplace(at_zero) for x in exprs]
    if generic:
        exprs = _replace_derivatives(exprs, points, d, None, None)
    else:
        exprs = [sp.expand(x) for x in exprs]
    n = d_h * d_h
    dW1 = [exprs[a * d_h:(a + 1) * d_h] for a in range(d_h)]
    delta = [exprs[n + t * d_h:n + (t + 1) * d_h] for t in range(T)]
    k = n + T * d_h
    J = {}
    for t2, t1 in pairs:
        J[(t2, t1)] = sp.Matrix(d_h, d_h, exprs[k:k + n])
        k += n
    h_values = [[x.xreplace(at_zero) for x in col] for col in hs]
    return SymbolicVanilla(d_h, T, W1, h_values, d, g, dW1, delta, J)


def first_nonzero(differences, symbols) -> tuple[int, dict] | None:
    """The index of the first of ``differences`` (sympy expressions) that is not identically zero, with
    a rational point of ``symbols`` where it is non-zero, or None when all vanish identically.

    The point puts every symbol on a fixed grid of {1/6, …, 5/6} (σ' values inside (0, 1), as for tanh
    and the sigmoid); a non-zero polynomial is non-zero at almost every point, so the first tries succeed.
    """
    import sympy as sp

    for k, diff in enumerate(differences):
        if sp.expand(diff) == 0:
            continue
        for shift in range(1, 30):
            point = {s: sp.Rational(1 + (i * 7 + shift) % 5, 6) for i, s in enumerate(symbols)}
            if diff.xreplace(point) != 0:
                return k, point
        return k, {}
    return None
