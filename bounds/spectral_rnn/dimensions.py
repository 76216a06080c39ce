"""spectral_rnn.md, the dimension counts of Sec. 3 and Sec. 5 and the reflector-count equivalences of Sec. 3–4.

Sec. 3: M_{1,1} "maps an input space of n² + 2n dimensions to n² dimensions; since H_k^n(u_k) is invariant to the
norm of u_k, the input space also has exactly n² dimensions". Sec. 5: with unit-length u_i, v_i "the input space
dimensions of M^{m,n}_{1,n−m+1} and M^{m,n}_{n−m+1,1} are both mn". Sec. 3 after Theorem 3: "(n − k1 + 1) +
(n − k2 + 1) ≥ n" is k1 + k2 ≤ n + 2; Sec. 4: with k_i = n − m_i + 1 that is m1 + m2 ≥ n. Checked as integer
identities, exactly by sympy, and by the rank of M's Jacobian at a random point (the image is locally
n²- (mn-) dimensional, so nothing is lost).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from rnnaudit.bounds.core import CaseSpace, Claim, ExactVerdict
from rnnaudit.bounds.spectral_rnn.cases import A_F64, F64, draw, randint, t64
from rnnaudit.bounds.spectral_rnn.reflectors import dense_w
from rnnaudit.bounds.spectral_rnn.symbolic import chain_sum
from rnnaudit.cells import unpack_reflectors

__all__ = ["dimensions", "DimCase", "input_dims", "jacobian_rank", "exact_dimensions"]

#: Integers: |difference| ≤ 1/2 ⇔ equal.
INT_TOL = 0.5


@dataclass
class DimCase:
    """The shape of an SVD-parametrised matrix W ∈ ℝ^{p×q} and a seed for the Jacobian's random point.

    Attributes: p, q ≥ 1 (p = q: eq. 3; p ≠ q: eq. 15). seed: for the random (u, v, σ).
    """

    p: int
    q: int
    seed: int

    def size(self) -> tuple[int, int]:
        """(max(p, q), 1)."""
        return max(self.p, self.q), 1


def input_dims(p: int, q: int, *, unit: bool) -> int:
    """Input dimensions of M^{p,q} with min(p, q) reflectors on each side (Theorem 4; all of them when p = q,
    eq. 3): Σ dim u_k + Σ dim v_k + dim σ, each u_k ∈ ℝ^k counting k − 1 when ``unit`` (a sphere)."""
    r = min(p, q)
    d = lambda k: k - 1 if unit else k  # noqa: E731
    return sum(d(k) for k in range(p - r + 1, p + 1)) + sum(d(k) for k in range(q - r + 1, q + 1)) + r


def jacobian_rank(case: DimCase) -> int:
    """Numerical rank of ∂vec(M(u, v, σ))/∂(u, v, σ) at a random point, with min(p, q) reflectors per side (the
    image's local dimension). Singular values below 1e-9 σ_max · max(p, q) count as 0 (the Jacobian entries are
    O(1) and exact up to ≈ 1e-15; generic points have σ_min/σ_max ≫ 1e-9 at these sizes)."""
    p, q, r = case.p, case.q, min(case.p, case.q)
    gen = torch.Generator().manual_seed(case.seed)
    nu, nv = sum(range(p - r + 1, p + 1)), sum(range(q - r + 1, q + 1))
    theta = torch.randn(nu + nv + r, generator=gen, dtype=F64)

    def W(th: Tensor) -> Tensor:
        U_hat, V_hat, sigma = unpack_reflectors(th[:nu], p, r), unpack_reflectors(th[nu:nu + nv], q, r), th[nu + nv:]
        U = dense_w(U_hat, None, None)
        V = dense_w(V_hat, None, None)
        return (U[:, :r] * sigma) @ V[:, :r].mT

    J = torch.autograd.functional.jacobian(W, theta).reshape(p * q, -1)
    s = torch.linalg.svdvals(J)
    return int((s > 1e-9 * s.max() * max(p, q)).sum())


def _equivalence_mismatches(n: int) -> tuple[int, int]:
    """Pairs (k1, k2) ∈ [1, n + 1]² where '(n − k1 + 1) + (n − k2 + 1) ≥ n' and 'k1 + k2 ≤ n + 2' disagree, and
    pairs (m1, m2) ∈ [0, n]² where 'm1 + m2 ≥ n' and 'k1 + k2 ≤ n + 2' (k_i = n − m_i + 1) disagree."""
    r = range(1, n + 2)
    a = sum(((n - k1 + 1) + (n - k2 + 1) >= n) != (k1 + k2 <= n + 2) for k1 in r for k2 in r)
    b = sum((m1 + m2 >= n) != ((n - m1 + 1) + (n - m2 + 1) <= n + 2) for m1 in range(n + 1) for m2 in range(n + 1))
    return a, b


def _measure(case: DimCase) -> dict[str, tuple[Tensor, ...]]:
    p, q = case.p, case.q
    n = max(p, q)
    tol = t64(INT_TOL)
    a, b = _equivalence_mismatches(n)
    # (|difference|, 1/2, the true value): integer identities with the report's relative error
    return {
        "Sec. 3: M_{1,1} has n² + 2n inputs": (t64(abs(input_dims(n, n, unit=False) - (n * n + 2 * n))), tol,
                                              t64(n * n + 2 * n)),
        "Sec. 3: with ‖u_k‖ = ‖v_k‖ = 1 exactly n²": (t64(abs(input_dims(n, n, unit=True) - n * n)), tol, t64(n * n)),
        "Sec. 5: M^{m,n} with unit vectors has mn input dimensions": (
            t64(abs(input_dims(p, q, unit=True) - p * q)), tol, t64(p * q)),
        "rank ∂M/∂(u, v, σ) = mn at a random point (the image is mn-dimensional)": (
            t64(abs(jacobian_rank(case) - p * q)), tol, t64(p * q)),
        "Sec. 3: (n − k1 + 1) + (n − k2 + 1) ≥ n ⇔ k1 + k2 ≤ n + 2 (pairs that disagree)": (t64(a), tol),
        "Sec. 4: m1 + m2 ≥ n ⇔ k1 + k2 ≤ n + 2 (pairs that disagree)": (t64(b), tol),
    }


def _sample(gen, h, T, device, dtype) -> DimCase:
    """Square (p = q = n) in a third of the cases, else one side n and the other uniform in [1, n]."""
    other = h if draw(gen) < 1 / 3 else randint(gen, 1, h)
    p, q = (other, h) if draw(gen) < 0.5 else (h, other)
    return DimCase(p, q, randint(gen, 0, 2**31 - 1))


def exact_dimensions() -> ExactVerdict:
    """By sympy with symbolic n (and m ≤ n): Σ_{k=1}^{n} 2k + n = n² + 2n; Σ_{k=1}^{n} 2(k − 1) + n = n²; for
    m ≤ n, Σ_{i=1}^{m} (i − 1) + Σ_{i=n−m+1}^{n} (i − 1) + m = mn (M^{m,n}_{1, n−m+1}; the case m > n is the same
    with m and n swapped, reading k1 = m − n + 1); (n − k1 + 1) + (n − k2 + 1) − n = (n + 2) − (k1 + k2)."""
    import sympy as sp

    n, m, k1, k2 = sp.symbols("n m k1 k2", positive=True)
    checks = {"n² + 2n": (2 * chain_sum(0, 1, n, n) + n, n**2 + 2 * n),
              "n² (unit vectors)": (2 * chain_sum(-1, 1, n, n) + n, n**2),
              "mn (Sec. 5, unit vectors)": (chain_sum(-1, 1, m, m) + chain_sum(-1, 1, m, n) + m, m * n),
              "(n − k1 + 1) + (n − k2 + 1) − n = n + 2 − k1 − k2": ((n - k1 + 1) + (n - k2 + 1) - n, n + 2 - k1 - k2)}
    for name, (lhs, rhs) in checks.items():
        if sp.expand(lhs - rhs) != 0:
            return ExactVerdict("violated", f"{name}: {sp.expand(lhs)} ≠ {sp.expand(rhs)}")
    return ExactVerdict("proved", "Σ_{k=1}^{n} 2k + n = n² + 2n, Σ 2(k − 1) + n = n², and for m ≤ n Σ_{i=1}^{m}(i − 1) "
                                  "+ Σ_{i=n−m+1}^{n}(i − 1) + m = mn, as polynomials; (n − k1 + 1) + (n − k2 + 1) ≥ n "
                                  "⇔ k1 + k2 ≤ n + 2 ⇔ (k_i = n − m_i + 1) m1 + m2 ≥ n")


_SHAPES = CaseSpace(case_type=DimCase, sample=_sample,
                    sizes={"quick": [(1, 1), (2, 1), (3, 1), (4, 1), (5, 1)],
                           "full": [(1, 1), (2, 1), (3, 1), (5, 1), (8, 1)]})

dimensions = Claim(
    id="spectral_rnn.dimensions",
    source="spectral_rnn.md, Sec. 3 (after Theorem 2 and after Theorem 3), Sec. 4 (k_i = n − m_i + 1), Sec. 5 "
           "(after Theorem 4)",
    statement="M_{1,1} has n² + 2n inputs but, H being invariant to ‖u_k‖, exactly n² dimensions; with unit u_i, v_i "
              "M^{m,n}_{1,n−m+1} and M^{m,n}_{n−m+1,1} have mn; (n − k1 + 1) + (n − k2 + 1) ≥ n ⇔ k1 + k2 ≤ n + 2 ⇔ "
              "m1 + m2 ≥ n",
    assumptions=(A_F64,),
    measure="the input dimensions counted, the equivalences enumerated over all (k1, k2) and (m1, m2), and the "
            "numerical rank of the Jacobian of M(u, v, σ) (dense reflector products, autograd) at a random point",
    bound="equality (|difference| ≤ 1/2 for integers)",
    evaluate=_measure,
    cases=_SHAPES,
    explanation="Would mean the parametrisation has more or fewer free dimensions than the matrices it covers.",
    notes="Reading of Sec. 5's second map: M^{m,n}_{n−m+1,1} has k1 = n − m + 1 ≤ 0 for m > n, the sign slip shown "
          "by spectral_rnn.theorem4 (misprinted); the proof's k1 = m − n + 1 is used (min(m, n) reflectors per side). The Jacobian rank confirms that the image is "
          "locally of full dimension mn (not only that the counts match).",
    exact=exact_dimensions,
)
