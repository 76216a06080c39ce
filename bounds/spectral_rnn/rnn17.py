"""The RNN of spectral_rnn.md eq. 17 (App. A.6), h^(t) = φ(W h^(t−1) + M x^(t)), y = Y h^(T): its cases,
states, Assumption 1 and the view of a trained vanilla RNN as such a case; shared by eq. 24, Lemma 3
and Theorem 5's proof steps."""

from __future__ import annotations

import math
from dataclasses import dataclass

import scipy.linalg
import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, NotApplicable, within
from rnnaudit.bounds.spectral_rnn.cases import F64, draw, gauss, randint, to_case
from rnnaudit.cells import SpectralRNN, get_activation
from rnnaudit.tasks.synthetic import addition_problem

__all__ = ["RNNCase", "ACTIVATIONS_1B", "rnn_states", "spec_norm", "growth", "sample_rnn_case", "rnn_starts",
           "project_rnn", "free_rnn", "rnn_cases_from_model", "A_X_BOUND", "A_ACT", "A_NO_BIAS", "A_H0",
           "RNN_ASSUMPTIONS", "RNN_SIZES"]


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


ACTIVATIONS_1B = ("relu", "tanh", "identity", "leaky_relu")  # draws use the first three


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


def spec_norm(X: Tensor) -> Tensor:
    """‖X‖₂, 0-d (0 for an empty X)."""
    return torch.linalg.matrix_norm(X, ord=2) if X.numel() else X.new_zeros(())


def times(*factors) -> Tensor:
    """The product of non-negative factors (tensors or numbers, broadcast), exactly 0 where any factor is 0: a bound
    with a zero factor (‖M‖ = 0) is 0, not the NaN of inf·0 once another factor overflowed."""
    out, zero = None, None
    for f in factors:
        f = torch.as_tensor(f) if not isinstance(f, Tensor) else f
        out = f if out is None else out * f
        zero = (f == 0) if zero is None else (zero | (f == 0))
    return torch.where(zero, torch.zeros_like(out), out)


def growth(Wn: Tensor, T: int) -> Tensor:
    """max{‖W‖^{t−1}, 1} for t = 1..T, shape (T,), capped at the largest finite float: past it (‖W‖ = 1.5 over
    1750 steps) the bound times a zero factor (‖M‖ = 0, a model that ignores its inputs) read inf·0 = NaN, a
    violation. A smaller right side only makes the check stricter, and the measured side is a bounded state's."""
    t = torch.arange(T, dtype=Wn.dtype, device=Wn.device)
    return torch.clamp(Wn ** t, min=1.0, max=torch.finfo(Wn.dtype).max)


def sample_rnn_case(gen, h, T, device, dtype, *, perturb: bool) -> RNNCase:
    """W = Spectral-RNN's U diag(σ) Vᵀ (σ* ∈ [0.3, 1.5], r ∈ [0, min(σ*, 0.5)], random σ̂) or a dense
    Gaussian W (a general RNN); M, Y Glorot (from the cell); φ ∈ {ReLU, tanh, identity}; S = 2 sequences
    (Gaussian, a repeated vector, or addition-problem inputs), B = max_t ‖x_t‖. A quarter of the cases is
    the aligned edge case W = I (V = U), M = a bᵀ with a > 0, x_t = B b/‖b‖, where eq. 24 is attained.
    Perturbations (Lemma 3): random directions at a fraction ρ ∈ (0, 1] of ‖·‖/T, ρ = 1 in a third of the
    cases; in the aligned case δW = 0 and δM ∝ a bᵀ, where eq. 25 is attained at t = 1."""
    n = h
    kind = randint(gen, 0, 3)
    n_i, n_y = [1, 2, 5][randint(gen, 0, 2)], randint(gen, 2, 3)
    sigma_star = 0.3 + 1.2 * draw(gen)
    aligned = kind == 3
    m = randint(gen, 1, n)
    cell = SpectralRNN(n_i, n, m, m, r=0.0 if aligned else min(sigma_star, 0.5) * draw(gen),
                       sigma_star=1.0 if aligned else sigma_star, bias=False, output_size=n_y, generator=gen,
                       dtype=F64)
    with torch.no_grad():
        if aligned:
            cell.V.copy_(cell.U)
        else:
            cell.sigma_hat.copy_(3 * gauss(gen, n))
        W = cell.recurrent_matrix().detach().clone()
    M, Y = cell.M.detach().clone(), cell.Y.detach().clone()
    if kind == 2:
        W = gauss(gen, n, n) * (0.3 + 1.2 * draw(gen)) / math.sqrt(n)
    S = 2
    if aligned:
        a, b = torch.rand(n, generator=gen, dtype=F64) + 0.1, gauss(gen, n_i)
        M = torch.outer(a, b)
        x = (b / b.norm()).expand(S, T, n_i).clone() * (0.5 + draw(gen))
        activation = "identity" if draw(gen) < 0.5 else "relu"
    else:
        activation = ACTIVATIONS_1B[randint(gen, 0, 2)]
        xk = randint(gen, 0, 2)
        if xk == 0:
            x = gauss(gen, S, T, n_i)
        elif xk == 1:
            x = gauss(gen, S, 1, n_i).expand(S, T, n_i).clone()
        else:
            x = addition_problem(S, T, generator=gen)[0].to(F64)
            if n_i != 2:
                x = torch.cat([x, x.new_zeros(S, T, max(n_i - 2, 0))], -1)[..., :n_i]
    dW, dM, dY = torch.zeros_like(W), torch.zeros_like(M), torch.zeros_like(Y)
    if perturb:
        rho = lambda: 1.0 if draw(gen) < 1 / 3 else max(draw(gen), 1e-3)  # noqa: E731
        unit = lambda X: X / spec_norm(X)  # noqa: E731
        if aligned:
            dM = rho() * float(spec_norm(M)) / T * unit(torch.outer(torch.rand(n, generator=gen, dtype=F64) + 0.1, b))
        else:
            dW = rho() * float(spec_norm(W)) / T * unit(gauss(gen, n, n))
            dM = rho() * float(spec_norm(M)) / T * unit(gauss(gen, n, n_i))
        dY = rho() * float(spec_norm(Y)) / T * unit(gauss(gen, n_y, n))
    B = float(torch.linalg.vector_norm(x, dim=-1).max())
    conv = lambda X: to_case(X, device, dtype)  # noqa: E731
    return RNNCase(conv(W), conv(M), conv(Y), conv(dW), conv(dM), conv(dY), conv(x), B, activation)


