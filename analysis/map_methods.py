"""Which method computes a Jacobian norm map, by a cost model in T, the block shape and the width.

Two methods give the same maps (every spectral value within the requested relative tolerance of the
norm of the formed product; :mod:`analysis.products`):

* ``"products"``: the certified engine: one GEMM per t for all products, then per pair a Krylov
  certificate (O(pqk) flops), or for pairs with a flat spectrum the Gram matrix and a Cholesky
  certificate (O(p²q)), or the exact eigenvalue where that was cheaper at t − 1; a few milliseconds
  of Python per time step for its per-pair bookkeeping.
* ``"dense"``: the same products, every norm by the exact top eigenvalue of the smaller Gram matrix
  (``product_norm_maps(..., exact=True)``): O(d³) per pair at LAPACK speed (d = min(p, q)), almost no
  per-step overhead. Exact to rounding; wins for narrow blocks and short sequences.

Both are faster than the naive method (:func:`analysis.jacobian.naive_hidden_jacobian_maps`: a
``jacrev`` per step and an SVD per pair): the per-step Jacobians come from one forward-mode pass, and an
eigenvalue of the Gram matrix costs about half an SVD. So the model only has to choose between the two;
where it is unsure, ``"dense"`` is the safe side.

Model (seconds; ``_RATES`` measured on one core of a 2-core AMD EPYC, ``benchmarks/bench_jacobian.py
--grid``; they place the crossover, not what is computed):
    dense    = pairs·(GEMM + E(d)) + T·step_dense
    products = pairs·(GEMM + K(p, q)) + band·E(d) + T·step_products
with E(d) = eig·d³ + call (Gram and top eigenvalue), K = krylov·pqk + call (two Krylov blocks), and
band = (T + 1)·min(T + 1, 30) pairs assumed flat (the band of short gaps measured for the papers' cells
is 10–100 steps wide).

Complex states: a state z ∈ ℂᴺ is probed as the real state (Re z, Im z) ∈ ℝ²ᴺ (:mod:`cells.real_view`, which
:func:`rnnaudit.cells.wrap` returns for a complex cell), so the maps it chooses a method
for are those of the real 2N × 2N Jacobians; where the step is holomorphic (the linear part of an LRU) their 2-norm is the complex Jacobian's. A
diagonal recurrence never reaches this model: :func:`analysis.jacobian.hidden_jacobian_maps` takes the exact fast
path of :mod:`analysis.diagonal` first.
"""

from __future__ import annotations

__all__ = ["choose_method", "METHODS", "predicted_seconds"]

METHODS = ("auto", "products", "dense")

_RATES = {"eig": 1.6e-10, "call": 1.5e-5, "krylov": 1.6e-10, "step_dense": 3e-4, "step_products": 3e-3}
_BAND = 30
_BLOCK = 8


def predicted_seconds(method: str, T: int, p: int, q: int) -> float:
    """Time of ``method`` beyond the shared GEMMs and per-step Jacobians by the model above (seconds).

    Raises:
        ValueError: method not ``"dense"`` or ``"products"``.
    """
    pairs = (T + 1) * (T + 2) / 2
    d = min(p, q)
    exact = _RATES["eig"] * d ** 3 + _RATES["call"]
    if method == "dense":
        return pairs * exact + (T + 1) * _RATES["step_dense"]
    if method == "products":
        krylov = _RATES["krylov"] * 4 * p * q * _BLOCK + _RATES["call"]
        return pairs * krylov + (T + 1) * min(T + 1, _BAND) * exact + (T + 1) * _RATES["step_products"]
    raise ValueError(f"method must be 'dense' or 'products', got {method!r}")


def choose_method(method: str, T: int, p: int, q: int, h: int) -> str:
    """The method to run: ``method`` itself unless it is ``"auto"``, then the cheaper by the cost model
    (``"dense"`` for blocks no wider than the Krylov block, where certifying cannot be cheaper).

    Args:
        method: ``"auto"``, ``"products"`` or ``"dense"``.
        T: time steps; p × q: the block shape (start rows × kept columns); h: hidden width (GEMM size,
            the same for both methods).

    Raises:
        ValueError: unknown method.
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    if method != "auto":
        return method
    if min(p, q) <= _BLOCK:
        return "dense"
    return min(("dense", "products"), key=lambda m: predicted_seconds(m, T, p, q))
