"""The real view of a complex state: z ∈ ℂᴺ is the real state (Re z, Im z) ∈ ℝ²ᴺ, the convention every probe
uses for a complex recurrence (the LRU, S4D), so the real probes measure it today.

A complex diagonal step z ↦ λ ⊙ z acts on (Re z, Im z) as the real block matrix
[[diag Re λ, −diag Im λ], [diag Im λ, diag Re λ]], whose singular values are |λ_j| (each twice): norms of
products of these blocks equal the complex ones, so the real view changes no ‖∂h_t/∂h_s‖₂.
"""

from __future__ import annotations

import torch
from torch import Tensor

__all__ = ["real_view", "complex_from_real_view", "real_block"]


def real_view(z: Tensor) -> Tensor:
    """(..., N) complex → (..., 2N) real, [Re z, Im z] concatenated on the last dimension; same real precision
    (complex128 → float64).

    Raises:
        ValueError: ``z`` is not complex.
    """
    if not isinstance(z, Tensor) or not z.is_complex():
        raise ValueError(f"z must be a complex tensor, got {getattr(z, 'dtype', type(z).__name__)}")
    return torch.cat([z.real, z.imag], dim=-1)


def complex_from_real_view(h: Tensor) -> Tensor:
    """(..., 2N) real [Re z, Im z] → (..., N) complex z (float64 → complex128). Inverse of :func:`real_view`.

    Raises:
        ValueError: ``h`` complex, not floating, or of odd last dimension.
    """
    if not isinstance(h, Tensor) or h.is_complex() or not h.is_floating_point() or h.shape[-1] % 2:
        raise ValueError(f"h must be a real floating tensor of even last dimension 2N, got "
                         f"{getattr(h, 'dtype', type(h).__name__)} of shape {tuple(getattr(h, 'shape', ()))}")
    n = h.shape[-1] // 2
    return torch.complex(h[..., :n], h[..., n:])


def real_block(lam: Tensor) -> Tensor:
    """The (2N, 2N) real matrix of z ↦ λ ⊙ z on the real view, for λ (N,) complex.

    Raises:
        ValueError: ``lam`` not a complex vector.
    """
    if not isinstance(lam, Tensor) or not lam.is_complex() or lam.dim() != 1:
        raise ValueError(f"lam must be a complex vector (N,), got {getattr(lam, 'dtype', type(lam).__name__)} "
                         f"of shape {tuple(getattr(lam, 'shape', ()))}")
    re, im = torch.diag(lam.real), torch.diag(lam.imag)
    return torch.cat([torch.cat([re, -im], 1), torch.cat([im, re], 1)], 0)