def rnn_starts(h: int, T: int, device="cpu", dtype=F64, *, perturb: bool) -> dict[str, RNNCase]:
    """Structured cases of eq. 17 by name, φ the identity, M = a bᵀ flat rank-one (a = 1/√h, b = e₀ ∈ ℝ²), x_t = b
    at every t (B = 1, along M's top right singular vector), Y = e₀ aᵀ (n_y = 2, its top right singular vector a):

    - ``aligned``: W = I, so h_t = t a, every singular vector aligned; perturbations (``perturb``): δW = δM = 0 and
      δY = Y/T on its boundary ‖δY‖ = ‖Y‖/T. The output bound of Lemma 3 is attained: ‖δY h_T‖ = ‖δY‖T‖M‖B, its
      right side's last term, every other term 0.
    - ``boundary``: W = I and every perturbation on its boundary, δX = X/T (aligned with X).
    - ``flat_rank_one``: W = 1 1ᵀ/h (‖W‖ = 1, flat rank-one, W a = a), δX = X/T.
    - ``hadamard`` (h a power of two): W = H/√h, the normalised Hadamard matrix (``scipy.linalg.hadamard``;
      orthogonal, flat entries), δX = X/T.

    Without ``perturb`` every δ is 0 (eq. 24's cases)."""
    a = torch.full((h,), 1 / math.sqrt(h), dtype=F64)
    b = torch.tensor([1.0, 0.0], dtype=F64)
    M, x = torch.outer(a, b), b.expand(1, T, 2).clone()
    Y = torch.zeros(2, h, dtype=F64)
    Y[0] = a
    recurrences = {"aligned": torch.eye(h, dtype=F64), "boundary": torch.eye(h, dtype=F64),
                   "flat_rank_one": torch.full((h, h), 1 / h, dtype=F64)}
    if h & (h - 1) == 0:
        recurrences["hadamard"] = torch.as_tensor(scipy.linalg.hadamard(h), dtype=F64) / math.sqrt(h)
    conv = lambda X: to_case(X, device, dtype)  # noqa: E731
    out = {}
    for name, W in recurrences.items():
        scale = 1 / T if perturb else 0.0
        dW, dM, dY = scale * W, scale * M, scale * Y
        if name == "aligned":
            dW, dM = torch.zeros_like(W), torch.zeros_like(M)
        out[name] = RNNCase(conv(W), conv(M), conv(Y), conv(dW), conv(dM), conv(dY), conv(x), 1.0, "identity")
    return out


def project_rnn(case: RNNCase, perturbations: bool) -> None:
    """Back onto ‖x_t‖ ≤ B and, with ``perturbations``, ‖δX‖ ≤ ‖X‖/T (Lemma 3), in place."""
    norms = torch.linalg.vector_norm(case.x, dim=-1, keepdim=True)
    case.x.mul_(torch.clamp(case.B / norms.clamp_min(1e-300), max=1.0))
    if perturbations:
        T = case.x.shape[1]
        for d, base in ((case.dW, case.W), (case.dM, case.M), (case.dY, case.Y)):
            limit, now = float(spec_norm(base)) / T, float(spec_norm(d))
            if now > limit:
                d.mul_(limit / now)


