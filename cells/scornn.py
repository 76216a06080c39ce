"""scoRNN: the scaled Cayley map with the skew matrix A itself as the trained parameter
(nc_gru.md Sec. 2.2, eq. 2–6; Helfrich et al., 2018), modReLU (nc_gru.md eq. 20), and the
scoRNN cell

    W = (I + A)^{-1} (I − A) D,        h_t = modReLU(U x_t + W h_{t−1}; b).

Unlike :class:`cells.orthogonal.ScaledCayley`, which trains an unconstrained Θ with
A = Θ − Θᵀ (so an optimizer step moves A by twice the step eq. 3 prescribes), here A is the
``nn.Parameter`` and its gradient is exactly eq. 5, ∇_A L = Vᵀ − V, so that eq. 3
(A ← A − λ∇_A L) is a plain optimizer step and keeps A skew-symmetric bit for bit.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from rnnaudit.cells._validate import check_sizes, require_finite
from rnnaudit.cells.base import RecurrentCell, initial_parameter

__all__ = ["modrelu", "check_skew", "scaling_diagonal", "scaled_cayley", "scaled_cayley_gradient",
           "scornn_skew_init", "skew_gradient", "ScoRNNCayley", "ScoRNN"]


def modrelu(z: Tensor, b: Tensor) -> Tensor:
    """modReLU, nc_gru.md eq. 20: Φ(z) = sgn(z) · ReLU(|z| + b), entrywise.

    Args:
        z: pre-activation, shape (..., h). b: trainable bias, shape (h,) (broadcast).

    Returns:
        tensor of z's shape and dtype. sgn(0) = 0, so Φ(0) = 0 whatever b.
    """
    return torch.sign(z) * torch.relu(z.abs() + b)


def check_skew(A: Tensor, name: str = "A", hidden_size: int | None = None) -> None:
    """Raise ValueError unless A is a finite, square, floating, skew-symmetric matrix.

    Skewness is accepted up to 64 ulp of max(1, max|A_ij|) in A's dtype, so a matrix built as
    B − Bᵀ (exactly skew) or read back from a file passes and anything else does not.

    Args:
        A: shape (h, h) (h = ``hidden_size`` when given).

    Raises:
        ValueError: not a floating tensor, wrong shape, NaN/Inf, or A + Aᵀ ≠ 0.
    """
    if not isinstance(A, Tensor) or not A.is_floating_point():
        raise ValueError(f"{name} must be a floating torch.Tensor, got {getattr(A, 'dtype', type(A).__name__)}")
    h = A.shape[-1] if hidden_size is None else hidden_size
    if A.shape != (h, h):
        raise ValueError(f"{name} must be a square ({h}, {h}) matrix, got shape {tuple(A.shape)}")
    require_finite(name, A)
    asym = (A + A.mT).abs().max().item() if A.numel() else 0.0
    scale = max(1.0, A.abs().max().item() if A.numel() else 0.0)
    if asym > 64 * torch.finfo(A.dtype).eps * scale:
        raise ValueError(f"{name} must be skew-symmetric (A^T = -A), but max|A + A^T| = {asym:.3g}")


def scaling_diagonal(hidden_size: int, num_negative: int, *, dtype: torch.dtype | None = None,
                     device: torch.device | str | None = None) -> Tensor:
    """Diagonal d of scoRNN's D (nc_gru.md eq. 2): ones, with the last ρ = ``num_negative``
    entries −1 (the convention of :class:`cells.orthogonal.ScaledCayley`). Shape (h,).

    Raises:
        ValueError: ``hidden_size < 1`` or ρ outside [0, h].
    """
    check_sizes(hidden_size=hidden_size)
    if isinstance(num_negative, bool) or not isinstance(num_negative, int) or not 0 <= num_negative <= hidden_size:
        raise ValueError(f"num_negative (rho, the number of -1 entries of D) must be an int in "
                         f"[0, hidden_size={hidden_size}], got {num_negative!r}")
    d = torch.ones(hidden_size, dtype=dtype, device=device)
    d[hidden_size - num_negative:] = -1
    return d


def _diagonal_of(D: Tensor, A: Tensor) -> Tensor:
    """d from D given as a (h,) vector or an (h, h) diagonal matrix of ±1, on A's dtype/device."""
    h = A.shape[-1]
    if not isinstance(D, Tensor):
        raise ValueError(f"D must be a torch.Tensor of shape ({h},) or ({h}, {h}), got {type(D).__name__}")
    if D.shape == (h, h):
        if not torch.equal(D, torch.diag_embed(D.diagonal())):
            raise ValueError("D must be diagonal")
        D = D.diagonal()
    if D.shape != (h,):
        raise ValueError(f"D must have shape ({h},) or ({h}, {h}), got {tuple(D.shape)}")
    if not bool(((D == 1) | (D == -1)).all()):
        raise ValueError("D must have diagonal entries +1 or -1 only")
    return D.to(dtype=A.dtype, device=A.device)


