"""Which method computes a Jacobian norm map, by a cost model in T, the block shape and the tolerance.

Two methods give the same maps (every spectral value within the requested relative tolerance of the
norm of the formed product; :mod:`analysis.products`):

* ``"products"``: the certified engine (:func:`analysis.products.product_norm_maps`): one GEMM per t for
  all products, Krylov/Gram certificates per pair, worker threads. Its cost per pair is the GEMM
  (2pqh flops) plus O(pqk) for most pairs; its overhead is a few milliseconds of Python per time step.
* ``"dense"``: the same products, every norm by a batched ``eigvalsh`` of the smaller Gram matrix
  (:func:`analysis.products.dense_norm_maps`): O(min(p, q)³) per pair at LAPACK speed, no overhead
  beyond one batched call per t. Exact to rounding; wins for narrow blocks.

The cost model compares the two by flop counts with measured rate constants (``_RATES``, from
``benchmarks/bench_jacobian.py --grid`` on a 2-core AMD EPYC; they only set where the crossover is, not
what is computed).
"""

from __future__ import annotations

__all__ = ["choose_method", "METHODS"]

METHODS = ("auto", "products", "dense")

# seconds per unit, measured on one core: a GEMM flop; an eigvalsh of a d × d matrix costs
# EIG·d³ + EIG0; the engine's Python per chunk and t; a certified pair's work beyond its GEMM, in
# GEMM-equivalents of its block (the mix of Krylov and Gram pairs of a typical map)
_RATES = {"gemm": 1 / 30e9, "eig": 1.2e-9, "eig0": 6e-6, "step": 2.5e-3, "certify": 1.0}


def _cost(method: str, T: int, p: int, q: int, h: int) -> float:
    pairs = (T + 1) * (T + 2) / 2
    gemm = pairs * 2 * p * h * h * _RATES["gemm"]
    if method == "dense":
        d = min(p, q)
        return gemm + pairs * (_RATES["eig"] * d ** 3 + _RATES["eig0"])
    return gemm * (1 + _RATES["certify"]) + (T + 1) * _RATES["step"]


def choose_method(method: str, T: int, p: int, q: int, h: int) -> str:
    """The method to run: ``method`` itself unless it is ``"auto"``, then the cheaper by the cost model.

    Args:
        method: ``"auto"``, ``"products"`` or ``"dense"``.
        T: time steps; p × q: the block shape (start rows × kept columns); h: hidden width (GEMM size).

    Raises:
        ValueError: unknown method.
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    if method != "auto":
        return method
    return min(("dense", "products"), key=lambda m: _cost(m, T, p, q, h))
