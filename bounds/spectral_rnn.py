"""Claims of spectral_rnn.md (Spectral-RNN, Zhang, Lei & Dhillon 2018) as executable checks.

Claim ids and where they live in the paper:

- ``spectral_rnn.theorem1``   Theorem 1 (App. A.1–A.2): the image of M_1 is O(n)
- ``spectral_rnn.theorem2``   Theorem 2 (App. A.3): the image of M_{1,1} is ℝ^{n×n}
- ``spectral_rnn.theorem3``   Theorem 3 (App. A.4, eq. 18–21): M_{k1,k2}(…, 1) ⊇ O(n) if k1 + k2 ≤ n + 2
- ``spectral_rnn.theorem4``   Theorem 4 with Lemma 1 (Sec. 5, App. A.5): M^{m,n} with 2 min(m, n) reflectors
- ``spectral_rnn.eq7``        eq. 6–7: σ_i and the singular values of W lie in [σ* − r, σ* + r]
- ``spectral_rnn.param_count`` Sec. 4 parameter count, with Tables 2 and 4 / App. C.1
- ``spectral_rnn.param_count.corrected`` the same with m1 = m2 = 16 for Table 4
- ``spectral_rnn.table1``     Table 1 (Sec. 4.2) flop counts against counted operations
- ``spectral_rnn.table1.corrected`` the rows recomputed as sums of Table 1's own Hprod/Hgrad rows
- ``spectral_rnn.eq13``       eq. 12–13, Algorithms 1 and 3 as printed, against autograd
- ``spectral_rnn.eq13.corrected`` Algorithm 3 with α from the reflector input, Algorithm 1 with Hgrad on
  the reflector input (``cells.spectral.reflect_grad`` / ``householder_backward``)
- ``spectral_rnn.eq24``       App. A.6, eq. 24: ‖h^(t)‖ ≤ B‖M‖ t max{‖W‖^{t−1}, 1}
- ``spectral_rnn.lemma3``     Lemma 3, eq. 22 (both readings) and eq. 25, and the output perturbation
- ``spectral_rnn.theorem5``   Theorem 5 and Corollary 1: G(w), the PAC-Bayes bound of App. A.6, vacuity

Expressivity theorems are checked constructively: the Householder vectors the proofs promise are
computed (Proposition 1 for Theorem 1, with the SVD for Theorems 2 and 4, eq. 18/20 for Theorem 3),
the matrix is rebuilt by ``torch.linalg.householder_product`` (``cells.spectral.reflector_product``)
and by the reflector recurrence of Algorithm 1 (``cells.spectral.householder_forward``), and the
measured quantity is the reconstruction error against a rounding-error tolerance.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import torch
from torch import Tensor
from torch.utils._python_dispatch import TorchDispatchMode

from rnnaudit.tasks.synthetic import addition_problem
from rnnaudit.cells import (ORNN, SpectralRNN, get_activation, householder_backward, householder_forward,
                   orthogonality_defect, pack_reflectors, parameter_count, reflect, reflect_grad, reflector_product,
                   unpack_reflectors)
from rnnaudit.cells._validate import require_finite
from rnnaudit.bounds.core import Assumption, Claim

__all__ = [
    "proposition1_reflectors", "svd_reflectors", "theorem3_reflectors", "algorithm1_backward_printed",
    "algorithm3_printed", "eq12", "eq13", "FlopCounter", "count_flops", "sparse_hprod", "sparse_hgrad",
    "sparse_local_fp", "sparse_local_bp", "reflector_norms", "table1_counts", "TABLE1_PRINTED", "TABLE1_CORRECTED",
    "rnn_states", "theorem5_bounds", "MatrixCase", "CountCase", "SpectralCellCase", "RNNCase", "GeneralizationCase",
    "TABLE4", "CLAIMS", "theorem1", "theorem2", "theorem3", "theorem4", "eq7", "param_count",
    "param_count_corrected", "table1", "table1_corrected", "eq13_claim", "eq13_corrected", "eq24", "lemma3",
    "theorem5",
]

# ------------------------------------------------------------------------------------------ tolerances
#: float64 unit roundoff u = 2⁻⁵³. Every identity tolerance below is a multiple of it: the checks
#: are specified in float64 (assumption "float64 arithmetic"), as the conventions ask.
U64 = torch.finfo(torch.float64).eps / 2
#: Reconstruction tolerance RECON_C · n² · u · ‖A‖_F. Proposition 1 is Householder QR, backward
#: stable with ‖ΔA‖_F ≤ γ̃_{n²}‖A‖_F (Higham 2002, Thm. 19.4; γ̃_k = c k u with c a small
#: constant), rebuilding applies n reflectors again (Lemma 19.3, same order) and the SVD of
#: Theorems 2/4 adds p(n) u ‖A‖ with p linear (LAPACK gesdd): 30 n² u covers all three with c ≤ 10
#: each. Measured errors are ≈ √n u, far inside.
RECON_C = 30.0
#: Relative slack of assumption predicates (projections land on a constraint up to a few roundings).
ASSUMPTION_RTOL = 1e-12
#: "A ∈ O(n)" predicate: ‖AᵀA − I‖₂ ≤ 1e-10. Samples reach ≈ 1e-15; the reconstruction bounds add
#: 2‖AᵀA − I‖_F (capped at 2√n · 1e-10), the first-order effect of a nearly orthogonal A on R = I (RᵀR = AᵀA).
ORTHOGONALITY_TOL = 1e-10
#: Gradient identities: relative error ≤ 1e-10 against (‖autograd‖ + S), S the size of the terms
#: of eq. 13 before cancellation (8 Σ_b ‖h_b‖‖g_b‖ s/‖û‖, s = max(1, max|σ|)). Rounding through
#: m1 + m2 ≤ 2n reflectors of O(n) flops each is ≤ 10 · 2n · n · u ≈ 2e-12 at n = 32, 5e-12 at n = 64.
GRAD_RTOL = 1e-10
#: Table 1's per-kernel rows are exact formulas; conventions differ by O(1) per kernel (a dot product
#: of length k is 2k − 1 or 2k flops; the scalar products 2/‖u‖² · uᵀh, αβ, −α).
FLOP_SLACK = 4
#: "O(n)" in Table 1 made explicit: |counted − leading terms| ≤ C_O · n. A correct row's remainder
#: is at most (a) ≤ 4 scalar flops per reflector, ≤ 2n reflectors: 8n; (b) the linear remainder of
#: Σ_{k=n−m+1}^{n} k = mn − m²/2 + m/2 times a per-k coefficient ≤ 6: ≤ 3m per chain, ≤ 6n; (c) the
#: diagonal Σ steps, ≤ 3n: together ≤ 17n. A wrong leading coefficient c·n·m exceeds 20n once c·m > 20.
O_N_CONSTANT = 20.0
#: Integer identities (parameter counts): |difference| ≤ 1/2 ⇔ equal.
COUNT_TOL = 0.5

F64 = torch.float64
#: Test-sample size of the Theorem 5 cases: L_0 is estimated to ±0.04 (one standard error at L_0 = 1/2).
N_TEST = 160


def _t(x: float, like: Tensor | None = None) -> Tensor:
    """A 0-d float64 tensor (on ``like``'s device when given)."""
    return torch.tensor(float(x), dtype=F64, device=None if like is None else like.device)


def _within(value: float, limit: float) -> bool:
    return value <= limit * (1 + ASSUMPTION_RTOL) + 1e-300


# ------------------------------------------------------------------------- Proposition 1 and Theorems 1–4
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


def theorem3_reflectors(A: Tensor, k1: int, k2: int, *, zero_from: str = "corrected") -> tuple[Tensor, Tensor]:
    """Reflectors (U_hat, V_hat) with H_n(u_n)…H_{k1}(u_{k1}) H_{k2}(v_{k2})…H_n(v_n) = A, by eq. 18 or 20.

    a = Prop. 1 reflectors of A (A = H_n(a_n)…H_1(a_1)), b those of Aᵀ (A = H_1(b_1)…H_n(b_n)).
    If k2 ≥ k1 − 1 (eq. 18): u_k = a_k (k ≥ k1), v_{k2+k1−k−1} = a_k (k = k1−1, …, 1), other v's 0.
    Else (eq. 20): v_k = b_k (k ≥ k2), u_{k2+k1−k−1} = b_k (k = k2−1, …, 1), other u's 0.
    Slots beyond n (possible only when k1 + k2 > n + 2, outside the theorem) are dropped.

    Two readings of the printed proof are made explicit:
      * "v_{k2+k1−k−1} = a_k" equates vectors of lengths k2+k1−k−1 and k; a_k is zero-padded on top, which
        leaves H unchanged (H_t((0; a_k)) = H_k(a_k) as n × n matrices). This is the only typable reading.
      * "v_t = 0, t = k2+k1−2, …, n" overwrites v_{k2+k1−2} = a_1; ``zero_from="corrected"`` zeroes
        t ≥ k2 + k1 − 1, ``zero_from="printed"`` zeroes t ≥ k2 + k1 − 2 as printed (and the same for u in
        eq. 20), which drops H_1(a_1).

    Args:
        A: (n, n) orthogonal. k1, k2 ∈ [1, n + 1] (k = n + 1: an empty chain).
        zero_from: "corrected" or "printed".

    Returns:
        (U_hat (n, n − k1 + 1), V_hat (n, n − k2 + 1)) in the ``cells.spectral`` layout.

    Raises:
        ValueError: A not square, k1 or k2 outside [1, n + 1], unknown ``zero_from``.

    Source: spectral_rnn.md, App. A.4, eq. 18–21.
    """
    if not isinstance(A, Tensor) or A.dim() != 2 or A.shape[0] != A.shape[1]:
        raise ValueError("A must be a square matrix (n, n)")
    n = A.shape[0]
    for name, k in (("k1", k1), ("k2", k2)):
        if not 1 <= k <= n + 1:
            raise ValueError(f"{name} must lie in [1, n + 1 = {n + 1}], got {k}")
    if zero_from not in ("corrected", "printed"):
        raise ValueError(f"zero_from must be 'corrected' or 'printed', got {zero_from!r}")
    swap = not k2 >= k1 - 1
    first_k, second_k = (k2, k1) if swap else (k1, k2)
    c, _ = proposition1_reflectors(A.mT if swap else A)
    first = c[:, : n - first_k + 1].clone()  # u_k = a_k, k = n … k1 (column j ↔ index n − j)
    second = A.new_zeros(n, n - second_k + 1)
    for k in range(first_k - 1, 0, -1):
        t = second_k + first_k - k - 1
        if t <= n:  # column n − t of the second chain holds slot t; â_k's support (last k rows) fits as t ≥ k
            second[:, n - t] = c[:, n - k]
    start = second_k + first_k - (2 if zero_from == "printed" else 1)
    for t in range(max(start, second_k), n + 1):
        second[:, n - t] = 0
    return (second, first) if swap else (first, second)


def _reflector_matrix(U_hat: Tensor, sigma: Tensor | None, V_hat: Tensor | None, p: int, q: int) -> Tensor:
    """Dense U Σ̂ Vᵀ (p, q) from padded reflectors via householder_product (eq. 3 / eq. 15)."""
    U = reflector_product(U_hat)
    V = reflector_product(V_hat) if V_hat is not None else torch.eye(q, dtype=U.dtype, device=U.device)
    r = min(p, q)
    if sigma is None:
        return U @ V.mT
    return (U[:, :r] * sigma) @ V[:, :r].mT


def _recurrence_matrix(U_hat: Tensor, sigma: Tensor | None, V_hat: Tensor | None, q: int) -> Tensor:
    """The same matrix applied by the reflector recurrence of Algorithm 1 (eq. 8) to the basis of ℝ^q."""
    eye = torch.eye(q, dtype=U_hat.dtype, device=U_hat.device)
    return householder_forward(eye, U_hat, sigma, V_hat)[0].mT


# ------------------------------------------------------------------------------------------- case classes
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

    def state(self) -> dict:
        return {"A": self.A.detach().clone(), "m1": self.m1, "m2": self.m2,
                "u_rand": None if self.u_rand is None else self.u_rand.detach().clone()}

    @classmethod
    def from_state(cls, state: dict, device="cpu", dtype=F64) -> "MatrixCase":
        u = state.get("u_rand")
        return cls(state["A"].to(device=device, dtype=dtype), int(state["m1"]), int(state["m2"]),
                   None if u is None else u.to(device=device, dtype=dtype))


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

    def state(self) -> dict:
        return dict(vars(self))

    @classmethod
    def from_state(cls, state: dict, device="cpu", dtype=F64) -> "CountCase":
        return cls(**state)


def _cell_config(cell: SpectralRNN) -> dict:
    return {"input_size": cell.input_size, "hidden_size": cell.hidden_size, "m1": cell.m1, "m2": cell.m2,
            "r": cell.r, "sigma_star": cell.sigma_star, "activation": cell.activation, "bias": cell.b is not None,
            "output_size": cell.output_size}


def _cell_from_config(cfg: dict, params: dict, device, dtype) -> SpectralRNN:
    cfg = dict(cfg)
    cell = SpectralRNN(cfg.pop("input_size"), cfg.pop("hidden_size"), cfg.pop("m1"), cfg.pop("m2"), dtype=dtype,
                       device=device, **cfg)
    cell.load_state_dict({k: v.to(device=device, dtype=dtype) for k, v in params.items()})
    return cell


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

    def state(self) -> dict:
        return {"config": _cell_config(self.cell),
                "params": {k: v.detach().clone() for k, v in self.cell.state_dict().items()},
                "h": None if self.h is None else self.h.detach().clone(),
                "g": None if self.g is None else self.g.detach().clone()}

    @classmethod
    def from_state(cls, state: dict, device="cpu", dtype=F64) -> "SpectralCellCase":
        cell = _cell_from_config(state["config"], state["params"], device, dtype)
        conv = lambda t: None if t is None else t.to(device=device, dtype=dtype)  # noqa: E731
        return cls(cell, conv(state["h"]), conv(state["g"]))


@dataclass
class RNNCase:
    """One RNN of eq. 17 with a perturbation (Lemma 3) and input sequences (App. A.6).

    Attributes:
        W: (n, n). M: (n, n_i). Y: (n_y, n). dW, dM, dY: perturbations of the same shapes (zeros for eq. 24).
        x: (S, T, n_i) inputs. B: the data bound of Assumption 1(a) (set to max_t ‖x_t‖, the tightest).
        activation: "relu", "tanh", "identity" (Assumption 1(b)) or "sigmoid" (outside it).
        b: (n,) bias or None (eq. 17 absorbs it). h0: (n,) initial state or None (h^(0) = 0).
    """

    W: Tensor
    M: Tensor
    Y: Tensor
    dW: Tensor
    dM: Tensor
    dY: Tensor
    x: Tensor
    B: float
    activation: str = "relu"
    b: Tensor | None = None
    h0: Tensor | None = None

    def size(self) -> tuple[int, int]:
        """(n, T)."""
        return self.W.shape[0], self.x.shape[1]

    _TENSORS = ("W", "M", "Y", "dW", "dM", "dY", "x", "b", "h0")

    def state(self) -> dict:
        out = {k: None if getattr(self, k) is None else getattr(self, k).detach().clone() for k in self._TENSORS}
        out.update(B=self.B, activation=self.activation)
        return out

    @classmethod
    def from_state(cls, state: dict, device="cpu", dtype=F64) -> "RNNCase":
        conv = {k: None if state[k] is None else state[k].to(device=device, dtype=dtype) for k in cls._TENSORS}
        return cls(B=float(state["B"]), activation=state["activation"], **conv)


@dataclass
class GeneralizationCase:
    """A Spectral-RNN classifier with a training and a test sample (Theorem 5, Corollary 1).

    Attributes:
        cell: :class:`cells.SpectralRNN` with ``output_size`` n_y ≥ 2 and no bias (eq. 17).
        x_train: (m, T, n_i), y_train: (m,) int64. x_test, y_test: a fresh sample of the same distribution.
        B: data bound (max_t ‖x_t‖ over both samples). gamma: margin γ > 0. delta: confidence δ ∈ (0, 1).
        seed: seeds the perturbation draws of the Lemma 2 check. n_u: number of draws.
    """

    cell: SpectralRNN
    x_train: Tensor
    y_train: Tensor
    x_test: Tensor
    y_test: Tensor
    B: float
    gamma: float
    delta: float
    seed: int
    n_u: int = 10

    def size(self) -> tuple[int, int]:
        """(n, T)."""
        return self.cell.hidden_size, self.x_train.shape[1]

    def state(self) -> dict:
        return {"config": _cell_config(self.cell),
                "params": {k: v.detach().clone() for k, v in self.cell.state_dict().items()},
                "x_train": self.x_train.detach().clone(), "y_train": self.y_train.clone(),
                "x_test": self.x_test.detach().clone(), "y_test": self.y_test.clone(), "B": self.B,
                "gamma": self.gamma, "delta": self.delta, "seed": self.seed, "n_u": self.n_u}

    @classmethod
    def from_state(cls, state: dict, device="cpu", dtype=F64) -> "GeneralizationCase":
        cell = _cell_from_config(state["config"], state["params"], device, dtype)
        return cls(cell, state["x_train"].to(device=device, dtype=dtype), state["y_train"].to(device),
                   state["x_test"].to(device=device, dtype=dtype), state["y_test"].to(device), float(state["B"]),
                   float(state["gamma"]), float(state["delta"]), int(state["seed"]), int(state["n_u"]))


# ------------------------------------------------------------------------------------------ shared predicates
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


# ---------------------------------------------------------------------------------------- samplers: matrices
def _gauss(gen, *shape) -> Tensor:
    return torch.randn(*shape, generator=gen, dtype=F64)


def _draw(gen) -> float:
    return float(torch.rand((), generator=gen, dtype=F64))


def _randint(gen, low: int, high: int) -> int:
    """Uniform integer in [low, high] (inclusive)."""
    return int(torch.randint(low, high + 1, (), generator=gen))


def _haar(gen, n: int) -> Tensor:
    """Haar-distributed orthogonal matrix (QR of a Gaussian with R's diagonal made positive)."""
    Q, R = torch.linalg.qr(_gauss(gen, n, n))
    d = torch.sign(torch.diagonal(R))
    return Q * torch.where(d == 0, torch.ones_like(d), d)


def _sample_orthogonal(gen, n: int) -> Tensor:
    """Haar matrices and edge cases: ±I and signed diagonals, signed permutations, near-identity rotations
    exp(εS) (ε down to 1e-9: Prop. 1's columns are then almost e_1), a first column exactly ±e_1 (the u = 0
    branch of Prop. 1 and its sign flip), and products of a few reflectors."""
    kind = _randint(gen, 0, 6)
    if kind == 2:
        return torch.diag(torch.where(torch.rand(n, generator=gen) < 0.5, -1.0, 1.0).to(F64))
    if kind == 3:
        signs = torch.where(torch.rand(n, generator=gen) < 0.5, -1.0, 1.0).to(F64)
        return torch.eye(n, dtype=F64)[torch.randperm(n, generator=gen)] * signs
    if kind == 4:
        S = _gauss(gen, n, n)
        eps = 10 ** (-9 + 8 * _draw(gen))
        return torch.linalg.matrix_exp(eps * (S - S.mT))
    if kind == 5:
        out = torch.zeros(n, n, dtype=F64)
        out[0, 0] = 1.0 if _draw(gen) < 0.5 else -1.0
        if n > 1:
            out[1:, 1:] = _haar(gen, n - 1)
        return out
    if kind == 6:
        k = _randint(gen, 1, n)
        out = torch.eye(n, dtype=F64)
        for _ in range(k):
            v = _gauss(gen, n)
            out = out - 2 * torch.outer(out @ v, v) / (v @ v)
        return out
    return _haar(gen, n)


def _sample_matrix(gen, p: int, q: int) -> Tensor:
    """Gaussian, rank-deficient, zero, scaled orthogonal (repeated σ), signed diagonal, and ill-conditioned
    (σ from 1 down to 1e-12) matrices."""
    kind = _randint(gen, 0, 6)
    r = min(p, q)
    if kind == 1 and r > 1:
        k = _randint(gen, 1, r - 1)
        return _gauss(gen, p, k) @ _gauss(gen, k, q)
    if kind == 2:
        return torch.zeros(p, q, dtype=F64)
    if kind == 3:
        return (0.1 + 3 * _draw(gen)) * _haar(gen, max(p, q))[:p, :q]
    if kind == 4:
        out = torch.zeros(p, q, dtype=F64)
        out[range(r), range(r)] = _gauss(gen, r)
        return out
    if kind == 5:
        s = torch.logspace(0, -12, r, dtype=F64)
        return (_haar(gen, p)[:, :r] * s) @ _haar(gen, q)[:, :r].mT
    return _gauss(gen, p, q) * (10 ** (-3 + 6 * _draw(gen)))


def _random_reflectors(gen, n: int, m: int) -> Tensor:
    return unpack_reflectors(_gauss(gen, m * n - m * (m - 1) // 2), n, m)


def _to(case_tensor: Tensor, device, dtype) -> Tensor:
    return case_tensor.to(device=device, dtype=dtype)


def _sample_theorem1(gen, h, T, device, dtype) -> MatrixCase:
    A = _sample_orthogonal(gen, h)
    return MatrixCase(_to(A, device, dtype), h, 0, _to(_random_reflectors(gen, h, h), device, dtype))


def _sample_theorem2(gen, h, T, device, dtype) -> MatrixCase:
    return MatrixCase(_to(_sample_matrix(gen, h, h), device, dtype), h, h)


def _sample_theorem3(gen, h, T, device, dtype) -> MatrixCase:
    """k1 uniform in [1, n + 1], k2 on the boundary k1 + k2 = n + 2 in half the cases, else below it."""
    n = h
    k1 = _randint(gen, 1, n + 1)
    k2_max = min(n + 1, n + 2 - k1)
    k2 = k2_max if _draw(gen) < 0.5 else _randint(gen, 1, k2_max)
    return MatrixCase(_to(_sample_orthogonal(gen, n), device, dtype), n - k1 + 1, n - k2 + 1)


def _sample_theorem4(gen, h, T, device, dtype) -> MatrixCase:
    """One side is h, the other uniform in [1, h]; wide and tall equally often."""
    other = _randint(gen, 1, h)
    p, q = (other, h) if _draw(gen) < 0.5 else (h, other)
    r = min(p, q)
    return MatrixCase(_to(_sample_matrix(gen, p, q), device, dtype), r, r)


# ----------------------------------------------------------------------------------- measures: theorems 1–4
def _recon_tol(A: Tensor) -> Tensor:
    n = max(A.shape)
    return RECON_C * n * n * U64 * torch.linalg.matrix_norm(A)


def _defect_F(A: Tensor) -> Tensor:
    return torch.linalg.matrix_norm(A.mT @ A - torch.eye(A.shape[1], dtype=A.dtype, device=A.device))


def _defect_allowance(A: Tensor) -> Tensor:
    """2‖AᵀA − I‖_F, capped at the defect the "A ∈ O(n)" predicate admits (√n · ORTHOGONALITY_TOL): a nearly
    orthogonal A moves R off I by at most its defect (RᵀR = AᵀA), a non-orthogonal A gets no allowance."""
    return 2 * torch.clamp(_defect_F(A), max=math.sqrt(A.shape[1]) * ORTHOGONALITY_TOL)


def _measure_theorem1(case: MatrixCase) -> dict[str, tuple[Tensor, Tensor]]:
    A = case.A.detach()
    n = A.shape[0]
    a, R = proposition1_reflectors(A)
    a = a[:, : case.m1]
    eye = torch.eye(n, dtype=A.dtype, device=A.device)
    tol = _recon_tol(A) + _defect_allowance(A)
    parts = {
        "A = M_1(a) rebuilt by householder_product (Prop. 1 reflectors)": (
            torch.linalg.matrix_norm(A - reflector_product(a)), tol),
        "A = M_1(a) applied by the reflector recurrence (eq. 8, Algorithm 1)": (
            torch.linalg.matrix_norm(A - _recurrence_matrix(a, None, None, n)), tol),
        "R = I in A = QR (App. A.2)": (torch.linalg.matrix_norm(R - eye), tol),
    }
    if case.u_rand is not None:
        Q = reflector_product(case.u_rand.detach())
        parts["M_1(u) ∈ O(n) for random u (image ⊆ O(n))"] = (
            _defect_F(Q), RECON_C * n * n * U64 * math.sqrt(n) * torch.ones((), dtype=A.dtype, device=A.device))
    return parts


def _measure_svd_theorem(case: MatrixCase) -> dict[str, tuple[Tensor, Tensor]]:
    A = case.A.detach()
    p, q = A.shape
    U_hat, sigma, V_hat = svd_reflectors(A, case.m1, case.m2)
    tol = _recon_tol(A)
    dense = _reflector_matrix(U_hat, sigma, V_hat, p, q)
    rec = _recurrence_matrix(U_hat, sigma, V_hat, q)
    return {"A = M(u, v, σ) rebuilt by householder_product": (torch.linalg.matrix_norm(A - dense), tol),
            "A = M(u, v, σ) applied by the reflector recurrence (Algorithm 1)": (
                torch.linalg.matrix_norm(A - rec), tol)}


def _measure_theorem4(case: MatrixCase) -> dict[str, tuple[Tensor, Tensor]]:
    parts = _measure_svd_theorem(case)
    A = case.A.detach()
    p, q = A.shape
    # Lemma 1 on the right factor: V^(1) (all q reflectors) and V^(k2) share their first q − k2 + 1 columns.
    _, _, Vh = torch.linalg.svd(A)
    b, _ = proposition1_reflectors(Vh.mT)
    full, part = reflector_product(b), reflector_product(b[:, : case.m2])
    i = case.m2  # = q − k2 + 1 columns
    diff = torch.linalg.matrix_norm(full[:, :i] - part[:, :i]) if i > 0 else torch.zeros((), dtype=A.dtype)
    parts["Lemma 1 through column n − k + 1 (the column Theorem 4's proof needs)"] = (
        diff, RECON_C * q * q * U64 * math.sqrt(max(i, 1)) * torch.ones((), dtype=A.dtype, device=A.device))
    return parts


def _measure_theorem3(case: MatrixCase) -> dict[str, tuple[Tensor, Tensor]]:
    A = case.A.detach()
    n = A.shape[0]
    k1, k2 = n - case.m1 + 1, n - case.m2 + 1
    U_hat, V_hat = theorem3_reflectors(A, k1, k2)
    ones = torch.ones(n, dtype=A.dtype, device=A.device)
    tol = _recon_tol(A) + _defect_allowance(A)
    name = "eq. 18 (k2 ≥ k1 − 1)" if k2 >= k1 - 1 else "eq. 20 (k2 < k1 − 1)"
    return {f"A = M_(k1,k2)(u, v, 1) by {name}, householder_product": (
                torch.linalg.matrix_norm(A - _reflector_matrix(U_hat, None, V_hat, n, n)), tol),
            f"A = M_(k1,k2)(u, v, 1) by {name}, reflector recurrence": (
                torch.linalg.matrix_norm(A - _recurrence_matrix(U_hat, ones, V_hat, n)), tol)}


def _orth_check(c: MatrixCase) -> tuple[bool, str]:
    A = c.A.detach()
    if A.shape[0] != A.shape[1]:
        return False, f"A is {tuple(A.shape)}, not square"
    d = float(orthogonality_defect(A))
    return d <= ORTHOGONALITY_TOL, f"‖AᵀA − I‖₂ = {d:.3g}"


A_ORTH = Assumption("A ∈ O(n)", _orth_check)
A_SQUARE = Assumption("A ∈ ℝ^{n×n}", lambda c: (c.A.shape[0] == c.A.shape[1], f"A is {tuple(c.A.shape)}"))
A_M1_FULL = Assumption("k = 1: all n reflectors (the map M_1)", lambda c: (
    c.m1 == c.A.shape[0], f"m = {c.m1} reflectors, k = {c.A.shape[0] - c.m1 + 1}"))
A_M11_FULL = Assumption("k1 = k2 = 1 (the map M_{1,1})", lambda c: (
    c.m1 == c.A.shape[0] and c.m2 == c.A.shape[1], f"k1 = {c.A.shape[0] - c.m1 + 1}, k2 = {c.A.shape[1] - c.m2 + 1}"))
A_K1K2 = Assumption("k1 + k2 ≤ n + 2 (m1 + m2 ≥ n)", lambda c: (
    c.m1 + c.m2 >= c.A.shape[0], f"k1 + k2 = {2 * c.A.shape[0] + 2 - c.m1 - c.m2}, n + 2 = {c.A.shape[0] + 2}"))
A_THM4_K = Assumption("k1, k2 as in Theorem 4 (min(m, n) reflectors on each side)", lambda c: (
    c.m1 == c.m2 == min(c.A.shape), f"m1 = {c.m1}, m2 = {c.m2}, min(m, n) = {min(c.A.shape)}"))


# ------------------------------------------------------------------------------------------- measures: eq. 7
def _sample_eq7(gen, h, T, device, dtype) -> SpectralCellCase:
    """σ* ∈ [0.2, 2], r ∈ [0, σ*] (r = 0 and r = σ* as edge cases), σ̂ ~ N(0, 9), saturated (±40) in a
    third of the cases; m1, m2 uniform in [0, n] (m2 = 0: no V factor)."""
    n = h
    sigma_star = 0.2 + 1.8 * _draw(gen)
    kind = _randint(gen, 0, 3)
    r = 0.0 if kind == 0 else sigma_star if kind == 1 else sigma_star * _draw(gen)
    cell = SpectralRNN(1, n, _randint(gen, 0, n), _randint(gen, 0, n), r=r, sigma_star=sigma_star, bias=False,
                       generator=gen, dtype=F64)
    with torch.no_grad():
        s = 3 * _gauss(gen, n)
        if _draw(gen) < 1 / 3:
            s = 40 * torch.sign(s)
        cell.sigma_hat.copy_(s)
    return SpectralCellCase(cell.to(device=device, dtype=dtype))


def _measure_eq7(case: SpectralCellCase) -> dict[str, tuple[Tensor, Tensor]]:
    cell = case.cell
    sigma = cell.sigma
    W = cell.recurrent_matrix()
    sv = torch.linalg.svdvals(W)
    lo, hi = cell.sigma_star - cell.r, cell.sigma_star + cell.r
    n = cell.hidden_size
    sv_tol = RECON_C * n * n * U64 * max(abs(hi), abs(lo))
    # computed singular values are within ‖ΔW‖₂ ≤ sv_tol of W's exact ones (Weyl), hence the slack
    return {
        "σ_i ≤ σ* + r (eq. 7)": (sigma.max(), _t(hi, sigma)),
        "σ* − r ≤ σ_i (eq. 7)": (_t(lo, sigma), sigma.min()),
        "‖W‖₂ ≤ σ* + r": (sv.max(), _t(hi + sv_tol, sigma)),
        "σ* − r ≤ σ_min(W)": (_t(lo - sv_tol, sigma), sv.min()),
        "singular values of W = |σ| (eq. 6)": (
            (sv - sigma.abs().sort(descending=True).values).abs().max(), _t(sv_tol, sigma)),
    }


A_R_NONNEG = Assumption("r ≥ 0", lambda c: (c.cell.r >= 0, f"r = {c.cell.r}"))
A_RANGE_NONNEG = Assumption("σ* ≥ r (the range [σ* − r, σ* + r] is non-negative, as with σ* = 1, r ≪ 1)",
                            lambda c: (c.cell.sigma_star >= c.cell.r,
                                       f"σ* = {c.cell.sigma_star:.6g}, r = {c.cell.r:.6g}"))


# ------------------------------------------------------------------------------------- parameter counts
#: Table 4 (App. C.1), n = 32: (#param RNN, oRNN, Spectral-RNN) per data set, in the table's order.
TABLE4 = ((3058, 2426, 2850), (2694, 2062, 2486), (1219, 587, 1011), (1606, 974, 1398), (1699, 1067, 1491),
          (1476, 844, 1268), (1570, 938, 1362), (1997, 1365, 1789), (1410, 778, 1202), (1641, 1009, 1433),
          (1410, 778, 1202), (1606, 974, 1398), (1443, 811, 1235), (1615, 983, 1407), (1701, 1069, 1493),
          (1615, 983, 1407), (1507, 875, 1299), (1996, 1364, 1788), (1315, 683, 1107), (1570, 938, 1362),
          (1410, 778, 1202))


def _vanilla_count(n: int, n_i: int, n_y: int) -> int:
    """Sec. 4's vanilla RNN count (n_y + n_i + n + 1) n, as printed."""
    return (n_y + n_i + n + 1) * n


def _sec4_count(n: int, m1: int, m2: int, n_i: int, n_y: int) -> int:
    """Sec. 4's Spectral-RNN count (n_y + n_i + m1 + m2 + 2) n − (m1² + m2² − m1 − m2)/2, as printed."""
    return (n_y + n_i + m1 + m2 + 2) * n - (m1 * m1 + m2 * m2 - m1 - m2) // 2


def _ornn_count(n: int, m: int, n_i: int, n_y: int) -> int:
    """oRNN (σ = 1, one chain): Sec. 4's count with m2 = 0 and no σ̂ (the paper prints no oRNN formula)."""
    return _sec4_count(n, m, 0, n_i, n_y) - n


def _table4_error(m: int) -> float:
    """max over Table 4's rows of the mismatch of the model differences with Sec. 4's formulas at n = 32,
    oRNN with m = 16 reflectors and Spectral-RNN with m1 = m2 = m. Differences cancel n_i, n_y and any
    input/readout extras of the experiments (the absolute counts need per-data-set n_i the table does not
    give unambiguously)."""
    n = 32
    spec, rnn, ornn = _sec4_count(n, m, m, 1, 1), _vanilla_count(n, 1, 1), _ornn_count(n, 16, 1, 1)
    return float(max(abs((p_rnn - p_spec) - (rnn - spec)) + abs((p_spec - p_ornn) - (spec - ornn))
                     for p_rnn, p_ornn, p_spec in TABLE4))


def _measure_param_count(case: CountCase, table4_m: int) -> dict[str, tuple[Tensor, Tensor]]:
    n, m1, m2, n_i, n_y = case.n, case.m1, case.m2, case.n_i, case.n_y
    formula = _sec4_count(n, m1, m2, n_i, n_y)
    stored = parameter_count(SpectralRNN(n_i, n, m1, m2, output_size=n_y, bias=case.bias))
    by_hand = (sum(range(n - m1 + 1, n + 1)) + sum(range(n - m2 + 1, n + 1)) + n + n * n_i
               + (n if case.bias else 0) + n_y * n)  # u's, v's, σ̂, M, b, Y
    stored_ornn = parameter_count(ORNN(n_i, n, m1, output_size=n_y, bias=case.bias))
    tol = _t(COUNT_TOL)
    # Table 2 (pixel MNIST, n_i = 1, n_y = 10): "≈ 6k" and "≈ 11k", i.e. within 500 of the rounded value.
    t2_spec, t2_ornn = _sec4_count(128, 16, 16, 1, 10), _ornn_count(256, 32, 1, 10)
    return {
        "Sec. 4 formula = parameters stored by SpectralRNN": (_t(abs(formula - stored)), tol),
        "Sec. 4 formula = Σ_k k over both chains + n(σ̂) + n n_i + n(b) + n_y n": (_t(abs(formula - by_hand)), tol),
        "m1 = m2 = n gives (n_y + n_i + n + 3) n": (
            _t(abs(_sec4_count(n, n, n, n_i, n_y) - (n_y + n_i + n + 3) * n)), tol),
        "vanilla RNN (n_y + n_i + n + 1) n = n² + n n_i + n + n_y n": (
            _t(abs(_vanilla_count(n, n_i, n_y) - (n * n + n * n_i + n + n_y * n))), tol),
        "oRNN (m2 = 0, no σ̂) = parameters stored by ORNN": (_t(abs(_ornn_count(n, m1, n_i, n_y) - stored_ornn)), tol),
        "Table 2: Spectral-RNN n = 128, m1 = m2 = 16 has ≈ 6k parameters": (_t(abs(t2_spec - 6000)), _t(500)),
        "Table 2: oRNN n = 256, m = 32 has ≈ 11k parameters": (_t(abs(t2_ornn - 11000)), _t(500)),
        f"Table 4 model differences with m1 = m2 = {table4_m}": (_t(_table4_error(table4_m)), tol),
    }


def _sample_count(gen, h, T, device, dtype) -> CountCase:
    """m1, m2 uniform in [0, n] (m = 0 and m = n included), n_i ∈ [1, 10], n_y ∈ [0, 10] (0: no readout)."""
    return CountCase(h, _randint(gen, 0, h), _randint(gen, 0, h), _randint(gen, 1, 10), _randint(gen, 0, 10))


A_BIAS = Assumption("b present (eq. 4; Sec. 4 counts it)", lambda c: (c.bias, f"bias = {c.bias}"))
A_M_RANGE = Assumption("0 ≤ m1, m2 ≤ n", lambda c: (0 <= c.m1 <= c.n and 0 <= c.m2 <= c.n,
                                                   f"n = {c.n}, m1 = {c.m1}, m2 = {c.m2}"))


# --------------------------------------------------------------------------- dense references (autograd)
def _dense_H(u_hat: Tensor) -> Tensor:
    """I − 2ûûᵀ/ûᵀû (eq. 8) as a dense matrix, I for û = 0 (eq. 1)."""
    eye = torch.eye(u_hat.shape[0], dtype=u_hat.dtype, device=u_hat.device)
    q = u_hat @ u_hat
    return eye - 2 * torch.outer(u_hat, u_hat) / q if bool(q > 0) else eye


def _dense_w(U_hat: Tensor, sigma: Tensor | None, V_hat: Tensor | None) -> Tensor:
    """W = H_n(u_n) … H_{k1}(u_{k1}) diag(σ) H_{k2}(v_{k2}) … H_n(v_n) (eq. 6) by dense products of
    :func:`_dense_H`: a reference independent of both Hprod and ``torch.linalg.householder_product``."""
    n = U_hat.shape[0]
    W = torch.eye(n, dtype=U_hat.dtype, device=U_hat.device)
    for j in range(U_hat.shape[1]):
        W = W @ _dense_H(U_hat[:, j])
    if sigma is not None:
        W = W * sigma
    if V_hat is not None:
        V = torch.eye(n, dtype=U_hat.dtype, device=U_hat.device)
        for j in range(V_hat.shape[1]):
            V = V @ _dense_H(V_hat[:, j])
        W = W @ V.mT
    return W


# ------------------------------------------------------------------------------------------- Table 1 flops
_ZERO_COST = {
    "clone", "slice", "select", "copy_", "detach", "view", "_unsafe_view", "expand", "unsqueeze", "squeeze",
    "t", "transpose", "permute", "alias", "lift_fresh", "lift_fresh_copy", "zeros", "zeros_like", "empty",
    "empty_like", "new_zeros", "new_empty", "fill_", "zero_", "cat", "stack", "_to_copy", "as_strided",
    "index", "index_put", "index_put_", "where", "gt", "lt", "ge", "le", "eq", "ne", "scalar_tensor", "full",
    "ones", "ones_like", "_local_scalar_dense", "split", "unbind", "diagonal", "resolve_conj", "resolve_neg",
    "new_empty_strided", "empty_strided", "logical_and", "logical_or", "any", "all",
}
_ELEMENTWISE = {"add", "sub", "mul", "div", "neg", "reciprocal", "rsub", "add_", "sub_", "mul_", "div_"}


class FlopCounter(TorchDispatchMode):
    """Counts the floating-point operations of the ATen calls made inside it (a dispatch-level count of
    what the code actually executes).

    Rules: elementwise add/sub/mul/div/neg/reciprocal cost one flop per output entry; ``dot`` of length k
    costs 2k − 1 (k products, k − 1 sums); ``mv``/``mm`` cost rows·cols·(2·inner − 1); ``sum`` costs
    (entries in − entries out). Data movement (views, copies, slicing, comparisons, ``where``) is free.
    Any other op raises, so nothing is silently left uncounted.

    Attributes:
        flops: total count. by_op: Counter of flops per op name.

    Raises:
        RuntimeError: an op without a rule (name given).

    Source: spectral_rnn.md Sec. 4.2 / Table 1 ("flops").
    """

    def __init__(self):
        super().__init__()
        self.flops = 0
        self.by_op: Counter = Counter()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        name = func.overloadpacket.__name__
        if name in _ZERO_COST:
            cost = 0
        elif name in _ELEMENTWISE:
            cost = out.numel()
        elif name in ("dot", "vdot"):
            cost = 2 * args[0].numel() - 1
        elif name == "mv":
            rows, inner = args[0].shape
            cost = rows * (2 * inner - 1)
        elif name == "mm":
            (rows, inner), cols = args[0].shape, args[1].shape[1]
            cost = rows * cols * (2 * inner - 1)
        elif name == "sum":
            cost = args[0].numel() - out.numel()
        else:
            raise RuntimeError(f"FlopCounter has no rule for aten.{name}")
        self.flops += cost
        self.by_op[name] += cost
        return out


def count_flops(fn, *args, **kwargs) -> tuple[int, object]:
    """(flops, result) of ``fn(*args, **kwargs)`` under :class:`FlopCounter` (no autograd recorded)."""
    with torch.no_grad(), FlopCounter() as counter:
        result = fn(*args, **kwargs)
    return counter.flops, result


def sparse_hprod(h: Tensor, u: Tensor, c: Tensor | None = None) -> tuple[Tensor, Tensor]:
    """Hprod (Algorithm 2) on the support of û_k only: ĥ = h − α û_k, α = c uᵀh_{n−k+1:n}.

    Args:
        h: (n,). u: (k,), the free part of û_k. c: cached 2/‖u‖² (0-d), or None to compute it here.

    Returns:
        (ĥ (n,), α 0-d); α is kept for Hgrad. No argument checks (inner loop of a flop count).

    Source: spectral_rnn.md Algorithm 2, eq. 8; Table 1 row 1 (4k flops with ‖u‖² cached).
    """
    n, k = h.shape[0], u.shape[0]
    if c is None:
        c = 2 / torch.dot(u, u)
    tail = h[n - k:]
    alpha = c * torch.dot(u, tail)
    out = h.clone()
    out[n - k:] = tail - alpha * u
    return out, alpha


def sparse_hgrad(h: Tensor, u: Tensor, g: Tensor, c: Tensor | None = None,
                 alpha: Tensor | None = None) -> tuple[Tensor, Tensor]:
    """Hgrad (Algorithm 3, α from the reflector input) with Table 1's accounting: β, h̄ = g − βû and the
    αβû term touch only û's k entries; −αg − βh is formed on all n entries, as Algorithm 3 writes it.

    Args:
        h: (n,) reflector input. u: (k,). g: (n,) ∂L/∂ĥ. c: cached 2/‖u‖² or None. alpha: α from the
            forward pass (reused, Sec. 4.2) or None to recompute it.

    Returns:
        (∂L/∂h (n,), ∂L/∂u (k,)).

    Source: spectral_rnn.md Algorithm 3, eq. 12–13; Table 1 row 2 (3n + 6k flops with both savings).
    """
    n, k = h.shape[0], u.shape[0]
    if c is None:
        c = 2 / torch.dot(u, u)
    if alpha is None:
        alpha = c * torch.dot(u, h[n - k:])
    tail_g = g[n - k:]
    beta = c * torch.dot(u, tail_g)
    h_bar = g.clone()
    h_bar[n - k:] = tail_g - beta * u
    u_bar = (-alpha) * g - beta * h
    return h_bar, u_bar[n - k:] + (alpha * beta) * u


def _norm_cache(U_hat: Tensor | None) -> list:
    if U_hat is None:
        return []
    sq = (U_hat * U_hat).sum(0)
    return list(torch.where(sq > 0, 2 / torch.where(sq > 0, sq, torch.ones_like(sq)), torch.zeros_like(sq)))


def sparse_local_fp(h: Tensor, U_hat: Tensor, sigma: Tensor | None, V_hat: Tensor | None, *,
                    norms: tuple[list, list] | None = None) -> tuple[Tensor, dict]:
    """Algorithm 1, forward part, for one square h̃ = W h with every reflector applied on its support.

    Args:
        h: (n,). U_hat: (n, m1), V_hat: (n, m2) or None, zero-padded (``cells.spectral`` layout).
        sigma: (n,) or None (oRNN: no Σ). norms: (cu, cv), the 2/‖u_k‖² and 2/‖v_k‖² computed once per
            iteration (Sec. 4.2, see :func:`reflector_norms`), or None to compute them in every Hprod/Hgrad.

    Returns:
        (W h (n,), trace) with the reflector inputs and α's for :func:`sparse_local_bp`.

    Source: spectral_rnn.md Algorithm 1 (forward), Table 1 rows 3 and 5.
    """
    m1, m2 = U_hat.shape[1], 0 if V_hat is None else V_hat.shape[1]
    cu, cv = norms if norms is not None else ([None] * m1, [None] * m2)
    trace = {"v_in": [], "v_alpha": [], "u_in": {}, "u_alpha": {}, "cu": cu, "cv": cv}
    for j in range(m2):  # k = n, …, k2
        trace["v_in"].append(h)
        h, a = sparse_hprod(h, V_hat[j:, j], cv[j])
        trace["v_alpha"].append(a)
    trace["hv"] = h
    if sigma is not None:
        h = h * sigma
    for j in reversed(range(m1)):  # k = k1, …, n
        trace["u_in"][j] = h
        h, a = sparse_hprod(h, U_hat[j:, j], cu[j])
        trace["u_alpha"][j] = a
    return h, trace


def reflector_norms(U_hat: Tensor, V_hat: Tensor | None) -> tuple[list, list]:
    """The per-iteration cache of Sec. 4.2: [2/‖û_k‖²] for each column of U_hat and V_hat (0 for û = 0)."""
    return _norm_cache(U_hat), _norm_cache(V_hat)


def sparse_local_bp(g: Tensor, U_hat: Tensor, sigma: Tensor | None, V_hat: Tensor | None, trace: dict, *,
                    dsigma: Tensor | None = None, reuse_alpha: bool = True) -> dict[str, object]:
    """Algorithm 1, backward part, on the reflectors' supports (Hgrad = :func:`sparse_hgrad`).

    Args:
        g: (n,) ∂L/∂h̃. U_hat, sigma, V_hat, trace: as for / from :func:`sparse_local_fp`.
        dsigma: (n,) cached dσ/dσ̂ = 2r f'(σ̂) (eq. 7; fixed within an iteration) or None.
        reuse_alpha: reuse the forward α's (Sec. 4.2).

    Returns:
        {"h": ∂L/∂h (n,), "U": [∂L/∂u_k (k,) for k = n … k1], "V": [… k = n … k2], "sigma", "sigma_hat"}.

    Source: spectral_rnn.md Algorithm 1 (backward, Hgrad on the reflector input), Table 1 rows 4 and 6.
    """
    out: dict[str, object] = {"U": [None] * U_hat.shape[1]}
    for j in range(U_hat.shape[1]):  # k = n, …, k1
        g, out["U"][j] = sparse_hgrad(trace["u_in"][j], U_hat[j:, j], g, trace["cu"][j],
                                      trace["u_alpha"][j] if reuse_alpha else None)
    if sigma is not None:
        out["sigma"] = g * trace["hv"]
        g = g * sigma
        if dsigma is not None:
            out["sigma_hat"] = dsigma * out["sigma"]
    m2 = len(trace["cv"])
    out["V"] = [None] * m2
    for j in reversed(range(m2)):  # k = k2, …, n
        g, out["V"][j] = sparse_hgrad(trace["v_in"][j], V_hat[j:, j], g, trace["cv"][j],
                                      trace["v_alpha"][j] if reuse_alpha else None)
    out["h"] = g
    return out


#: Table 1 as printed: row → (formula text, formula of (n, m1, m2)); the oRNN rows take m = m1. "O(n)" rows
#: are compared up to :data:`O_N_CONSTANT` · n, the per-kernel rows up to :data:`FLOP_SLACK`.
TABLE1_PRINTED = {
    "Spectral-RNN local FP": ("4n(m1 + m2) − 2m1² − 2m2²", lambda n, m1, m2: 4 * n * (m1 + m2) - 2 * m1**2 - 2 * m2**2),
    "Spectral-RNN local BP": ("6n(m1 + m2) − 1.5m1² − 1.5m2²",
                              lambda n, m1, m2: 6 * n * (m1 + m2) - 1.5 * m1**2 - 1.5 * m2**2),
    "oRNN local FP": ("4nm − m²", lambda n, m1, m2: 4 * n * m1 - m1**2),
    "oRNN local BP": ("7nm − 2m²", lambda n, m1, m2: 7 * n * m1 - 2 * m1**2),
}
#: The same rows as sums of Table 1's own first two rows (4k per Hprod, 3n + 6k per Hgrad) over the
#: reflectors k = n − m + 1, …, n of each chain, Σ_k k = mn − m²/2 + O(n).
TABLE1_CORRECTED = {
    "Spectral-RNN local FP": TABLE1_PRINTED["Spectral-RNN local FP"],
    "Spectral-RNN local BP": ("9n(m1 + m2) − 3m1² − 3m2²", lambda n, m1, m2: 9 * n * (m1 + m2) - 3 * m1**2 - 3 * m2**2),
    "oRNN local FP": ("4nm − 2m²", lambda n, m1, m2: 4 * n * m1 - 2 * m1**2),
    "oRNN local BP": ("9nm − 3m²", lambda n, m1, m2: 9 * n * m1 - 3 * m1**2),
}


def table1_counts(n: int, m1: int, m2: int, *, cache_norms: bool = True, reuse_alpha: bool = True,
                  generator: torch.Generator | None = None) -> dict[str, int]:
    """Counted flops of one local FP/BP step (Algorithm 1) of Spectral-RNN (n, m1, m2) and oRNN (n, m = m1),
    and of single Hprod/Hgrad calls at k = n, k1, 1, on random float64 data.

    Returns:
        {"Hprod k=<k>", "Hgrad k=<k>", "Spectral-RNN local FP", "Spectral-RNN local BP", "oRNN local FP",
         "oRNN local BP"} → flops.

    Raises:
        ValueError: n < 1 or m1, m2 outside [0, n].

    Source: spectral_rnn.md Sec. 4.2, Table 1.
    """
    if n < 1 or not (0 <= m1 <= n and 0 <= m2 <= n):
        raise ValueError(f"need n >= 1 and 0 <= m1, m2 <= n, got n={n}, m1={m1}, m2={m2}")
    gen = generator if generator is not None else torch.Generator().manual_seed(0)
    U_hat, V_hat = _random_reflectors(gen, n, m1), _random_reflectors(gen, n, m2) if m2 else None
    sigma, dsigma = 1 + 0.1 * _gauss(gen, n), 0.1 * torch.rand(n, generator=gen, dtype=F64)
    h, g = _gauss(gen, n), _gauss(gen, n)
    out = {}
    for k in sorted({n, max(n - m1 + 1, 1), 1}):
        u = _gauss(gen, k)
        c = None if not cache_norms else 2 / torch.dot(u, u)
        out[f"Hprod k={k}"], (_, a) = count_flops(sparse_hprod, h, u, c)
        out[f"Hgrad k={k}"], _ = count_flops(sparse_hgrad, h, u, g, c, a if reuse_alpha else None)
    for model, s, V in (("Spectral-RNN", sigma, V_hat), ("oRNN", None, None)):
        norms = reflector_norms(U_hat, V) if cache_norms else None  # once per iteration: not counted
        flops_fp, (_, trace) = count_flops(sparse_local_fp, h, U_hat, s, V, norms=norms)
        flops_bp, _ = count_flops(sparse_local_bp, g, U_hat, s, V, trace, dsigma=None if s is None else dsigma,
                                  reuse_alpha=reuse_alpha)
        out[f"{model} local FP"], out[f"{model} local BP"] = flops_fp, flops_bp
    return out


def _sparse_matches_dense(case: CountCase, gen: torch.Generator) -> Tensor:
    """Relative error between the sparse recurrence (whose flops are counted) and the dense W h of eq. 6
    with its autograd gradients (h, each u_k and v_k, σ̂ through eq. 7): the counted code is Algorithm 1."""
    n, m1, m2 = case.n, case.m1, case.m2
    U_hat, V_hat = _random_reflectors(gen, n, m1), _random_reflectors(gen, n, m2) if m2 else None
    sigma_hat, r = _gauss(gen, n), 0.3
    s = torch.sigmoid(sigma_hat)
    sigma, dsigma = 2 * r * (s - 0.5) + 1, 2 * r * s * (1 - s)
    h, g = _gauss(gen, n), _gauss(gen, n)
    with torch.no_grad():
        y, trace = sparse_local_fp(h, U_hat, sigma, V_hat,
                                   norms=reflector_norms(U_hat, V_hat) if case.cache_norms else None)
        grads = sparse_local_bp(g, U_hat, sigma, V_hat, trace, dsigma=dsigma, reuse_alpha=case.reuse_alpha)
    leaves = [t.clone().requires_grad_() for t in (h, U_hat, sigma_hat)]
    leaves += [V_hat.clone().requires_grad_()] if m2 else []
    sig = 2 * r * (torch.sigmoid(leaves[2]) - 0.5) + 1
    y_ref = _dense_w(leaves[1], sig, leaves[3] if m2 else None) @ leaves[0]
    ref = torch.autograd.grad(y_ref @ g, leaves)
    hg = h.norm() * g.norm()
    errs = [(y - y_ref.detach()).norm() / (y_ref.detach().norm() + h.norm()),
            (grads["h"] - ref[0]).norm() / (3 * g.norm())]
    errs += [(grads["U"][j] - ref[1][j:, j]).norm() / (ref[1][:, j].norm() + 8 * hg / U_hat[:, j].norm())
             for j in range(m1)]
    errs += [(grads["V"][j] - ref[3][j:, j]).norm() / (ref[3][:, j].norm() + 8 * hg / V_hat[:, j].norm())
             for j in range(m2)]
    errs.append((grads["sigma_hat"] - ref[2]).norm() / (ref[2].norm() + hg))
    return torch.stack(errs).max()


def _measure_table1(case: CountCase, rows: dict) -> dict[str, tuple[Tensor, Tensor]]:
    gen = torch.Generator().manual_seed(case.n * 1009 + case.m1 * 31 + case.m2)
    counts = table1_counts(case.n, case.m1, case.m2, cache_norms=case.cache_norms, reuse_alpha=case.reuse_alpha,
                           generator=gen)
    n = case.n
    hprod = max(abs(v - 4 * int(k.split("=")[1])) for k, v in counts.items() if k.startswith("Hprod"))
    hgrad = max(abs(v - (3 * n + 6 * int(k.split("=")[1]))) for k, v in counts.items() if k.startswith("Hgrad"))
    parts = {"Hprod(h, u_k) = 4k": (_t(hprod), _t(FLOP_SLACK)),
             "Hgrad(h, u_k, g) = 3n + 6k": (_t(hgrad), _t(FLOP_SLACK))}
    for row, (text, formula) in rows.items():
        parts[f"{row} = {text} + O(n)"] = (_t(abs(counts[row] - formula(n, case.m1, case.m2))), _t(O_N_CONSTANT * n))
    parts["counted recurrence = dense W h of eq. 6 and its autograd gradients (relative error)"] = (
        _sparse_matches_dense(case, gen), _t(GRAD_RTOL))
    return parts


def _sample_table1(gen, h, T, device, dtype) -> CountCase:
    """m1 uniform in [1, n] (m1 = n in a third of the cases: the largest quadratic terms), m2 in [0, n]."""
    m1 = h if _draw(gen) < 1 / 3 else _randint(gen, 1, h)
    return CountCase(h, m1, _randint(gen, 0, h))


A_CACHE = Assumption("‖u_k‖² computed once per iteration (Sec. 4.2)", lambda c: (
    c.cache_norms, f"cache_norms = {c.cache_norms}"))
A_REUSE = Assumption("α reused from forward propagation in Hgrad (Sec. 4.2)", lambda c: (
    c.reuse_alpha, f"reuse_alpha = {c.reuse_alpha}"))


# ---------------------------------------------------------------------------------- eq. 12–13, Algorithms 1, 3
def eq12(h: Tensor, u_hat: Tensor, g: Tensor) -> Tensor:
    """∂L/∂h = g − 2 (ûᵀg / ûᵀû) û for ĥ = H(u) h (eq. 12), written as printed.

    Args:
        h: (..., n) (unused: eq. 12 does not depend on h). u_hat: (n,) nonzero. g: (..., n).

    Returns:
        (..., n). Source: spectral_rnn.md eq. 12.
    """
    q = u_hat @ u_hat
    return g - 2 * (g @ u_hat)[..., None] / q * u_hat


def eq13(h: Tensor, u_hat: Tensor, g: Tensor) -> Tensor:
    """∂L/∂û = −2(ûᵀh/ûᵀû) g − 2(ûᵀg/ûᵀû) h + 4 (ûᵀh)(ûᵀg)/(ûᵀû)² û (eq. 13, last line), summed over the
    leading dims of h and g (û is shared).

    Args:
        h: (..., n) reflector input. u_hat: (n,) nonzero. g: (..., n) ∂L/∂ĥ.

    Returns:
        (n,). Source: spectral_rnn.md eq. 13.
    """
    q = u_hat @ u_hat
    uh, ug = (h @ u_hat)[..., None], (g @ u_hat)[..., None]
    out = -2 * uh / q * g - 2 * ug / q * h + 4 * uh * ug / q ** 2 * u_hat
    return out.reshape(-1, u_hat.shape[0]).sum(0)


def algorithm3_printed(h: Tensor, u_hat: Tensor, g: Tensor) -> tuple[Tensor, Tensor]:
    """Algorithm 3 as printed: α = 2 u_kᵀh̄/‖u_k‖² uses h̄ before its line; the only h̄ the algorithm
    defines is its output h̄ = g − βu_k, so α = −β here (uᵀh̄ = uᵀg − 2uᵀg).

    Returns:
        (h̄ (..., n), ū_k (n,) summed over leading dims). Source: spectral_rnn.md Algorithm 3.
    """
    q = u_hat @ u_hat
    beta = 2 * (g @ u_hat) / q
    h_bar = g - beta[..., None] * u_hat
    alpha = 2 * (h_bar @ u_hat) / q
    u_bar = -alpha[..., None] * g - beta[..., None] * h + (alpha * beta)[..., None] * u_hat
    return h_bar, u_bar.reshape(-1, u_hat.shape[0]).sum(0)


def algorithm1_backward_printed(g: Tensor, U_hat: Tensor, trace) -> Tensor:
    """The u-loop of Algorithm 1 as printed: Hgrad(h_k^(u), u_k, g) with h_k^(u) = Hprod(h_{k−1}^(u), u_k),
    the reflector's *output*.

    Args:
        g: (batch, n) ∂L/∂h̃. U_hat: (n, m1). trace: ``cells.spectral.ReflectorTrace`` of the forward pass.

    Returns:
        G^(u) (n, m1) (padded layout). Source: spectral_rnn.md Algorithm 1 (backward, u loop).
    """
    n, m1 = U_hat.shape
    G = torch.zeros_like(U_hat)
    for j in range(m1):  # k = n − j; trace.hu[m1 − j] = h_k^(u), the output; the input is hu[m1 − 1 − j]
        g, G[:, j] = reflect_grad(trace.hu[m1 - j], U_hat[:, j], g)
    rows, cols = torch.arange(n, device=G.device), torch.arange(m1, device=G.device)
    return G * (rows[:, None] >= cols[None, :])  # the padding entries are structural zeros


def _rel(mine: Tensor, ref: Tensor, S: Tensor) -> Tensor:
    num = torch.linalg.vector_norm(mine - ref)
    den = torch.linalg.vector_norm(ref) + S
    return torch.where(num == 0, torch.zeros_like(num), num / torch.where(den == 0, torch.ones_like(den), den))


def _columns(cell: SpectralRNN) -> list[Tensor]:
    U_hat, V_hat = cell.U_hat.detach(), cell.V_hat
    cols = [U_hat[:, j] for j in range(U_hat.shape[1])]
    if V_hat is not None:
        cols += [V_hat.detach()[:, j] for j in range(V_hat.shape[1])]
    return cols


def _reflector_reference(h: Tensor, u_hat: Tensor, g: Tensor) -> tuple[Tensor, Tensor]:
    """autograd of L = Σ_b g_bᵀ H(û) h_b through the dense H = I − 2ûûᵀ/ûᵀû (independent of Hprod)."""
    h, u = h.detach().clone().requires_grad_(), u_hat.detach().clone().requires_grad_()
    H = torch.eye(u.shape[0], dtype=u.dtype, device=u.device) - 2 * torch.outer(u, u) / (u @ u)
    return torch.autograd.grad(((h @ H.mT) * g).sum(), (h, u))


def _local_reference(case: SpectralCellCase) -> dict[str, Tensor]:
    """autograd of L = Σ_b g_bᵀ W h_b with W = U diag(σ) Vᵀ formed by dense reflector products (independent of
    the reflector recurrence) with respect to packed U, V, σ̂ and h."""
    cell = case.cell
    n = cell.hidden_size
    U = cell.U.detach().clone().requires_grad_()
    V = None if cell.V is None else cell.V.detach().clone().requires_grad_()
    sh = cell.sigma_hat.detach().clone().requires_grad_()
    h = case.h.detach().clone().requires_grad_()
    sigma = 2 * cell.r * (torch.sigmoid(sh) - 0.5) + cell.sigma_star
    W = _dense_w(unpack_reflectors(U, n, cell.m1), sigma, None if V is None else unpack_reflectors(V, n, cell.m2))
    leaves = [h, U, sh] + ([V] if V is not None else [])
    grads = torch.autograd.grad(((h @ W.mT) * case.g).sum(), leaves)
    return dict(zip(["h", "U", "sigma_hat", "V"], grads))


def _scales(case: SpectralCellCase) -> tuple[Tensor, Tensor, float]:
    hn, gn = torch.linalg.vector_norm(case.h, dim=-1), torch.linalg.vector_norm(case.g, dim=-1)
    s = max(1.0, float(case.cell.sigma.detach().abs().max()))
    return (hn * gn).sum(), torch.linalg.vector_norm(case.g), s


def _measure_eq13(case: SpectralCellCase, printed: bool) -> dict[str, tuple[Tensor, Tensor]]:
    cell, h, g = case.cell, case.h, case.g
    hg, g_norm, s = _scales(case)
    e12, e13, e3 = [], [], []
    for u in _columns(cell):
        ref_h, ref_u = _reflector_reference(h, u, g)
        S_u = 8 * hg / torch.linalg.vector_norm(u)
        e12.append(_rel(eq12(h, u, g), ref_h, 3 * g_norm))
        e13.append(_rel(eq13(h, u, g), ref_u, S_u))
        h_bar, u_bar = algorithm3_printed(h, u, g) if printed else reflect_grad(h, u, g)
        e3.append(torch.maximum(_rel(h_bar, ref_h, 3 * g_norm), _rel(u_bar, ref_u, S_u)))
    tol = _t(GRAD_RTOL, h)
    parts = {"eq. 12: ∂L/∂h = autograd": (torch.stack(e12).max(), tol),
             "eq. 13: ∂L/∂û_k = autograd": (torch.stack(e13).max(), tol)}
    a3 = "Algorithm 3 as printed (α from h̄, the only h̄ it defines: h̄ = g − βu)" if printed else \
        "Algorithm 3 with α = 2u_kᵀh/‖u_k‖², h the reflector input (reflect_grad)"
    parts[a3 + " = autograd"] = (torch.stack(e3).max(), tol)

    ref = _local_reference(case)
    U_hat, sigma, V_hat = cell.U_hat.detach(), cell.sigma.detach(), None if cell.V is None else cell.V_hat.detach()
    _, trace = householder_forward(h, U_hat, sigma, V_hat)
    if printed:  # only the u loop differs from the corrected Algorithm 1
        alg = {"U": algorithm1_backward_printed(g, U_hat, trace)}
    else:
        alg = householder_backward(g, U_hat, sigma, V_hat, trace, r=cell.r, sigma_hat=cell.sigma_hat.detach())
    n = cell.hidden_size
    ref_U = unpack_reflectors(ref["U"], n, cell.m1)
    errs = [_rel(alg["U"][:, j], ref_U[:, j], 8 * s * hg / torch.linalg.vector_norm(U_hat[:, j]))
            for j in range(cell.m1)]
    name = ("Algorithm 1 as printed (Hgrad(h_k^(u), u_k, g): the reflector output) = autograd" if printed else
            "Algorithm 1 with Hgrad(h_(k−1)^(u), u_k, g) (householder_backward): ∂L/∂{h, U, V, σ̂} = autograd")
    if not printed:
        errs.append(_rel(alg["h"], ref["h"], 3 * s * g_norm))
        errs.append(_rel(alg["sigma_hat"], ref["sigma_hat"], cell.r * hg))
        if V_hat is not None:
            ref_V = unpack_reflectors(ref["V"], n, cell.m2)
            errs += [_rel(alg["V"][:, j], ref_V[:, j], 8 * s * hg / torch.linalg.vector_norm(V_hat[:, j]))
                     for j in range(cell.m2)]
    parts[name] = (torch.stack(errs).max() if errs else torch.zeros_like(tol), tol)
    return parts


def _sample_eq13(gen, h, T, device, dtype) -> SpectralCellCase:
    """m1 ∈ [1, n], m2 ∈ [0, n], r ∈ [0, 0.5], σ* ∈ [0.5, 1.5], σ̂ ~ N(0, 4), a batch of 3 (h, g); edge
    cases: a reflector scaled to 1e-6, a reflector with zero leading entry, a batch row h ⟂ û_n, and k = 1
    reflectors (m = n)."""
    n = h
    m1, m2 = _randint(gen, 1, n), _randint(gen, 0, n)
    if _draw(gen) < 0.25:
        m1 = n
    cell = SpectralRNN(1, n, m1, m2, r=0.5 * _draw(gen), sigma_star=0.5 + _draw(gen), bias=False, generator=gen,
                       dtype=F64)
    U_hat = cell.U_hat.detach().clone()
    kind = _randint(gen, 0, 3)
    if kind == 1:
        U_hat[:, _randint(gen, 0, m1 - 1)] *= 1e-6
    elif kind == 2 and n > 1:
        j = _randint(gen, 0, min(m1, n - 1) - 1)
        U_hat[j, j] = 0.0
    hs, gs = _gauss(gen, 3, n), _gauss(gen, 3, n)
    if kind == 3:
        u = U_hat[:, 0]
        hs[0] = hs[0] - (hs[0] @ u) / (u @ u) * u
    with torch.no_grad():
        cell.U.copy_(pack_reflectors(U_hat))
        cell.sigma_hat.copy_(2 * _gauss(gen, n))
    return SpectralCellCase(cell.to(device=device, dtype=dtype), _to(hs, device, dtype), _to(gs, device, dtype))


A_NONZERO_U = Assumption("û_k ≠ 0 for every reflector (eq. 12–13 divide by ûᵀû)", lambda c: (
    all(bool(u.abs().sum() > 0) for u in _columns(c.cell)), "some reflector is 0"))


# ------------------------------------------------------------------------------------ eq. 17, 24, Lemma 3
_ACTIVATIONS_1B = ("relu", "tanh", "identity", "leaky_relu")  # draws use the first three


def _phi(name: str):
    return torch.sigmoid if name == "sigmoid" else get_activation(name)


def rnn_states(W: Tensor, M: Tensor, x: Tensor, activation: str = "relu", b: Tensor | None = None,
               h0: Tensor | None = None) -> Tensor:
    """Hidden states of eq. 17, h^(t) = φ(W h^(t−1) + M x^(t) (+ b)), h^(0) = h0 (0 by default).

    Args:
        W: (n, n). M: (n, n_i) (App. A.6's shape; Sec. 6's "M ∈ ℝ^{n_i×n}" does not type-check).
        x: (S, T, n_i). activation: "relu", "tanh", "identity" or "sigmoid". b: (n,) or None. h0: (n,) or None.

    Returns:
        (S, T, n), dtype of W.

    Raises:
        ValueError: shapes that do not chain, T = 0, unknown activation.

    Source: spectral_rnn.md eq. 17 (App. A.6).
    """
    if W.dim() != 2 or W.shape[0] != W.shape[1] or M.dim() != 2 or M.shape[0] != W.shape[0]:
        raise ValueError(f"W must be (n, n) and M (n, n_i), got {tuple(W.shape)} and {tuple(M.shape)}")
    if x.dim() != 3 or x.shape[2] != M.shape[1] or x.shape[1] == 0:
        raise ValueError(f"x must be (S, T >= 1, {M.shape[1]}), got {tuple(x.shape)}")
    phi = _phi(activation)
    pre = x @ M.mT
    if b is not None:
        pre = pre + b
    h = x.new_zeros(x.shape[0], W.shape[0]) if h0 is None else h0.expand(x.shape[0], W.shape[0])
    states = []
    for t in range(x.shape[1]):
        h = phi(h @ W.mT + pre[:, t])
        states.append(h)
    return torch.stack(states, 1)


def _spec(X: Tensor) -> Tensor:
    return torch.linalg.matrix_norm(X, ord=2) if X.numel() else X.new_zeros(())


def _growth(Wn: Tensor, T: int) -> Tensor:
    """max{‖W‖^{t−1}, 1} for t = 1..T, shape (T,)."""
    t = torch.arange(T, dtype=Wn.dtype, device=Wn.device)
    return torch.clamp(Wn ** t, min=1.0)


def _worst(measured: Tensor, bound: Tensor) -> tuple[Tensor, Tensor]:
    """(measured, bound) at the index of the largest measured/bound (0/0 counted as 0)."""
    ratio = torch.where(bound > 0, measured / torch.where(bound > 0, bound, torch.ones_like(bound)),
                        torch.where(measured > 0, torch.full_like(measured, math.inf), torch.zeros_like(measured)))
    i = int(torch.argmax(ratio.detach()))
    return measured[i], bound[i]


def _measure_eq24(case: RNNCase) -> dict[str, tuple[Tensor, Tensor]]:
    hs = rnn_states(case.W, case.M, case.x, case.activation, case.b, case.h0)
    T = hs.shape[1]
    norms = torch.linalg.vector_norm(hs, dim=-1).amax(0)
    t = torch.arange(1, T + 1, dtype=hs.dtype, device=hs.device)
    bound = case.B * _spec(case.M) * t * _growth(_spec(case.W), T)
    return {"eq. 24: ‖h^(t)‖ ≤ B‖M‖ t max{‖W‖^{t−1}, 1} (worst t)": _worst(norms, bound)}


def _measure_lemma3(case: RNNCase) -> dict[str, tuple[Tensor, Tensor]]:
    h_w = rnn_states(case.W, case.M, case.x, case.activation, case.b, case.h0)
    h_wu = rnn_states(case.W + case.dW, case.M + case.dM, case.x, case.activation, case.b, case.h0)
    T = h_w.shape[1]
    delta = torch.linalg.vector_norm(h_wu - h_w, dim=-1).amax(0)  # Δ_t, worst sequence
    Wn, Mn, Yn = _spec(case.W), _spec(case.M), _spec(case.Y)
    dWn, dMn, dYn = _spec(case.dW), _spec(case.dM), _spec(case.dY)
    t = torch.arange(1, T + 1, dtype=h_w.dtype, device=h_w.device)
    grow = _growth(Wn, T)
    K = dWn * Mn * T + dMn
    e = math.e
    eq25 = case.B * t * (1 + 1 / T) ** (t - 1) * K * grow
    y_w, y_wu = h_w[:, -1] @ case.Y.mT, h_wu[:, -1] @ (case.Y + case.dY).mT
    out_diff = torch.linalg.vector_norm(y_wu - y_w, dim=-1).amax()
    out_bound = T * case.B * grow[-1] * (Yn * dWn * Mn * T * e + Yn * dMn * e + dYn * Mn)
    return {
        "eq. 25: Δ_t ≤ Bt(1 + 1/T)^{t−1}(‖δW‖‖M‖T + ‖δM‖) max{‖W‖^{t−1}, 1} (worst t)": _worst(delta, eq25),
        "eq. 22 as proved: Δ_T ≤ BTe(T‖M‖‖δW‖ + ‖δM‖) max{‖W‖^{T−1}, 1}": (delta[-1], case.B * T * e * K * grow[-1]),
        "eq. 22 as printed: Δ_T ≤ BT e^(T‖M‖‖δW‖ + ‖δM‖) max{‖W‖^{T−1}, 1}": (
            delta[-1], case.B * T * torch.exp(K) * grow[-1]),
        "output: ‖ŷ_(w+u) − ŷ_w‖ ≤ TB max{‖W‖^{T−1}, 1}(‖Y‖‖δW‖‖M‖Te + ‖Y‖‖δM‖e + ‖δY‖‖M‖)": (
            out_diff, out_bound),
    }


def _sample_rnn_case(gen, h, T, device, dtype, *, perturb: bool) -> RNNCase:
    """W = Spectral-RNN's U diag(σ) Vᵀ (σ* ∈ [0.3, 1.5], r ∈ [0, min(σ*, 0.5)], random σ̂) or a dense
    Gaussian W (a general RNN); M, Y Glorot (from the cell); φ ∈ {ReLU, tanh, identity}; S = 2 sequences
    (Gaussian, a repeated vector, or addition-problem inputs), B = max_t ‖x_t‖. A quarter of the cases is
    the aligned edge case W = I (V = U), M = a bᵀ with a > 0, x_t = B b/‖b‖, where eq. 24 is attained.
    Perturbations (Lemma 3): random directions at a fraction ρ ∈ (0, 1] of ‖·‖/T, ρ = 1 in a third of the
    cases; in the aligned case δW = 0 and δM ∝ a bᵀ, where eq. 25 is attained at t = 1."""
    n = h
    kind = _randint(gen, 0, 3)
    n_i, n_y = [1, 2, 5][_randint(gen, 0, 2)], _randint(gen, 2, 3)
    sigma_star = 0.3 + 1.2 * _draw(gen)
    aligned = kind == 3
    m = _randint(gen, 1, n)
    cell = SpectralRNN(n_i, n, m, m, r=0.0 if aligned else min(sigma_star, 0.5) * _draw(gen),
                       sigma_star=1.0 if aligned else sigma_star, bias=False, output_size=n_y, generator=gen,
                       dtype=F64)
    with torch.no_grad():
        if aligned:
            cell.V.copy_(cell.U)
        else:
            cell.sigma_hat.copy_(3 * _gauss(gen, n))
        W = cell.recurrent_matrix().detach().clone()
    M, Y = cell.M.detach().clone(), cell.Y.detach().clone()
    if kind == 2:
        W = _gauss(gen, n, n) * (0.3 + 1.2 * _draw(gen)) / math.sqrt(n)
    S = 2
    if aligned:
        a, b = torch.rand(n, generator=gen, dtype=F64) + 0.1, _gauss(gen, n_i)
        M = torch.outer(a, b)
        x = (b / b.norm()).expand(S, T, n_i).clone() * (0.5 + _draw(gen))
        activation = "identity" if _draw(gen) < 0.5 else "relu"
    else:
        activation = _ACTIVATIONS_1B[_randint(gen, 0, 2)]
        xk = _randint(gen, 0, 2)
        if xk == 0:
            x = _gauss(gen, S, T, n_i)
        elif xk == 1:
            x = _gauss(gen, S, 1, n_i).expand(S, T, n_i).clone()
        else:
            x = addition_problem(S, T, generator=gen)[0].to(F64)
            if n_i != 2:
                x = torch.cat([x, x.new_zeros(S, T, max(n_i - 2, 0))], -1)[..., :n_i]
    dW, dM, dY = torch.zeros_like(W), torch.zeros_like(M), torch.zeros_like(Y)
    if perturb:
        rho = lambda: 1.0 if _draw(gen) < 1 / 3 else max(_draw(gen), 1e-3)  # noqa: E731
        unit = lambda X: X / _spec(X)  # noqa: E731
        if aligned:
            dM = rho() * float(_spec(M)) / T * unit(torch.outer(torch.rand(n, generator=gen, dtype=F64) + 0.1, b))
        else:
            dW = rho() * float(_spec(W)) / T * unit(_gauss(gen, n, n))
            dM = rho() * float(_spec(M)) / T * unit(_gauss(gen, n, n_i))
        dY = rho() * float(_spec(Y)) / T * unit(_gauss(gen, n_y, n))
    B = float(torch.linalg.vector_norm(x, dim=-1).max())
    conv = lambda X: _to(X, device, dtype)  # noqa: E731
    return RNNCase(conv(W), conv(M), conv(Y), conv(dW), conv(dM), conv(dY), conv(x), B, activation)


def _project_rnn(case: RNNCase, perturbations: bool) -> None:
    norms = torch.linalg.vector_norm(case.x, dim=-1, keepdim=True)
    case.x.mul_(torch.clamp(case.B / norms.clamp_min(1e-300), max=1.0))
    if perturbations:
        T = case.x.shape[1]
        for d, base in ((case.dW, case.W), (case.dM, case.M), (case.dY, case.Y)):
            limit, now = float(_spec(base)) / T, float(_spec(d))
            if now > limit:
                d.mul_(limit / now)


def _free_rnn(case: RNNCase, perturbations: bool) -> list[Tensor]:
    return [case.W, case.M, case.x] + ([case.Y, case.dW, case.dM, case.dY] if perturbations else [])


A_X_BOUND = Assumption("‖x^(t)‖ ≤ B (Assumption 1a)", lambda c: (
    _within(float(torch.linalg.vector_norm(c.x.detach(), dim=-1).max()), c.B),
    f"max ‖x_t‖ = {float(torch.linalg.vector_norm(c.x.detach(), dim=-1).max()):.6g}, B = {c.B:.6g}"))
A_ACT = Assumption("‖φ(x)‖ ≤ ‖x‖ and φ 1-Lipschitz (Assumption 1b)", lambda c: (
    c.activation in _ACTIVATIONS_1B,
    f"φ = {c.activation}" + (" (σ(0) = 1/2 ≠ 0)" if c.activation == "sigmoid" else "")))
A_NO_BIAS = Assumption("no bias (absorbed in M, eq. 17)", lambda c: (
    c.b is None or not bool(c.b.detach().any()), "b ≠ 0"))
A_H0 = Assumption("h^(0) = 0 (eq. 17)", lambda c: (c.h0 is None or not bool(c.h0.detach().any()), "h^(0) ≠ 0"))


def _perturb_assumption(name: str) -> Assumption:
    base, d = name, "d" + name

    def check(c):
        T = c.x.shape[1]
        dn, bn = float(_spec(getattr(c, d).detach())), float(_spec(getattr(c, base).detach()))
        return _within(dn, bn / T), f"‖δ{base}‖ = {dn:.6g}, ‖{base}‖/T = {bn / T:.6g}"
    return Assumption(f"‖δ{base}‖ ≤ ‖{base}‖/T (Lemma 3)", check)


RNN_ASSUMPTIONS = (A_X_BOUND, A_ACT, A_NO_BIAS, A_H0)
PERTURBATION_ASSUMPTIONS = tuple(_perturb_assumption(k) for k in ("W", "M", "Y"))


# ------------------------------------------------------------------------------------------ Theorem 5
def theorem5_bounds(W: Tensor, M: Tensor, Y: Tensor, *, B: float, T: int, gamma: float, delta: float, m: int,
                    r: float | None = None) -> dict[str, float]:
    """G(w) of Theorem 5, G of Corollary 1, and the bound App. A.6's proof delivers with its constants.

    β = max{‖W‖^{T−1}, 1} max{‖Y‖, 1} max{‖M‖, 1}, h = max{n, n_y, n_i}, ‖w‖² = ‖W‖_F² + ‖M‖_F² + ‖Y‖_F².
    G(w) = B²T⁴h ln(h)/γ² ‖w‖² β² (Theorem 5); Corollary 1 replaces max{‖W‖^{2T−2}, 1} by (1 + r)^{2T−2}.
    Proof's bound: σ = γ/(12√(2h ln(12h)) T B (Te + e + 1) β̃) with β̃ = β/e, the most favourable grid
    point (the union bound covers β/e ≤ β̃ ≤ eβ), KL = ‖w‖²/(2σ²), and Lemma 2 with δ → eδ/√m:
    4 √((KL + ln(6m√m/(eδ)))/(m − 1)).

    Args:
        W (n, n), M (n, n_i), Y (n_y, n): weights. B, T, gamma (γ > 0), delta ∈ (0, 1), m ≥ 2 samples.
        r: eq. 7's r for Corollary 1 (σ* = 1), or None.

    Returns:
        {"beta", "h", "G", "G_corollary" (if r given), "bound_O1" = √((G + ln(m/δ))/m),
         "sigma", "KL", "bound_proof", "nontrivial" (1.0 if γ/(2BT) ≤ β ≤ γ√m/(2BT) else 0.0)}.

    Raises:
        ValueError: γ ≤ 0, δ outside (0, 1), m < 2, B ≤ 0 or T < 1.

    Source: spectral_rnn.md Theorem 5, Corollary 1, App. A.6 (Lemma 2, eq. 26–27).
    """
    if not (gamma > 0 and 0 < delta < 1 and m >= 2 and B > 0 and T >= 1):
        raise ValueError(f"need γ > 0, δ ∈ (0, 1), m ≥ 2, B > 0, T ≥ 1; got γ={gamma}, δ={delta}, m={m}, "
                         f"B={B}, T={T}")
    Wn, Mn, Yn = (float(_spec(X.detach())) for X in (W, M, Y))
    h = max(W.shape[0], M.shape[1], Y.shape[0])
    w2 = sum(float(torch.linalg.matrix_norm(X.detach())) ** 2 for X in (W, M, Y))
    e = math.e
    beta = max(Wn ** (T - 1), 1.0) * max(Yn, 1.0) * max(Mn, 1.0)
    common = B ** 2 * T ** 4 * h * math.log(h) / gamma ** 2 * max(Mn ** 2, 1.0) * max(Yn ** 2, 1.0) * w2
    out = {"beta": beta, "h": float(h), "G": common * max(Wn ** (2 * T - 2), 1.0)}
    if r is not None:
        out["G_corollary"] = common * (1 + r) ** (2 * T - 2)
    out["bound_O1"] = math.sqrt((out["G"] + math.log(m / delta)) / m)
    beta_tilde = beta / e
    sigma = gamma / (12 * math.sqrt(2 * h * math.log(12 * h)) * T * B * (T * e + e + 1) * beta_tilde)
    out["sigma"] = sigma
    out["KL"] = w2 / (2 * sigma ** 2)
    out["bound_proof"] = 4 * math.sqrt((out["KL"] + math.log(6 * m * math.sqrt(m) / (e * delta))) / (m - 1))
    low = gamma / (2 * B * T)
    out["nontrivial"] = 1.0 if low <= beta <= low * math.sqrt(m) else 0.0
    return out


def _outputs(W, M, Y, x, activation) -> Tensor:
    return rnn_states(W, M, x, activation)[:, -1] @ Y.mT


def _margin_loss(out: Tensor, y: Tensor, gamma: float) -> Tensor:
    """1[f(x)[y] ≤ γ + max_{j≠y} f(x)[j]] per example (Definition 1 on the raw outputs ŷ = Y h^(T))."""
    correct = out.gather(1, y[:, None])[:, 0]
    others = out.masked_fill(torch.nn.functional.one_hot(y, out.shape[1]).bool(), -math.inf).amax(1)
    return (correct <= gamma + others).to(out.dtype)


def _theorem5_numbers(case: GeneralizationCase, W: Tensor | None = None) -> dict[str, float]:
    cell = case.cell
    with torch.no_grad():
        W = cell.recurrent_matrix() if W is None else W
    return theorem5_bounds(W, cell.M, cell.Y, B=case.B, T=case.x_train.shape[1], gamma=case.gamma, delta=case.delta,
                           m=case.x_train.shape[0], r=cell.r)


def _measure_theorem5(case: GeneralizationCase) -> dict[str, tuple[Tensor, Tensor]]:
    cell = case.cell
    with torch.no_grad():
        W, M, Y = cell.recurrent_matrix(), cell.M.detach(), cell.Y.detach()
        act = cell.activation
        L_hat = _margin_loss(_outputs(W, M, Y, case.x_train, act), case.y_train, case.gamma).mean()
        L_0 = _margin_loss(_outputs(W, M, Y, case.x_test, act), case.y_test, 0.0).mean()
        gap = (L_0 - L_hat).to(F64)
        nums = _theorem5_numbers(case, W)
        parts = {
            "L_0 − L̂_γ ≤ 4√((KL + ln(6m√m/(eδ)))/(m − 1)) (App. A.6's constants)": (gap, _t(nums["bound_proof"], gap)),
            "L_0 − L̂_γ ≤ √((G(w) + ln(m/δ))/m) (Theorem 5 with O-constant 1)": (gap, _t(nums["bound_O1"], gap)),
            "Corollary 1: G(w) ≤ G with (1 + r)^{2T−2}": (_t(nums["G"], gap), _t(nums["G_corollary"], gap)),
        }
        name = "Lemma 2's condition at the proof's σ: P_u[max_x ‖f_(w+u) − f_w‖_∞ < γ/4] ≥ 1/2 (sample inputs)"
        if nums["nontrivial"]:
            gen = torch.Generator().manual_seed(case.seed)
            x_all = torch.cat([case.x_train, case.x_test])
            base = _outputs(W, M, Y, x_all, act)
            ok = 0
            for _ in range(case.n_u):
                d = [nums["sigma"] * torch.randn(X.shape, generator=gen, dtype=F64).to(X) for X in (W, M, Y)]
                pert = _outputs(W + d[0], M + d[1], Y + d[2], x_all, act)
                ok += int(float((pert - base).abs().amax()) < case.gamma / 4)
            parts[name] = (_t(0.5, gap), _t(ok / case.n_u, gap))
        else:  # outside [γ/(2BT), γ√m/(2BT)] the proof needs no perturbation (the bound holds trivially)
            parts[name] = (_t(0.0, gap), _t(1.0, gap))
    return parts


def _sample_theorem5(gen, h, T, device, dtype) -> GeneralizationCase:
    """A Spectral-RNN classifier (σ* = 1, r ∈ [0, 0.9], φ ∈ {ReLU, tanh}, n_y ∈ {2, 3, 5}) with labels from
    a second, independent Spectral-RNN (the 'teacher': D is realizable but the model is not trained on it),
    m ∈ {32, 96} training and N_TEST = 160 test sequences (Gaussian, or addition-problem inputs), B = max ‖x_t‖;
    γ = c · median |ŷ| with c log-uniform in [0.01, 1] (realistic margins, where the theorem holds trivially
    because β > γ√m/(2BT)) or, in half the cases, γ = 2BTβ m^(−u/2), u ~ U[0, 1], inside the window
    [γ/(2BT), γ√m/(2BT)] ∋ β where the proof relies on Lemmas 2 and 3."""
    n = h
    n_i, n_y = [1, 2, 3][_randint(gen, 0, 2)], [2, 3, 5][_randint(gen, 0, 2)]
    act = "relu" if _draw(gen) < 0.5 else "tanh"
    m = 32 if _draw(gen) < 0.5 else 96
    cells = []
    for _ in range(2):
        cell = SpectralRNN(n_i, n, _randint(gen, 1, n), _randint(gen, 1, n), r=0.9 * _draw(gen), sigma_star=1.0,
                           activation=act, bias=False, output_size=n_y, generator=gen, dtype=F64)
        with torch.no_grad():
            cell.sigma_hat.copy_(3 * _gauss(gen, n))
        cells.append(cell)
    model, teacher = cells
    if n_i == 2 and _draw(gen) < 0.5:
        x = addition_problem(m + N_TEST, T, generator=gen)[0].to(F64)
    else:
        x = _gauss(gen, m + N_TEST, T, n_i) / math.sqrt(n_i)
    with torch.no_grad():
        y = _outputs(teacher.recurrent_matrix(), teacher.M, teacher.Y, x, act).argmax(1)
        out = _outputs(model.recurrent_matrix(), model.M, model.Y, x[:m], act)
    B = float(torch.linalg.vector_norm(x, dim=-1).max())
    if _draw(gen) < 0.5:
        gamma = float(out.abs().median()) * 10 ** (-2 * _draw(gen)) + 1e-12
    else:  # inside the window γ/(2BT) ≤ β ≤ γ√m/(2BT) where the proof needs Lemmas 2 and 3
        beta = theorem5_bounds(model.recurrent_matrix().detach(), model.M, model.Y, B=B, T=T, gamma=1.0, delta=0.05,
                               m=m)["beta"]
        gamma = 2 * B * T * beta * m ** (-_draw(gen) / 2)
    conv = lambda X: _to(X, device, dtype)  # noqa: E731
    return GeneralizationCase(model.to(device=device, dtype=dtype), conv(x[:m]), y[:m].to(device), conv(x[m:]),
                              y[m:].to(device), B, gamma, 0.05, _randint(gen, 0, 2**31 - 1))


def _theorem5_vacuous(case: GeneralizationCase) -> bool:
    """The proof's bound is ≥ 1, while L_0 − L̂_γ ≤ 1 always (both losses lie in [0, 1])."""
    return _theorem5_numbers(case)["bound_proof"] >= 1


A_T5_X = Assumption("‖x^(t)‖ ≤ B on both samples (Assumption 1a)", lambda c: (
    _within(float(torch.linalg.vector_norm(torch.cat([c.x_train, c.x_test]), dim=-1).max()), c.B), f"B = {c.B:.6g}"))
A_T5_ACT = Assumption("φ ∈ {ReLU, tanh, identity} (Assumption 1b), no bias", lambda c: (
    c.cell.activation in _ACTIVATIONS_1B and c.cell.b is None,
    f"φ = {c.cell.activation}, bias = {c.cell.b is not None}"))
A_T5_PARAMS = Assumption("γ > 0, δ ∈ (0, 1), m ≥ 2", lambda c: (
    c.gamma > 0 and 0 < c.delta < 1 and c.x_train.shape[0] >= 2, f"γ = {c.gamma:.3g}, δ = {c.delta}"))
A_COROLLARY = Assumption("Spectral-RNN with σ* = 1, 0 ≤ r (Corollary 1: singular values in [1 − r, 1 + r])",
                         lambda c: (c.cell.sigma_star == 1.0 and c.cell.r >= 0,
                                    f"σ* = {c.cell.sigma_star}, r = {c.cell.r:.3g}"))


# ---------------------------------------------------------------------------------------------- claims
_MATRIX_QUICK = [(1, 1), (2, 1), (3, 1), (5, 1), (8, 1), (16, 1)]
_MATRIX_FULL = _MATRIX_QUICK + [(32, 1), (64, 1), (128, 1)]

theorem1 = Claim(
    id="spectral_rnn.theorem1",
    source="spectral_rnn.md, Theorem 1 (proof: App. A.1 Proposition 1, App. A.2)",
    statement="The image of M_1 (u_1, …, u_n) ↦ H_n(u_n) … H_1(u_1) is the set of all n × n orthogonal matrices",
    measure="‖A − M_1(a)‖_F with a from Proposition 1's construction (rebuilt by householder_product and by the "
            "reflector recurrence), ‖R − I‖_F, and ‖QᵀQ − I‖_F for Q = M_1(u) with random u",
    bound="30 n² u ‖A‖_F + 2‖AᵀA − I‖_F (rounding of Householder QR and rebuild, u = 2⁻⁵³; the defect term "
          "capped at 2√n·1e-10, the predicate's limit)",
    assumptions=(A_ORTH, A_M1_FULL, A_F64),
    sample=_sample_theorem1,
    evaluate=_measure_theorem1,
    sizes={"quick": _MATRIX_QUICK, "full": _MATRIX_FULL},
    case_type=MatrixCase,
    explanation="Outside O(n) Proposition 1 still factors A = QR but R ≠ I, so M_1(a) = Q ≠ A; with k > 1 "
                "(fewer than n reflectors) the last columns of A are not reached.",
    notes="Eq. 1 as transcribed reads I_{k−2}uuᵀ/‖u‖²; the reflector is I_k − 2uuᵀ/‖u‖² (eq. 8, Algorithm 2), "
          "the only reading with H² = I. Proposition 1's u = B_1 − ‖B_1‖e_1 is evaluated without cancellation "
          "(−‖B_{2:,1}‖²/(B_11 + ‖B_1‖) when B_11 > 0); the literal difference loses up to all digits of u's first "
          "entry for columns near e_1, so near-identity A = exp(10⁻⁹S) are rebuilt only to ≈ 2e-8 instead of 1e-15 "
          "(proposition1_reflectors(stable=False)).",
    paper="spectral_rnn",
)

theorem2 = Claim(
    id="spectral_rnn.theorem2",
    source="spectral_rnn.md, Theorem 2 (proof: App. A.3)",
    statement="The image of M_{1,1} is ℝ^{n×n}: every W = H_n(u_n)…H_1(u_1) diag(σ) H_1(v_1)…H_n(v_n)",
    measure="‖W − M_{1,1}(u, v, σ)‖_F with σ, U, V from the SVD and u, v from Proposition 1 (householder_product "
            "and the reflector recurrence of Algorithm 1)",
    bound="30 n² u ‖W‖_F",
    assumptions=(A_SQUARE, A_M11_FULL, A_F64),
    sample=_sample_theorem2,
    evaluate=_measure_svd_theorem,
    sizes={"quick": _MATRIX_QUICK, "full": _MATRIX_FULL},
    case_type=MatrixCase,
    explanation="With fewer reflectors (k1, k2 > 2) the parametrisation has fewer than n² degrees of freedom and "
                "generic matrices are out of reach.",
    notes="Samples include rank-deficient, zero, ill-conditioned (σ down to 1e-12) and repeated-σ matrices. σ is "
          "free in ℝⁿ here (eq. 3), not eq. 7's σ ∈ [σ* − r, σ* + r].",
    paper="spectral_rnn",
)

theorem3 = Claim(
    id="spectral_rnn.theorem3",
    source="spectral_rnn.md, Theorem 3 (proof: App. A.4, eq. 18–21)",
    statement="The image of M_{k1,k2} includes every n × n orthogonal matrix if k1 + k2 ≤ n + 2 (σ = 1)",
    measure="‖A − M_{k1,k2}(u, v, 1)‖_F with u, v from eq. 18 (k2 ≥ k1 − 1) or eq. 20 (else), a_k zero-padded and "
            "the zero range starting at k1 + k2 − 1",
    bound="30 n² u ‖A‖_F + 2‖AᵀA − I‖_F (the defect term capped at 2√n·1e-10)",
    assumptions=(A_ORTH, A_K1K2, A_F64),
    sample=_sample_theorem3,
    evaluate=_measure_theorem3,
    sizes={"quick": _MATRIX_QUICK, "full": _MATRIX_FULL},
    case_type=MatrixCase,
    explanation="k1 + k2 ≤ n + 2 is also necessary: with fewer than n reflectors, an orthogonal A without "
                "eigenvalue 1 (generic) is out of reach (Cartan–Dieudonné: it needs n reflections).",
    notes="Two slips in the printed proof (both readings computed by theorem3_reflectors): eq. 18/20 assign the "
          "length-k vector a_k to the length-(k1 + k2 − k − 1) slot v_{k1+k2−k−1}; zero-padding a_k on top is the "
          "only typable reading. Their zero range 'v_t = 0, t = k2 + k1 − 2, …, n' overwrites v_{k1+k2−2} = a_1; as "
          "printed, the construction drops H_1(a_1) (eq. 20: H_1(b_1)) and fails whenever that slot is used and "
          "a_1 ≠ 0, i.e. det A = (−1)^n generically: half of Haar samples (tests/test_bounds_spectral_rnn.py); "
          "zeroing from k1 + k2 − 1 is right. The theorem holds.",
    paper="spectral_rnn",
)

theorem4 = Claim(
    id="spectral_rnn.theorem4",
    source="spectral_rnn.md, Theorem 4 and Lemma 1 (Sec. 5, eq. 15; proof: App. A.5)",
    statement="If m ≤ n, the image of M^{m,n}_{1, n−m+1} is ℝ^{m×n}; else the image of M^{m,n}_{n−m+1, 1} "
              "(read k1 = m − n + 1) is ℝ^{m×n} (2 min(m, n) reflectors)",
    measure="‖A − M(u, v, σ)‖_F with min(m, n) Proposition 1 reflectors of each SVD factor (householder_product "
            "and householder_forward); Lemma 1 on the first n − k2 + 1 columns of V",
    bound="30 max(m, n)² u ‖A‖_F",
    assumptions=(A_THM4_K, A_F64),
    sample=_sample_theorem4,
    evaluate=_measure_theorem4,
    sizes={"quick": [(1, 1), (2, 1), (3, 1), (5, 1), (8, 1), (16, 1)], "full": _MATRIX_FULL},
    case_type=MatrixCase,
    explanation="With fewer than min(m, n) reflectors on a side, that side's first min(m, n) singular vectors "
                "cannot all be reached (the column count of Lemma 1).",
    notes="The statement's second case prints M^{m,n}_{n−m+1, 1}, whose k1 = n − m + 1 ≤ 0 for m > n; the proof "
          "uses k1 = m − n + 1, checked here. App. A.5 also writes U = H^m_n(u_n)… for U ∈ ℝ^{m×m} (read H^m_m(u_m)). "
          "Lemma 1 as printed asserts equal columns only for i ≤ min(n − k1, n − k2), one column short of what the "
          "proof uses (V_L has n − k2 + 1 = m columns); the lemma is true through i = n − max(k1, k2) + 1, which "
          "is the part checked.",
    paper="spectral_rnn",
)

eq7 = Claim(
    id="spectral_rnn.eq7",
    source="spectral_rnn.md, Sec. 4, eq. 6–7 (and Corollary 1's 'singular radius in [1 − r, 1 + r]')",
    statement="σ_i = 2r(f(σ̂_i) − 0.5) + σ* ∈ [σ* − r, σ* + r], so W's singular values lie in [σ* − r, σ* + r]",
    measure="σ from SpectralRNN.sigma and svdvals of the dense W = U diag(σ) Vᵀ (householder_product)",
    bound="σ* + r above, σ* − r below; |sv − sort|σ|| ≤ 30 n² u (σ* + r)",
    assumptions=(A_R_NONNEG, A_RANGE_NONNEG, A_F64),
    sample=_sample_eq7,
    evaluate=_measure_eq7,
    sizes={"quick": [(1, 1), (2, 1), (3, 1), (5, 1), (8, 1), (16, 1)], "full": _MATRIX_FULL},
    case_type=SpectralCellCase,
    paper="spectral_rnn",
    explanation="The singular values are |σ_i|: with σ* < r the interval contains negative σ_i whose magnitudes can "
                "exceed σ* + r (e.g. σ* = −1).",
    notes="Tight: the sampler's saturated σ̂ = ±40 reach both ends (ratio 1 up to rounding), so no adversarial "
          "ascent is run (the range parts depend on σ̂ only, in closed form). Sec. 4 writes 'σ̂_i is updated from "
          "u_i, v_i via SGD'; "
          "σ̂ is its own parameter (Algorithm 1's ∂L/∂σ̂).",
)

_COUNT_COMMON = dict(paper="spectral_rnn", sample=_sample_count,
                     case_type=CountCase, assumptions=(A_BIAS, A_M_RANGE),
                     sizes={"quick": [(1, 1), (2, 1), (8, 1), (32, 1), (128, 1)],
                            "full": [(1, 1), (2, 1), (8, 1), (32, 1), (128, 1), (512, 1)]})

param_count = Claim(
    id="spectral_rnn.param_count",
    source="spectral_rnn.md, Sec. 4 (parameter count); Table 2; Table 4 with App. C.1 (m1 = m2 = 8)",
    statement="Spectral-RNN has (n_y + n_i + m1 + m2 + 2) n − (m1² + m2² − m1 − m2)/2 parameters "
              "((n_y + n_i + n + 3) n for m1 = m2 = n; RNN: (n_y + n_i + n + 1) n); Table 4's counts use "
              "m1 = m2 = 8 and oRNN m = 16 at n = 32",
    measure="parameters stored by cells.SpectralRNN, an independent count Σ_k k + …, Table 2's ≈ values and "
            "Table 4's differences RNN − Spectral-RNN and Spectral-RNN − oRNN",
    bound="equality (|difference| ≤ 1/2 for integers); Table 2 within 500 of its rounded value",
    evaluate=lambda c: _measure_param_count(c, 8),
    explanation="Sec. 4's formula and Table 2 hold; Table 4 contradicts App. C.1: every row has RNN − Spectral-RNN "
                "= 208 and Spectral-RNN − oRNN = 424, which the formula gives for m1 = m2 = 16 (536 and 96 for "
                "m1 = m2 = 8). See spectral_rnn.param_count.corrected.",
    notes="Table 4's absolute counts need each data set's n_i and any readout bias, which the table does not state "
          "unambiguously; the differences cancel both. Table 3's ≈ counts (PTB) depend on embedding sizes the "
          "paper does not give and are not checked.",
    **_COUNT_COMMON,
)

param_count_corrected = Claim(
    id="spectral_rnn.param_count.corrected",
    source="spectral_rnn.md, Sec. 4, Tables 2 and 4, corrected by rnnaudit (App. C.1's m1 = m2 = 16)",
    statement="As spectral_rnn.param_count, with Table 4's Spectral-RNN at m1 = m2 = 16 (m = 32 reflectors)",
    measure="as spectral_rnn.param_count",
    bound="equality (|difference| ≤ 1/2)",
    evaluate=lambda c: _measure_param_count(c, 16),
    explanation="Would mean Sec. 4's formula itself disagrees with the stored parameters.",
    notes="App. C.1 says 'total number of reflectors m = 16 (for Spectral-RNN m1 = m2 = 8)'; Table 4 fits 16 each.",
    **_COUNT_COMMON,
)

_TABLE1_COMMON = dict(paper="spectral_rnn", sample=_sample_table1,
                      case_type=CountCase, assumptions=(A_CACHE, A_REUSE, A_M_RANGE),
                      sizes={"quick": [(2, 1), (4, 1), (8, 1), (16, 1), (32, 1)],
                             "full": [(2, 1), (8, 1), (32, 1), (64, 1), (128, 1), (256, 1)]})

table1 = Claim(
    id="spectral_rnn.table1",
    source="spectral_rnn.md, Sec. 4.2, Table 1",
    statement="Hprod 4k, Hgrad 3n + 6k; Spectral-RNN local FP 4n(m1 + m2) − 2m1² − 2m2² + O(n), local BP "
              "6n(m1 + m2) − 1.5m1² − 1.5m2² + O(n); oRNN local FP 4nm − m² + O(n), local BP 7nm − 2m² + O(n)",
    measure="flops counted at dispatch (FlopCounter) while running Algorithms 1–3 on the reflectors' supports with "
            "‖u_k‖² cached and α reused (Sec. 4.2), checked equal to the dense W h and its autograd gradients",
    bound="FLOP_SLACK = 4 for the per-kernel rows; C_O · n with C_O = 20 for the O(n) rows",
    evaluate=lambda c: _measure_table1(c, TABLE1_PRINTED),
    explanation="Rows 3–6 should be sums of rows 1–2 over the reflectors (Σ_{k=n−m+1}^{n} k = mn − m²/2 + O(n)). "
                "Only the Spectral-RNN FP row is. Summing Hgrad = 3n + 6k gives BP 9n(m1 + m2) − 3m1² − 3m2², "
                "not 6n(m1 + m2) − 1.5(m1² + m2²) (that needs 3n + 3k per Hgrad); oRNN FP is 4nm − 2m² "
                "(Spectral FP with m2 = 0), not 4nm − m²; oRNN BP is 9nm − 3m², not 7nm − 2m² (that needs "
                "3n + 4k). See spectral_rnn.table1.corrected.",
    notes="The residual of a wrong row grows like n·m, so no constant C_O repairs it: the BP row's ratio is "
          "≈ (3n(m1 + m2) − 1.5(m1² + m2²))/(C_O n). Algorithm 3 as written forms −αg − βh on all n entries "
          "(the 3n term); the same on the k-entry support would cost 9k. cells.spectral.reflect (padded "
          "length-n vectors, ‖û‖² recomputed) costs 6n + 1 per Hprod, so its reflector loop is ≈ 6n(m1 + m2), "
          "not Table 1's count (efficiency, not correctness).",
    **_TABLE1_COMMON,
)

table1_corrected = Claim(
    id="spectral_rnn.table1.corrected",
    source="spectral_rnn.md, Sec. 4.2, Table 1, rows 3–6 recomputed by rnnaudit from rows 1–2",
    statement="Hprod 4k, Hgrad 3n + 6k; Spectral-RNN FP 4n(m1 + m2) − 2m1² − 2m2² + O(n), BP "
              "9n(m1 + m2) − 3m1² − 3m2² + O(n); oRNN FP 4nm − 2m² + O(n), BP 9nm − 3m² + O(n)",
    measure="as spectral_rnn.table1",
    bound="FLOP_SLACK = 4 for the per-kernel rows; C_O · n with C_O = 20 for the O(n) rows",
    evaluate=lambda c: _measure_table1(c, TABLE1_CORRECTED),
    explanation="Would mean the counted recurrence does not cost what rows 1–2 say, summed.",
    notes="The remainders are ≤ 13n (Σ_k's linear terms, O(1) scalars per reflector, the Σ steps).",
    **_TABLE1_COMMON,
)

_EQ13_COMMON = dict(paper="spectral_rnn", sample=_sample_eq13,
                    case_type=SpectralCellCase, assumptions=(A_NONZERO_U, A_F64),
                    sizes={"quick": [(1, 1), (2, 1), (5, 1), (8, 1), (12, 1)],
                           "full": [(1, 1), (2, 1), (8, 1), (32, 1), (64, 1)]})

eq13_claim = Claim(
    id="spectral_rnn.eq13",
    source="spectral_rnn.md, Sec. 4.1 eq. 12–13, Appendix B Algorithms 1 and 3 (as printed)",
    statement="∂L/∂h = g − 2(ûᵀg/ûᵀû)û (eq. 12); ∂L/∂û = −2(ûᵀh/ûᵀû)g − 2(ûᵀg/ûᵀû)h + 4(ûᵀh)(ûᵀg)/(ûᵀû)² û "
              "(eq. 13); Algorithm 3 (α = 2u_kᵀh̄/‖u_k‖²) and Algorithm 1 (Hgrad(h_k^(u), u_k, g)) compute them",
    measure="relative error against autograd through the dense H = I − 2ûûᵀ/ûᵀû (per reflector) and through "
            "W = U diag(σ) Vᵀ formed by dense reflector products (whole local map)",
    bound="relative error 1e-10 against ‖autograd‖ + S (S: the size of eq. 13's terms)",
    evaluate=lambda c: _measure_eq13(c, printed=True),
    explanation="eq. 12 and eq. 13 hold; the algorithms as printed do not. Algorithm 3's α uses h̄ before it is "
                "defined (read as its output h̄ = g − βu, α = −β, ∂L/∂u is wrong); Algorithm 1 passes h_k^(u), "
                "the reflector's output, to Hgrad for u_k, which flips the sign of α (α_out = −α_in) and gives "
                "αg − βh − αβu instead of −αg − βh + αβu; its v loop correctly passes the input h_{k+1}^(v). "
                "See spectral_rnn.eq13.corrected.",
    notes="∂L/∂h does not depend on h, so only the u-gradients are affected. Sec. 4.1 also writes h̃^(t) = W h^(t) "
          "(Algorithm 1: W h^(t−1)).",
    **_EQ13_COMMON,
)

eq13_corrected = Claim(
    id="spectral_rnn.eq13.corrected",
    source="spectral_rnn.md, eq. 12–13, Algorithms 1 and 3, corrected by rnnaudit (cells.spectral)",
    statement="eq. 12, eq. 13, Algorithm 3 with α = 2u_kᵀh/‖u_k‖² (h the reflector input) and Algorithm 1 with "
              "Hgrad(h_{k−1}^(u), u_k, g) give ∂L/∂h, ∂L/∂u_k, ∂L/∂v_k and ∂L/∂σ̂",
    measure="as spectral_rnn.eq13, with reflect_grad and householder_backward",
    bound="relative error 1e-10 against ‖autograd‖ + S",
    evaluate=lambda c: _measure_eq13(c, printed=False),
    explanation="Would mean the corrected backward pass is wrong too.",
    notes="Checks ∂L/∂σ̂ = 2r f'(σ̂) ∘ (g ∘ h_{k2}^(v)) and the V chain as well.",
    **_EQ13_COMMON,
)

_RNN_QUICK = [(2, 1), (2, 7), (8, 10), (16, 30)]
_RNN_FULL = _RNN_QUICK + [(32, 100), (64, 200), (128, 500)]

eq24 = Claim(
    id="spectral_rnn.eq24",
    source="spectral_rnn.md, App. A.6, eq. 23–24 (activation bound in the proof of Lemma 3)",
    statement="‖h^(t)‖ ≤ B‖M‖ t max{‖W‖^{t−1}, 1} for the RNN of eq. 17 under Assumption 1",
    measure="hidden-state norms of eq. 17 (rnn_states), worst sequence and worst t",
    bound="B ‖M‖₂ t max{‖W‖₂^{t−1}, 1}, B = max_t ‖x_t‖ (the tightest B)",
    assumptions=RNN_ASSUMPTIONS,
    sample=lambda gen, h, T, device, dtype: _sample_rnn_case(gen, h, T, device, dtype, perturb=False),
    evaluate=_measure_eq24,
    free=lambda c: _free_rnn(c, False),
    project=lambda c: _project_rnn(c, False),
    sizes={"quick": _RNN_QUICK, "full": _RNN_FULL},
    case_type=RNNCase,
    paper="spectral_rnn",
    explanation="Needs ‖φ(x)‖ ≤ ‖x‖ (fails for the sigmoid, σ(0) = 1/2, although Sec. 6 lists it as satisfying "
                "Assumption 1b), h^(0) = 0 and no bias.",
    notes="Attained (ratio 1) for W = I, φ = identity or ReLU on a non-negative M x, constant x along M's top right "
          "singular vector. Sec. 6 gives M ∈ ℝ^{n_i×n}; App. A.6's M ∈ ℝ^{n×n_x} is the typable one.",
)

lemma3 = Claim(
    id="spectral_rnn.lemma3",
    source="spectral_rnn.md, Lemma 3 (App. A.6, eq. 22, eq. 25 and the output bound)",
    statement="If ‖δW‖ ≤ ‖W‖/T, ‖δY‖ ≤ ‖Y‖/T, ‖δM‖ ≤ ‖M‖/T: Δ_t ≤ Bt(1 + 1/T)^{t−1}(‖δW‖‖M‖T + ‖δM‖) "
              "max{‖W‖^{t−1}, 1} (eq. 25), so Δ_T ≤ BTe(T‖M‖‖δW‖ + ‖δM‖) max{‖W‖^{T−1}, 1} (eq. 22), and "
              "‖ŷ_{w+u} − ŷ_w‖ ≤ TB max{‖W‖^{T−1}, 1}(‖Y‖‖δW‖‖M‖Te + ‖Y‖‖δM‖e + ‖δY‖‖M‖)",
    measure="Δ_t = ‖h_{w+u}^(t) − h_w^(t)‖ and the output difference from eq. 17 (rnn_states), worst sequence",
    bound="the right sides, spectral norms, B = max_t ‖x_t‖",
    assumptions=RNN_ASSUMPTIONS + PERTURBATION_ASSUMPTIONS,
    sample=lambda gen, h, T, device, dtype: _sample_rnn_case(gen, h, T, device, dtype, perturb=True),
    evaluate=_measure_lemma3,
    free=lambda c: _free_rnn(c, True),
    project=lambda c: _project_rnn(c, True),
    sizes={"quick": _RNN_QUICK, "full": _RNN_FULL},
    case_type=RNNCase,
    paper="spectral_rnn",
    explanation="The induction uses ‖W + δW‖ ≤ (1 + 1/T)‖W‖; with ‖δW‖ ≫ ‖W‖ the perturbed recurrence can grow "
                "like ‖δW‖^t while the bound is linear in ‖δW‖.",
    notes="Eq. 22 is printed as BTe^{(T‖M‖‖δW‖ + ‖δM‖)}; the proof ends with BTe(…) — both readings are checked "
          "(e^x ≥ e·x, so the printed one is implied and weaker). Eq. 25 is attained at t = 1 (δW = 0, δM x_1 "
          "aligned). Eq. 25 never uses ‖δM‖ ≤ ‖M‖/T, and holds with ‖δW‖ ≤ max{‖W‖, 1}/T (same induction). "
          "Theorem 5's proof applies the lemma to a Gaussian perturbation without checking its hypotheses, which "
          "fail for ‖W‖ or ‖Y‖ < T·σ√(2h ln 12h); the relaxed form, met by the proof's σ, repairs this.",
)

theorem5 = Claim(
    id="spectral_rnn.theorem5",
    source="spectral_rnn.md, Theorem 5, Corollary 1 (Sec. 6), proof App. A.6 (Lemmas 2–3, eq. 26–27)",
    statement="With probability ≥ 1 − δ, L_0(f_w) ≤ L̂_γ(f_w) + O(√((G(w) + ln(m/δ))/m)), G(w) = B²T⁴h ln(h)/γ² "
              "‖w‖² max{‖W‖^{2T−2}, 1} max{‖M‖², 1} max{‖Y‖², 1}; for Spectral-RNN (eq. 7, σ* = 1) G with "
              "(1 + r)^{2T−2}",
    measure="L_0 on 160 test sequences minus L̂_γ on the m training sequences of a random Spectral-RNN classifier "
            "(labels from an independent teacher); G(w); Lemma 2's condition by 10 Gaussian perturbation draws",
    bound="the proof's explicit bound (β̃ = β/e), the O-constant-1 bound, Corollary 1's G, probability 1/2",
    assumptions=(A_T5_X, A_T5_ACT, A_T5_PARAMS, A_COROLLARY),
    sample=_sample_theorem5,
    evaluate=_measure_theorem5,
    sizes={"quick": [(2, 1), (4, 5), (8, 10), (16, 10)], "full": [(2, 1), (8, 10), (16, 20), (32, 50), (64, 100)]},
    case_type=GeneralizationCase,
    paper="spectral_rnn",
    vacuous=_theorem5_vacuous,
    explanation="Corollary 1 needs ‖W‖ ≤ 1 + r, i.e. σ* = 1; the generalization bound itself is probabilistic and "
                "one sample cannot falsify it unless violations are frequent (> δ).",
    notes="Vacuous when the proof's bound 4√((KL + ln(6m√m/(eδ)))/(m − 1)) ≥ 1; KL ≥ 144 h ln(12h)(Te + e + 1)² "
          "B²‖w‖²β²/(e²γ²)·T², so non-vacuity needs m ≳ 16 KL: 4e7 to 1e45 samples for the quick profile's "
          "models, whose O-constant-1 bound √((G + ln(m/δ))/m) also exceeds 1. Definition 1 "
          "calls f_w(x)[y] a probability, but the proof bounds the raw outputs Y h^(T); raw outputs are used. "
          "G(w)'s h ln(h) is 0 at h = 1 (the proof has h ln(12h)). Lemma 3's hypothesis ‖δX‖ ≤ ‖X‖/T is not "
          "checked in App. A.6 and fails for ‖X‖ < T σ√(2h ln 12h); the lemma holds with max{‖X‖, 1}/T (see "
          "spectral_rnn.lemma3), so the proof survives.",
)

CLAIMS = (theorem1, theorem2, theorem3, theorem4, eq7, param_count, param_count_corrected, table1, table1_corrected,
          eq13_claim, eq13_corrected, eq24, lemma3, theorem5)
