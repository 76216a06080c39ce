"""Monitor for the Neumann-Cayley update of NC-GRU (nc_gru.md Sec. 3.2, eq. 16–18, Algorithm 1,
Sec. 5.1 and 5.3).

Algorithm 1 keeps Ã^(k) ≈ (I + A^(k))⁻¹ by the truncated series of eq. 18,

    (I + A^(k))⁻¹ = Σ_{i≥0} M^i (I + A^(k−1))⁻¹,   M = (I + A^(k−1))⁻¹ δA^(k),  δA^(k) = A^(k−1) − A^(k),

which converges when ‖M‖ < 1 in some operator norm (Sec. 3.2; Sec. 5.3 records ‖M‖₂ and calls it
the "necessary condition" — it is sufficient; necessary and sufficient is ρ(M) < 1, which the
monitor records as well). With X = (I + A^(k))⁻¹ and B = (I + A^(k−1))⁻¹ exact, the order-p
partial sum S_p = Σ_{i≤p} M^i B misses exactly X − S_p = M^{p+1} X, and ‖X‖₂ ≤ 1 for skew A (I + A is
normal with eigenvalues 1 + iλ), so the truncation error is at most ‖M‖₂^{p+1} (the O(M³) of
Sec. 3.2 for p = 2). Between the resets of Sec. 3.2 the stored Ã drifts from the exact inverse and
U = Ã(I − A)D from orthogonality; the monitor measures both.
"""

from __future__ import annotations

import numbers

import numpy as np
import torch
from torch import Tensor

from rnnaudit.cells.nc_gru import NeumannCayleyUpdater
from rnnaudit.cells.orthogonal import orthogonality_defect
from rnnaudit.cells.linalg import eigvals

__all__ = ["NeumannMonitor", "neumann_arrays", "series_truncation_errors"]


def _norm2(M: Tensor) -> float:
    return float(torch.linalg.matrix_norm(M, ord=2))


def series_truncation_errors(A_prev: Tensor, A_next: Tensor, orders=(1, 2, 3)) -> dict:
    """Eq. 16–18 for one update, against exact inverses.

    Args:
        A_prev, A_next: skew (h, h) A^(k−1), A^(k).
        orders: Neumann orders p (terms i = 0..p; Sec. 3.2 calls p = 1 "first order", p = 2 "second").

    Returns:
        dict with ``convergence`` ‖M‖₂ for M = (I + A^(k−1))⁻¹δA^(k), ``spectral_radius`` ρ(M),
        ``delta_norm`` ‖δA^(k)‖₂, and per order p: ``error`` ‖S_p − (I + A^(k))⁻¹‖₂ and ``bound``
        ‖M‖₂^{p+1} (lists in the order of ``orders``).

    Raises:
        ValueError: not tensors, shapes that differ, are not square or are empty, NaN/Inf entries, a
            matrix that is not skew-symmetric (the bound uses ‖(I + A^(k))⁻¹‖₂ ≤ 1, true for skew A
            only), no orders or an order that is not an integer ≥ 0.
    """
    if (not isinstance(A_prev, Tensor) or not isinstance(A_next, Tensor) or A_prev.shape != A_next.shape
            or A_prev.dim() != 2 or A_prev.shape[0] != A_prev.shape[1] or A_prev.shape[0] == 0):
        shapes = [tuple(a.shape) if isinstance(a, Tensor) else type(a).__name__ for a in (A_prev, A_next)]
        raise ValueError(f"A_prev and A_next must be non-empty square tensors of one shape, got {shapes[0]} "
                         f"and {shapes[1]}")
    for name, A in (("A_prev", A_prev), ("A_next", A_next)):
        if not torch.isfinite(A).all():
            raise ValueError(f"{name} holds NaN/Inf entries")
        # (A − Aᵀ)/2 and updates by skew gradients are skew to the last bit; 64 u·max|A| allows a few
        # roundings in a caller's own arithmetic
        defect = float((A + A.mT).abs().max())
        if defect > 64 * torch.finfo(A.dtype).eps * max(1.0, float(A.abs().max())):
            raise ValueError(f"{name} must be skew-symmetric (A^(k) of eq. 16), max|A + Aᵀ| = {defect:.3g}")
    if (not orders or any(isinstance(p, bool) or not isinstance(p, numbers.Integral) or p < 0
                          for p in orders)):
        raise ValueError(f"orders must be a non-empty sequence of integers >= 0, got {orders!r}")
    eye = torch.eye(A_prev.shape[0], dtype=A_prev.dtype, device=A_prev.device)
    # the algorithm is about these inverses, so they are formed (by solve against I)
    B = torch.linalg.solve(eye + A_prev, eye)
    X = torch.linalg.solve(eye + A_next, eye)
    delta = A_prev - A_next
    M = B @ delta
    errors, partial, term = [], B.clone(), B.clone()
    done = 0
    for p in sorted(orders):
        while done < p:
            term = M @ term
            partial = partial + term
            done += 1
        errors.append((p, _norm2(partial - X)))
    by_order = dict(errors)
    conv = _norm2(M)
    return {"convergence": conv, "spectral_radius": float(eigvals(M).abs().max()),
            "delta_norm": _norm2(delta), "error": [by_order[p] for p in orders],
            "bound": [conv ** (p + 1) for p in orders]}


