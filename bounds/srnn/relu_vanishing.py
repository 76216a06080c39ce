"""srnn.md, Sec. 3, after eq. 11: "For the ReLU activation function, the gradients in Eq. 9 vanish if and only if
there is some time t' in the future where z_{t'} < 0."

Reading: per neuron along its shifted path. The Gambler's-ruin paragraph that follows speaks of "a neuron in h_t",
and Fig. 5 removes the shift to show each neuron's trajectory; eq. 9's propagation factor ∂h_t/∂z_i = D_t W_p ⋯
W_p D_i follows each unit from slot to slot under the shift. So column q of ∂h_t/∂z_i (the unit at slot q at step i)
vanishes iff that unit meets z ≤ 0 at some step j ∈ [i, t] of its path. Other readings are in the
claim's notes; the two literal readings of 'z_{t'} < 0' for the whole
state are its Readings (both false).
"""

from __future__ import annotations

from dataclasses import replace

import torch
from torch import Tensor
from torch.func import jacrev

from rnnaudit.bounds.core import Claim, ExactVerdict, Reading
from rnnaudit.bounds.srnn.cases import (A_H0_CONSTANT, A_RELU, SHUFFLE, ShuffleCase, affine_case, cell_params, f64,
                                        perturbed_states, sample_relu_case)

__all__ = ["propagation", "path_dead", "relu_vanishing", "measure_paths", "measure_steps", "COUNT_BOUND"]

#: The part counts mismatches, an integer: "no mismatch" is count < 1/2, so the ratio count/(1/2) is 0 when the
#: equivalence holds and twice the number of mismatching (t, i, q) triples otherwise.
COUNT_BOUND = 0.5


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


def measure_paths(case: ShuffleCase, direction: int = -1) -> dict[str, tuple[Tensor, Tensor]]:
    """The claim's part: the number of (t, i, q) where 'column q of ∂h_t/∂z_i = 0' (autograd) and 'the path of q
    dies' differ, against :data:`COUNT_BOUND`; ``direction`` as in :func:`path_dead`."""
    d_h, T = case.size()
    z, F = propagation(case)
    bad = 0
    for t in range(1, T + 1):
        for i in range(1, t + 1):
            for q in range(d_h):
                bad += bool((F[t - 1, :, i - 1, q] == 0).all()) != path_dead(z, t, i, q, direction)
    return {"column q of ∂h_t/∂z_i = 0 ⟺ z ≤ 0 somewhere on unit q's path over [i, t]": (
        torch.tensor(float(bad), dtype=z.dtype, device=z.device), f64(COUNT_BOUND, z))}


def measure_steps(case: ShuffleCase, every_unit: bool) -> dict[str, tuple[Tensor, Tensor]]:
    """A literal reading's part: the number of (t, i) where '∂h_t/∂z_i = 0' (autograd, the whole matrix) and 'some
    step j ∈ [i, t] has z_j ≤ 0 in some unit' (``every_unit`` False) or 'in every unit' (True) differ, against
    :data:`COUNT_BOUND`."""
    d_h, T = case.size()
    z, F = propagation(case)
    neg = (z <= 0).all(1) if every_unit else (z <= 0).any(1)
    bad = 0
    for t in range(1, T + 1):
        for i in range(1, t + 1):
            bad += bool((F[t - 1, :, i - 1, :] == 0).all()) != bool(neg[i - 1:t].any())
    which = "every unit" if every_unit else "some unit"
    return {f"∂h_t/∂z_i = 0 ⟺ some step j ∈ [i, t] has z_j ≤ 0 in {which}": (
        torch.tensor(float(bad), dtype=z.dtype, device=z.device), f64(COUNT_BOUND, z))}


