"""Eigenvalue-Normalized RNN (enrnn.md Sec. 3–4, eq. 2–5; Helfrich & Ye).

The hidden state h = [h^(L); h^(S)] (sizes q and p = n − q) runs the block upper-triangular
recurrence of eq. 2–3

    h_t = σ(U x_t + W h_{t−1} + b),   W = [[W^(L), W^(C)], [0, W^(S)]]

with W^(L) orthogonal (scoRNN's scaled Cayley map, Sec. 5) and W^(S) = T / (ρ(T) + ε)
(Sec. 3.1), normalised only once ρ(T) has exceeded 1 (Sec. 4). Because W is block upper
triangular its eigenvalues are those of W^(L) and W^(S) (Sec. 3).

Training differentiates ρ(T) by autograd through ``torch.linalg.eigvals``;
:func:`prop32_gradient` is the explicit gradient of Proposition 3.2 for comparison.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from rnnaudit.cells._validate import check_sizes, require_finite
from rnnaudit.cells.base import RecurrentCell, get_activation
from rnnaudit.cells.orthogonal import ScaledCayley
from rnnaudit.cells.linalg import eig, eigvals

__all__ = ["ENRNN", "spectral_radius", "eigenvalue_normalize", "prop32_gradient", "eq5_init", "enrnn_recurrence"]


def _check_eps(eps: float) -> float:
    # Sec. 3.1 and Prop. 3.2 ask for ε > 0, but Sec. 5 trains with ε = 0, so 0 is allowed.
    if not (isinstance(eps, (int, float)) and math.isfinite(eps) and eps >= 0):
        raise ValueError(f"eps must be a finite number >= 0 (enrnn.md Sec. 3.1; Sec. 5 uses 0), got {eps!r}")
    return float(eps)


def _check_square(name: str, T: Tensor) -> None:
    if not isinstance(T, Tensor) or T.dim() != 2 or T.shape[0] != T.shape[1]:
        raise ValueError(f"{name} must be a square (m, m) tensor, got {getattr(T, 'shape', type(T).__name__)}")
    if not T.is_floating_point():
        raise ValueError(f"{name} must be a real floating tensor, got dtype {T.dtype}")
    require_finite(name, T)


def spectral_radius(T: Tensor) -> Tensor:
    """ρ(T) = max |λ_i(T)| for T of shape (m, m); 0-d tensor, dtype of T, 0 for m = 0.

    Differentiable (autograd through ``torch.linalg.eigvals``) where the eigenvalues of
    largest modulus are simple; for a complex-conjugate pair the two moduli are equal and the
    gradient is shared between them.
    """
    if T.shape[-1] == 0:
        return T.new_zeros(())
    return eigvals(T).abs().amax()


def eigenvalue_normalize(T: Tensor, eps: float = 0.0, rho: Tensor | None = None) -> Tensor:
    """W^(S)(T) = T / (ρ(T) + ε), enrnn.md Sec. 3.1; ρ(W^(S)) = ρ/(ρ + ε) = 1/(1 + ε/ρ).

    Args:
        T: (m, m) real. eps: ε ≥ 0. rho: ρ(T) if already computed.

    Returns:
        (m, m), dtype/device of T, differentiable in T.

    Raises:
        ValueError: eps < 0 or not finite; ρ(T) + ε = 0 (T nilpotent with ε = 0).
    """
    eps = _check_eps(eps)
    rho = spectral_radius(T) if rho is None else rho
    if eps == 0 and T.numel() and rho.item() == 0:
        raise ValueError("rho(T) + eps = 0: T has spectral radius 0 and eps = 0, so T/(rho + eps) is undefined")
    return T / (rho + eps)


def eq5_init(m: int, *, generator: torch.Generator | None = None, dtype: torch.dtype | None = None,
             device: torch.device | str | None = None) -> Tensor:
    r"""T = diag(B_1, …, B_⌊m/2⌋), B_j = γ_j [[cos t_j, −sin t_j], [sin t_j, cos t_j]] (enrnn.md eq. 5).

    t_j ~ U[0, π/2), γ_j ~ U[−1, 1); the eigenvalues are γ_j e^{±i t_j}. For odd m (eq. 5 does
    not say) the last diagonal entry is a 1×1 block γ ~ U[−1, 1). Note |λ| = |γ_j| is uniform
    on [0, 1], so the eigenvalues are *not* uniform on the unit disc as Sec. 4 says (that
    would need P(|λ| ≤ r) = r²); tests/test_cells_enrnn.py checks which holds.

    Returns:
        (m, m) tensor, ρ(T) < 1.

    Raises:
        ValueError: m < 0.
    """
    if m < 0:
        raise ValueError(f"m must be >= 0, got {m}")
    k = m // 2
    t = torch.rand(k, generator=generator, dtype=torch.float64) * (math.pi / 2)
    gamma = torch.rand(k, generator=generator, dtype=torch.float64) * 2 - 1
    c, s = gamma * torch.cos(t), gamma * torch.sin(t)
    blocks = [torch.stack([torch.stack([ci, -si]), torch.stack([si, ci])]) for ci, si in zip(c, s)]
    if m % 2:
        blocks.append((torch.rand(1, 1, generator=generator, dtype=torch.float64) * 2 - 1))
    T = torch.block_diag(*blocks) if blocks else torch.zeros(0, 0, dtype=torch.float64)
    return T.to(dtype=dtype or torch.get_default_dtype(), device=device)


def prop32_gradient(T: Tensor, dL_dW: Tensor, eps: float = 0.0, *, as_stated: bool = False,
                    gap_rtol: float = 1e-8) -> Tensor:
    r"""∂L/∂T from ∂L/∂W for W = T/(ρ(T) + ε), enrnn.md Proposition 3.2 (proof in Sec. 8.2).

    With λ = α + iβ the eigenvalue of largest modulus, u, v its right/left eigenvectors,
    S = v̄uᵀ/(v*u) = ∂λ/∂T and C = α Re S + β Im S (so ∂ρ/∂T = C/ρ), the chain rule gives

    .. math:: \frac{\partial L}{\partial T} = \frac{1}{\tilde\rho}\Big[\frac{\partial L}{\partial W}
              - \frac{1}{\rho}\,\mathbf 1^\top\Big(\frac{\partial L}{\partial W}\odot W\Big)\mathbf 1\; C\Big],
              \qquad \tilde\rho = \rho + \epsilon .

    The Proposition prints 1/ρ̃ for the inner 1/ρ; the two agree only for ε = 0 (the proof's
    eq. 7 has the right factor, its last line drops ε altogether). ``as_stated=True`` returns
    the printed formula. Left eigenvectors come from the same eigendecomposition T = VΛV⁻¹
    (row k of V⁻¹, by ``torch.linalg.solve``), which makes v*u = 1.

    Args:
        T: (m, m) real. dL_dW: ∂L/∂W, (m, m), same dtype/device. eps: ε ≥ 0.
        as_stated: use the Proposition's printed inner factor 1/ρ̃.
        gap_rtol: other eigenvalues (besides λ̄) with modulus ≥ ρ(1 − gap_rtol) make ρ
            non-differentiable or ill-conditioned; they raise.

    Returns:
        ∂L/∂T, (m, m), dtype/device of T.

    Raises:
        ValueError: bad shapes/dtypes, NaN/Inf, eps < 0, ρ(T) = 0, or a dominant eigenvalue that
            is not simple / not separated (Prop. 3.2 requires a simple λ with |λ| = ρ).
    """
    _check_square("T", T)
    _check_square("dL_dW", dL_dW)
    if dL_dW.shape != T.shape or dL_dW.dtype != T.dtype or dL_dW.device != T.device:
        raise ValueError(f"dL_dW must match T's shape {tuple(T.shape)}, dtype {T.dtype} and device {T.device}, "
                         f"got {tuple(dL_dW.shape)}, {dL_dW.dtype}, {dL_dW.device}")
    eps = _check_eps(eps)
    lam, V = eig(T)
    mod = lam.abs()
    k = int(mod.argmax())
    rho, lam_k = mod[k], lam[k]
    if rho.item() == 0:
        raise ValueError("rho(T) = 0: the spectral radius is not differentiable there (Prop. 3.2 divides by rho)")
    allowed = 1 if lam_k.imag.item() == 0 else 2  # a complex λ brings its conjugate, same modulus
    if int((mod >= rho * (1 - gap_rtol)).sum()) > allowed:
        raise ValueError(f"the eigenvalue of largest modulus of T is not simple or not separated within "
                         f"gap_rtol={gap_rtol} (Prop. 3.2 needs a simple lambda with |lambda| = rho(T))")
    e_k = torch.zeros(T.shape[0], dtype=V.dtype, device=V.device)
    e_k[k] = 1
    y = torch.linalg.solve(V.mT, e_k)  # yᵀ = row k of V⁻¹: yᵀT = λ yᵀ, yᵀu = 1, i.e. y = v̄/(v*u)
    S = torch.outer(y, V[:, k])
    C = lam_k.real * S.real + lam_k.imag * S.imag
    rho_t = rho + eps
    inner = rho_t if as_stated else rho
    return (dL_dW - (dL_dW * (T / rho_t)).sum() / inner * C) / rho_t


def _glorot(rows: int, cols: int, generator, kw) -> Tensor:
    # drawn on the CPU (where torch.Generator() lives), then moved: same seed, same init on any device
    w = nn.init.xavier_uniform_(torch.empty(rows, cols, dtype=kw["dtype"]), generator=generator)
    return w.to(kw["device"])


def _modrelu(z: Tensor, b: Tensor) -> Tensor:
    # Private on purpose: cells/nc_gru.py gets its own modReLU from another developer; merge later.
    # Real z: z/|z| = sign(z), with sign(0) = 0 (enrnn.md Sec. 4).
    return torch.sign(z) * torch.relu(z.abs() + b)


def enrnn_recurrence(ux: Tensor, W: Tensor, b: Tensor, h0: Tensor, activation: str = "modrelu") -> Tensor:
    """Run h_t = σ(U x_t + W h_{t−1} + b) for t = 1..T (enrnn.md eq. 3; eq. 1 when W^(C) = 0).

    With ``activation="modrelu"`` b is modReLU's bias: h_t = sign(z)·relu(|z| + b),
    z = U x_t + W h_{t−1} (Sec. 4).

    Args:
        ux: U x_t for all t, (batch, T, n). W: dense recurrent matrix (n, n). b: (n,).
        h0: (batch, n). activation: ``"modrelu"``, ``"relu"``, ``"leaky_relu"``, ``"tanh"`` or ``"identity"``.

    Returns:
        (batch, T, n), dtype of ``ux``.

    Raises:
        ValueError: unknown activation.
    """
    if activation == "modrelu":
        sigma = lambda z: _modrelu(z, b)  # noqa: E731
    else:
        act = get_activation(activation)
        sigma = lambda z: act(z + b)  # noqa: E731
    h, states, w_t = h0, [], W.mT
    for ux_t in ux.unbind(1):  # unbind: slicing costs O(T) per step in backward (cells/base.py)
        h = sigma(ux_t + h @ w_t)
        states.append(h)
    return torch.stack(states, dim=1)


class ENRNN(RecurrentCell):
    r"""Eigenvalue-Normalized RNN cell, enrnn.md eq. 2–5.

    .. math:: W = \begin{bmatrix} W^{(L)} & W^{(C)} \\ 0 & W^{(S)} \end{bmatrix},\quad
              W^{(L)} = (I + A)^{-1}(I - A) D,\quad W^{(S)} = T / (\rho(T) + \epsilon)

    **Normalisation rule** (Sec. 4): W^(S) = T while ρ(T) ≤ 1; from the first time ρ(T) > 1,
    W^(S) = T/(ρ(T) + ε) for good, even if ρ(T) later drops below 1. Precisely: W^(S) is
    normalised iff ρ(T) > 1 now or :attr:`normalizing` is set, and forming W^(S) in training
    mode with ρ(T) > 1 sets :attr:`normalizing` (a saved buffer). Since a forward pass follows
    every optimiser step, this is "once an update step results in ρ(T) > 1, eq. 4 is used for
    all subsequent training steps". Afterwards ρ(W^(S)) = 1/(1 + ε/ρ(T)), which is 1 for ε = 0.

    Args:
        input_size: m (input width). long_size: q = dim h^(L) ≥ 0. short_size: n − q ≥ 0.
        eps: ε ≥ 0 (Sec. 5 uses 0).
        coupling: include W^(C) (eq. 2–3, Glorot uniform); ``False`` is eq. 1.
        activation: ``"modrelu"`` (Sec. 4, default), ``"relu"``, ``"leaky_relu"``, ``"tanh"``, ``"identity"``.
            b = [b^(L); b^(S)] is modReLU's bias for modReLU, the additive bias otherwise.
        num_negative: number of −1 entries of scoRNN's D.
        generator, dtype, device: initialisation RNG and parameter placement.

    Initialisation: T by eq. 5; A by scoRNN's 2×2 blocks with tan(s/2), s ~ U[0, π/2)
    (the authors' code; W^(L) then has eigenvalues e^{±is}); U Glorot uniform (the paper does
    not say); b = 0.

    Parameter count (:func:`cells.base.parameter_count`, A by its free entries): q(q−1)/2 + p² (+ qp
    with coupling) + n·m + n; enrnn.md Table 1: ≈ 15K, 22K, 200K for its three tasks (with a readout).

    Raises:
        ValueError: bad sizes, eps < 0, unknown activation, num_negative outside [0, q].
    """

    def __init__(self, input_size: int, long_size: int, short_size: int, *, eps: float = 0.0, coupling: bool = True,
                 activation: str = "modrelu", num_negative: int = 0, generator: torch.Generator | None = None,
                 dtype: torch.dtype | None = None, device: torch.device | str | None = None):
        super().__init__()
        check_sizes(input_size=input_size)
        check_sizes(0, long_size=long_size, short_size=short_size)
        if input_size < 1 or long_size < 0 or short_size < 0 or long_size + short_size < 1:
            raise ValueError(f"need input_size >= 1, long_size >= 0, short_size >= 0, long_size + short_size >= 1; "
                             f"got {input_size}, {long_size}, {short_size}")
        if activation != "modrelu":
            get_activation(activation)
        self.eps = _check_eps(eps)
        self.input_size, self.long_size, self.short_size = input_size, long_size, short_size
        self.hidden_size, self.activation = long_size + short_size, activation
        kw = {"dtype": dtype, "device": device}
        q, p = long_size, short_size
        self.phi = ScaledCayley(q, num_negative, **kw)
        with torch.no_grad():
            s = torch.rand(q // 2, generator=generator, dtype=torch.float64) * (math.pi / 2)
            idx = torch.arange(q // 2) * 2
            self.phi.theta[idx, idx + 1] = torch.tan(s / 2).to(self.phi.theta)
        self.T = nn.Parameter(eq5_init(p, generator=generator, **kw))
        self.W_C = None
        if coupling and q and p:
            self.W_C = nn.Parameter(_glorot(q, p, generator, kw))
        U = _glorot(q + p, input_size, generator, kw)
        self.U_L, self.U_S = nn.Parameter(U[:q].clone()), nn.Parameter(U[q:].clone())
        self.b_L, self.b_S = nn.Parameter(torch.zeros(q, **kw)), nn.Parameter(torch.zeros(p, **kw))
        self.register_buffer("normalizing", torch.zeros((), dtype=torch.bool, device=device))

    def short_term_matrix(self) -> Tensor:
        """W^(S), shape (p, p), by the normalisation rule of the class docstring (may set
        :attr:`normalizing` in training mode).

        Raises:
            ValueError: ρ(T) + ε = 0 while normalising.
        """
        T = self.T
        if T.numel() == 0:
            return T
        rho = spectral_radius(T)
        active = bool(self.normalizing) or rho.item() > 1
        if active and self.training:
            self.normalizing.fill_(True)
        return eigenvalue_normalize(T, self.eps, rho) if active else T

    def recurrent_matrix(self) -> Tensor:
        """Dense block upper-triangular W of eq. 2, shape (n, n), n = q + p."""
        W_L, W_S = self.phi.matrix(), self.short_term_matrix()
        q, p = self.long_size, self.short_size
        W_C = self.W_C if self.W_C is not None else W_L.new_zeros(q, p)
        return torch.cat([torch.cat([W_L, W_C], dim=1), torch.cat([W_S.new_zeros(p, q), W_S], dim=1)], dim=0)

    def _U_b(self) -> tuple[Tensor, Tensor]:
        return torch.cat([self.U_L, self.U_S]), torch.cat([self.b_L, self.b_S])

    def step(self, x_t: Tensor, h: Tensor) -> Tensor:
        """One step of eq. 3: x_t (batch, m), h (batch, n) → (batch, n).

        Raises:
            ValueError: wrong last dimension or dtype of ``x_t`` or ``h`` (shape and dtype only, so
                that ``torch.func.vmap`` over this method works).
        """
        self.check_step_args(x_t, h)
        U, b = self._U_b()
        return enrnn_recurrence((x_t @ U.mT)[:, None], self.recurrent_matrix(), b, h, self.activation)[:, 0]

    def forward(self, x: Tensor, h0: Tensor | None = None) -> Tensor:
        """Hidden states (batch, T, n) for x (batch, T, m); W (one eigendecomposition) and U x
        for all t are formed once per call. h0 defaults to zeros (Sec. 4).

        Raises:
            ValueError: wrong shape/width/dtype, T = 0, NaN/Inf (see ``initial_state``).
        """
        h0 = self.initial_state(x, h0)
        U, b = self._U_b()
        return enrnn_recurrence(x @ U.mT, self.recurrent_matrix(), b, h0, self.activation)

    def prop32_gradient(self, dL_dWS: Tensor, *, as_stated: bool = False) -> Tensor:
        """∂L/∂T from ∂L/∂W^(S) under the cell's current rule: :func:`prop32_gradient` when
        normalising, ∂L/∂W^(S) itself while W^(S) = T. Does not set :attr:`normalizing`.

        Raises:
            ValueError: see :func:`prop32_gradient`.
        """
        T = self.T.detach()
        if bool(self.normalizing) or spectral_radius(T).item() > 1:
            return prop32_gradient(T, dL_dWS, self.eps, as_stated=as_stated)
        return dL_dWS

    def config(self) -> dict:
        """Constructor arguments of this cell's structure (:meth:`rnnaudit.cells.base.RecurrentCell.config`)."""
        return {"input_size": self.input_size, "long_size": self.long_size, "short_size": self.short_size,
                "eps": self.eps, "coupling": self.W_C is not None, "activation": self.activation,
                "num_negative": int((self.phi.D < 0).sum())}

    def parameters_by_role(self) -> dict[str, Tensor]:
        """{"U_L", "U_S", "Theta_L" (A = Θ − Θᵀ), "T", "W_C", "b_L", "b_S"}; empty or absent
        blocks omitted."""
        roles = {"U_L": self.U_L, "U_S": self.U_S, "Theta_L": self.phi.theta, "T": self.T, "W_C": self.W_C,
                 "b_L": self.b_L, "b_S": self.b_S}
        return {k: v for k, v in roles.items() if v is not None and v.numel()}
