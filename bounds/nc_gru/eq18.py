"""nc_gru.md, Sec. 3.2, eq. 16–18 and Algorithm 1: the Neumann series of (I + A^(k))^{-1}, its convergence
and order-p error (``eq18``), and Algorithm 1 as run, with the stored Ã in line 7 (``eq18.corrected``)."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import torch
from torch import Tensor

from rnnaudit.bounds.cases import copy_case
from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, NotApplicable, Supremum, worst_pair
from rnnaudit.bounds.nc_gru.cases import assumption_check, draw, log_uniform, spectral
from rnnaudit.cells import NCGRU, scaling_diagonal, scornn_skew_init
from rnnaudit.cells.linalg import eigvals

__all__ = ["NeumannCase", "neumann_algorithm1", "sample_neumann_case", "eq18", "eq18_corrected", "ORDERS", "Q_MAX",
           "neumann_starts", "TAIL_PART"]

#: Largest ‖M‖₂ = ‖(I + A)^{-1}δA‖₂ the Neumann projection allows: strictly inside the condition
#: q < 1 of eq. 17–18, close enough to 1 that the 1/(1 − q) factor of the tail bound is exercised.
Q_MAX = 0.999

#: Neumann orders p checked (Sec. 5.1 uses 1, 2 and 3; Algorithm 1's line 7 is p = 2).
ORDERS = (1, 2, 3)

#: The asymptotic reading of eq. 18's O(·) is checked on the step shrunk by this factor (q → q/16).
ASYMPTOTIC_SHRINK = 16.0


@dataclass
class NeumannCase:
    """K steps of Algorithm 1: A^(0) and the updates δA^(1..K), with A^(k) = A^(k−1) − δA^(k) (line 6).

    Attributes:
        A0: A^(0), (h, h), skew. dA: δA^(1), …, δA^(K), shape (K, h, h), skew.
        d: diagonal of D, (h,), ±1 (only the orthogonality part of eq18.corrected uses U = Ã(I − A)D).
    """

    A0: Tensor
    dA: Tensor
    d: Tensor

    def size(self) -> tuple[int, int]:
        """(h, K): K, the number of Algorithm-1 steps, plays the role of T."""
        return self.A0.shape[0], self.dA.shape[0]

    def iterates(self) -> Tensor:
        """A^(0), …, A^(K), shape (K + 1, h, h)."""
        return torch.cat([self.A0[None], self.A0[None] - torch.cumsum(self.dA, 0)])

    @property
    def neumann_condition(self) -> float:
        """max_k ‖Ã^(k−1)δA^(k)‖₂ with Ã as Algorithm 1 stores it (orders 1–3), the quantity a training run
        records under the same name."""
        return _stored_q(self)


def neumann_algorithm1(A0: Tensor, dA: Tensor, order: int) -> list[Tensor]:
    """Ã^(0), …, Ã^(K) of nc_gru.md Algorithm 1 (differentiable).

    Line 2: Ã^(0) = (I + A^(0))^{-1} (the algorithm stores the inverse itself, so it is formed with
    ``torch.linalg.inv``); line 7 generalised to order p (Sec. 5.1 uses p = 1, 2, 3; line 7 is p = 2):
    Ã^(k) = (Σ_{i≤p} (Ã^(k−1) δA^(k))^i) Ã^(k−1).

    Args:
        A0: (h, h). dA: (K, h, h). order: p ≥ 1.

    Returns:
        list of K + 1 tensors (h, h).

    Raises:
        ValueError: order < 1 or shapes that do not match.
    """
    if order < 1:
        raise ValueError(f"order (Neumann order p) must be >= 1, got {order}")
    h = A0.shape[-1]
    if A0.shape != (h, h) or dA.dim() != 3 or dA.shape[1:] != (h, h):
        raise ValueError(f"A0 must be (h, h) and dA (K, h, h), got {tuple(A0.shape)} and {tuple(dA.shape)}")
    eye = torch.eye(h, dtype=A0.dtype, device=A0.device)
    X = [torch.linalg.inv(eye + A0)]
    for k in range(dA.shape[0]):
        M = X[-1] @ dA[k]
        series = eye
        for _ in range(order):  # Horner: I + M(I + M(…)) = I + M + … + M^p
            series = eye + M @ series
        X.append(series @ X[-1])
    return X


def _rounding(h: int, A: Tensor) -> Tensor:
    """Float allowance for comparing two computed inverses of I + A (A (…, h, h)): a backward-stable
    inversion has relative error ≲ h·u·κ with κ = ‖I + A‖₂‖(I + A)^{-1}‖₂ ≤ 1 + ‖A‖₂ for skew A
    (≤ (1 + ‖A‖₂)² in general); ‖A‖_F ≥ ‖A‖₂ stands in for the spectral norm (no SVD), and 16× covers
    the few extra products of the series."""
    u = torch.finfo(A.dtype).eps
    return 16 * h * u * (1 + torch.linalg.matrix_norm(A.detach())) ** 2


def sample_neumann_case(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> NeumannCase:
    """K = T steps of Algorithm 1 from a skew A^(0), with skew updates δA^(k) inside the Neumann condition.

    A^(0) is scoRNN's initialisation (Sec. 3.2), a Gaussian skew matrix with a log-uniform norm in
    [10⁻², 10²], or (1 case in 3) 2×2 blocks a·J with a log-uniform in [1, 10³], where (I + A)^{-1}δA
    has an eigenvalue close to its norm and the tail bound q^{p+1}/(1 − q) is nearly attained.
    Each δA^(k) is Gaussian skew with ‖δA‖₂ log-uniform in [10⁻⁴, 1] (a training step with a
    learning rate in the range of Sec. 4), or, in one case in 4, in the same direction as A^(0)'s
    blocks; the projection then caps ‖(I + A)^{-1}δA‖₂ at :data:`Q_MAX`. D has a random number of −1s.

    Args:
        gen: CPU generator. h: size ≥ 1. T: number of steps K ≥ 1. device, dtype: of the case.
    """
    f64 = torch.float64
    kind = int(torch.randint(0, 3, (), generator=gen))
    J = torch.zeros(h, h, dtype=f64)
    idx = torch.arange(0, h - 1, 2)
    J[idx, idx + 1], J[idx + 1, idx] = 1.0, -1.0

    def skew(scale):
        B = torch.randn(h, h, generator=gen, dtype=f64)
        S = B - B.mT
        nrm = spectral(S)
        return S * (scale / nrm) if nrm > 0 else S

    if kind == 0:
        A0 = scornn_skew_init(h, generator=gen, dtype=f64)
    elif kind == 1:
        A0 = skew(log_uniform(gen, 1e-2, 1e2))
    else:
        A0 = log_uniform(gen, 1.0, 1e3) * J
    aligned = draw(gen) < 0.25
    steps = []
    for _ in range(T):
        # aligned: δA = s·J, s > 0, gives M = (I + aJ)^{-1}sJ an eigenvalue s(a ± i)/(1 + a²) near its norm
        # when A^(0) = aJ with a ≫ 1; the projection rescales s so that q ≤ Q_MAX
        steps.append(log_uniform(gen, 1e-2, 1e3) * J if aligned else skew(log_uniform(gen, 1e-4, 1.0)))
    dA = torch.stack(steps) if steps else torch.zeros(0, h, h, dtype=f64)
    d = scaling_diagonal(h, int(torch.randint(0, h + 1, (), generator=gen)), dtype=f64)
    case = NeumannCase(A0, dA, d)
    with torch.no_grad():
        _project_neumann(case)
    return copy_case(case, device, dtype)


def _project_neumann(case: NeumannCase) -> None:
    """Skew-symmetrise A^(0) and every δA^(k), then, step by step, scale δA^(k) down so that both the
    exact ‖(I + A^(k−1))^{-1}δA^(k)‖₂ (eq. 17–18) and the stored ‖Ã^(k−1)δA^(k)‖₂ (Alg. 1 line 7,
    order 3, the largest order checked, whose Ã drifts most) are ≤ :data:`Q_MAX`. In place."""
    case.A0.copy_((case.A0 - case.A0.mT) / 2)
    case.dA.copy_((case.dA - case.dA.mT) / 2)
    h = case.A0.shape[0]
    eye = torch.eye(h, dtype=case.A0.dtype, device=case.A0.device)
    A = case.A0.clone()
    stored = {p: torch.linalg.inv(eye + A) for p in (1, 2, 3)}
    for k in range(case.dA.shape[0]):
        exact = torch.linalg.inv(eye + A)
        q = max([float(spectral(exact @ case.dA[k]))] + [float(spectral(X @ case.dA[k])) for X in stored.values()])
        if q > Q_MAX:
            case.dA[k].mul_(Q_MAX / q)
        for p, X in stored.items():
            M = X @ case.dA[k]
            series = eye
            for _ in range(p):
                series = eye + M @ series
            stored[p] = series @ X
        A = A - case.dA[k]


def _skew_defect(c: NeumannCase) -> float:
    A0, dA = c.A0.detach(), c.dA.detach()
    return max(float((A0 + A0.mT).abs().max()), float((dA + dA.mT).abs().max()) if dA.numel() else 0.0)


def _steps_mm(*factors) -> Tensor:
    """Per-step products: each factor is a (K, h, h) tensor or a list of K (h, h) matrices; returns the stack of
    the K products. Algorithm 1 is sequential in k anyway, and 2-D products avoid batched BLAS/LAPACK calls,
    which are slow on a loaded machine (OpenMP barriers across the batch)."""
    out = []
    for mats in zip(*factors):
        prod = mats[0]
        for m in mats[1:]:
            prod = prod @ m
        out.append(prod)
    return torch.stack(out)


def _exact_inverses(A: Tensor) -> list[Tensor]:
    """(I + A^(k))^{-1} for each matrix of A (K + 1, h, h); eq. 16–18 are about the inverse itself."""
    eye = torch.eye(A.shape[-1], dtype=A.dtype, device=A.device)
    return [torch.linalg.inv(eye + a) for a in A]


def _exact_q(c: NeumannCase) -> float:
    with torch.no_grad():
        return float(spectral(_steps_mm(_exact_inverses(c.iterates())[:-1], c.dA)).max())


def _stored_q(c: NeumannCase) -> float:
    """max over k and the orders p = 1, 2, 3 of ‖Ã^(k−1)δA^(k)‖₂, Ã as Algorithm 1 stores it."""
    with torch.no_grad():
        return float(spectral(torch.cat([_steps_mm(neumann_algorithm1(c.A0, c.dA, p)[:-1], c.dA)
                                         for p in ORDERS])).max())


A_SKEW = Assumption("A^(k), δA^(k) skew-symmetric (Sec. 3.2: opt_A keeps A and its gradient skew)", lambda c: (
    _skew_defect(c) <= 64 * torch.finfo(c.A0.dtype).eps * max(1.0, float(c.A0.detach().abs().max())),
    f"max|A + Aᵀ| = {_skew_defect(c):.3g}"))
A_Q_EXACT = Assumption("‖(I + A^(k−1))^{-1}δA^(k)‖₂ < 1 for every k (eq. 17–18)", assumption_check(
    _exact_q, lambda c, v: v < 1, lambda c, v: f"max_k ‖(I + A^(k−1))^(-1) δA^(k)‖₂ = {v:.6g}"))
A_Q_STORED = Assumption("‖Ã^(k−1)δA^(k)‖₂ < 1 for every k (Alg. 1 line 7, stored Ã)", assumption_check(
    lambda c: c.neumann_condition, lambda c, v: v < 1, lambda c, v: f"max_k ‖Ã^(k−1) δA^(k)‖₂ = {v:.6g}"),
    recorded=("neumann_condition",))


def _spectral_many(*batches: Tensor) -> list[Tensor]:
    """‖·‖₂ of every matrix in several (k_i, h, h) batches with one SVD call (one batched LAPACK call is much
    cheaper than many on a loaded machine); returns one (k_i,) tensor per batch."""
    norms = spectral(torch.cat(batches))
    return list(torch.split(norms, [b.shape[0] for b in batches]))


def _measure_eq18(case: NeumannCase) -> dict[str, tuple[Tensor, Tensor]]:
    A = case.iterates()
    h = A.shape[-1]
    inverses = _exact_inverses(A)  # eq. 16–18 are stated with the exact (I + A^(k−1))^{-1}
    X = torch.stack(inverses)
    M = _steps_mm(inverses[:-1], case.dA)  # (I + A^(k−1))^{-1} δA^(k)
    allowance = _rounding(h, A[1:]) + _rounding(h, A[:-1])  # two inverses compared
    errors, series, power = [], X[:-1], X[:-1]
    for p in range(1, max(ORDERS) + 1):
        power = _steps_mm(M, power)            # M^p X
        series = series + power                # Σ_{i≤p} M^i X
        if p in ORDERS:
            errors.append(X[1:] - series)
    # the asymptotic reading of O(·): the same step shrunk to δA^(k)/16 at fixed A^(k−1) (M is linear in δA)
    small = _exact_inverses(A[:-1] - case.dA / ASYMPTOTIC_SHRINK)
    M_small = M / ASYMPTOTIC_SHRINK
    err_small = torch.stack(small) - _steps_mm(
        [torch.eye(h, dtype=A.dtype, device=A.device) + m + m @ m for m in M_small], X[:-1])
    q, norm_X, q_small, e_small, *errs = _spectral_many(M, X[:-1], M_small, err_small, *errors)
    parts = {}
    for p, err in zip(ORDERS, errs):
        tail = torch.where(q < 1, q ** (p + 1) * norm_X / (1 - q).clamp_min(1e-300), torch.full_like(q, math.inf))
        parts[f"eq. 18, order p = {p}: ‖(I + A^(k))^(-1) − Σ_(i≤p) M^i (I + A^(k−1))^(-1)‖₂ "
              f"≤ q^(p+1)‖(I + A^(k−1))^(-1)‖₂/(1 − q)"] = worst_pair(err, tail + allowance)
        parts[f"O(M^(p+1)) uniform reading, p = {p}: ‖E_p‖₂ ≤ 1 · q^(p+1) for every step"] = worst_pair(
            err, q ** (p + 1) + allowance)
    parts["O(M^(p+1)) asymptotic reading, p = 2: ‖E_2‖₂ ≤ 1 · q^3 at δA^(k)/16, A^(k−1) fixed"] = worst_pair(
        e_small, q_small ** 3 + allowance)
    with torch.no_grad():  # eigenvalues only report; their gradient is ill-conditioned at pairs ±iλ
        rho = eigvals(M).abs().amax(-1)
    parts["eq. 17–18 converge: spectral radius ρ((I + A^(k−1))^(-1)δA^(k)) < 1"] = (rho.max(), rho.new_ones(()))
    return parts


def _measure_eq18_corrected(case: NeumannCase) -> dict[str, tuple[Tensor, Tensor]]:
    A = case.iterates()
    K, h = case.dA.shape[0], A.shape[-1]
    eye = torch.eye(h, dtype=A.dtype, device=A.device)
    inverses = _exact_inverses(A)
    exact = torch.stack(inverses)
    batches = [_steps_mm(inverses[:-1], case.dA), case.dA]
    for p in ORDERS:
        X = neumann_algorithm1(case.A0, case.dA, p)  # Ã^(0), …, Ã^(K)
        U = _steps_mm(X[1:], eye - A[1:]) * case.d
        batches += [_steps_mm(X[:-1], case.dA), _steps_mm(X, eye + A) - eye, torch.stack(X[1:]) - exact[1:],
                    _steps_mm(U.mT, U) - eye]
    q_exact, norm_dA, *norms = _spectral_many(*batches)
    # every step adds one rounding of the order of an inversion to Ã, hence (k + 1) allowances at step k
    allowance = torch.arange(1, K + 2, dtype=A.dtype, device=A.device) * _rounding(h, A)
    parts = {}
    for i, p in enumerate(ORDERS):
        c, R, inverse_error, defect = norms[4 * i: 4 * i + 4]
        b = [R[0]]  # b_0 = ‖R_0‖₂, rounding only (Ã^(0) is exact)
        for k in range(K):
            b.append(sum(c[k] ** j for j in range(p + 1)) * b[-1] + c[k] ** (p + 1))
        b = torch.stack(b)
        tag = f"order p = {p}"
        # k ≥ 1 only: at k = 0 the bounds hold by the definition of b_0
        parts[f"{tag}: ‖Ã^(k)(I + A^(k)) − I‖₂ ≤ b_k"] = worst_pair(R[1:], b[1:] + allowance[1:])
        parts[f"{tag}: ‖Ã^(k) − (I + A^(k))^(-1)‖₂ ≤ b_k"] = worst_pair(inverse_error, b[1:] + allowance[1:])
        parts[f"{tag}: ‖U^(k)ᵀU^(k) − I‖₂ ≤ 2b_k + b_k²"] = worst_pair(
            defect, 2 * b[1:] + b[1:] ** 2 + 2 * allowance[1:])
        if K >= 2:  # at k = 1, Ã^(0) is the exact inverse and both sides coincide
            parts[f"{tag}: ‖Ã^(k−1)δA^(k)‖₂ ≤ ‖(I + A^(k−1))^(-1)δA^(k)‖₂ + b_(k−1)‖δA^(k)‖₂"] = worst_pair(
                c[1:], q_exact[1:] + b[1:-1] * norm_dA[1:] + allowance[1:-1])
    return parts


_NEU_QUICK = [(2, 1), (2, 3), (4, 4), (8, 6), (16, 6)]

#: Part of eq18 whose supremum the structured start reaches (all orders behave alike).
TAIL_PART = ("eq. 18, order p = 1: ‖(I + A^(k))^(-1) − Σ_(i≤p) M^i (I + A^(k−1))^(-1)‖₂ ≤ q^(p+1)‖(I + A^(k−1))^(-1)‖₂"
             "/(1 − q)")


def neumann_starts(h: int, T: int, device="cpu", dtype=torch.float64) -> list[NeumannCase]:
    """One step (T = 1) of 2×2 blocks A^(0) = aJ, δA = sJ with a = 10⁴ and s = 0.99√(1 + a²) (J = [[0, 1], [−1, 0]]
    on each block, h even; a trailing 1×1 block is 0). M = s(aI + J)/(1 + a²) is normal with ‖M‖₂ = 0.99, and
    ‖E_p‖₂ = q^{p+1}/√(1 + (a − s)²) against the tail bound q^{p+1}/(√(1 + a²)(1 − q)): the ratio
    (1 − q)√(1 + a²)/√(1 + (a(1 − q))²) → 1 as a(1 − q) → ∞ (0.9998 here). The first step of Algorithm 1 starts from
    the exact inverse, so eq18.corrected's residual bound is an equality (R_1 = −M^{p+1})."""
    if T != 1 or h < 2:
        return []
    J = torch.zeros(h, h, dtype=torch.float64)
    idx = torch.arange(0, h - 1, 2)
    J[idx, idx + 1], J[idx + 1, idx] = 1.0, -1.0
    a = 1e4
    s = 0.99 * math.sqrt(1 + a * a)
    case = NeumannCase(a * J, (s * J)[None].clone(), torch.ones(h, dtype=torch.float64))
    with torch.no_grad():
        _project_neumann(case)
    return [copy_case(case, device, dtype)]


