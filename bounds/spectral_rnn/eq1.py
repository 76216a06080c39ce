"""spectral_rnn.md, Sec. 3 eq. 1 and the sentences after it, with eq. 8 and Algorithm 2 (Hprod): the
Householder reflector H_k^n(u) is symmetric, H² = I, has eigenvalues 1 (n − 1 times) and −1 when u ≠ 0, does
not depend on ‖u‖, and H h = h − 2(ûᵀh/ûᵀû)û.

Eq. 1 as transcribed reads "I_{k−2} uuᵀ/‖u‖²"; the reflector is I_k − 2uuᵀ/‖u‖² (eq. 8, Algorithm 2): the
only reading with H² = I, which the next sentence asserts. The projector reading I_k − uuᵀ/‖u‖² is the
"deliberately wrong formula" of this claim's power test.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, ExactVerdict
from rnnaudit.bounds.spectral_rnn.cases import A_F64, F64, MATRIX_SIZES, draw, gauss, randint, to_case
from rnnaudit.bounds.spectral_rnn.reflectors import RECON_C, U64
from rnnaudit.bounds.spectral_rnn.table1 import sparse_hprod
from rnnaudit.cells import reflect, reflector_product

__all__ = ["eq1", "ReflectorCase", "householder", "exact_eq1"]


@dataclass
class ReflectorCase:
    """One reflector H_k^n(u) of eq. 1 with a vector to reflect.

    Attributes:
        u: (k,) Householder vector (0 allowed: eq. 1's "otherwise" branch). n: the matrix size, n ≥ k.
        h: (n,) a vector for eq. 8 / Algorithm 2. scale: c > 0 for the invariance H(cu) = H(u).
    """

    u: Tensor
    n: int
    h: Tensor
    scale: float

    def size(self) -> tuple[int, int]:
        """(n, 1)."""
        return self.n, 1


def householder(u: Tensor, n: int) -> Tensor:
    """H_k^n(u) = diag(I_{n−k}, I_k − 2uuᵀ/‖u‖²), I_n for u = 0 (eq. 1, with eq. 8's "−2"), as a dense (n, n)."""
    k = u.shape[0]
    out = torch.eye(n, dtype=u.dtype, device=u.device)
    q = u @ u
    if bool(q > 0):
        out[n - k:, n - k:] = out[n - k:, n - k:] - 2 * torch.outer(u, u) / q
    return out


def _measure(case: ReflectorCase) -> dict[str, tuple[Tensor, Tensor, Tensor]]:
    u, n, h = case.u, case.n, case.h
    k = u.shape[0]
    H = householder(u, n)
    eye = torch.eye(n, dtype=u.dtype, device=u.device)
    sq_n = torch.linalg.matrix_norm(eye)
    # entries of H are O(1) and each is a few roundings away from exact: 30 n u √n covers ‖·‖_F of the error
    tol = RECON_C * n * U64 * sq_n
    expected = torch.ones(n, dtype=u.dtype, device=u.device)
    if bool((u != 0).any()):
        expected[0] = -1.0
    u_hat = torch.cat([u.new_zeros(n - k), u])
    Hh = H @ h
    h_tol = RECON_C * n * U64 * (torch.linalg.vector_norm(h) + torch.linalg.vector_norm(Hh))
    # (error, tolerance, ‖truth‖): the report's relative error is error/‖truth‖
    return {
        "H = Hᵀ (symmetric)": (torch.linalg.matrix_norm(H - H.mT), tol, torch.linalg.matrix_norm(H)),
        "H² = I (orthogonal)": (torch.linalg.matrix_norm(H @ H - eye), tol, sq_n),
        "eigenvalues: 1 (n − 1 times) and −1 for u ≠ 0, all 1 for u = 0": (
            torch.linalg.vector_norm(torch.linalg.eigvalsh(H) - expected), tol, sq_n),
        "H(cu) = H(u) (invariant to ‖u‖)": (torch.linalg.matrix_norm(householder(case.scale * u, n) - H), tol, sq_n),
        "H_k^n(u) = householder_product of the zero-padded û (eq. 1's block form)": (
            torch.linalg.matrix_norm(reflector_product(u_hat[:, None]) - H), tol, sq_n),
        "eq. 8 / Algorithm 2: h − 2(ûᵀh/ûᵀû)û = H h (padded û, cells.reflect)": (
            torch.linalg.vector_norm(reflect(h, u_hat) - Hh), h_tol, torch.linalg.vector_norm(Hh)),
        "Algorithm 2 on u's support only (Table 1's Hprod)": (
            torch.linalg.vector_norm(sparse_hprod(h, u)[0] - Hh) if bool((u != 0).any()) else
            torch.zeros((), dtype=u.dtype), h_tol, torch.linalg.vector_norm(Hh)),
    }


def _sample(gen, h, T, device, dtype) -> ReflectorCase:
    """k uniform in [1, n] (k = n in a third of the cases); u Gaussian, 0 (eq. 1's otherwise branch), a multiple
    of e_1, or of scale 10^{±100}; c log-uniform in [1e-3, 1e3], negative in half the cases."""
    n = h
    k = n if draw(gen) < 1 / 3 else randint(gen, 1, n)
    kind = randint(gen, 0, 4)
    u = gauss(gen, k)
    if kind == 1:
        u = torch.zeros(k, dtype=F64)
    elif kind == 2:
        u = torch.zeros(k, dtype=F64)
        u[0] = gauss(gen, 1)[0]
    elif kind == 3:
        u = u * 10.0 ** (100 if draw(gen) < 0.5 else -100)
    c = 10 ** (-3 + 6 * draw(gen)) * (1 if draw(gen) < 0.5 else -1)
    return ReflectorCase(to_case(u, device, dtype), n, to_case(gauss(gen, n), device, dtype), c)


def exact_eq1() -> ExactVerdict:
    """sympy, for a symbolic u = (a, b, c) ≠ 0 and t ≠ 0: H = I − 2uuᵀ/uᵀu has Hᵀ = H, H² = I, H u = −u,
    H w = w for w ⟂ u, det H = −1, trace H = k − 2, and H(tu) = H(u). The same algebra holds for every k
    (P = uuᵀ/uᵀu is a symmetric idempotent, H = I − 2P, H² = I − 4P + 4P² = I)."""
    import sympy as sp

    a, b, c, t = sp.symbols("a b c t", real=True, nonzero=True)
    u = sp.Matrix([a, b, c])
    H = sp.eye(3) - 2 * u * u.T / (u.T * u)[0]
    w1, w2 = sp.Matrix([b, -a, 0]), sp.Matrix([c, 0, -a])  # two vectors ⟂ u spanning u^⟂ (a ≠ 0)
    checks = {"Hᵀ = H": H.T - H, "H² = I": H * H - sp.eye(3), "Hu = −u": H * u + u, "Hw = w (w ⟂ u)": H * w1 - w1,
              "Hw' = w' (w' ⟂ u)": H * w2 - w2,
              "H(tu) = H(u)": sp.eye(3) - 2 * (t * u) * (t * u).T / ((t * u).T * (t * u))[0] - H}
    zero = lambda M: all(sp.cancel(e) == 0 for e in M)  # noqa: E731  (rational functions: cancel decides = 0)
    for name, expr in checks.items():
        if not zero(expr):
            return ExactVerdict("violated", f"{name} fails: {expr.applyfunc(sp.cancel)}")
    det, tr = sp.cancel(H.det(method="berkowitz")), sp.cancel(H.trace())
    if det != -1 or tr != 1:
        return ExactVerdict("violated", f"det H = {det}, trace H = {tr} (expected −1 and k − 2 = 1)")
    return ExactVerdict("proved", "u = (a, b, c) ≠ 0 symbolic: Hᵀ = H, H² = I, Hu = −u, H = I on u^⟂ (so eigenvalues "
                                  "1, 1, −1), det H = −1, trace H = 1, H(tu) = H(u); for any k, H = I − 2P with P "
                                  "the orthogonal projector on span(u), and diag(I_{n−k}, H) inherits every property")


A_K_LE_N = Assumption("u ∈ ℝ^k, k ≤ n (eq. 1)", lambda c: (1 <= c.u.shape[0] <= c.n, f"k = {c.u.shape[0]}, n = {c.n}"))
A_SCALE = Assumption("c ≠ 0 (the norm invariance rescales u by c)", lambda c: (c.scale != 0, f"c = {c.scale}"))

_REFLECTORS = CaseSpace(case_type=ReflectorCase, sample=_sample, sizes=MATRIX_SIZES)

eq1 = Claim(
    id="spectral_rnn.eq1",
    source="spectral_rnn.md, Sec. 3 eq. 1 and the two sentences after it; eq. 8; Appendix B Algorithm 2",
    statement="H_k^n(u) = diag(I_{n−k}, I_k − 2uuᵀ/‖u‖²) (I_n for u = 0) is symmetric and orthogonal (H² = I); for "
              "u ≠ 0 it has n − 1 eigenvalues 1 and one −1; it is invariant to ‖u‖; and H h = h − 2(ûᵀh/ûᵀû)û "
              "(eq. 8), which Hprod (Algorithm 2) computes",
    assumptions=(A_K_LE_N, A_SCALE, A_F64),
    measure="Frobenius errors of the dense H (symmetry, H² − I, sorted eigenvalues, H(cu) − H(u), the padded "
            "householder_product), and of Hprod (cells.reflect, and on u's support as Table 1 counts it) against H h",
    bound="30 n u √n (matrix parts) and 30 n u (‖h‖ + ‖Hh‖) (eq. 8), u = 2⁻⁵³",
    evaluate=_measure,
    cases=_REFLECTORS,
    explanation="Would mean the reflector of eq. 1/eq. 8 is not an orthogonal involution, or Hprod is not H h.",
    notes="Sec. 3's 'H² = I' is orthogonality because H is symmetric (HᵀH = H²). Decision: the markdown copy's eq. 1, "
          "'I_{k−2} uuᵀ/‖u‖²', is read I_k − 2uuᵀ/‖u‖² (eq. 8, Algorithm 2) and not counted as the paper's error: "
          "the conversion's subscript swallowed '− 2', and the paper's own eq. 8 and Algorithm 2 print the "
          "reflector. The projector reading I_k − uuᵀ/‖u‖² has H² = H ≠ I and eigenvalue 0, which the sentence "
          "after eq. 1 excludes (the power test feeds it).",
    exact=exact_eq1,
)
