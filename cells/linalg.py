"""Eigenvalue calls that leave their input as it was, on every device.

Measured on an NVIDIA H200 with torch 2.11.0+cu130 (benchmarks/gpu_checks.sh, 2026-11-30): ``torch.linalg.eigvals``
of a CUDA float64 matrix stored column-major (a QR factor, a transposed weight ``W.mT``) returns the right
eigenvalues and overwrites the matrix it was given (a 12 × 12 orthogonal Q came back with entries changed by up to
1.48 and singular values up to 1.77). A weight handed to it in place would be changed under the user. Every
eigenvalue call of the package goes through this module, which gives the CUDA routine a copy; on the CPU it calls
torch directly (same values, same bits, no copy).
"""

from __future__ import annotations

import torch
from torch import Tensor

__all__ = ["eigvals", "eig"]


def _own_copy(A: Tensor) -> Tensor:
    # clone keeps autograd (ρ(T) is differentiated through eigvals, enrnn.md eq. 7) and the layout
    return A.clone() if A.device.type != "cpu" else A


def eigvals(A: Tensor) -> Tensor:
    """Eigenvalues of the square matrices A (..., n, n), as ``torch.linalg.eigvals``: complex (..., n), in
    LAPACK's order, differentiable where torch's are; A is never written to, on any device.

    Raises:
        RuntimeError: torch's errors (a non-square or non-finite A).
    """
    return torch.linalg.eigvals(_own_copy(A))


def eig(A: Tensor) -> tuple[Tensor, Tensor]:
    """Eigenvalues and right eigenvectors (λ (..., n), V (..., n, n), complex) of A (..., n, n), as
    ``torch.linalg.eig``; A is never written to, on any device.

    Raises:
        RuntimeError: torch's errors (a non-square or non-finite A).
    """
    return torch.linalg.eig(_own_copy(A))
