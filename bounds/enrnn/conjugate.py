"""enrnn.md, Sec. 3.1 (note after Proposition 3.2) and Sec. 8.2 (remark after the proof): for a real T whose
dominant eigenvalue is complex, using λ̄ with ū, v̄ in Proposition 3.2 gives the same S̄ and the same C,
hence the same ∂L/∂T. Checked with the eigenvectors the eigendecomposition returns for λ̄ (not the
conjugates of λ's), and exactly by sympy for a symbolic 2×2 T."""

from __future__ import annotations

import sympy as sp
import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, ExactVerdict, Reading
from rnnaudit.bounds.enrnn.cases import dominant_matrix, draw
from rnnaudit.bounds.enrnn.eigen import (A_EPS_POSITIVE_G, A_SEPARATED_G, A_SIMPLE_G, C_matrix, GradCase, S_matrix,
                                         dominant_index, eigen_pair, eigenvector_condition, formula_gradient)
from rnnaudit.bounds.enrnn.proposition3_2 import PROP32_RTOL
from rnnaudit.cells.linalg import eigvals

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
    lam = eigvals(c.T.detach())
    k = dominant_index(lam)
    return float(lam[k].imag) > 0, f"dominant λ = {complex(lam[k]):.6g}"


A_COMPLEX = Assumption("the dominant eigenvalue λ is complex (Im λ > 0)", _complex_dominant)


def conjugate_parts(c: GradCase, *, literal: bool = False) -> dict[str, tuple[Tensor, Tensor, Tensor]]:
    """Identities ``(max |difference|, tolerance, max |reference|)`` between the quantities built from λ (Im > 0)
    and from λ̄, each with the eigenvectors the eigendecomposition gives for it.

    ``literal`` evaluates the remark as printed: α Re(S̄) + β Im(S̄) with α, β those of λ (not of λ̄: the sign of β
    must be flipped), and S̄ as v̄ūᵀ/(v̄*ū) (with v̄ = y, the left eigenvector the decomposition gives: y ūᵀ/(ȳᵀū),
    where S̄ = ȳūᵀ/(ȳᵀū)). Without it, each quantity of λ̄ is built from λ̄'s own α, β and eigenvectors (the
    reading).
    """
    T, G, eps = c.T.detach(), c.G.detach(), c.eps
    lam_all = eigvals(T)
    k = dominant_index(lam_all)
    j = int((lam_all - lam_all[k].conj()).abs().argmin())
    lam, S = S_matrix(T, k)
    lam_bar, S_bar = S_matrix(T, j)
    C = C_matrix(lam, S).to(T.dtype)
    C_bar = (lam.real * S_bar.real + lam.imag * S_bar.imag) if literal else C_matrix(lam_bar, S_bar)
    C_bar = C_bar.to(T.dtype)
    _, u, y = eigen_pair(T, k)
    S_printed = torch.outer(y, u.conj()) / (y.conj() @ u.conj()) if literal else S_bar
    residual = (T.to(u.dtype) @ u.conj() - lam.conj() * u.conj()).abs().max()
    kappa = eigenvector_condition(T)
    s_max = S.abs().max()
    g, g_bar = formula_gradient(T, G, eps, inner="rho", k=k), formula_gradient(T, G, eps, inner="rho", k=j)
    tol = lambda ref: PROP32_RTOL * kappa * ref  # noqa: E731
    return {
        "ū is a right eigenvector for λ̄: T ū = λ̄ ū": (residual, tol((lam.abs() * u.abs().max()).real),
                                                        (lam.abs() * u.abs().max()).real),
        "S from λ̄ (" + ("v̄ūᵀ/(v̄*ū) as printed" if literal else "its own eigenvectors") + ") = S̄":
            ((S_printed - S.conj()).abs().max(), tol(s_max), s_max),
        "C from λ̄ = C from λ": ((C_bar - C).abs().max(), tol(C.abs().max()), C.abs().max()),
        "∂L/∂T of Prop. 3.2 from λ̄ = from λ": ((g_bar - g).abs().max(), tol(g.abs().max()), g.abs().max()),
    }


