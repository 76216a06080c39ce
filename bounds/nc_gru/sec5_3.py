"""nc_gru.md, Sec. 5.3, "Necessary Conditions for the Neumann Series Method": the spectral-norm condition
‖(I + A^(k−1))^{-1}δA^(k)‖₂ < 1 is called "the necessary condition". It is sufficient, not necessary: the series of
eq. 17–18 converges iff the spectral radius ρ(M) < 1, and for skew A^(k−1), δA^(k) the matrix M = (I + A)^{-1}δA is
not normal, so ‖M‖₂ can be arbitrarily large while ρ(M) < 1. (Sec. 3.2's wording, "< 1 for some operator norm", is
right: ρ(M) < 1 iff some induced norm has ‖M‖ < 1.) The corrected form states what the truncated series' error
actually is: E_p = M^{p+1}(I + A^(k))^{-1} exactly, for any M."""

from __future__ import annotations

import math

import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, ExactVerdict, worst_pair
from rnnaudit.bounds.nc_gru.cases import draw, log_uniform, spectral
from rnnaudit.bounds.nc_gru.eq18 import NeumannCase, _exact_inverses, _steps_mm
from rnnaudit.cells import scornn_skew_init

__all__ = ["sec5_3", "sec5_3_corrected", "sample_convergent_case", "RHO_MAX", "necessary_condition_start"]

#: Largest spectral radius ρ(M) the sampler and the projection allow: inside ρ < 1, where the series converges.
RHO_MAX = 0.99


def _M(case: NeumannCase) -> Tensor:
    """M_k = (I + A^(k−1))^{-1}δA^(k) for every step, (K, h, h)."""
    return _steps_mm(_exact_inverses(case.iterates())[:-1], case.dA)


def _rho(M: Tensor) -> Tensor:
    with torch.no_grad():  # eigenvalues only decide the assumption and the projection
        return torch.linalg.eigvals(M).abs().amax(-1)


def _project(case: NeumannCase) -> None:
    """Skew A^(0), δA^(k); then each δA^(k) scaled down until ρ(M_k) ≤ :data:`RHO_MAX`. In place."""
    case.A0.copy_((case.A0 - case.A0.mT) / 2)
    case.dA.copy_((case.dA - case.dA.mT) / 2)
    for k in range(case.dA.shape[0]):
        rho = float(_rho(_M(case)[k]))
        if rho > RHO_MAX:
            case.dA[k].mul_(RHO_MAX / rho)


def necessary_condition_start(h: int, a: float, dtype=torch.float64, device="cpu") -> NeumannCase:
    """h ≥ 3: A^(0) = a(e₁e₂ᵀ − e₂e₁ᵀ), δA = s(e₂e₃ᵀ − e₃e₂ᵀ) with s = 0.99√(1 + a²). Then M = (I + A)^{-1}δA has
    eigenvalues 0, ±i s/√(1 + a²) (ρ = 0.99) while ‖Me₂‖₂ = s, so ‖M‖₂/ρ(M) ≥ √(1 + a²)."""
    A0 = torch.zeros(h, h, dtype=torch.float64)
    A0[0, 1], A0[1, 0] = a, -a
    s = RHO_MAX * math.sqrt(1 + a * a)
    dA = torch.zeros(1, h, h, dtype=torch.float64)
    dA[0, 1, 2], dA[0, 2, 1] = s, -s
    return NeumannCase(A0.to(device=device, dtype=dtype), dA.to(device=device, dtype=dtype),
                       torch.ones(h, dtype=dtype, device=device))


def _starts(h: int, T: int, device="cpu", dtype=torch.float64) -> list[NeumannCase]:
    if h < 3 or T != 1:
        return []
    return [necessary_condition_start(h, a, dtype, device) for a in (3.0, 100.0)]


