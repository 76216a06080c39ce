"""Householder constructions of spectral_rnn.md shared by several claims, and their rounding tolerance.

Proposition 1 (App. A.1: Householder QR with a non-negative diagonal) gives the reflectors of
Theorems 1–4; the SVD with Proposition 1 on each factor gives those of Theorems 2 and 4. A matrix is
rebuilt from reflectors by ``torch.linalg.householder_product`` (:func:`reflector_matrix`), by the
reflector recurrence of Algorithm 1 (:func:`recurrence_matrix`), and, as a reference independent of
both, by dense products of I − 2ûûᵀ/ûᵀû (:func:`dense_w`, used by the gradient and flop checks).
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from rnnaudit.bounds.core import assumption_tolerances
from rnnaudit.bounds.spectral_rnn.cases import MatrixCase
from rnnaudit.cells import householder_forward, reflect, reflector_product
from rnnaudit.cells._validate import require_finite

__all__ = ["U64", "RECON_C", "proposition1_reflectors", "svd_reflectors", "reflector_matrix", "recurrence_matrix",
           "recon_tol", "defect_F", "defect_allowance", "measure_svd_reconstruction", "dense_H", "dense_w"]

#: float64 unit roundoff u = 2⁻⁵³. Every identity tolerance of these checks is a multiple of it: they
#: are specified in float64 (assumption "float64 arithmetic"), as the conventions ask.
U64 = torch.finfo(torch.float64).eps / 2
#: Reconstruction tolerance RECON_C · n² · u · ‖A‖_F. Proposition 1 is Householder QR, backward
#: stable with ‖ΔA‖_F ≤ γ̃_{n²}‖A‖_F (Higham 2002, Thm. 19.4; γ̃_k = c k u with c a small
#: constant), rebuilding applies n reflectors again (Lemma 19.3, same order) and the SVD of
#: Theorems 2/4 adds p(n) u ‖A‖ with p linear (LAPACK gesdd): 30 n² u covers all three with c ≤ 10
#: each. Measured errors are ≈ √n u, far inside.
RECON_C = 30.0


def proposition1_reflectors(B: Tensor, *, stable: bool = True) -> tuple[Tensor, Tensor]:
    """Householder QR with a non-negative diagonal, as constructed in the proof of Proposition 1.

    B = H_n(u_n) … H_1(u_1) R with u_k ∈ ℝ^k, R upper triangular with diagonal ≥ 0. Column j of B's
    current trailing block x gives u_{n−j} = x − ‖x‖e_1 (u = 0, i.e. H = I, when x = ‖x‖e_1), whose
    first entry is evaluated as −‖x_{2:}‖²/(x_1 + ‖x‖) when x_1 > 0 (the same number without the
    cancellation of x_1 − ‖x‖; Golub & Van Loan Alg. 5.1.1). ``torch.geqrf`` cannot be used: LAPACK
    picks the reflector sign that makes R's diagonal −sign(x_1)‖x‖, and the sign-fixing diagonal is
    not of the form H_n … H_1.

    Args:
        B: (n, n), n ≥ 1, any float dtype/device.
        stable: evaluate u's first entry without cancellation (default); False computes x_1 − ‖x‖ literally,
            which loses up to all its digits when x ≈ ‖x‖e_1 (reconstruction errors up to ≈ √u instead of ≈ u
            for near-identity A).

    Returns:
        (U_hat, R): U_hat (n, n) zero-padded reflectors in the Algorithm 1 layout of
        ``cells.spectral`` (column j is û_{n−j}, so ``reflector_product(U_hat)`` = H_n … H_1), and R (n, n).

    Raises:
        ValueError: B not square 2-D, empty, or not finite.

    Source: spectral_rnn.md, App. A.1 (Proposition 1), used by Theorems 1–4.
    """
    if not isinstance(B, Tensor) or B.dim() != 2 or B.shape[0] != B.shape[1] or B.shape[0] < 1:
        shape = tuple(B.shape) if isinstance(B, Tensor) else type(B).__name__
        raise ValueError(f"B must be a non-empty square matrix (n, n), got {shape}")
    require_finite("B", B)
    n = B.shape[0]
    R = B.detach().clone()
    U_hat = torch.zeros_like(R)
    for j in range(n):
        x = R[j:, j]
        norm = torch.linalg.vector_norm(x)
        tail_sq = (x[1:] * x[1:]).sum()
        positive = (x[0] > 0) & stable
        first = torch.where(positive, -tail_sq / torch.where(positive, x[0] + norm, torch.ones_like(norm)),
                            x[0] - norm)
        u = torch.cat([first[None], x[1:]])
        U_hat[j:, j] = u
        R[j:, :] = reflect(R[j:, :].mT, u).mT
    return U_hat, R


def svd_reflectors(A: Tensor, m1: int | None = None, m2: int | None = None) -> tuple[Tensor, Tensor, Tensor]:
    """Householder vectors and σ with A = U Σ̂ Vᵀ in the form of eq. 3 / eq. 15 (Theorems 2 and 4).

    A = U Σ̂ Vᵀ by ``torch.linalg.svd``; U and V are factored by :func:`proposition1_reflectors`
    (U = H_p … H_1, V = H_q … H_1); the first m1 columns of U's reflectors (û_p, …, û_{p−m1+1}) and the
    first m2 of V's are kept. With m1 = p, m2 = q this is the proof of Theorem 2; with m1 = m2 = min(p, q)
    that of Theorem 4 (Lemma 1: the first min(p, q) columns of V and U need only that many reflectors).

    Args:
        A: (p, q) float matrix. m1 ∈ [0, p], m2 ∈ [0, q]: reflectors kept (default all).

    Returns:
        (U_hat (p, m1), σ (min(p, q),) descending, V_hat (q, m2)), for ``householder_forward``.

    Raises:
        ValueError: A not 2-D/empty/not finite, m1 or m2 out of range.

    Source: spectral_rnn.md, App. A.3 (Theorem 2), App. A.5 (Theorem 4).
    """
    if not isinstance(A, Tensor) or A.dim() != 2 or 0 in A.shape:
        raise ValueError(f"A must be a non-empty matrix (p, q), got "
                         f"{tuple(A.shape) if isinstance(A, Tensor) else type(A).__name__}")
    require_finite("A", A)
    p, q = A.shape
    m1 = p if m1 is None else m1
    m2 = q if m2 is None else m2
    if not 0 <= m1 <= p:
        raise ValueError(f"m1 must lie in [0, {p}], got {m1}")
    if not 0 <= m2 <= q:
        raise ValueError(f"m2 must lie in [0, {q}], got {m2}")
    U, S, Vh = torch.linalg.svd(A.detach())
    a, _ = proposition1_reflectors(U)
    b, _ = proposition1_reflectors(Vh.mT)
    return a[:, :m1], S, b[:, :m2]



def reflector_matrix(U_hat: Tensor, sigma: Tensor | None, V_hat: Tensor | None, p: int, q: int) -> Tensor:
    """Dense U Σ̂ Vᵀ (p, q) from padded reflectors via householder_product (eq. 3 / eq. 15)."""
    U = reflector_product(U_hat)
    V = reflector_product(V_hat) if V_hat is not None else torch.eye(q, dtype=U.dtype, device=U.device)
    r = min(p, q)
    if sigma is None:
        return U @ V.mT
    return (U[:, :r] * sigma) @ V[:, :r].mT


def recurrence_matrix(U_hat: Tensor, sigma: Tensor | None, V_hat: Tensor | None, q: int) -> Tensor:
    """The same matrix applied by the reflector recurrence of Algorithm 1 (eq. 8) to the basis of ℝ^q."""
    eye = torch.eye(q, dtype=U_hat.dtype, device=U_hat.device)
    return householder_forward(eye, U_hat, sigma, V_hat)[0].mT


def recon_tol(A: Tensor) -> Tensor:
    """RECON_C · max(p, q)² · u · ‖A‖_F for a (p, q) A, 0-d: the rounding of factoring and rebuilding A."""
    n = max(A.shape)
    return RECON_C * n * n * U64 * torch.linalg.matrix_norm(A)


def defect_F(A: Tensor) -> Tensor:
    """‖AᵀA − I‖_F, 0-d."""
    return torch.linalg.matrix_norm(A.mT @ A - torch.eye(A.shape[1], dtype=A.dtype, device=A.device))


def defect_allowance(A: Tensor) -> Tensor:
    """2‖AᵀA − I‖_F, capped at the defect the "A ∈ O(n)" predicate admits (√n · its tolerance): a nearly
    orthogonal A moves R off I by at most its defect (RᵀR = AᵀA), a non-orthogonal A gets no allowance."""
    return 2 * torch.clamp(defect_F(A), max=math.sqrt(A.shape[1]) * assumption_tolerances().orthogonality)


def measure_svd_reconstruction(case: MatrixCase) -> dict[str, tuple[Tensor, Tensor, Tensor]]:
    """‖A − U Σ̂ Vᵀ‖_F with m1, m2 SVD reflectors (:func:`svd_reflectors`), rebuilt both ways, against
    :func:`recon_tol`, as identity parts (error, tolerance, ‖A‖_F): the measurement of Theorem 2, and of
    Theorem 4 before its Lemma 1 part."""
    A = case.A.detach()
    p, q = A.shape
    U_hat, sigma, V_hat = svd_reflectors(A, case.m1, case.m2)
    tol = recon_tol(A)
    dense = reflector_matrix(U_hat, sigma, V_hat, p, q)
    rec = recurrence_matrix(U_hat, sigma, V_hat, q)
    norm_A = torch.linalg.matrix_norm(A)  # the truth's size: the report's relative error is error/‖A‖_F
    return {"A = M(u, v, σ) rebuilt by householder_product": (torch.linalg.matrix_norm(A - dense), tol, norm_A),
            "A = M(u, v, σ) applied by the reflector recurrence (Algorithm 1)": (
                torch.linalg.matrix_norm(A - rec), tol, norm_A)}


def dense_H(u_hat: Tensor) -> Tensor:
    """I − 2ûûᵀ/ûᵀû (eq. 8) as a dense matrix, I for û = 0 (eq. 1)."""
    eye = torch.eye(u_hat.shape[0], dtype=u_hat.dtype, device=u_hat.device)
    q = u_hat @ u_hat
    return eye - 2 * torch.outer(u_hat, u_hat) / q if bool(q > 0) else eye


def dense_w(U_hat: Tensor, sigma: Tensor | None, V_hat: Tensor | None) -> Tensor:
    """W = H_n(u_n) … H_{k1}(u_{k1}) diag(σ) H_{k2}(v_{k2}) … H_n(v_n) (eq. 6) by dense products of
    :func:`dense_H`: a reference independent of both Hprod and ``torch.linalg.householder_product``."""
    n = U_hat.shape[0]
    W = torch.eye(n, dtype=U_hat.dtype, device=U_hat.device)
    for j in range(U_hat.shape[1]):
        W = W @ dense_H(U_hat[:, j])
    if sigma is not None:
        W = W * sigma
    if V_hat is not None:
        V = torch.eye(n, dtype=U_hat.dtype, device=U_hat.device)
        for j in range(V_hat.shape[1]):
            V = V @ dense_H(V_hat[:, j])
        W = W @ V.mT
    return W