#: K steps of Algorithm 1 (h, K), searched over A^(0) and the updates δA^(k).
_NEUMANN_STEPS = CaseSpace(case_type=NeumannCase, sample=sample_neumann_case, free=lambda c: [c.A0, c.dA],
                           project=_project_neumann, starts=neumann_starts,
                           sizes={"quick": _NEU_QUICK, "full": _NEU_QUICK + [(32, 10), (64, 10), (128, 4), (256, 2)]})


def _updates_of_a_model(view) -> list:
    """Algorithm 1 as a run executes it: an NC-GRU applies (its parameters alone hold no update δA^(k),
    so no case is built); the trainer records ‖Ã^(k−1)δA^(k)‖₂ as ``neumann_condition`` at every
    record, where the audit judges it."""
    if not isinstance(view.cell, NCGRU):
        raise NotApplicable(f"Algorithm 1 trains the Neumann-Cayley maps of an NC-GRU; the model's cell is "
                            f"{type(view.cell).__name__}")
    return []


#: Algorithm 1 as run, for the audit of NC-GRU training runs.
_ALGORITHM1_AS_RUN = replace(_NEUMANN_STEPS, from_model=_updates_of_a_model)

eq18 = Claim(
    id="nc_gru.eq18",
    source="nc_gru.md, Sec. 3.2, eq. 16–18 and the order-p error stated after them (Sec. 5.1 orders 1–3)",
    statement="If q = ‖(I + A^(k−1))^{-1}δA^(k)‖₂ < 1 then (I + A^(k))^{-1} = Σ_{i≥0} M^i (I + A^(k−1))^{-1} with "
              "M = (I + A^(k−1))^{-1}δA^(k), A^(k) = A^(k−1) − δA^(k), and the order-p truncation errs by "
              "O(M^{p+1}), explicitly ≤ q^{p+1}‖(I + A^(k−1))^{-1}‖₂/(1 − q)",
    assumptions=(A_SKEW, A_Q_EXACT),
    measure="‖(I + A^(k))^{-1} − Σ_{i≤p} M^i (I + A^(k−1))^{-1}‖₂ for p = 1, 2, 3 at every step k, exact inverses; "
            "spectral radius of M",
    bound="q^{p+1}‖(I + A^(k−1))^{-1}‖₂/(1 − q) + float allowance 16h·u·(1 + ‖A‖_F)² per inverse; ρ(M) < 1; "
          "the O(·) read with the constant 1: q^{p+1} at the step and at the step shrunk 16-fold",
    evaluate=_measure_eq18,
    cases=_NEUMANN_STEPS,
    explanation="Would mean the geometric tail bound fails; it needs only ‖M‖₂ < 1 "
                "((I − M)^{-1} = Σ M^i with ‖(I − M)^{-1}‖₂ ≤ 1/(1 − q)). Outside q < 1 the series can diverge "
                "(ρ(M) > 1), which the spectral-radius part reports.",
    notes="Decision: the sign convention is consistent, not an error: Alg. 1 line 6 A^(k) = A^(k−1) − δA^(k) is eq. 16's I + A^(k−1) − δA^(k), "
          "so δA is minus the optimizer's step; with the opposite sign the series approximates "
          "(I + A^(k−1) + δA)^{-1} and the error is first order. The 2×2-block cases a·J with large a make the bound "
          "nearly tight (M has an eigenvalue near q). For skew A^(k) the error also equals "
          "M^{p+1}(I + A^(k))^{-1} exactly, so ≤ q^{p+1} even when q ≥ 1: the condition is what makes it small. "
          "Readings of 'the error is of order O(((I + A^(k−1))^{-1}δA^(k))³)': uniform, ‖E_p‖₂ ≤ C q^{p+1} with one C "
          "for every step (C = 1 suffices, by that identity and ‖(I + A^(k))^{-1}‖₂ ≤ 1); asymptotic, the same as "
          "δA^(k) → 0 at fixed A^(k−1) (checked at δA^(k)/16). Both hold. "
          "Supremum 1 (approached): on blocks aJ, sJ the ratio is (1 − q)√(1 + a²)/√(1 + (a(1 − q))²) → 1 as "
          "a(1 − q) → ∞; the structured start (a = 10⁴, q = 0.99) reaches 0.9998.",
    supremum=Supremum(1.0, "‖E_p‖₂ ≤ ‖M‖₂^{p+1}‖(I + A^(k))^{-1}‖₂ ≤ q^{p+1}‖(I + A^(k−1))^{-1}‖₂/(1 − q); on normal "
                           "blocks aJ, sJ the ratio → 1 as a(1 − q) → ∞ (structured start)", at=(2, 1), part=TAIL_PART),
)