def _starts(h: int, T: int, device="cpu", dtype=torch.float64) -> list[ShuffleCase]:
    """Cases where the per-path reading and the other readings of the notes part ways (b(x) = w x + c, d_i = 1,
    ReLU, h_0 = 0):

    - d_h ≥ 2, c = (2, −1, 2, …), x = 0: only z_{1,1} < 0; the other paths live, so ∂h_t/∂z_1 ≠ 0;
    - d_h = 2, T ≥ 2, w = (−1, −4), c = (2, −1), x = (0, 1, 0, …): z_1 = (2, −1), z_2 = (1, −3): both paths from
      step 1 die, at different steps, so ∂h_2/∂z_1 = 0 with no step where every unit is negative;
    - d_h = 1, T ≥ 2, w = 1, c = 3, x = (1, −1, 0, …): z = (4, 6, …) > 0 and no path dies, while ∂h_2/∂w = x_1 + x_2
      = 0 cancels.
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


def _exact() -> ExactVerdict:
    """Every activation pattern D_j ∈ {0, 1}^{d_h} for d_h = 2, T = 3 and d_h = 3, T = 2 (sympy integer matrices)."""
    import itertools

    import sympy as sp

    for n, T in ((2, 3), (3, 2)):
        S = sp.zeros(n, n)
        for r in range(n):
            S[r, (r + 1) % n] = 1
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
                            return ExactVerdict("violated", f"d_h = {n}, pattern {pattern}, t = {t}, i = {i}, q = {q}")
    return ExactVerdict("proved", "For every ReLU activation pattern (σ'(z_j) ∈ {0, 1} per unit) at d_h = 2, T = 3 "
                                  "and d_h = 3, T = 2: column q of ∂h_t/∂z_i = D_t W_p ⋯ W_p D_i is zero iff σ' = 0 "
                                  "somewhere on unit q's path (sympy, exhaustive).")


_SIZES = {"quick": [(1, 2), (2, 2), (2, 3), (4, 5), (6, 6)],
          "full": [(1, 2), (2, 2), (2, 3), (4, 5), (6, 6), (8, 10), (16, 12)]}
_RELU = replace(SHUFFLE, sample=sample_relu_case, sizes=_SIZES, starts=_starts)

relu_vanishing = Claim(
    id="srnn.relu_vanishing",
    source="srnn.md, Sec. 3, after eq. 11 ('For the ReLU activation function, the gradients in Eq. 9 vanish iff …')",
    statement="For ReLU, the gradients in eq. 9 vanish if and only if there is some time t' in the future where "
              "z_{t'} < 0 — read per neuron along its shifted path: column q of ∂h_t/∂z_i (the unit at q at step i) "
              "vanishes iff z_{j,(q−(j−i)) mod d_h} ≤ 0 for some j ∈ [i, t]",
    assumptions=(A_H0_CONSTANT, A_RELU),
    measure="the number of (t, i, q) where 'column q of ∂h_t/∂z_i = 0' (autograd; ∂h_t/∂z_i is eq. 9's propagation "
            "factor) and 'the path of q meets z ≤ 0' differ",
    bound="no mismatch (a count < COUNT_BOUND = 1/2; the ratio is twice the number of mismatches)",
    evaluate=measure_paths,
    cases=_RELU,
    explanation="Would mean ∂h_t/∂z_i is not the product D_t W_p ⋯ W_p D_i, whose columns are products of σ' along "
                "paths (srnn.hidden_gradient.corrected).",
    notes="Reading: 'a neuron in h_t' (the next paragraph) followed along its shifted path, as Fig. 5 removes the "
          "shift; 'in the future' is j ∈ [i, t], and '< 0' is read as '≤ 0' (ReLU'(0) = 0, autograd's convention). "
          "The two literal readings of 'z_{t'} < 0', for the whole of ∂h_t/∂z_i, are false (their Readings, which "
          "count the (t, i) where they disagree with autograd): 'in some unit' (anywhere in the state), since one "
          "negative unit elsewhere does not stop the other paths (start 1: d_h = 2, c = (2, −1), x = 0, "
          "z_1 = (2, −1), ∂h_t/∂z_1 ≠ 0), and 'in every unit at one step', since every path can die at a different "
          "step (start 2: z_1 = (2, −1), z_2 = (1, −3), ∂h_2/∂z_1 = 0). On an independent re-derivation (300 random "
          "ReLU sequences, d_h ≤ 5, T ≤ 7, 4,445 pairs (t, i)) they had 2,458 and 123 mismatches, the per-path "
          "reading 0 over 12,849 (t, i, unit) triples. The printed form is the per-path reading, which the next "
          "paragraph ('a neuron in h_t') supports. The whole gradient ∂h_t/∂b_k can also be 0 with every z > 0 "
          "(d_h = 1, "
          "b(x) = w x + 3, w = 1, x = (1, −1): z = (4, 6), ∂h_2/∂w = x_1 + x_2 = 0): a cancellation in eq. 9's sum "
          "over i, not a vanishing of the propagation, so it is no counterexample. Likewise eq. 9's term i "
          "vanishes where ∂b(x_i)/∂b_k does (a dead unit inside f_r), which is not the propagation either.",
    exact=_exact,
    readings=(Reading("z_{t'} < 0 in some unit", "∂h_t/∂z_i = 0 iff some step j ∈ [i, t] has z_j ≤ 0 in some unit",
                      "the sentence's 'z_{t'} < 0' for the vector z_{t'}, read as 'some entry'",
                      evaluate=lambda c: measure_steps(c, every_unit=False)),
              Reading("z_{t'} < 0 in every unit", "∂h_t/∂z_i = 0 iff some step j ∈ [i, t] has z_j ≤ 0 in every unit",
                      "the sentence's 'z_{t'} < 0' for the vector z_{t'}, read entrywise (every entry)",
                      evaluate=lambda c: measure_steps(c, every_unit=True))),
)