def scaled_cayley(A: Tensor, D: Tensor) -> Tensor:
    """Scaled Cayley transform W = (I + A)^{-1}(I − A) D, nc_gru.md eq. 2 (and eq. 4).

    Solved with ``torch.linalg.solve``; I + A is invertible for every real skew A because its
    eigenvalues 1 + iλ have modulus ≥ 1 (so also ‖(I + A)^{-1}‖₂ ≤ 1).

    Args:
        A: skew-symmetric (h, h), floating. D: (h,) vector or (h, h) diagonal matrix of ±1.

    Returns:
        orthogonal W, shape (h, h), A's dtype and device; differentiable in A (autograd).

    Raises:
        ValueError: A not skew / not square / not finite; D of wrong shape or not ±1.
    """
    check_skew(A)
    d = _diagonal_of(D, A)
    eye = torch.eye(A.shape[-1], dtype=A.dtype, device=A.device)
    return torch.linalg.solve(eye + A, eye - A) * d  # "* d" scales column j by d_j, i.e. right-multiplies by D


def scaled_cayley_gradient(A: Tensor, D: Tensor, grad_W: Tensor) -> Tensor:
    """∇_A L = Vᵀ − V with V = (I + A)^{-T} ∇_W L (D + Wᵀ), nc_gru.md eq. 5–6.

    This is the gradient with respect to the free entries of the skew matrix: for i < j,
    [∇_A L]_ij = ∂L/∂a_ij where A = Σ_{i<j} a_ij (E_ij − E_ji). It equals autograd's gradient
    through :func:`scaled_cayley` composed with A = Θ − Θᵀ (the tests check this): autograd's
    gradient with respect to an unconstrained A is G_A = −V, and eq. 5 is G_A − G_Aᵀ.

    Args:
        A: skew (h, h). D: (h,) or (h, h) diagonal ±1. grad_W: ∂L/∂W, shape (h, h), from backprop.

    Returns:
        skew-symmetric (h, h) tensor, A's dtype and device.

    Raises:
        ValueError: as :func:`scaled_cayley`; grad_W of wrong shape or dtype, or not finite.
    """
    W = scaled_cayley(A, D)
    h = A.shape[-1]
    if not isinstance(grad_W, Tensor) or grad_W.shape != (h, h):
        raise ValueError(f"grad_W must have shape ({h}, {h}), got {tuple(getattr(grad_W, 'shape', ()))}")
    if grad_W.dtype != A.dtype:
        raise ValueError(f"grad_W has dtype {grad_W.dtype}, expected A's dtype {A.dtype}")
    require_finite("grad_W", grad_W)
    d = _diagonal_of(D, A)
    eye = torch.eye(h, dtype=A.dtype, device=A.device)
    V = torch.linalg.solve((eye + A).mT, grad_W @ (torch.diag(d) + W.mT))
    return V.mT - V


