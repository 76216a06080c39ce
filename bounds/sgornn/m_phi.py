"""M_φ = max_ij ‖∂φ(Θ)/∂Θ_ij‖_max for the VPRNN map of sgornn.md eq. 2, from the product structure.

φ(Θ) = R_1Q_1⋯R_kQ_k depends on the angle Θ_pi only through the p-th 2 × 2 block of R_i, so
∂φ/∂Θ_pi = A_i (∂R_i/∂Θ_pi) B_i with A_i = R_1Q_1⋯R_{i−1}Q_{i−1} and B_i = Q_iR_{i+1}Q_{i+1}⋯R_kQ_k,
and ∂R_i/∂Θ_pi is zero but for the block [[−sin, −cos], [cos, −sin]] on coordinates (2p, 2p + 1): a
rank-2 h × h matrix A_i[:, 2p:2p+2] D B_i[2p:2p+2, :]. Computing these k·h/2 matrices from the 2k
prefix and suffix products costs O(k h³) flops, against jacfwd's k·h/2 pushes of a tangent through all
k layers; at h = 64 it is about a hundred times faster, and it is what makes Theorem 2's ascent at
the quick profile's largest size affordable. The tests compare it with jacfwd of φ to 1e-12.
"""

from __future__ import annotations

import torch
from torch import Tensor

from rnnaudit.cells.orthogonal import VPRNNRotations

__all__ = ["vprnn_factors", "vprnn_M_phi"]


def vprnn_factors(phi: VPRNNRotations, theta: Tensor) -> tuple[list[Tensor], list[Tensor]]:
    """The dense factors R_i and Q_i of φ(Θ) = R_1Q_1⋯R_kQ_k in the convention of
    :meth:`VPRNNRotations.apply` ((Q_i y)_a = y[permutations[i, a]]; R_i rotates each pair (2p, 2p + 1) by
    Θ_pi with [[cos, −sin], [sin, cos]]).

    Args:
        phi: the map (h, k, permutations). theta: Θ, shape (h/2, k), any float dtype.

    Returns:
        (R, Q): two lists of k tensors of shape (h, h), dtype and device of Θ.

    Raises:
        ValueError: Θ not of shape (h/2, k).
    """
    h, k = phi.hidden_size, phi.k
    if tuple(theta.shape) != (h // 2, k):
        raise ValueError(f"theta must have shape (h/2, k) = {(h // 2, k)}, got {tuple(theta.shape)}")
    eye = torch.eye(h, dtype=theta.dtype, device=theta.device)
    R, Q = [], []
    for i in range(k):
        Q.append(eye[phi.permutations[i].to(theta.device)])
        c, s = torch.cos(theta[:, i]), torch.sin(theta[:, i])
        blocks = torch.stack((torch.stack((c, -s), -1), torch.stack((s, c), -1)), -2)   # (h/2, 2, 2)
        R.append(torch.block_diag(*blocks))
    return R, Q


def vprnn_M_phi(phi: VPRNNRotations, theta: Tensor | None = None) -> Tensor:
    """M_φ at Θ: max over the angles Θ_pi of max |entry| of ∂φ(Θ)/∂Θ_pi (sgornn.md Theorem 2), 0-d
    tensor, dtype of Θ; differentiable in Θ.

    Args:
        phi: the VPRNN map of eq. 2. theta: Θ (h/2, k); default the map's own.

    Raises:
        ValueError: Θ of the wrong shape.
    """
    theta = phi.theta if theta is None else theta
    R, Q = vprnn_factors(phi, theta)
    h, k = phi.hidden_size, phi.k
    prefix = [torch.eye(h, dtype=theta.dtype, device=theta.device)]
    for i in range(k - 1):
        prefix.append(prefix[-1] @ R[i] @ Q[i])
    suffix = [Q[k - 1]]
    for i in range(k - 2, -1, -1):
        suffix.insert(0, Q[i] @ R[i + 1] @ suffix[0])
    best = []
    for i in range(k):
        c, s = torch.cos(theta[:, i]), torch.sin(theta[:, i])
        dR = torch.stack((torch.stack((-s, -c), -1), torch.stack((c, -s), -1)), -2)     # (h/2, 2, 2)
        A = prefix[i].reshape(h, h // 2, 2)                                               # A_i[:, 2p + r]
        B = suffix[i].reshape(h // 2, 2, h)                                               # B_i[2p + q, :]
        AD = torch.einsum("apr,prq->paq", A, dR)                                          # (h/2, h, 2)
        best.append(torch.bmm(AD, B).abs().amax())                                         # (h/2, h, h)
    return torch.stack(best).amax()