class NeumannMonitor:
    """Wraps a :class:`cells.NeumannCayleyUpdater` and records, per update k and per map:

    ``convergence_exact`` ‖(I + A^(k−1))⁻¹δA^(k)‖₂ (eq. 18's condition as stated, Sec. 5.3 / Fig. 8),
    ``spectral_radius`` ρ of that matrix, ``convergence_used`` ‖Ã^(k−1)δA^(k)‖₂ (the M Algorithm 1
    line 7 actually uses), ``delta_norm``, ``truncation_error`` and ``truncation_bound`` for each
    order in ``orders`` (:func:`series_truncation_errors`: the local error of one update started
    from the exact inverse), ``stored_inverse_error`` ‖Ã^(k) − (I + A^(k))⁻¹‖₂ (accumulated drift),
    ``inverse_residual`` ‖Ã^(k)(I + A^(k)) − I‖₂, ``orthogonality_defect`` ‖UᵀU − I‖₂, ``reset``,
    ``since_reset`` (updates since the last exact inverse; 0 at a reset) and ``cycle`` (how many
    resets came before).

    Use :meth:`step` after ``optimizer.step()`` in place of ``updater.step()``, or :meth:`attach`
    in place of ``updater.attach`` (not both: the update would run twice). Create the monitor
    right after the updater (or right after an update), so that its copy of A^(k−1) is current.

    Args:
        updater: the updater (any order and reset period).
        orders: Neumann orders whose truncation error is measured (Sec. 5.1 compares 1, 2, 3).

    Raises:
        ValueError: ``updater`` is not a NeumannCayleyUpdater, bad orders.
    """

    def __init__(self, updater: NeumannCayleyUpdater, orders=(1, 2, 3)):
        if not isinstance(updater, NeumannCayleyUpdater):
            raise ValueError(f"updater must be a cells.NeumannCayleyUpdater, got {type(updater).__name__}")
        orders = tuple(orders)
        if not orders or any(isinstance(p, bool) or not isinstance(p, int) or p < 0 for p in orders):
            raise ValueError(f"orders must be a non-empty tuple of ints >= 0, got {orders!r}")
        self.updater, self.orders = updater, orders
        self.records: list[dict] = []
        self._A = {name: m.A.detach().clone() for name, m in updater.maps.items()}
        self._since = {name: 0 for name in updater.maps}
        self._cycle = {name: 0 for name in updater.maps}

    @torch.no_grad()
    def step(self) -> list[dict]:
        """Run ``updater.step()`` and record this update; returns its records (one per map)."""
        stored_before = {name: m.A_inv.detach().clone() for name, m in self.updater.maps.items()}
        self.updater.step()
        reset = self.updater.k % self.updater.reset_every == 0
        new = []
        for name, m in self.updater.maps.items():
            A_prev, A_next = self._A[name], m.A.detach().clone()
            eye = torch.eye(A_next.shape[0], dtype=A_next.dtype, device=A_next.device)
            local = series_truncation_errors(A_prev, A_next, self.orders)
            exact_next = torch.linalg.solve(eye + A_next, eye)
            if reset:
                self._since[name], self._cycle[name] = 0, self._cycle[name] + 1
            else:
                self._since[name] += 1
            new.append({
                "k": self.updater.k, "map": name, "reset": reset, "since_reset": self._since[name],
                "cycle": self._cycle[name], "order": self.updater.order,
                "convergence_exact": local["convergence"], "spectral_radius": local["spectral_radius"],
                "convergence_used": _norm2(stored_before[name] @ (A_prev - A_next)),
                "delta_norm": local["delta_norm"], "orders": self.orders,
                "truncation_error": local["error"], "truncation_bound": local["bound"],
                "stored_inverse_error": _norm2(m.A_inv - exact_next),
                "inverse_residual": _norm2(m.A_inv @ (eye + A_next) - eye),
                "orthogonality_defect": float(orthogonality_defect(m.matrix().detach())),
            })
            self._A[name] = A_next
        self.records.extend(new)
        return new

    def attach(self, optimizer: torch.optim.Optimizer):
        """Run :meth:`step` after every ``optimizer.step()``; returns the removable hook handle."""
        return optimizer.register_step_post_hook(lambda opt, args, kwargs: self.step())


