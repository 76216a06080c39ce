"""Symbolic sums shared by the exact (sympy) verdicts of the count claims (Sec. 4, Sec. 4.2, Table 1).

sympy is imported inside the functions: the exact verdicts run once per check, and importing it costs
≈ 0.3 s that the rest of the package does not need.
"""

from __future__ import annotations

import functools

__all__ = ["chain_sum"]


@functools.cache
def _power_sums():
    import sympy as sp

    n, m, k = sp.symbols("n m k", positive=True)
    # Σ_{k=n−m+1}^{n} k^p for p = 0, 1: the reflector sizes of a chain of m reflectors u_n, …, u_{n−m+1}
    return n, m, (sp.summation(sp.Integer(1), (k, n - m + 1, n)), sp.summation(k, (k, n - m + 1, n)))


def chain_sum(c0, c1, m, n):
    """Σ_{k=n−m+1}^{n} (c0 + c1 k) as a sympy expression in ``m`` and ``n`` (sympy symbols or integers): the cost
    (or parameter count) of a chain of m reflectors whose k-th costs c0 + c1 k, k = dim u_k.

    Args:
        c0, c1: sympy expressions free of the summation index. m, n: sympy expressions.

    Returns:
        A sympy expression. Source: spectral_rnn.md Sec. 4 (u_k ∈ ℝ^k) and Table 1.
    """
    n_, m_, (s0, s1) = _power_sums()
    return (c0 * s0 + c1 * s1).subs({m_: m, n_: n}, simultaneous=True)
