"""The eigenvalue calculus of enrnn.md Proposition 3.2 and its proof (Sec. 8.2), shared by the claims
that check its steps: the gradient cases (T, ∂L/∂W, ε), the dominant eigenvalue λ = α + iβ with its
right and left eigenvectors, S = v̄uᵀ/(v*u), C = α Re S + β Im S, and the autograd truths.

A case is :class:`GradCase`: the loss is L(W) = ⟨G, W⟩ with W = T/(ρ(T) + ε). Proposition 3.2 is
stated for "some differentiable loss L(W)" and its formula depends on L only through ∂L/∂W, which for
any loss at any point is the G of this linear one; so the linear loss loses no generality for the
first-order statements checked here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption
from rnnaudit.bounds.enrnn.cases import dominant_matrix, draw, random_angle
from rnnaudit.cells.linalg import eig, eigvals

__all__ = ["GradCase", "sample_grad_case", "eigen_pair", "S_matrix", "C_matrix", "normalised_loss",
           "autograd_gradient", "eigenvector_condition", "A_EPS_POSITIVE_G", "A_SIMPLE_G", "A_SEPARATED_G",
           "SEPARATION", "dominant_index", "formula_gradient"]

#: Relative modulus gap below which two eigenvalues count as tied ("λ the only eigenvalue of modulus
#: ρ(T) besides λ̄" made quantitative; the gradient cases keep ≥ 1 % so that finite differences with
#: steps ≤ 1e-6 never cross a change of dominant eigenvalue).
SEPARATION = 1e-2


@dataclass
class GradCase:
    """A point of Proposition 3.2: T (m, m), ∂L/∂W = G (m, m) of the loss L(W) = ⟨G, W⟩, and ε ≥ 0, with
    the normalisation active: W = T/(ρ(T) + ε).

    Attributes:
        T: (m, m) float. G: (m, m) float, same dtype. eps: ε.
    """

    T: Tensor
    G: Tensor
    eps: float

    def size(self) -> tuple[int, int]:
        """(m, 1): no sequence is involved."""
        return self.T.shape[0], 1


def sample_grad_case(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64, *,
                     eps_range: tuple[float, float] = (1e-3, 1.0)) -> GradCase:
    """T with a separated dominant eigenvalue (real, or a complex pair) of modulus ρ ∈ [0.5, 3] and
    relative gap in [0.05, 0.6], eigenvectors from normal to strongly non-normal (spread 0, 0.3, 1 or 3);
    G Gaussian; ε log-uniform in ``eps_range``. m = h."""
    spread = [0.0, 0.3, 1.0, 3.0][int(torch.randint(0, 4, (), generator=gen))]
    T0 = dominant_matrix(gen, h, 0.5 + 2.5 * draw(gen), angle=random_angle(gen), gap=0.05 + 0.55 * draw(gen),
                         spread=spread)
    lo, hi = (math.log10(e) for e in eps_range)
    eps = 10 ** (lo + (hi - lo) * draw(gen))
    G = torch.randn(h, h, generator=gen, dtype=torch.float64)
    return GradCase(T0.to(device=device, dtype=dtype), G.to(device=device, dtype=dtype), eps)


def dominant_index(lam: Tensor) -> int:
    """Index of the eigenvalue of largest modulus, the one with Im ≥ 0 of a conjugate pair (ties between
    non-conjugate eigenvalues go to the first in torch's order)."""
    mod = lam.abs()
    rho = mod.max()
    near = (mod >= rho * (1 - 1e-12)) & (lam.imag >= 0)
    return int(torch.nonzero(near)[0]) if bool(near.any()) else int(mod.argmax())


def eigen_pair(T: Tensor, k: int | None = None) -> tuple[Tensor, Tensor, Tensor]:
    """(λ_k, u, y) of T = VΛV⁻¹: u = column k of V (Tu = λu), yᵀ = row k of V⁻¹ (yᵀT = λyᵀ, yᵀu = 1), so the
    paper's left eigenvector is v = ȳ up to scale and S = v̄uᵀ/(v*u) = yuᵀ. k defaults to
    :func:`dominant_index`. Complex128 for float64 T."""
    lam, V = eig(T.detach())
    k = dominant_index(lam) if k is None else k
    e = torch.zeros(T.shape[0], dtype=V.dtype, device=V.device)
    e[k] = 1
    y = torch.linalg.solve(V.mT, e)
    return lam[k], V[:, k], y


def S_matrix(T: Tensor, k: int | None = None) -> tuple[Tensor, Tensor]:
    """(λ, S) with S = v̄uᵀ/(v*u) = ∂λ/∂T (enrnn.md Sec. 8.2), for the eigenvalue of index k."""
    lam, u, y = eigen_pair(T, k)
    return lam, torch.outer(y, u)


def C_matrix(lam: Tensor, S: Tensor) -> Tensor:
    """C = α Re S + β Im S for λ = α + iβ (Proposition 3.2), real (m, m)."""
    return lam.real * S.real + lam.imag * S.imag


def formula_gradient(T: Tensor, G: Tensor, eps: float, *, inner: str, outer: str = "rho_tilde",
                     k: int | None = None) -> Tensor:
    """(1/outer)[G − (1/inner) 1ᵀ(G ⊙ W)1 C] with W = T/(ρ + ε) and ``inner``/``outer`` each ``"rho"`` (ρ(T))
    or ``"rho_tilde"`` (ρ + ε): the printed Proposition 3.2 is inner = outer = ρ̃, the chain rule gives
    inner = ρ, outer = ρ̃. Computed from the eigenvalue of index k (dominant by default) without the
    separation check of :func:`rnnaudit.cells.prop32_gradient`, so tied cases can be measured."""
    lam, S = S_matrix(T, k)
    C = C_matrix(lam, S).to(T.dtype)
    rho = lam.abs().to(T.dtype)
    rho_t = rho + eps
    factor = {"rho": rho, "rho_tilde": rho_t}
    W = T / rho_t
    return (G - (G * W).sum() / factor[inner] * C) / factor[outer]


def normalised_loss(T: Tensor, G: Tensor, eps: float) -> Tensor:
    """L = ⟨G, T/(ρ(T) + ε)⟩ with ρ(T) = max |eigvals(T)| (differentiable in T where the dominant
    modulus is attained by one eigenvalue or one conjugate pair), 0-d."""
    return (G * (T / (eigvals(T).abs().max() + eps))).sum()


def autograd_gradient(T: Tensor, G: Tensor, eps: float) -> Tensor:
    """∂L/∂T of :func:`normalised_loss` by autograd through ``torch.linalg.eigvals``, (m, m); differentiable in G
    when G requires grad (L is linear in G)."""
    T = T.detach().clone().requires_grad_(True)
    (g,) = torch.autograd.grad(normalised_loss(T, G, eps), T, create_graph=G.requires_grad)
    return g


def eigenvector_condition(T: Tensor) -> Tensor:
    """κ₂(V) of the eigenvector matrix (unit columns) torch returns, 0-d real; 1 for m = 1."""
    if T.shape[0] == 1:
        return T.new_ones(())
    return torch.linalg.cond(eig(T.detach())[1]).real.to(T.dtype)


def _moduli_gap(c: GradCase) -> tuple[float, float]:
    """(ρ(T), largest modulus of the eigenvalues other than the dominant λ and λ̄, relative to ρ)."""
    lam = eigvals(c.T.detach())
    k = dominant_index(lam)
    rho = float(lam[k].abs())
    others = torch.ones(lam.shape[0], dtype=torch.bool, device=lam.device)
    others[k] = False
    if float(lam[k].imag) != 0:
        others[int((lam - lam[k].conj()).abs().argmin())] = False
    second = float(lam[others].abs().max()) if bool(others.any()) else 0.0
    return rho, second / rho if rho > 0 else math.inf


def _simple(c: GradCase) -> tuple[bool, str]:
    lam = eigvals(c.T.detach())
    k = dominant_index(lam)
    rho = float(lam[k].abs())
    dist = (lam - lam[k]).abs()
    dist[k] = math.inf
    gap = float(dist.min()) / rho if lam.shape[0] > 1 and rho > 0 else math.inf
    return rho > 0 and gap > 1e-6, f"ρ(T) = {rho:.6g}, min |λ − μ|/ρ over other eigenvalues μ = {gap:.3g}"


def _separated(c: GradCase) -> tuple[bool, str]:
    rho, second = _moduli_gap(c)
    return second <= 1 - SEPARATION, f"largest other modulus / ρ(T) = {second:.6g}"


A_EPS_POSITIVE_G = Assumption("ε > 0 (Proposition 3.2)", lambda c: (c.eps > 0, f"ε = {c.eps:g}"))
A_SIMPLE_G = Assumption("λ a simple eigenvalue of T with |λ| = ρ(T) (Proposition 3.2)", _simple)
A_SEPARATED_G = Assumption(f"λ and λ̄ the only eigenvalues of modulus ρ(T) (separated by {SEPARATION:g} in "
                           f"modulus; not in Proposition 3.2, see enrnn.eq7)", _separated)
