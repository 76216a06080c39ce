"""srnn.md, Sec. 3, after eq. 11: "For the ReLU activation function, the gradients in Eq. 9 vanish if and only if
there is some time t' in the future where z_{t'} < 0."

The sentence does not say which units: eq. 9's propagation factor ∂h_t/∂z_i = D_t W_p ⋯ W_p D_i is a
product along *paths* that the shift moves from unit to unit. Read with "z_{t'} < 0" for some unit, or
for every unit, or for the whole gradient ∂h_t/∂b_k, the equivalence fails; read path by path it holds
(srnn.relu_vanishing.corrected).
"""

from __future__ import annotations

from dataclasses import replace

import torch
from torch import Tensor
from torch.func import jacrev

from rnnaudit.bounds.core import Claim, ExactVerdict
from rnnaudit.bounds.srnn.cases import (A_H0_CONSTANT, A_RELU, SHUFFLE, ShuffleCase, affine_case, cell_params, f64,
                                        jacobians, perturbed_states, sample_relu_case)

__all__ = ["propagation", "path_dead", "relu_vanishing", "relu_vanishing_corrected", "measure_paths", "VANISH_RTOL",
           "COUNT_BOUND"]

#: The parts count mismatches, integers: "no mismatch" is count < 1/2, so the ratio count/(1/2) is 0 when the
#: equivalence holds and twice the number of mismatching (t, i) pairs otherwise (the worst case has the most).
COUNT_BOUND = 0.5
#: ∂h_t/∂b_k counts as vanished below 1e-12 of Σ_i ‖∂b(x_i)/∂b_k‖_∞ (a sum of ≤ T terms of that size,
#: rounded to ~T ulps, so an exact cancellation lands ~1e-15 below it; nothing else comes that close).
VANISH_RTOL = 1e-12


def propagation(case: ShuffleCase) -> tuple[Tensor, Tensor]:
    """z (T, d_h) and F (T, d_h, T, d_h) with F[t−1, :, i−1, :] = ∂h_t/∂z_i by autograd (a perturbation added to
    z_i); with ReLU its entries are products of σ' ∈ {0, 1}, so 'vanishes' is an exact zero."""
    d_h, T = case.size()
    params = cell_params(case, detach=True)
    e = case.h0.new_zeros(T, d_h)
    F = jacrev(lambda e_z: perturbed_states(case, params, e_z=e_z)[1])(e)
    with torch.no_grad():
        z, _ = perturbed_states(case, params)
    return z, F


def path_dead(z: Tensor, t: int, i: int, q: int, direction: int = -1) -> bool:
    """Whether the unit that sits at q at step i meets z ≤ 0 at some step j ∈ [i, t] (1-based) on its way under the
    shift: at step j it sits at (q + direction·(j − i)) mod d_h (direction −1 for eq. 4's shift, (W_p y)_r = y_{r+1};
    a test passes +1 to see the check fail)."""
    d_h = z.shape[1]
    return any(bool(z[j - 1, (q + direction * (j - i)) % d_h] <= 0) for j in range(i, t + 1))


def _count(values) -> Tensor:
    return torch.tensor(float(sum(values)), dtype=torch.float64)


def _measure(case: ShuffleCase) -> dict[str, tuple[Tensor, Tensor]]:
    d_h, T = case.size()
    z, F = propagation(case)
    pairs = [(t, i) for t in range(1, T + 1) for i in range(1, t + 1)]
    vanish = {(t, i): bool((F[t - 1, :, i - 1, :] == 0).all()) for t, i in pairs}
    some = {(t, i): bool((z[i - 1:t] <= 0).any()) for t, i in pairs}
    every = {(t, i): bool((z[i - 1:t] <= 0).all(dim=1).any()) for t, i in pairs}
    _, J_h, J_b = jacobians(case, detach=True)
    size = J_b.abs().amax(dim=1).cumsum(0)  # (T, P): Σ_{i≤t} ‖∂b(x_i)/∂b_k‖_∞
    gone = (J_h.abs().amax(dim=1) <= VANISH_RTOL * size) & (size > 0)
    no_negative = torch.stack([~(z[:t] <= 0).any() for t in range(1, T + 1)])
    zero = f64(COUNT_BOUND, z)
    return {
        "∂h_t/∂z_i = 0 ⟺ z_{t',r} ≤ 0 for some t' ∈ [i, t] and some unit r": (
            _count(vanish[p] != some[p] for p in pairs), zero),
        "∂h_t/∂z_i = 0 ⟺ z_{t'} ≤ 0 in every unit at some t' ∈ [i, t]": (
            _count(vanish[p] != every[p] for p in pairs), zero),
        "∂h_t/∂b_k = 0 (with some ∂b(x_i)/∂b_k ≠ 0) ⟹ z_{t',r} ≤ 0 for some t' ≤ t, r": (
            _count((gone & no_negative[:, None]).reshape(-1).tolist()), zero),
    }