def _exact(literal: bool = False) -> ExactVerdict:
    """Symbolic real 2×2 T = [[p, q], [r, s]] with eigenvalues (p + s ± iw)/2 (q fixed by the discriminant −w²):
    u = (q, λ − p)ᵀ, v̄ = (r, λ − p)ᵀ, S = v̄uᵀ/(v̄ᵀu); C from λ and from λ̄ simplify to the same matrix. With
    ``literal`` the remark as printed: α Re(S̄) + β Im(S̄) with λ's α, β, which differs from C by −2β Im S."""
    p, s, w = sp.symbols("p s w", real=True)
    r = sp.symbols("r", real=True, nonzero=True)
    q = -(w**2 + (p - s) ** 2) / (4 * r)

    def S_of(lam):
        u, v_bar = sp.Matrix([q, lam - p]), sp.Matrix([r, lam - p])
        S = (v_bar * u.T / (v_bar.T * u)[0]).applyfunc(sp.expand_complex)
        return S

    def C_of(lam, coeffs):
        S = S_of(lam)
        return sp.re(coeffs) * S.applyfunc(sp.re) + sp.im(coeffs) * S.applyfunc(sp.im)

    lam = (p + s) / 2 + sp.I * w / 2
    lam_bar = sp.conjugate(lam)
    diff = (C_of(lam, lam) - C_of(lam_bar, lam if literal else lam_bar)).applyfunc(sp.simplify)
    verdict = "proved" if diff == sp.zeros(2, 2) else "violated"
    form = "α Re(S̄) + β Im(S̄) with λ's α, β (as printed)" if literal else "C from λ̄'s own α, β"
    return ExactVerdict(verdict, f"T = [[p, q], [r, s]] real with eigenvalues (p + s ± iw)/2: C(λ) minus {form} "
                                 f"simplifies to {diff.tolist()}")


_CONJ_CASES = CaseSpace(case_type=GradCase, sample=sample_complex_case,
                        sizes={"quick": [(2, 1), (3, 1), (5, 1), (8, 1)],
                               "full": [(2, 1), (3, 1), (5, 1), (8, 1), (16, 1), (32, 1)]})

conjugate = Claim(
    id="enrnn.conjugate",
    source="enrnn.md, Sec. 3.1 (note after Proposition 3.2) and Sec. 8.2 (remark after the proof)",
    statement="If λ is complex, λ̄ is also an eigenvalue with ū and v̄ as right and left eigenvectors, "
              "v̄ūᵀ/(v̄*ū) = S̄ and α Re(S̄) + β Im(S̄) = C (α + iβ = λ): selecting λ or λ̄ gives an identical derivative",
    assumptions=(A_EPS_POSITIVE_G, A_SIMPLE_G, A_SEPARATED_G, A_COMPLEX),
    measure="S, C and Prop. 3.2's ∂L/∂T (inner 1/ρ) built from λ and from λ̄, each with the eigenvectors "
            "torch.linalg.eig returns for it; the residual of Tū = λ̄ū; as printed, S̄ as v̄ūᵀ/(v̄*ū) and C with λ's α, β",
    bound="PROP32_RTOL·κ₂(V)·scale",
    evaluate=lambda c: conjugate_parts(c, literal=True),
    cases=_CONJ_CASES,
    explanation="Two slips of notation in the remark: with λ = α + iβ, the printed α Re(S̄) + β Im(S̄) is "
                "α Re S − β Im S ≠ C (the sign of β must be flipped: λ̄ = α − iβ), and 'v̄ūᵀ/(v̄*ū)' is not S̄ "
                "(that is vūᵀ/(vᵀū), v the left eigenvector of λ). Read with λ̄'s own α, β and eigenvectors, the "
                "statement holds (the reading), so the derivative does not depend on the choice: misprinted.",
    notes="The conclusion, an identical ∂L/∂T from λ or λ̄, holds in every reading (its part is the same in both). "
          "The exact verdicts: as printed, C(λ) minus α Re(S̄) + β Im(S̄) is −2β Im S ≠ 0 on a symbolic 2×2 T; "
          "in the reading, C(λ) = C(λ̄) exactly.",
    exact=lambda: _exact(literal=True),
    readings=(Reading(
        "α, β and the eigenvectors read as λ̄'s own",
        "If λ is complex, λ̄ = α − iβ is also an eigenvalue with right eigenvector ū and S(λ̄) = S̄, and "
        "C(λ̄) = α Re S(λ̄) − β Im S(λ̄) = C: selecting λ or λ̄ gives an identical derivative",
        "Proposition 3.2 defines C = α Re S + β Im S from the eigenvalue λ = α + iβ that is used, so for λ̄ its own "
        "α, −β; the remark's conclusion ('an identical derivative') is what this reading gives",
        conjugate_parts, exact=_exact),),
)
