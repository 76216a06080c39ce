"""Maps from unconstrained recurrent parameters Θ to orthogonal matrices U = φ(Θ).

SGORNN (sgornn.md, Sec. 2) leaves φ pluggable; its experiments use the VPRNN map of
eq. 2, and Sec. 4 names EXPRNN's matrix exponential as an alternative. Maps are chosen
by name from :data:`ORTHOGONAL_MAPS`, in the manner of geotorch and
``torch.nn.utils.parametrizations.orthogonal``.

Every map here acts on the last dimension of a batch of row vectors through
:meth:`apply` (``y @ Uᵀ``, i.e. U y for each row y) and forms the dense matrix through
:meth:`matrix`; the two agree to rounding and the tests pin that down.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from rnnaudit.cells._validate import require_finite

__all__ = ["VPRNNRotations", "MatrixExponential", "ScaledCayley", "ORTHOGONAL_MAPS", "vprnn_max_sublayers"]


def vprnn_max_sublayers(hidden_size: int) -> int:
    """Largest number of rotation sublayers k that VPRNN allows: k = 2⌈log₂ h⌉.

    sgornn.md Sec. 3.1 uses k = 14 for h = 128 "the maximum allowed" and Sec. 3.3
    k = 16 for h = 256; both equal 2⌈log₂ h⌉, the k of eq. 34 (Appendix A.3).

    Args:
        hidden_size: h ≥ 2.

    Raises:
        ValueError: if ``hidden_size < 2``.
    """
    if hidden_size < 2:
        raise ValueError(f"hidden_size must be >= 2, got {hidden_size}")
    return 2 * math.ceil(math.log2(hidden_size))


class VPRNNRotations(nn.Module):
    r"""VPRNN rotation–permutation map, sgornn.md eq. 2.

    .. math:: \phi(\Theta) = R_1 Q_1 R_2 Q_2 \cdots R_k Q_k

    where :math:`R_j` rotates the coordinate pairs :math:`(2i, 2i+1)` by the angles
    :math:`\Theta_{i j}` (``[[cos, -sin], [sin, cos]]`` on each pair) and :math:`Q_j` is a
    fixed permutation matrix, drawn uniformly at random at construction (as in the public
    VPNN code) from ``generator`` and stored as a buffer. dom(φ) = ℝ^{h/2 × k}.

    Args:
        hidden_size: h, even, ≥ 2.
        k: number of rotation sublayers; default :func:`vprnn_max_sublayers` (h).
        generator: torch.Generator for the permutations and the initial angles
            (uniform on [−π, π)). ``None`` uses the global RNG.
        dtype, device: of the parameter Θ.

    Attributes:
        theta: Θ, shape (h/2, k), radians.
        permutations: long buffer (k, h); row j holds Q_j as an index map,
            (Q_j y)_i = y[permutations[j, i]].

    Raises:
        ValueError: odd or too small ``hidden_size``, ``k < 1``.
    """

    def __init__(self, hidden_size: int, k: int | None = None, *, generator: torch.Generator | None = None,
                 dtype: torch.dtype | None = None, device: torch.device | str | None = None):
        super().__init__()
        if hidden_size < 2 or hidden_size % 2:
            raise ValueError(f"hidden_size must be even and >= 2 for pairwise rotations, got {hidden_size}")
        k = vprnn_max_sublayers(hidden_size) if k is None else k
        if k < 1:
            raise ValueError(f"k (number of rotation sublayers) must be >= 1, got {k}")
        self.hidden_size, self.k = hidden_size, k
        perms = torch.stack([torch.randperm(hidden_size, generator=generator) for _ in range(k)])
        self.register_buffer("permutations", perms.to(device))
        self.register_load_state_dict_post_hook(_check_loaded_permutations)
        theta = (torch.rand(hidden_size // 2, k, generator=generator, dtype=torch.float64) * 2 - 1) * math.pi
        self.theta = nn.Parameter(theta.to(dtype=dtype or torch.get_default_dtype(), device=device))

    def config(self) -> dict:
        """Constructor arguments that rebuild this map's structure (not its values):
        ``type(self)(**self.config())`` then ``load_state_dict``; plain JSON values."""
        return {"hidden_size": self.hidden_size, "k": self.k}

    def apply(self, y: Tensor, theta: Tensor | None = None) -> Tensor:
        """U y for each row y of ``y`` (shape (..., h)), without forming U.

        ``theta`` (h/2, k) overrides the module's Θ, which lets the probes and the
        adversarial searches differentiate through φ functionally.
        """
        theta = self.theta if theta is None else theta
        # U = R_1 Q_1 ... R_k Q_k acts right to left: Q_k first, R_1 last.
        for j in reversed(range(self.k)):
            y = y[..., self.permutations[j]]
            c, s = torch.cos(theta[:, j]), torch.sin(theta[:, j])
            even, odd = y[..., 0::2], y[..., 1::2]
            y = torch.stack((c * even - s * odd, s * even + c * odd), dim=-1).flatten(-2)
        return y

    def matrix(self, theta: Tensor | None = None) -> Tensor:
        """Dense U = φ(Θ), shape (h, h), dtype and device of Θ."""
        theta = self.theta if theta is None else theta
        eye = torch.eye(self.hidden_size, dtype=theta.dtype, device=theta.device)
        return self.apply(eye, theta).mT  # row i of apply(I) is U e_i, the i-th column

    def forward(self) -> Tensor:
        return self.matrix()


class MatrixExponential(nn.Module):
    r"""EXPRNN map :math:`\phi(\Theta) = \exp(\Theta - \Theta^\top)` (sgornn.md Sec. 2, Sec. 4).

    Θ is an unconstrained (h, h) matrix whose skew part is exponentiated with
    ``torch.linalg.matrix_exp``; initialised to zero (U = I) so the cell starts as a
    pure residual-free identity recurrence, as EXPRNN's ``torch.nn.init.zeros_`` option.

    Raises:
        ValueError: ``hidden_size < 1``.
    """

    def __init__(self, hidden_size: int, *, generator: torch.Generator | None = None,
                 dtype: torch.dtype | None = None, device: torch.device | str | None = None):
        super().__init__()
        if hidden_size < 1:
            raise ValueError(f"hidden_size must be >= 1, got {hidden_size}")
        self.hidden_size = hidden_size
        self.theta = nn.Parameter(torch.zeros(hidden_size, hidden_size, dtype=dtype, device=device))

    def config(self) -> dict:
        """Constructor arguments that rebuild this map's structure (not its values):
        ``type(self)(**self.config())`` then ``load_state_dict``; plain JSON values."""
        return {"hidden_size": self.hidden_size}

    def free_entries(self) -> dict[str, int]:
        """{"theta": h(h−1)/2}: only the skew part Θ − Θᵀ enters U, and its gradient is skew, so
        Θ's symmetric part is never trained (see :func:`cells.base.parameter_count`)."""
        return {"theta": self.hidden_size * (self.hidden_size - 1) // 2}

    def matrix(self, theta: Tensor | None = None) -> Tensor:
        """Dense U, shape (h, h)."""
        theta = self.theta if theta is None else theta
        return torch.linalg.matrix_exp(theta - theta.mT)

    def apply(self, y: Tensor, theta: Tensor | None = None) -> Tensor:
        """U y for each row y of ``y`` (shape (..., h))."""
        return y @ self.matrix(theta).mT

    def forward(self) -> Tensor:
        return self.matrix()


class ScaledCayley(nn.Module):
    r"""Scaled Cayley map of scoRNN, nc_gru.md eq. 2: :math:`U = (I + A)^{-1}(I - A) D`.

    A = Θ − Θᵀ is skew-symmetric, D a fixed diagonal of ±1 with ``num_negative`` entries
    equal to −1 (scoRNN's ρ; the −1 eigenvalues the plain Cayley map cannot reach).
    Solved with ``torch.linalg.solve``, never an explicit inverse.

    Raises:
        ValueError: ``num_negative`` outside [0, h].
    """

    def __init__(self, hidden_size: int, num_negative: int = 0, *, generator: torch.Generator | None = None,
                 dtype: torch.dtype | None = None, device: torch.device | str | None = None):
        super().__init__()
        if not 0 <= num_negative <= hidden_size:
            raise ValueError(f"num_negative must lie in [0, hidden_size={hidden_size}], got {num_negative}")
        self.hidden_size = hidden_size
        self.theta = nn.Parameter(torch.zeros(hidden_size, hidden_size, dtype=dtype, device=device))
        d = torch.ones(hidden_size, dtype=dtype, device=device)
        d[hidden_size - num_negative:] = -1
        self.register_buffer("D", d)

    def config(self) -> dict:
        """Constructor arguments that rebuild this map's structure (not its values):
        ``type(self)(**self.config())`` then ``load_state_dict``; plain JSON values."""
        return {"hidden_size": self.hidden_size, "num_negative": int((self.D < 0).sum())}

    def free_entries(self) -> dict[str, int]:
        """{"theta": h(h−1)/2}: only A = Θ − Θᵀ enters U (see :class:`MatrixExponential`)."""
        return {"theta": self.hidden_size * (self.hidden_size - 1) // 2}

    def matrix(self, theta: Tensor | None = None) -> Tensor:
        """Dense U, shape (h, h)."""
        theta = self.theta if theta is None else theta
        a = theta - theta.mT
        eye = torch.eye(self.hidden_size, dtype=a.dtype, device=a.device)
        return torch.linalg.solve(eye + a, eye - a) * self.D.to(a.dtype)

    def apply(self, y: Tensor, theta: Tensor | None = None) -> Tensor:
        """U y for each row y of ``y`` (shape (..., h))."""
        return y @ self.matrix(theta).mT

    def forward(self) -> Tensor:
        return self.matrix()


def _check_loaded_permutations(module: VPRNNRotations, incompatible_keys) -> None:
    """After ``load_state_dict``: every row of the loaded ``permutations`` must be a permutation of
    0..h−1 (a tampered file could otherwise index out of range, or silently drop coordinates)."""
    perms = module.permutations
    expected = torch.arange(module.hidden_size, device=perms.device)
    if perms.shape != (module.k, module.hidden_size) or perms.dtype != torch.int64 or not bool(
            (perms.sort(dim=1).values == expected).all()):
        raise ValueError(f"buffer 'permutations' of VPRNNRotations must hold {module.k} permutations of "
                         f"0..{module.hidden_size - 1} (int64), got shape {tuple(perms.shape)} {perms.dtype}")


#: Orthogonal maps by name, for ``SGORNN(phi=...)``.
ORTHOGONAL_MAPS = {"vprnn": VPRNNRotations, "expm": MatrixExponential, "cayley": ScaledCayley}


def build_orthogonal_map(phi, hidden_size: int, **kwargs) -> nn.Module:
    """Instantiate φ from a name in :data:`ORTHOGONAL_MAPS` or return a given module.

    Raises:
        ValueError: unknown name.
    """
    if isinstance(phi, nn.Module):
        return phi
    if phi not in ORTHOGONAL_MAPS:
        raise ValueError(f"phi must be one of {sorted(ORTHOGONAL_MAPS)} or an nn.Module, got {phi!r}")
    return ORTHOGONAL_MAPS[phi](hidden_size, **kwargs)


def orthogonality_defect(U: Tensor) -> Tensor:
    """‖UᴴU − I‖₂ (spectral norm) for U of shape (..., h, h), real or complex; 0 for an orthogonal
    (unitary) U. The conjugate transpose equals Uᵀ for real U."""
    require_finite("U", U)
    eye = torch.eye(U.shape[-1], dtype=U.dtype, device=U.device)
    return torch.linalg.matrix_norm(U.mH @ U - eye, ord=2)