def scornn_skew_init(hidden_size: int, *, generator: torch.Generator | None = None,
                     dtype: torch.dtype | None = None, device: torch.device | str | None = None) -> Tensor:
    """Skew A(0) of scoRNN's initialisation (nc_gru.md Sec. 3.2 cites Helfrich et al., 2018, after
    Henaff et al., 2017): 2×2 blocks [[0, s_j], [−s_j, 0]] on the diagonal with
    s_j = −tan(θ_j / 2), θ_j ~ U[0, π/2], so that (I + A)^{-1}(I − A) has eigenvalues e^{±iθ_j}
    (public scoRNN/expRNN ``cayley_init``). For odd h the last row and column are zero.

    Returns:
        (h, h) exactly skew-symmetric tensor.
    """
    theta = torch.rand(hidden_size // 2, generator=generator, dtype=torch.float64) * (math.pi / 2)
    s = -torch.sqrt((1 - torch.cos(theta)) / (1 + torch.cos(theta)))
    upper = torch.zeros(max(hidden_size - 1, 0), dtype=torch.float64)
    upper[::2] = s
    S = torch.diag(upper, 1) if hidden_size > 1 else torch.zeros(1, 1, dtype=torch.float64)
    return (S - S.mT).to(dtype=dtype or torch.get_default_dtype(), device=device)


def skew_gradient(A: Tensor) -> Tensor:
    """A in value, with gradient G ↦ G − Gᵀ in backward (the chain rule of A = Σ_{i<j} a_ij(E_ij − E_ji)).

    For exactly skew A, A − Aᵀ − A = A bit for bit, and autograd routes ∂L/∂A = G − Gᵀ, which turns
    the unconstrained Cayley gradient G = −V into eq. 5's Vᵀ − V.
    """
    return A - A.mT - A.detach()


class ScoRNNCayley(nn.Module):
    """Scaled Cayley map whose parameter is the skew matrix A itself, nc_gru.md eq. 2–6.

    Args:
        hidden_size: h ≥ 1. num_negative: ρ, number of −1 entries of D (trailing).
        A: initial skew (h, h) matrix; default :func:`scornn_skew_init`.
        generator, dtype, device: initialisation RNG and placement.

    Attributes:
        A: ``nn.Parameter`` (h, h), skew. Its ``.grad`` after backward is eq. 5's Vᵀ − V, so any
            optimizer (SGD, Adam, RMSprop; elementwise and sign-symmetric) keeps it exactly skew.
        d: buffer (h,), the diagonal of D.

    Raises:
        ValueError: bad ρ, non-skew or wrongly-shaped A.
    """

    def __init__(self, hidden_size: int, num_negative: int = 0, *, A: Tensor | None = None,
                 generator: torch.Generator | None = None, dtype: torch.dtype | None = None,
                 device: torch.device | str | None = None):
        super().__init__()
        d = scaling_diagonal(hidden_size, num_negative, dtype=dtype, device=device)
        if A is None:
            A = scornn_skew_init(hidden_size, generator=generator, dtype=d.dtype, device=d.device)
        else:
            check_skew(A, "A", hidden_size)
            A = A.detach().to(dtype=dtype or A.dtype, device=device or A.device)
            A = (A - A.mT) / 2  # exactly skew from here on, so skew_gradient's value is exactly A
        self.hidden_size, self.num_negative = hidden_size, num_negative
        self.A = nn.Parameter(A.clone())
        self.register_buffer("d", d.to(dtype=A.dtype, device=A.device))

    def free_entries(self) -> dict[str, int]:
        """{"A": h(h−1)/2}: A is skew-symmetric, so only its strictly upper triangle is free (the
        count :func:`cells.base.parameter_count` uses; scoRNN's and ENRNN's tables count it so)."""
        return {"A": self.hidden_size * (self.hidden_size - 1) // 2}

    def matrix(self) -> Tensor:
        """W = (I + A)^{-1}(I − A)D (eq. 2), shape (h, h); backward gives A the eq. 5 gradient.

        Raises:
            ValueError: A no longer skew (edited in place by something other than an optimizer).
        """
        check_skew(self.A.detach())
        A = skew_gradient(self.A)
        eye = torch.eye(self.hidden_size, dtype=A.dtype, device=A.device)
        return torch.linalg.solve(eye + A, eye - A) * self.d

    def forward(self) -> Tensor:
        return self.matrix()


class ScoRNN(RecurrentCell):
    r"""scoRNN cell (Helfrich et al., 2018; nc_gru.md Sec. 2.2 and the baseline of Sec. 4):

    .. math:: h_t = \mathrm{modReLU}(U x_t + W h_{t-1};\, b), \quad W = (I + A)^{-1}(I - A)D

    with b the modReLU bias (eq. 20), which is the cell's only bias.

    Args:
        input_size: n ≥ 1. hidden_size: h ≥ 1. num_negative: ρ (Sec. 4 uses 20–95).
        A: optional initial skew (h, h) matrix (default :func:`scornn_skew_init`).
        generator, dtype, device: RNG for U (Glorot-uniform), A and b (U[−0.01, 0.01], as the
            public modReLU code), and parameter placement.

    Shapes: U (h, n), A (h, h), b (h,). Trained by eq. 3: any optimizer on A gives A − λ(Vᵀ − V).
    Parameter count (:func:`cells.base.parameter_count`, A by its free entries): hn + h + h(h−1)/2;
    enrnn.md Table 1 gives ≈ 15K for n = 2, h = 170 with a Linear(h, 1) readout.

    Raises:
        ValueError: bad sizes or ρ, non-skew A; in forward, see
            :meth:`cells.base.RecurrentCell.forward`.
    """

    def __init__(self, input_size: int, hidden_size: int, *, num_negative: int = 0, A: Tensor | None = None,
                 generator: torch.Generator | None = None, dtype: torch.dtype | None = None,
                 device: torch.device | str | None = None):
        super().__init__()
        check_sizes(input_size=input_size, hidden_size=hidden_size)
        self.input_size, self.hidden_size = input_size, hidden_size
        self.cayley = ScoRNNCayley(hidden_size, num_negative, A=A, generator=generator, dtype=dtype, device=device)
        kw = {"dtype": self.cayley.A.dtype, "device": self.cayley.A.device}
        self.U = initial_parameter(nn.init.xavier_uniform_, (hidden_size, input_size), generator, **kw)
        self.b = initial_parameter(nn.init.uniform_, (hidden_size,), generator, a=-0.01, b=0.01, **kw)

    def recurrent_matrix(self) -> Tensor:
        """W, shape (h, h), orthogonal."""
        return self.cayley.matrix()

    def step(self, x_t: Tensor, h: Tensor) -> Tensor:
        """One step: x_t (batch, n), h (batch, h) → (batch, h).

        Raises:
            ValueError: wrong last dimension or dtype (:meth:`cells.base.RecurrentCell.check_step_args`).
        """
        self.check_step_args(x_t, h)
        return modrelu(x_t @ self.U.mT + h @ self.recurrent_matrix().mT, self.b)

    def forward(self, x: Tensor, h0: Tensor | None = None) -> Tensor:
        """Hidden states (batch, T, h) for x (batch, T, n); W is formed once per call.

        Raises:
            ValueError: see :meth:`cells.base.RecurrentCell.forward`.
        """
        h = self.initial_state(x, h0)
        ux, w_t = x @ self.U.mT, self.recurrent_matrix().mT
        states = []
        for ux_t in ux.unbind(1):  # unbind: slicing costs O(T) per step in backward (cells/base.py)
            h = modrelu(ux_t + h @ w_t, self.b)
            states.append(h)
        return torch.stack(states, dim=1)

    def config(self) -> dict:
        """Constructor arguments of this cell's structure (:meth:`rnnaudit.cells.base.RecurrentCell.config`)."""
        return {"input_size": self.input_size, "hidden_size": self.hidden_size,
                "num_negative": self.cayley.num_negative}

    def parameters_by_role(self) -> dict[str, Tensor]:
        """{"A", "U", "b"}: skew A of eq. 2, input matrix U, modReLU bias b."""
        return {"A": self.cayley.A, "U": self.U, "b": self.b}