_SCALARS = ("k", "reset", "since_reset", "cycle", "order", "convergence_exact", "spectral_radius",
            "convergence_used", "convergence", "delta_norm", "stored_inverse_error", "inverse_residual",
            "orthogonality_defect")


def neumann_arrays(records: list[dict], map_name: str | None = None) -> dict[str, np.ndarray]:
    """Numpy arrays from a training loop's records, for one map.

    Accepts :attr:`NeumannMonitor.records` or :attr:`cells.NeumannCayleyUpdater.records` (whose
    ``convergence`` is the monitor's ``convergence_used``); keys absent from the records are absent
    from the result.

    Args:
        records: list of per-update dicts.
        map_name: which map (module path); may be omitted when the records hold one map.

    Returns:
        dict of 1-D arrays of length K (updates), one per scalar key present; with a monitor's
        records also ``orders`` (P,), ``truncation_error`` and ``truncation_bound`` (K, P), and
        ``cycle_max_defect`` (largest orthogonality defect in each reset cycle, the drift between
        resets) for each cycle number in ``cycle_ids``.

    Raises:
        ValueError: no records, several maps and no ``map_name``, or an unknown ``map_name``.
    """
    if not records:
        raise ValueError("records is empty")
    maps = sorted({r.get("map") for r in records}, key=str)
    if map_name is None:
        if len(maps) != 1:
            raise ValueError(f"records hold several maps {maps}; pass map_name")
        map_name = maps[0]
    rows = [r for r in records if r.get("map") == map_name]
    if not rows:
        raise ValueError(f"no records for map {map_name!r}; maps present: {maps}")
    out = {}
    for key in _SCALARS:
        if all(key in r for r in rows):
            out[key] = np.asarray([r[key] for r in rows])
    if all("truncation_error" in r for r in rows):
        out["orders"] = np.asarray(rows[0]["orders"])
        out["truncation_error"] = np.asarray([r["truncation_error"] for r in rows], dtype=float)
        out["truncation_bound"] = np.asarray([r["truncation_bound"] for r in rows], dtype=float)
    if "cycle" in out and "orthogonality_defect" in out:
        ids = np.unique(out["cycle"])
        out["cycle_ids"] = ids
        out["cycle_max_defect"] = np.asarray([out["orthogonality_defect"][out["cycle"] == c].max() for c in ids])
    return out