def sample_convergent_case(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> NeumannCase:
    """K = T steps of eq. 16–18 from a skew A^(0) (scoRNN's initialisation, or Gaussian with ‖A‖₂ log-uniform in
    [10⁻², 10³]) with Gaussian skew δA^(k) scaled so that ρ(M_k) is uniform in [0.1, :data:`RHO_MAX`]: the series
    converges at every step."""
    f64 = torch.float64
    if draw(gen) < 0.3:
        A0 = scornn_skew_init(h, generator=gen, dtype=f64)
    else:
        B = torch.randn(h, h, generator=gen, dtype=f64)
        A0 = (B - B.mT) * (log_uniform(gen, 1e-2, 1e3) / spectral(B - B.mT).clamp_min(1e-300))
    B = torch.randn(T, h, h, generator=gen, dtype=f64)
    case = NeumannCase(A0, B - B.mT, torch.ones(h, dtype=f64))
    with torch.no_grad():
        for k in range(T):
            rho = float(_rho(_M(case)[k]))
            if rho > 0:
                case.dA[k].mul_((0.1 + (RHO_MAX - 0.1) * draw(gen)) / rho)
    return NeumannCase(case.A0.to(device=device, dtype=dtype), case.dA.to(device=device, dtype=dtype),
                       case.d.to(device=device, dtype=dtype))


def _measure(case: NeumannCase) -> dict[str, tuple[Tensor, Tensor]]:
    M = _M(case)
    return {"Sec. 5.3: ‖(I + A^(k−1))^(-1)δA^(k)‖₂ < 1 necessary for the series to converge (ρ < 1)": worst_pair(
        spectral(M), torch.ones_like(M[:, 0, 0]))}


def _measure_corrected(case: NeumannCase, extra_power: int = 0) -> dict[str, tuple]:
    A = case.iterates()
    X = torch.stack(_exact_inverses(A))
    M = _steps_mm(list(X[:-1]), case.dA)
    eye = torch.eye(A.shape[-1], dtype=A.dtype, device=A.device)
    parts = {}
    for p in (1, 2, 3):
        series, power = eye.expand_as(M), eye.expand_as(M)
        for _ in range(p):
            power = power @ M
            series = series + power
        err = X[1:] - series @ X[:-1]                              # E_p, eq. 18 truncated at i = p
        formula = torch.linalg.matrix_power(M, p + 1 + extra_power) @ X[1:]  # M^{p+1}(I + A^(k))^{-1}
        gap = torch.linalg.matrix_norm(err - formula)
        ref = torch.linalg.matrix_norm(err)
        scale = (torch.linalg.matrix_norm(M) + 1) ** (p + 1)
        k = int(torch.argmax(gap / scale))
        parts[f"order p = {p}: E_p = M^(p+1)(I + A^(k))^(-1) exactly"] = (
            gap[k], 64 * A.shape[-1] * torch.finfo(A.dtype).eps * scale[k], ref[k])
    return parts


def _exact() -> ExactVerdict:
    """The construction of :func:`necessary_condition_start` at h = 3, a = 3, s = 2, in rational arithmetic."""
    import sympy

    a, s = 3, 2
    A = sympy.Matrix([[0, a, 0], [-a, 0, 0], [0, 0, 0]])
    dA = sympy.Matrix([[0, 0, 0], [0, 0, s], [0, -s, 0]])
    M = (sympy.eye(3) + A).inv() * dA
    lam = sympy.symbols("lambda")
    eig = sympy.Poly((M - lam * sympy.eye(3)).det(), lam)
    roots = sympy.roots(eig)
    rho = max(sympy.Abs(r) for r in roots)
    norm2 = sympy.sqrt(max((M.T * M).eigenvals()))
    ok = rho < 1 < norm2
    return ExactVerdict("violated" if ok else "proved",
                        f"A = [[0, 3, 0], [−3, 0, 0], [0, 0, 0]], δA = [[0, 0, 0], [0, 0, 2], [0, −2, 0]]: "
                        f"M = (I + A)^(-1)δA = {M.tolist()}, ρ(M) = {rho} ≈ {float(rho):.4f} < 1 (Σ M^i converges), "
                        f"‖M‖₂ = {norm2} > 1")


def _skew_defects(c) -> tuple[bool, str]:
    A0, dA = c.A0.detach(), c.dA.detach()
    a, d = float((A0 + A0.mT).abs().max()), float((dA + dA.mT).abs().max())
    ok = a <= 1e-12 * max(1.0, float(A0.abs().max())) and d <= 1e-12 * max(1.0, float(dA.abs().max()))
    return ok, f"max|A + Aᵀ| = {a:.3g}, max|δA + δAᵀ| = {d:.3g}"


A_SKEW_K = Assumption("A^(k), δA^(k) skew-symmetric (Sec. 3.2)", _skew_defects)
A_CONVERGES = Assumption("Σ_i M^i converges: ρ((I + A^(k−1))^{-1}δA^(k)) < 1 at every k", lambda c: (
    float(_rho(_M(c)).max()) < 1, f"max_k ρ(M_k) = {float(_rho(_M(c)).max()):.6g}"))

_SIZES = [(2, 1), (3, 1), (4, 1), (8, 2)]
_CONVERGENT = CaseSpace(case_type=NeumannCase, sample=sample_convergent_case, free=lambda c: [c.A0, c.dA],
                        project=_project, starts=_starts, sizes={"quick": _SIZES, "full": _SIZES + [(32, 4)]})

sec5_3 = Claim(
    id="nc_gru.sec5_3",
    source="nc_gru.md, Sec. 5.3 ('Necessary Conditions for the Neumann Series Method'), with Sec. 3.2 after eq. 18",
    statement="‖(I + A^(k−1))^{-1}δA^(k)‖₂ < 1 is the necessary condition for the Neumann series of eq. 17–18",
    assumptions=(A_SKEW_K, A_CONVERGES),
    measure="‖M_k‖₂, M_k = (I + A^(k−1))^{-1}δA^(k), on skew A^(k−1), δA^(k) for which the series converges "
            "(ρ(M_k) < 1)",
    bound="1",
    evaluate=_measure,
    cases=_CONVERGENT,
    explanation="The spectral-norm condition is sufficient, not necessary: Σ M^i converges iff ρ(M) < 1, and M = "
                "(I + A)^{-1}δA is not normal for h ≥ 3. With A = a(e₁e₂ᵀ − e₂e₁ᵀ), δA = s(e₂e₃ᵀ − e₃e₂ᵀ), "
                "ρ(M) = s/√(1 + a²) but ‖M‖₂ = s: at a = 3, s = 2, ρ = 0.63 < 1 < ‖M‖₂ = 2 (exact), and ‖M‖₂/ρ(M) "
                "grows like ‖A‖₂, so the ratio is unbounded. See nc_gru.sec5_3.corrected for the quantity that decides "
                "the truncated series' error.",
    notes="Reading: 'necessary condition' as printed (Sec. 5.3's title and last sentence), for the convergence of "
          "eq. 17–18. At h = 2 every skew matrix is a multiple of [[0, 1], [−1, 0]], M is normal and ‖M‖₂ = ρ(M) < 1, "
          "so the counterexamples start at h = 3. Supremum: unbounded (≥ 0.99√(1 + a²) on the structured start).",
    exact=_exact,
)

sec5_3_corrected = Claim(
    id="nc_gru.sec5_3.corrected",
    source="nc_gru.md, Sec. 3.2 and 5.3, eq. 18, corrected by rnnaudit (the error of the truncated series, exactly)",
    statement="For skew A^(k−1), δA^(k) and any M = (I + A^(k−1))^{-1}δA^(k): (I + A^(k))^{-1} − Σ_{i≤p} M^i "
              "(I + A^(k−1))^{-1} = M^{p+1}(I + A^(k))^{-1}, so the order-p error is ≤ ‖M^{p+1}‖₂; the series "
              "converges iff ρ(M) < 1 (‖M‖ < 1 in some induced norm, Sec. 3.2's wording)",
    assumptions=(A_SKEW_K, A_CONVERGES),
    measure="‖E_p − M^{p+1}(I + A^(k))^{-1}‖_F for p = 1, 2, 3, E_p the truncation error with exact inverses",
    bound="64h·u·(‖M‖_F + 1)^{p+1} (float allowance of p + 1 products); reference ‖E_p‖_F",
    evaluate=_measure_corrected,
    cases=_CONVERGENT,
    explanation="Would mean the telescoping identity (I − M)Σ_{i≤p} M^i = I − M^{p+1} fails.",
    notes="The identity follows from (I + A^(k−1))^{-1} = (I − M)(I + A^(k))^{-1} (eq. 17); it needs no condition on "
          "M at all. What a run should monitor is ‖M^{p+1}‖₂ (or ρ(M)), not ‖M‖₂.",
)