eq18_corrected = Claim(
    id="nc_gru.eq18.corrected",
    source="nc_gru.md, Algorithm 1 lines 2–8 with eq. 16–18, corrected by rnnaudit (stored Ã in line 7)",
    statement="Algorithm 1 as run: with M_k = Ã^(k−1)δA^(k) (stored Ã, c_k = ‖M_k‖₂) and R_k = Ã^(k)(I + A^(k)) − I, "
              "R_k = (Σ_{i≤p} M_k^i)R_{k−1} − M_k^{p+1} exactly, so ‖R_k‖₂, ‖Ã^(k) − (I + A^(k))^{-1}‖₂ ≤ b_k with "
              "b_0 = ‖R_0‖₂, b_k = (Σ_{i≤p} c_k^i)b_{k−1} + c_k^{p+1}; ‖U^(k)ᵀU^(k) − I‖₂ ≤ 2b_k + b_k²; and "
              "c_k ≤ ‖(I + A^(k−1))^{-1}δA^(k)‖₂ + b_{k−1}‖δA^(k)‖₂",
    assumptions=(A_SKEW, A_Q_STORED),
    measure="Algorithm 1 run K steps for p = 1, 2, 3 from the exact Ã^(0): residual, inverse error, orthogonality "
            "defect of U = Ã(I − A)D, and c_k, at every k",
    bound="b_k (+ float allowance (k + 1)·16h·u·(1 + ‖A‖_F)²), 2b_k + b_k², "
          "‖(I + A^(k−1))^{-1}δA^(k)‖₂ + b_{k−1}‖δA^(k)‖₂",
    evaluate=_measure_eq18_corrected,
    cases=_ALGORITHM1_AS_RUN,
    explanation="Would mean the residual recursion is wrong; it is algebra, and ‖(I + A^(k))^{-1}‖₂ ≤ 1 needs A^(k) "
                "skew.",
    notes="Decision: not counted as an error of eq. 18 or Sec. 5.3, since the paper warns (Sec. 3.2, before "
          "Algorithm 1) that the truncation errors 'can accumulate', which this claim makes exact; eq. 18 is the "
          "error of one step. "
          "Eq. 18's error O(((I + A^(k−1))^{-1}δA^(k))^{p+1}) and Sec. 5.3's monitored condition are stated with the "
          "exact inverse, but line 7 multiplies by the stored Ã^(k−1), which after the first step is itself a "
          "truncation: each step's new error is M_k^{p+1}, and the inherited residual is carried along (×Σ c_k^i), "
          "so after K steps the error is ≈ Σ_k c_k^{p+1}, not the last step's c_K^{p+1} (the paper's warning that "
          "errors 'can accumulate', made exact). The recursion needs no convergence condition; c_k < 1 is what "
          "keeps b_k small. Supremum 1, attained: at k = 1 (exact Ã^(0)) R_1 = −M_1^{p+1}, whose norm is c_1^{p+1} "
          "= b_1 for a normal M_1 (structured start).",
    supremum=Supremum(1.0, "R_1 = −M_1^{p+1} from the exact Ã^(0); ‖M^{p+1}‖₂ = ‖M‖₂^{p+1} for normal M (structured "
                           "start)", at=(2, 1)),
)
