"""The cases of spectral_rnn.md's claims and what several claims share to draw and check them.

Case classes: :class:`MatrixCase` (Theorems 1–4), :class:`CountCase` (parameter and flop counts),
:class:`SpectralCellCase` (eq. 7, eq. 12–13) and :class:`RNNCase` (the RNN of eq. 17 with a
perturbation: eq. 24, Lemma 3); Theorem 5's case lives with its claim. All are saved and reloaded by
the generic rule of :mod:`rnnaudit.bounds.cases`.

Also shared: the float64 assumption (every identity tolerance is a multiple of float64's unit
roundoff), the random matrices the samplers draw, the "A ∈ O(n)" predicate, the hidden states of
eq. 17 (:func:`rnn_states`) with Assumption 1's predicates and the RNN sampler.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, assumption_tolerances
from rnnaudit.cells import SpectralRNN, orthogonality_defect, unpack_reflectors

__all__ = ["F64", "GRAD_RTOL", "t64", "gauss", "draw", "randint", "haar", "sample_orthogonal",
           "sample_matrix", "random_reflectors", "to_case", "MatrixCase", "CountCase", "SpectralCellCase",
           "A_F64", "MATRIX_SIZES", "A_ORTH", "A_M_RANGE"]

F64 = torch.float64
#: Gradient identities: relative error ≤ 1e-10 against (‖autograd‖ + S), S the size of the terms
#: of eq. 13 before cancellation (8 Σ_b ‖h_b‖‖g_b‖ s/‖û‖, s = max(1, max|σ|)). Rounding through
#: m1 + m2 ≤ 2n reflectors of O(n) flops each is ≤ 10 · 2n · n · u ≈ 2e-12 at n = 32, 5e-12 at n = 64.
GRAD_RTOL = 1e-10


def t64(x: float, like: Tensor | None = None) -> Tensor:
    """A 0-d float64 tensor (on ``like``'s device when given)."""
    return torch.tensor(float(x), dtype=F64, device=None if like is None else like.device)


def gauss(gen, *shape) -> Tensor:
    """Standard normal float64 of ``shape`` from ``gen``."""
    return torch.randn(*shape, generator=gen, dtype=F64)


def draw(gen) -> float:
    """Uniform in [0, 1) from ``gen``."""
    return float(torch.rand((), generator=gen, dtype=F64))


def randint(gen, low: int, high: int) -> int:
    """Uniform integer in [low, high] (inclusive)."""
    return int(torch.randint(low, high + 1, (), generator=gen))


def haar(gen, n: int) -> Tensor:
    """Haar-distributed orthogonal matrix (QR of a Gaussian with R's diagonal made positive)."""
    Q, R = torch.linalg.qr(gauss(gen, n, n))
    d = torch.sign(torch.diagonal(R))
    return Q * torch.where(d == 0, torch.ones_like(d), d)


def sample_orthogonal(gen, n: int) -> Tensor:
    """Haar matrices and edge cases: ±I and signed diagonals, signed permutations, near-identity rotations
    exp(εS) (ε down to 1e-9: Prop. 1's columns are then almost e_1), a first column exactly ±e_1 (the u = 0
    branch of Prop. 1 and its sign flip), and products of a few reflectors."""
    kind = randint(gen, 0, 6)
    if kind == 2:
        return torch.diag(torch.where(torch.rand(n, generator=gen) < 0.5, -1.0, 1.0).to(F64))
    if kind == 3:
        signs = torch.where(torch.rand(n, generator=gen) < 0.5, -1.0, 1.0).to(F64)
        return torch.eye(n, dtype=F64)[torch.randperm(n, generator=gen)] * signs
    if kind == 4:
        S = gauss(gen, n, n)
        eps = 10 ** (-9 + 8 * draw(gen))
        return torch.linalg.matrix_exp(eps * (S - S.mT))
    if kind == 5:
        out = torch.zeros(n, n, dtype=F64)
        out[0, 0] = 1.0 if draw(gen) < 0.5 else -1.0
        if n > 1:
            out[1:, 1:] = haar(gen, n - 1)
        return out
    if kind == 6:
        k = randint(gen, 1, n)
        out = torch.eye(n, dtype=F64)
        for _ in range(k):
            v = gauss(gen, n)
            out = out - 2 * torch.outer(out @ v, v) / (v @ v)
        return out
    return haar(gen, n)


def sample_matrix(gen, p: int, q: int) -> Tensor:
    """Gaussian, rank-deficient, zero, scaled orthogonal (repeated σ), signed diagonal, and ill-conditioned
    (σ from 1 down to 1e-12) matrices."""
    kind = randint(gen, 0, 6)
    r = min(p, q)
    if kind == 1 and r > 1:
        k = randint(gen, 1, r - 1)
        return gauss(gen, p, k) @ gauss(gen, k, q)
    if kind == 2:
        return torch.zeros(p, q, dtype=F64)
    if kind == 3:
        return (0.1 + 3 * draw(gen)) * haar(gen, max(p, q))[:p, :q]
    if kind == 4:
        out = torch.zeros(p, q, dtype=F64)
        out[range(r), range(r)] = gauss(gen, r)
        return out
    if kind == 5:
        s = torch.logspace(0, -12, r, dtype=F64)
        return (haar(gen, p)[:, :r] * s) @ haar(gen, q)[:, :r].mT
    return gauss(gen, p, q) * (10 ** (-3 + 6 * draw(gen)))


def random_reflectors(gen, n: int, m: int) -> Tensor:
    """m Gaussian reflectors u_n, …, u_{n−m+1}, zero-padded: (n, m) in the ``cells.spectral`` layout."""
    return unpack_reflectors(gauss(gen, m * n - m * (m - 1) // 2), n, m)


def to_case(case_tensor: Tensor, device, dtype) -> Tensor:
    """A sampled float64 tensor on the case's device and dtype."""
    return case_tensor.to(device=device, dtype=dtype)


@dataclass
class MatrixCase:
    """A target matrix and the reflector counts allowed for each factor (Theorems 1–4).

    Attributes:
        A: (p, q) target. m1: reflectors of the left factor (k1 = p − m1 + 1). m2: of the right factor
            (k2 = q − m2 + 1). u_rand: (p, p) random padded reflectors for the inclusion M_1(u) ∈ O(n)
            (Theorem 1), or None.
    """

    A: Tensor
    m1: int
    m2: int
    u_rand: Tensor | None = None

    def size(self) -> tuple[int, int]:
        """(max(p, q), 1): no sequence is involved."""
        return max(self.A.shape), 1


@dataclass
class CountCase:
    """Sizes of one Spectral-RNN (Sec. 4) and how its reflector recurrence is implemented (Sec. 4.2).

    Attributes:
        n, m1, m2, n_i, n_y: hidden size, reflectors of U and V, input and output sizes.
        bias: the count includes b (eq. 4). cache_norms: 2/‖u_k‖² computed once per iteration
            (Sec. 4.2), not in every Hprod/Hgrad. reuse_alpha: Hgrad reuses α from the forward pass.
    """

    n: int
    m1: int
    m2: int
    n_i: int = 1
    n_y: int = 1
    bias: bool = True
    cache_norms: bool = True
    reuse_alpha: bool = True

    def size(self) -> tuple[int, int]:
        """(n, 1)."""
        return self.n, 1


@dataclass
class SpectralCellCase:
    """A Spectral-RNN cell, with optional reflector inputs h and upstream gradients g (eq. 7, eq. 12–13).

    Attributes:
        cell: :class:`cells.SpectralRNN`. h: (batch, n) inputs of the local map h̃ = W h, or None.
        g: (batch, n) ∂L/∂h̃, or None.
    """

    cell: SpectralRNN
    h: Tensor | None = None
    g: Tensor | None = None

    def size(self) -> tuple[int, int]:
        """(n, 1)."""
        return self.cell.hidden_size, 1


def _dtype_of(case) -> torch.dtype:
    for name in ("A", "W", "h"):
        t = getattr(case, name, None)
        if isinstance(t, Tensor):
            return t.dtype
    if hasattr(case, "cell"):
        return case.cell.M.dtype
    return F64


A_F64 = Assumption("float64 arithmetic (the tolerances are multiples of float64's unit roundoff)", lambda c: (
    _dtype_of(c) == F64, str(_dtype_of(c))))


#: Sizes (n, 1) of the matrix claims (Theorems 1–4, eq. 7): no sequence is involved.
MATRIX_SIZES = {"quick": [(1, 1), (2, 1), (3, 1), (5, 1), (8, 1), (16, 1)],
                "full": [(1, 1), (2, 1), (3, 1), (5, 1), (8, 1), (16, 1), (32, 1), (64, 1), (128, 1)]}


def _orth_check(c: MatrixCase) -> tuple[bool, str]:
    A = c.A.detach()
    if A.shape[0] != A.shape[1]:
        return False, f"A is {tuple(A.shape)}, not square"
    d = float(orthogonality_defect(A))
    return d <= assumption_tolerances().orthogonality, f"‖AᵀA − I‖₂ = {d:.3g}"


A_ORTH = Assumption("A ∈ O(n)", _orth_check)
A_M_RANGE = Assumption("0 ≤ m1, m2 ≤ n", lambda c: (0 <= c.m1 <= c.n and 0 <= c.m2 <= c.n,
                                                   f"n = {c.n}, m1 = {c.m1}, m2 = {c.m2}"))


#: The activations of Assumption 1(b): ‖φ(x)‖ ≤ ‖x‖ and 1-Lipschitz.