def _vanilla_parts(cell) -> tuple[Tensor, Tensor, Tensor | None, str] | None:
    """(W, M, b, φ) of a cell that is the RNN of eq. 17, h' = φ(W h + M x + b), or None."""
    from rnnaudit.cells import VPRNN, SpectralRNN
    from rnnaudit.cells.adapters import TorchRecurrent

    if isinstance(cell, TorchRecurrent) and cell.kind == "rnn" and cell.num_layers == 1:
        m = cell.module
        suffix = "" if cell.is_cell else "_l0"
        W, M = getattr(m, f"weight_hh{suffix}"), getattr(m, f"weight_ih{suffix}")
        b = getattr(m, f"bias_ih{suffix}") + getattr(m, f"bias_hh{suffix}") if m.bias else None
        return W, M, b, m.nonlinearity
    if isinstance(cell, VPRNN) or (isinstance(cell, SpectralRNN) and type(cell) is SpectralRNN):
        M = cell.W if isinstance(cell, VPRNN) else cell.M
        return cell.recurrent_matrix(), M, cell.b, cell.activation
    return None


def rnn_cases_from_model(view, *, perturb: bool = False) -> list[RNNCase]:
    """A vanilla RNN model as one :class:`RNNCase` of eq. 17 over all the view's input sequences: a
    single-layer ``torch.nn.RNN``/``RNNCell`` (through :func:`rnnaudit.cells.adapters.wrap`), VPRNN or
    Spectral-RNN. The bias is absorbed into M (x̃ = [x, 1], M̃ = [M | b]), as eq. 17's "M x" allows;
    B = max_t ‖x̃_t‖; Y is the readout (the identity without one). With ``perturb``, a seeded random
    perturbation at half of Lemma 3's limit ‖·‖/T (the model's parameters under a small change).

    Raises:
        NotApplicable: a cell that is not h' = φ(W h + M x + b) (gates, several layers, other forms).
    """
    parts = _vanilla_parts(view.cell)
    if parts is None:
        raise NotApplicable(f"eq. 17 is the vanilla RNN h^(t) = φ(W h^(t−1) + M x^(t)) (one layer, no gates); the "
                            f"model's cell is {type(view.cell).__name__}")
    W, M, b, activation = (t.detach().to(F64) if isinstance(t, Tensor) else t for t in parts)
    x = view.inputs.detach().to(F64)
    if b is not None:
        M = torch.cat([M, b[:, None]], dim=1)
        x = torch.cat([x, x.new_ones(*x.shape[:-1], 1)], dim=-1)
    Y = view.readout.detach().to(F64) if view.readout is not None else torch.eye(W.shape[0], dtype=F64)
    dW, dM, dY = torch.zeros_like(W), torch.zeros_like(M), torch.zeros_like(Y)
    if perturb:
        gen = torch.Generator().manual_seed(0)
        T = x.shape[1]
        dW, dM, dY = (0.5 * float(spec_norm(X)) / T * (G / spec_norm(G)) for X, G in (
            (W, gauss(gen, *W.shape)), (M, gauss(gen, *M.shape)), (Y, gauss(gen, *Y.shape))))
    return [RNNCase(W, M, Y, dW, dM, dY, x, float(torch.linalg.vector_norm(x, dim=-1).max()), activation)]


def free_rnn(case: RNNCase, perturbations: bool) -> list[Tensor]:
    """W, M, x, and with ``perturbations`` also Y, δW, δM, δY."""
    return [case.W, case.M, case.x] + ([case.Y, case.dW, case.dM, case.dY] if perturbations else [])


A_X_BOUND = Assumption("‖x^(t)‖ ≤ B (Assumption 1a)", lambda c: (
    within(float(torch.linalg.vector_norm(c.x.detach(), dim=-1).max()), c.B),
    f"max ‖x_t‖ = {float(torch.linalg.vector_norm(c.x.detach(), dim=-1).max()):.6g}, B = {c.B:.6g}"))
A_ACT = Assumption("‖φ(x)‖ ≤ ‖x‖ and φ 1-Lipschitz (Assumption 1b)", lambda c: (
    c.activation in ACTIVATIONS_1B,
    f"φ = {c.activation}" + (" (σ(0) = 1/2 ≠ 0)" if c.activation == "sigmoid" else "")))
A_NO_BIAS = Assumption("no bias (absorbed in M, eq. 17)", lambda c: (
    c.b is None or not bool(c.b.detach().any()), "b ≠ 0"))
A_H0 = Assumption("h^(0) = 0 (eq. 17)", lambda c: (c.h0 is None or not bool(c.h0.detach().any()), "h^(0) ≠ 0"))

RNN_ASSUMPTIONS = (A_X_BOUND, A_ACT, A_NO_BIAS, A_H0)

#: Sizes (n, T) of the RNN claims (eq. 24, Lemma 3).
RNN_SIZES = {"quick": [(2, 1), (2, 7), (8, 10), (16, 30)],
             "full": [(2, 1), (2, 7), (8, 10), (16, 30), (32, 100), (64, 200), (128, 500)]}
