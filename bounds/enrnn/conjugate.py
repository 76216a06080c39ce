"""enrnn.md, Sec. 3.1 (note after Proposition 3.2) and Sec. 8.2 (remark after the proof): for a real T whose
dominant eigenvalue is complex, using λ̄ with ū, v̄ in Proposition 3.2 gives the same S̄ and the same C,
hence the same ∂L/∂T. Checked with the eigenvectors the eigendecomposition returns for λ̄ (not the
conjugates of λ's), and exactly by sympy for a symbolic 2×2 T."""

from __future__ import annotations

import sympy as sp
import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, ExactVerdict
from rnnaudit.bounds.enrnn.cases import dominant_matrix, draw
from rnnaudit.bounds.enrnn.eigen import (A_EPS_POSITIVE_G, A_SEPARATED_G, A_SIMPLE_G, C_matrix, GradCase, S_matrix,
                                         dominant_index, eigen_pair, eigenvector_condition, formula_gradient)
from rnnaudit.bounds.enrnn.proposition3_2 import PROP32_RTOL

__all__ = ["sample_complex_case", "conjugate", "conjugate_parts"]


def sample_complex_case(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> GradCase:
    """T (m = max(h, 2)) whose dominant eigenvalues are a complex pair ρe^{±iθ}, θ ∈ [0.2, π − 0.2], ρ ∈ [0.5, 3],
    separated by a relative gap in [0.05, 0.6]; eigenvectors from normal to non-normal (spread 0, 0.3 or 1);
    G Gaussian; ε log-uniform in [1e-3, 1]."""
    m = max(h, 2)
    spread = [0.0, 0.3, 1.0][int(torch.randint(0, 3, (), generator=gen))]
    T0 = dominant_matrix(gen, m, 0.5 + 2.5 * draw(gen), angle=0.2 + draw(gen) * (torch.pi - 0.4),
                         gap=0.05 + 0.55 * draw(gen), spread=spread)
    G = torch.randn(m, m, generator=gen, dtype=torch.float64)
    return GradCase(T0.to(device=device, dtype=dtype), G.to(device=device, dtype=dtype), 10 ** (-3 + 3 * draw(gen)))


def _complex_dominant(c: GradCase) -> tuple[bool, str]:
    lam = torch.linalg.eigvals(c.T.detach())
    k = dominant_index(lam)
    return float(lam[k].imag) > 0, f"dominant λ = {complex(lam[k]):.6g}"


A_COMPLEX = Assumption("the dominant eigenvalue λ is complex (Im λ > 0)", _complex_dominant)


def conjugate_parts(c: GradCase, *, literal: bool = False) -> dict[str, tuple[Tensor, Tensor, Tensor]]:
    """Identities ``(max |difference|, tolerance, max |reference|)`` between the quantities built from λ (Im > 0)
    and from λ̄, each with the eigenvectors the eigendecomposition gives for it.

    ``literal`` evaluates the remark's last expression α Re(S̄) + β Im(S̄) with α, β those of λ (not of λ̄), the
    reading that makes the remark wrong; the tests use it to show the check tells the two apart.
    """
    T, G, eps = c.T.detach(), c.G.detach(), c.eps
    lam_all = torch.linalg.eigvals(T)
    k = dominant_index(lam_all)
    j = int((lam_all - lam_all[k].conj()).abs().argmin())
    lam, S = S_matrix(T, k)
    lam_bar, S_bar = S_matrix(T, j)
    C = C_matrix(lam, S).to(T.dtype)
    C_bar = (lam.real * S_bar.real + lam.imag * S_bar.imag) if literal else C_matrix(lam_bar, S_bar)
    C_bar = C_bar.to(T.dtype)
    _, u, _ = eigen_pair(T, k)
    residual = (T.to(u.dtype) @ u.conj() - lam.conj() * u.conj()).abs().max()
    kappa = eigenvector_condition(T)
    s_max = S.abs().max()
    g, g_bar = formula_gradient(T, G, eps, inner="rho", k=k), formula_gradient(T, G, eps, inner="rho", k=j)
    tol = lambda ref: PROP32_RTOL * kappa * ref  # noqa: E731
    return {
        "ū is a right eigenvector for λ̄: T ū = λ̄ ū": (residual, tol((lam.abs() * u.abs().max()).real),
                                                        (lam.abs() * u.abs().max()).real),
        "S from λ̄ (its own eigenvectors) = S̄": ((S_bar - S.conj()).abs().max(), tol(s_max), s_max),
        "C from λ̄ = C from λ": ((C_bar - C).abs().max(), tol(C.abs().max()), C.abs().max()),
        "∂L/∂T of Prop. 3.2 from λ̄ = from λ": ((g_bar - g).abs().max(), tol(g.abs().max()), g.abs().max()),
    }


def _exact() -> ExactVerdict:
    """Symbolic real 2×2 T = [[p, q], [r, s]] with eigenvalues (p + s ± iw)/2 (q fixed by the discriminant −w²):
    u = (q, λ − p)ᵀ, v̄ = (r, λ − p)ᵀ, S = v̄uᵀ/(v̄ᵀu); C from λ and from λ̄ simplify to the same matrix."""
    p, s, w = sp.symbols("p s w", real=True)
    r = sp.symbols("r", real=True, nonzero=True)
    q = -(w**2 + (p - s) ** 2) / (4 * r)

    def C_of(lam):
        u, v_bar = sp.Matrix([q, lam - p]), sp.Matrix([r, lam - p])
        S = (v_bar * u.T / (v_bar.T * u)[0]).applyfunc(sp.expand_complex)
        return sp.re(lam) * S.applyfunc(sp.re) + sp.im(lam) * S.applyfunc(sp.im)

    lam = (p + s) / 2 + sp.I * w / 2
    diff = (C_of(lam) - C_of(sp.conjugate(lam))).applyfunc(sp.simplify)
    verdict = "proved" if diff == sp.zeros(2, 2) else "violated"
    return ExactVerdict(verdict, "T = [[p, q], [r, s]] real with eigenvalues (p + s ± iw)/2: C(λ) − C(λ̄) simplifies "
                                 f"to {diff.tolist()}")


_CONJ_CASES = CaseSpace(case_type=GradCase, sample=sample_complex_case,
                        sizes={"quick": [(2, 1), (3, 1), (5, 1), (8, 1)],
                               "full": [(2, 1), (3, 1), (5, 1), (8, 1), (16, 1), (32, 1)]})

conjugate = Claim(
    id="enrnn.conjugate",
    source="enrnn.md, Sec. 3.1 (note after Proposition 3.2) and Sec. 8.2 (remark after the proof)",
    statement="If λ is complex, λ̄ is also an eigenvalue with ū and v̄ as right and left eigenvectors, "
              "v̄ūᵀ/(v̄*ū) = S̄ and α Re(S̄) + β Im(S̄) = C: selecting λ or λ̄ gives an identical derivative",
    assumptions=(A_EPS_POSITIVE_G, A_SIMPLE_G, A_SEPARATED_G, A_COMPLEX),
    measure="S, C and Prop. 3.2's ∂L/∂T (inner 1/ρ) built from λ and from λ̄, each with the eigenvectors "
            "torch.linalg.eig returns for it; the residual of Tū = λ̄ū",
    bound="PROP32_RTOL·κ₂(V)·scale",
    evaluate=conjugate_parts,
    cases=_CONJ_CASES,
    explanation="Would mean the derivative depends on which eigenvalue of the conjugate pair is used.",
    notes="Read with α, β the real and imaginary parts of the eigenvalue in use (for λ̄: α and −β); read literally "
          "with λ's β, 'α Re(S̄) + β Im(S̄)' is α Re S − β Im S ≠ C, and the remark's 'v̄ūᵀ/(v̄*ū)' should be "
          "vūᵀ/(vᵀū) "
          "(the S of λ̄ with left eigenvector v̄). Both are slips of notation; the statement holds.",
    exact=_exact,
)
