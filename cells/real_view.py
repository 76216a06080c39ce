"""A cell with a complex state seen as a real one: z ∈ ℂᴺ probed as (Re z, Im z) ∈ ℝ²ᴺ.

The convention of every probe for complex states (an LRU, Orvieto et al. 2023, arXiv 2303.06349, eq. (1)–(3):
x_k = diag(λ) x_{k−1} + γ ⊙ B u_k with complex λ; a complex diagonal SSM): the state z = u + iv is the real
vector h = (u, v) of width 2N, and the step is the real map h ↦ (Re z', Im z'). Its Jacobian is the real
2N × 2N matrix

    ∂h'/∂h = [[∂u'/∂u, ∂u'/∂v], [∂v'/∂u, ∂v'/∂v]],

which every probe (Jacobian maps, grid maps and sketches, Lyapunov spectra, fixed points) handles as any real
state. Where the step is holomorphic in z with derivative A = ∂z'/∂z (the linear part of an LRU: A = diag(λ)),
this matrix is the realification [[Re A, −Im A], [Im A, Re A]], unitarily similar to A ⊕ Ā: its 2-norm is
‖A‖₂, its singular values are those of A each twice, its eigenvalues λ(A) ∪ conj(λ(A)), and products of
Jacobians realify to products. So the complex Jacobian's 2-norm may be used instead, and the diagonal fast path
(:mod:`analysis.diagonal`) does. Inputs x stay real.
"""

from __future__ import annotations

import torch
from torch import Tensor

from rnnaudit.cells.base import RecurrentCell, real_dtype

__all__ = ["RealView", "realify", "to_complex", "to_real"]


def to_real(z: Tensor) -> Tensor:
    """(…, N) complex → (…, 2N) real: (Re z, Im z) concatenated on the last dimension, same real precision
    (complex128 → float64).

    Raises:
        ValueError: ``z`` is not a complex tensor.
    """
    if not isinstance(z, Tensor) or not z.is_complex():
        raise ValueError(f"z must be a complex tensor, got {getattr(z, 'dtype', type(z).__name__)}")
    return torch.cat([z.real, z.imag], dim=-1)


def to_complex(h: Tensor) -> Tensor:
    """(…, 2N) real → (…, N) complex: h[..., :N] + i h[..., N:] (float64 → complex128; the inverse of
    :func:`to_real`).

    Raises:
        ValueError: ``h`` complex, not floating, or of odd last dimension.
    """
    if not isinstance(h, Tensor) or h.is_complex() or not h.is_floating_point() or h.shape[-1] % 2:
        raise ValueError(f"h must be a real floating tensor of even last dimension 2N, got "
                         f"{getattr(h, 'dtype', type(h).__name__)} of shape {tuple(getattr(h, 'shape', ()))}")
    n = h.shape[-1] // 2
    return torch.complex(h[..., :n], h[..., n:])


def realify(A: Tensor) -> Tensor:
    """The real (…, 2m, 2n) matrix [[Re A, −Im A], [Im A, Re A]] of a complex (…, m, n) matrix A: the map
    v ↦ A v in the (Re, Im) coordinates of :func:`to_real` (its 2-norm is ‖A‖₂, its eigenvalues λ(A) ∪ λ̄(A)).
    For a diagonal step z ↦ λ ⊙ z, ``realify(torch.diag(lam))`` is [[diag Re λ, −diag Im λ], [diag Im λ, diag Re λ]],
    whose singular values are the |λ_j|, each twice."""
    top = torch.cat([A.real, -A.imag], dim=-1)
    return torch.cat([top, torch.cat([A.imag, A.real], dim=-1)], dim=-2)


class RealView(RecurrentCell):
    """``cell`` (complex state of width N, real inputs) as a real cell of width 2N (module docstring).

    Args:
        cell: a :class:`RecurrentCell` whose :meth:`~RecurrentCell.has_complex_state` is True. Its parameters
            are shared (registered as ``self.cell``), never copied.

    Attributes:
        complex_width: N, the complex width (``hidden_size`` is 2N).
    """

    def __init__(self, cell: RecurrentCell):
        super().__init__()
        if not isinstance(cell, RecurrentCell) or not cell.has_complex_state():
            raise ValueError(f"RealView needs a cell with a complex state, got {type(cell).__name__}")
        self.cell = cell
        self.input_size, self.complex_width = cell.input_size, cell.hidden_size
        self.hidden_size = 2 * cell.hidden_size
        self.recurrent_role = cell.recurrent_role

    def _dtype(self) -> torch.dtype:
        return real_dtype(self.cell._dtype())

    def has_complex_state(self) -> bool:
        return False

    def step(self, x_t: Tensor, h: Tensor) -> Tensor:
        """x_t (batch, n) real, h (batch, 2N) = (Re z, Im z) → (Re z', Im z') (batch, 2N)."""
        self.check_step_args(x_t, h)
        return to_real(self.cell.step(x_t, to_complex(h)))

    def forward(self, x: Tensor, h0: Tensor | None = None) -> Tensor:
        """All states (batch, T, 2N) in the real view, by the complex cell's own forward."""
        h0 = self.initial_state(x, h0)
        return to_real(self.cell(x, to_complex(h0)))

    def diagonal_jacobian(self, x_t: Tensor, z: Tensor) -> Tensor:
        """The complex cell's :meth:`diagonal_jacobian` a (batch, N) at the complex state z (batch, N), when it
        declares one: ∂z'/∂z = diag(a), holomorphic, so the real view's Jacobian is the realification of diag(a).

        Raises:
            AttributeError: the complex cell declares no diagonal Jacobian.
        """
        return self.cell.diagonal_jacobian(x_t, z)

    def declares_diagonal(self) -> bool:
        """Whether the complex cell declares its Jacobian diagonal (its own ``declares_diagonal()``, else a
        ``diagonal_jacobian`` method)."""
        said = getattr(self.cell, "declares_diagonal", None)
        return bool(said()) if callable(said) else callable(getattr(self.cell, "diagonal_jacobian", None))

    def recurrent_matrices(self) -> dict[str, Tensor]:
        """The complex cell's recurrent matrices, complex as they are (the spectra of λ, not of their
        realification, whose eigenvalues are λ ∪ λ̄: :mod:`analysis.spectra` takes complex matrices)."""
        return self.cell.recurrent_matrices()

    def recurrent_matrix(self) -> Tensor:
        """The complex cell's recurrent matrix (complex)."""
        return self.cell.recurrent_matrix()

    def parameters_by_role(self) -> dict[str, Tensor]:
        """The complex cell's roles."""
        return self.cell.parameters_by_role()

    def config(self) -> dict:
        """The complex cell's config."""
        return self.cell.config()