def measure_paths(case: ShuffleCase, direction: int = -1) -> dict[str, tuple[Tensor, Tensor]]:
    """The corrected claim's part; ``direction`` as in :func:`path_dead`."""
    d_h, T = case.size()
    z, F = propagation(case)
    bad = 0
    for t in range(1, T + 1):
        for i in range(1, t + 1):
            for q in range(d_h):
                bad += bool((F[t - 1, :, i - 1, q] == 0).all()) != path_dead(z, t, i, q, direction)
    return {"column q of ∂h_t/∂z_i = 0 ⟺ z ≤ 0 somewhere on unit q's path over [i, t]": (_count([bad]),
                                                                                           f64(COUNT_BOUND, z))}


def _starts(h: int, T: int, device="cpu", dtype=torch.float64) -> list[ShuffleCase]:
    """The three counterexamples where their size allows (b(x) = w x + c, d_i = 1, ReLU, h_0 = 0):

    - d_h ≥ 2, c = (2, −1, 2, …), x = 0: only z_{1,1} < 0, yet ∂h_t/∂z_1 ≠ 0 (the other units live);
    - d_h = 2, T ≥ 2, w = (−1, −4), c = (2, −1), x = (0, 1, 0, …): z_1 = (2, −1), z_2 = (1, −3): both paths from
      step 1 die, at different steps, so ∂h_2/∂z_1 = 0 with no step where every unit is negative;
    - d_h = 1, T ≥ 2, w = 1, c = 3, x = (1, −1, 0, …): z = (4, 6, …) > 0, yet ∂h_2/∂w = x_1 + x_2 = 0.
    """
    out = []
    pad = [0.0] * max(T - 2, 0)
    if h >= 2:
        out.append(affine_case([0.0] * h, [2.0, -1.0] + [2.0] * (h - 2), [0.0] * T, device=device, dtype=dtype))
    if h == 2 and T >= 2:
        out.append(affine_case([-1.0, -4.0], [2.0, -1.0], [0.0, 1.0] + pad, device=device, dtype=dtype))
    if h == 1 and T >= 2:
        out.append(affine_case([1.0], [3.0], [1.0, -1.0] + pad, device=device, dtype=dtype))
    return out


def _exact(corrected: bool) -> ExactVerdict:
    """Corrected: every activation pattern D_j ∈ {0, 1}^{d_h} for d_h = 2, T = 3 and d_h = 3, T = 2 (sympy integer
    matrices). As printed: the three counterexamples of :func:`_starts` in exact arithmetic."""
    import itertools

    import sympy as sp

    def shift_matrix(n):
        S = sp.zeros(n, n)
        for r in range(n):
            S[r, (r + 1) % n] = 1
        return S

    if corrected:
        for n, T in ((2, 3), (3, 2)):
            S = shift_matrix(n)
            for pattern in itertools.product((0, 1), repeat=n * T):
                D = [sp.diag(*pattern[j * n:(j + 1) * n]) for j in range(T)]
                for i in range(1, T + 1):
                    F = D[i - 1]
                    for t in range(i, T + 1):
                        if t > i:
                            F = D[t - 1] * S * F
                        for q in range(n):
                            dead = any(pattern[(j - 1) * n + (q - (j - i)) % n] == 0 for j in range(i, t + 1))
                            if all(F[a, q] == 0 for a in range(n)) != dead:
                                return ExactVerdict("violated", f"d_h = {n}, pattern {pattern}, t = {t}, "
                                                                f"i = {i}, q = {q}")
        return ExactVerdict("proved", "For every ReLU activation pattern (σ'(z_j) ∈ {0, 1} per unit) at d_h = 2, "
                                      "T = 3 and d_h = 3, T = 2: column q of ∂h_t/∂z_i = D_t W_p ⋯ W_p D_i is zero iff "
                                      "σ' = 0 somewhere on unit q's path (sympy, exhaustive).")
    eps = sp.symbols("e0 e1")
    w = sp.Symbol("w")

    def run(ws, cs, xs, perturb=False):
        n, h, zs, hs = len(cs), [sp.Integer(0)] * len(cs), [], []
        for t, x in enumerate(xs):
            z = [h[(r + 1) % n] + ws[r] * x + cs[r] + (eps[r] if perturb and t == 0 else 0) for r in range(n)]
            h = [sp.Max(0, v) for v in z]
            zs.append(z)
            hs.append(h)
        return zs, hs

    zs, hs = run([0, 0], [2, -1], [0, 0], perturb=True)
    F_a = sp.Matrix(2, 2, lambda a, b: sp.diff(hs[1][a], eps[b]).subs({eps[0]: 0, eps[1]: 0}))
    zs_a = [[v.subs({eps[0]: 0, eps[1]: 0}) for v in row] for row in zs]
    zs, hs = run([-1, -4], [2, -1], [0, 1], perturb=True)
    F_b = sp.Matrix(2, 2, lambda a, b: sp.diff(hs[1][a], eps[b]).subs({eps[0]: 0, eps[1]: 0}))
    zs_b = [[v.subs({eps[0]: 0, eps[1]: 0}) for v in row] for row in zs]
    zs, hs = run([w], [3], [1, -1])
    grad_c = sp.diff(hs[1][0], w).subs(w, 1)
    zs_c = [[v.subs(w, 1) for v in row] for row in zs]
    return ExactVerdict("violated", f"(some unit) d_h = 2, b ≡ (2, −1): z = {zs_a}, ∂h_2/∂z_1 = {F_a.tolist()} ≠ 0 "
                                    f"although z_{{1,1}} < 0; (every unit) b_1 = (2, −1), b_2 = (1, −5): z = {zs_b}, "
                                    f"∂h_2/∂z_1 = {F_b.tolist()} = 0 with no step where all units are negative; "
                                    f"(whole gradient) d_h = 1, b(x) = w x + 3, w = 1, x = (1, −1): z = {zs_c} > 0, "
                                    f"∂h_2/∂w = {grad_c} (sympy, exact).")


_SIZES = {"quick": [(1, 2), (2, 2), (2, 3), (4, 5), (6, 6)],
          "full": [(1, 2), (2, 2), (2, 3), (4, 5), (6, 6), (8, 10), (16, 12)]}
_RELU = replace(SHUFFLE, sample=sample_relu_case, sizes=_SIZES, starts=_starts)

relu_vanishing = Claim(
    id="srnn.relu_vanishing",
    source="srnn.md, Sec. 3, after eq. 11 ('For the ReLU activation function, the gradients in Eq. 9 vanish iff …')",
    statement="For ReLU, the gradients in eq. 9 vanish if and only if there is some time t' in the future where "
              "z_{t'} < 0",
    assumptions=(A_H0_CONSTANT, A_RELU),
    measure="the number of (t, i) (resp. (t, k)) where the two sides of the equivalence differ, with ∂h_t/∂z_i (the "
            "propagation factor of eq. 9) and ∂h_t/∂b_k by autograd, in three readings of 'z_{t'} < 0'",
    bound="no mismatch (a count < COUNT_BOUND = 1/2; the ratio is twice the number of mismatches)",
    evaluate=_measure,
    cases=_RELU,
    explanation="z_{t'} is a vector and eq. 9's products follow each unit along the shift, so the condition is per "
                "path: column q of ∂h_t/∂z_i vanishes iff the unit that starts at q meets z ≤ 0 on its way. One "
                "negative unit elsewhere does not make the gradient vanish (first part); every path can die at a "
                "different step without any step where all units are negative (second part); and the whole "
                "gradient ∂h_t/∂b_k can vanish by cancellation with every z > 0 (third part: d_h = 1, x = (1, −1)). "
                "See srnn.relu_vanishing.corrected.",
    notes="Readings: 'z_{t'} < 0' for some unit, for every unit (both about the propagation factor ∂h_t/∂z_i of eq. 9, "
          "with 'in the future' = t' ∈ [i, t]), and the whole gradient ∂h_t/∂b_k (with t' ≤ t, only the 'only if' "
          "direction, and only for parameters with some ∂b(x_i)/∂b_k ≠ 0, so that a zero inside b does not count). "
          "'< 0' is read as '≤ 0' (ReLU'(0) = 0, autograd's convention), so no violation comes from z = 0.",
    exact=lambda: _exact(corrected=False),
)

relu_vanishing_corrected = Claim(
    id="srnn.relu_vanishing.corrected",
    source="srnn.md, Sec. 3, after eq. 11, corrected by rnnaudit",
    statement="For ReLU, column q of ∂h_t/∂z_i (the unit at q at step i) vanishes iff z_{j,(q−(j−i)) mod d_h} ≤ 0 for "
              "some j ∈ [i, t] — the unit meets a non-positive pre-activation on its path under the shift",
    assumptions=(A_H0_CONSTANT, A_RELU),
    measure="the number of (t, i, q) where 'column q of ∂h_t/∂z_i = 0' (autograd) and 'the path of q dies' differ",
    bound="no mismatch (a count < COUNT_BOUND = 1/2)",
    evaluate=measure_paths,
    cases=_RELU,
    explanation="Would mean ∂h_t/∂z_i is not the product D_t W_p ⋯ W_p D_i, whose columns are products of σ' along "
                "paths (srnn.hidden_gradient.corrected).",
    notes="Eq. 9's term i is this factor times ∂b(x_i)/∂b_k, so it vanishes also where ∂b(x_i)/∂b_k does (a dead unit "
          "inside f_r), and the sum over i can cancel; neither is a vanishing of the propagation.",
    exact=lambda: _exact(corrected=True),
)
