"""Claims of srnn.md (Shuffling RNN, Rotman & Wolf) as executable checks.

Claim ids and where they live in the paper (all Sec. 3):

- ``srnn.eq4``                 eq. 4 and "Analysis of gradient dynamics": W_p is a permutation, hence
                               orthogonal; its powers neither grow nor shrink a vector
- ``srnn.eq9``                 eq. 8–9 as printed, against autograd (false for t ≥ 2)
- ``srnn.eq9.corrected``       eq. 8–9 with σ'(z_t) W_p and the product over the steps after input i
- ``srnn.eq10``                |∂h_t/∂b_k| ≤ |Σ_i ∂b(x_i)/∂b_k| as printed (false: cancellation)
- ``srnn.eq10.corrected``      ‖∂h_t/∂b_k‖ ≤ Σ_i ‖∂b(x_i)/∂b_k‖
- ``srnn.eq11``                |∂L/∂b_k| ≤ |Σ_t ∂L/∂h_t Σ_i ∂b(x_i)/∂b_k| as printed (false)
- ``srnn.eq11.corrected``      |∂L/∂b_k| ≤ Σ_t ‖∂L/∂h_t‖ Σ_{i≤t} ‖∂b(x_i)/∂b_k‖
- ``srnn.table1``              Table 1 / "Time complexity": cost linear in d_h, as a measured exponent
- ``srnn.gamblers_ruin``       the Gambler's-ruin estimates P(vanish) = T/(1+T), "steps until this
                               happens" = T, by Monte Carlo (the literal reading fails)
- ``srnn.gamblers_ruin.corrected`` the same with E[steps | vanish] = (2T+1)/3

The gradient claims run an :class:`cells.SRNN` on one sequence. "b_k" is every scalar parameter
of network b (f_r's weights and biases, W_s, b_s); ∂h_t/∂b_k comes from autograd through the whole
cell (``torch.func.jacrev``) and ∂b(x_i)/∂b_k from autograd through b alone.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import torch
from torch import Tensor
from torch.func import functional_call, jacrev

from rnnaudit.tasks.synthetic import addition_problem
from rnnaudit.bounds.core import Assumption, Claim
from rnnaudit.cells import SRNN, activation_derivative, eq9_closed_form, orthogonality_defect, shift, shift_matrix

__all__ = ["PermutationCase", "ShuffleCase", "TimingCase", "WalkCase", "sample_permutation_case",
           "sample_shuffle_case", "sample_timing_case", "sample_walk_case", "eq8_recursion", "eq9_as_printed",
           "time_recurrence", "fit_exponent", "simulate_gamblers_ruin", "CLAIMS", "eq4", "eq9", "eq9_corrected",
           "eq10", "eq10_corrected", "eq11", "eq11_corrected", "table1", "gamblers_ruin", "gamblers_ruin_corrected"]

#: 0/1 matrices multiply exactly in floating point; a permutation's defect and the change of
#: ‖y‖ under it are 0 up to the order of one sum of d_h squares (d_h·2⁻⁵³ ≤ 1e-13 relative for
#: d_h ≤ 1024). 1e-12 leaves a 10× margin; a non-permutation shows an O(1) defect.
EXACT_RTOL = 1e-12
#: Closed form vs autograd: both sum ≤ T terms per entry, each a product of ≤ T factors with
#: |σ'| ≤ 1 and 0/1 shifts, i.e. O(T²) roundings of magnitude ≤ scale = Σ_i ‖∂b(x_i)/∂θ‖_max.
#: With T ≤ 64 that is < 5e-12·scale; 1e-10 leaves a 20× margin, while the printed forms miss
#: by O(scale).
IDENTITY_RTOL = 1e-10
#: Table 1 states O(T d_h d_i): exponent 1 in d_h. Measured exponents of this linear cost on a
#: shared 2-core CPU range over 0.7–1.3 (per-call overhead pulls them down at small d_h, the
#: cache hierarchy up at large d_h), while a dense d_h×d_h recurrence (the O(T d_h²) rows of
#: Table 1) measures ≥ 1.85. A tolerance of 0.5 separates the two with margin on both sides.
TABLE1_EXPONENT = 1.0
TABLE1_TOL = 0.5
#: Half-width of the Monte Carlo confidence intervals in standard errors: a two-sided normal
#: interval of coverage 1 − 6.8e-6 per comparison, so that the ≤ 600 comparisons of the full
#: profile (200 cases × 3 parts) give a false alarm with probability < 0.5 %.
GAMBLER_Z = 4.5
#: Walks simulated per Gambler's-ruin case: standard errors ≈ 0.35 % on P(vanish).
GAMBLER_UNITS = 20_000


def _f64(x: float, like: Tensor) -> Tensor:
    return torch.tensor(float(x), dtype=torch.float64, device=like.device)


def _worst(measured: Tensor, bound: Tensor) -> tuple[Tensor, Tensor]:
    """The (measured, bound) pair of largest ratio among same-shaped tensors (0/0 counts 0,
    m/0 counts ∞, as in :mod:`bounds.core`), kept differentiable for the ascent."""
    m, b = measured.reshape(-1), bound.reshape(-1)
    with torch.no_grad():
        safe = torch.where(b == 0, torch.ones_like(b), b)
        ratio = torch.where(b == 0, torch.where(m == 0, torch.zeros_like(m), torch.full_like(m, math.inf)), m / safe)
        k = int(ratio.argmax())
    return m[k], b[k]


# ============================================================================== eq. 4: W_p
@dataclass
class PermutationCase:
    """A candidate W_p of srnn.md eq. 3 with a vector it acts on for T steps.

    Attributes:
        W_p: (d_h, d_h). y: (d_h,). T: number of applications.
    """

    W_p: Tensor
    y: Tensor
    T: int

    def size(self) -> tuple[int, int]:
        """(d_h, T)."""
        return self.W_p.shape[0], self.T

    def state(self) -> dict:
        """Detached copies, for :func:`bounds.core.save_counterexample`."""
        return {"W_p": self.W_p.detach().clone(), "y": self.y.detach().clone(), "T": self.T}

    @classmethod
    def from_state(cls, state: dict, device="cpu", dtype=torch.float64) -> "PermutationCase":
        """Rebuild a case from :meth:`state`."""
        return cls(state["W_p"].to(device=device, dtype=dtype), state["y"].to(device=device, dtype=dtype),
                   int(state["T"]))


def sample_permutation_case(gen: torch.Generator, h: int, T: int, device="cpu",
                            dtype=torch.float64) -> PermutationCase:
    """W_p is eq. 4's shift (half the cases) or a uniformly random permutation ("without loss of
    generality, the permutation can be chosen as the shift"); y is Gaussian or, as an edge case,
    one-hot. ``h`` = d_h ≥ 1."""
    if float(torch.rand((), generator=gen)) < 0.5:
        W_p = shift_matrix(h, dtype=torch.float64)
    else:
        W_p = torch.eye(h, dtype=torch.float64)[torch.randperm(h, generator=gen)]
    y = torch.randn(h, generator=gen, dtype=torch.float64)
    if float(torch.rand((), generator=gen)) < 0.25:
        y = torch.zeros(h, dtype=torch.float64)
        y[int(torch.randint(0, h, (), generator=gen))] = 1.0
    return PermutationCase(W_p.to(device=device, dtype=dtype), y.to(device=device, dtype=dtype), T)


def _is_permutation(W: Tensor) -> tuple[bool, str]:
    W = W.detach()
    zero_one = bool(((W == 0) | (W == 1)).all())
    sums_ok = bool((W.sum(0) == 1).all() and (W.sum(1) == 1).all())
    return zero_one and sums_ok, f"0/1 entries: {zero_one}, one 1 per row and column: {sums_ok}"


A_PERMUTATION = Assumption("W_p is a permutation matrix (eq. 3–4)", lambda c: _is_permutation(c.W_p))


def _eq4_printed(d_h: int, like: Tensor) -> Tensor:
    """Eq. 4 entry by entry: ones at (i, i+1) and at (d_h, 1) (1-based), zeros elsewhere."""
    W = torch.zeros(d_h, d_h, dtype=like.dtype, device=like.device)
    idx = torch.arange(d_h - 1, device=like.device)
    W[idx, idx + 1] = 1
    W[d_h - 1, 0] = 1
    return W


def _measure_eq4(case: PermutationCase) -> dict[str, tuple[Tensor, Tensor]]:
    W, y = case.W_p, case.y
    d_h = W.shape[0]
    norm_y = torch.linalg.vector_norm(y)
    v, drift = y, y.new_zeros(())
    for _ in range(case.T):
        v = W @ v
        drift = torch.maximum(drift, (torch.linalg.vector_norm(v) - norm_y).abs())
    printed = _eq4_printed(d_h, W)
    cell_gap = torch.maximum((shift_matrix(d_h, dtype=W.dtype, device=W.device) - printed).abs().max(),
                             (shift(y) - printed @ y).abs().max())
    return {
        "‖W_pᵀW_p − I‖₂ = 0": (orthogonality_defect(W), _f64(EXACT_RTOL, W)),
        "‖W_pᵏ y‖₂ = ‖y‖₂ for k = 1..T": (drift, EXACT_RTOL * norm_y),
        "cells.srnn.shift is eq. 4's matrix": (cell_gap, EXACT_RTOL * (1 + y.abs().max())),
    }


# ============================================================================ eq. 8–11: gradients
@dataclass
class ShuffleCase:
    """One sequence through an SRNN cell, with a linear loss for eq. 11.

    Attributes:
        cell: :class:`cells.SRNN` (no readout s).
        x: inputs (1, T, d_i).
        h0: initial state (1, d_h), a constant (eq. 9 has no ∂h_0/∂b_k term).
        g: (T, d_h); L = Σ_t ⟨g_t, h_t⟩, so the explicit ∂L/∂h_t of eq. 7 is g_t.
        x0: ``None``, or an input (1, d_i) with h_0 = b(x0) *depending on b's parameters* (outside
            the assumptions of eq. 9–11; used to show the checks can fail).
    """

    cell: SRNN
    x: Tensor
    h0: Tensor
    g: Tensor
    x0: Tensor | None = None

    def size(self) -> tuple[int, int]:
        """(d_h, T)."""
        return self.cell.hidden_size, self.x.shape[1]

    def state(self) -> dict:
        """Config, parameters and tensors (detached copies), for save/reload."""
        c = self.cell
        n_lin = sum(isinstance(m, torch.nn.Linear) for m in c.b.f_r)
        fr_hidden = [c.b.f_r[2 * k].out_features for k in range(n_lin - 1)]
        config = {"input_size": c.input_size, "hidden_size": c.hidden_size, "fr_hidden": fr_hidden,
                  "gating": c.b.gate is not None, "activation": c.activation}
        return {"config": config, "params": {k: v.detach().clone() for k, v in c.state_dict().items()},
                "x": self.x.detach().clone(), "h0": self.h0.detach().clone(), "g": self.g.detach().clone(),
                "x0": None if self.x0 is None else self.x0.detach().clone()}

    @classmethod
    def from_state(cls, state: dict, device="cpu", dtype=torch.float64) -> "ShuffleCase":
        """Rebuild a case from :meth:`state`."""
        cfg = state["config"]
        cell = SRNN(cfg["input_size"], cfg["hidden_size"], fr_hidden=tuple(cfg["fr_hidden"]), gating=cfg["gating"],
                    activation=cfg["activation"], dtype=dtype, device=device)
        cell.load_state_dict({k: v.to(device=device, dtype=dtype) for k, v in state["params"].items()})
        conv = lambda t: None if t is None else t.to(device=device, dtype=dtype)  # noqa: E731
        return cls(cell, conv(state["x"]), conv(state["h0"]), conv(state["g"]), conv(state["x0"]))


def sample_shuffle_case(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> ShuffleCase:
    """Draw an SRNN case inside the assumptions of eq. 9–11 (h_0 a constant).

    σ is ReLU (the paper's experiments) in 2/3 of the cases, tanh otherwise; f_r has no, one or
    two hidden layers; gating on in 3/4. Inputs are addition-problem sequences (Sec. 4), Gaussian
    sequences, or large Gaussian inputs with f_r's output bias lowered by 1 so that many ReLU
    units are switched off (σ'(z) = 0: the mechanism behind the eq. 10 counterexample). h_0 is 0
    (the paper's default) or a random non-negative state; g is Gaussian, or non-zero only at t = T.
    ``h`` = d_h ≥ 1, ``T`` ≥ 1.
    """
    draw = lambda: float(torch.rand((), generator=gen))  # noqa: E731
    kind = int(torch.randint(0, 3, (), generator=gen))
    d_i = 2 if kind == 0 else int(torch.randint(1, 4, (), generator=gen))
    fr_hidden = [(), (4,), (3, 3)][int(torch.randint(0, 3, (), generator=gen))]
    activation = "relu" if draw() < 2 / 3 else "tanh"
    cell = SRNN(d_i, h, fr_hidden=fr_hidden, gating=draw() < 0.75, activation=activation, generator=gen,
                dtype=torch.float64)
    if kind == 0:
        x = addition_problem(1, T, generator=gen)[0]
    else:
        x = torch.randn(1, T, d_i, generator=gen, dtype=torch.float64)
    if kind == 2:
        x = 3 * x
        with torch.no_grad():
            cell.b.f_r[-1].bias.sub_(1.0)
    h0 = torch.zeros(1, h, dtype=torch.float64) if draw() < 0.5 else torch.rand(1, h, generator=gen,
                                                                               dtype=torch.float64)
    g = torch.randn(T, h, generator=gen, dtype=torch.float64)
    if draw() < 1 / 3:
        g[:-1] = 0
    conv = lambda t: t.to(device=device, dtype=dtype)  # noqa: E731
    return ShuffleCase(cell.to(device=device, dtype=dtype), conv(x), conv(h0), conv(g))


A_H0_CONSTANT = Assumption("h_0 does not depend on b's parameters (eq. 9 starts from ∂h_0/∂b_k = 0)",
                           lambda c: (c.x0 is None, "h_0 = b(x_0)" if c.x0 is not None else "h_0 constant"))
A_SIGMA_PRIME = Assumption("|σ'| ≤ 1 (ReLU, leaky ReLU, tanh)", lambda c: (c.cell.activation in ("relu", "leaky_relu", "tanh", "identity"),
                                                               f"σ = {c.cell.activation}"))


def _params(case: ShuffleCase, detach: bool) -> dict[str, Tensor]:
    return {n: (p.detach() if detach else p) for n, p in case.cell.named_parameters()}


def _b_params(params: dict[str, Tensor]) -> dict[str, Tensor]:
    return {n[len("b."):]: p for n, p in params.items() if n.startswith("b.")}


def _h0(case: ShuffleCase, params: dict[str, Tensor]) -> Tensor:
    if case.x0 is None:
        return case.h0
    return functional_call(case.cell.b, _b_params(params), (case.x0,))


def _states(case: ShuffleCase, params: dict[str, Tensor]) -> Tensor:
    """All hidden states (1, T, d_h) of the cell, as a function of its parameters."""
    return functional_call(case.cell, params, (case.x, _h0(case, params)))


def _flatten(jac: dict[str, Tensor], names: list[str], T: int, d_h: int) -> Tensor:
    return torch.cat([jac[n].reshape(T, d_h, -1) for n in names], dim=-1)


def _jacobians(case: ShuffleCase, detach: bool) -> tuple[Tensor, Tensor, Tensor]:
    """σ'(z_t) (T, d_h); ∂h_t/∂θ (T, d_h, P) by autograd through the cell; ∂b(x_t)/∂θ (T, d_h, P)
    by autograd through b alone. θ runs over all P scalar parameters of b."""
    d_h, T = case.size()
    params = _params(case, detach)
    names = list(params)
    J_h = _flatten(jacrev(lambda p: _states(case, p))(params), names, T, d_h)
    J_b = _flatten(jacrev(lambda p: functional_call(case.cell.b, _b_params(p), (case.x,)))(params), names, T, d_h)
    with torch.no_grad():
        z, _ = case.cell.preactivations(case.x, _h0(case, params).detach())
    return activation_derivative(case.cell.activation, z[0]), J_h, J_b


def eq8_recursion(sigma_prime: Tensor, db: Tensor, *, as_printed: bool) -> Tensor:
    """∂h_t/∂θ for t = 1..T from the recursion of srnn.md eq. 8, with ∂h_0/∂θ = 0.

    As printed: ∂h_t = W_p σ'(z_t) ∂h_{t−1} + σ'(z_t) ∂b(x_t). Corrected (the derivative of
    eq. 3): ∂h_t = σ'(z_t) (W_p ∂h_{t−1} + ∂b(x_t)). W_p is applied with :func:`cells.shift`.

    Args:
        sigma_prime: (T, d_h). db: ∂b(x_t)/∂θ, (T, d_h, P).

    Returns:
        (T, d_h, P), dtype/device of ``db``.
    """
    dh, out = torch.zeros_like(db[0]), []
    for t in range(db.shape[0]):
        D = sigma_prime[t, :, None]
        dh = shift(D * dh, dim=-2) + D * db[t] if as_printed else D * (shift(dh, dim=-2) + db[t])
        out.append(dh)
    return torch.stack(out)


def eq9_as_printed(sigma_prime: Tensor, db: Tensor) -> Tensor:
    r"""srnn.md eq. 9 read literally: ∂h_t/∂θ = Σ_{i=1}^{t} σ'(z_i) (∏_{j=1}^{i−1} [W_p σ'(z_j)]) ∂b(x_i)/∂θ,
    the product written left to right (j = 1 leftmost).

    Args:
        sigma_prime: (T, d_h). db: (T, d_h, P).

    Returns:
        (T, d_h, P). Note the i-th term does not depend on t: the printed sum is a running sum.
    """
    terms = []
    for i in range(db.shape[0]):
        term = db[i]
        for j in reversed(range(i)):  # the rightmost factor W_p σ'(z_{i−1}) acts first
            term = shift(sigma_prime[j, :, None] * term, dim=-2)
        terms.append(sigma_prime[i, :, None] * term)
    return torch.stack(terms).cumsum(0)


def _identity_bound(J_h: Tensor, J_b: Tensor) -> Tensor:
    scale = J_b.abs().amax(dim=(1, 2)).sum() + J_h.abs().max()
    return IDENTITY_RTOL * scale.clamp_min(torch.finfo(J_b.dtype).tiny)


def _measure_eq9(case: ShuffleCase) -> dict[str, tuple[Tensor, Tensor]]:
    D, J_h, J_b = _jacobians(case, detach=True)
    bound = _identity_bound(J_h, J_b)
    return {
        "eq. 8 as printed (W_p σ'(z_t) ∂h_{t−1}) = autograd": (
            (eq8_recursion(D, J_b, as_printed=True) - J_h).abs().max(), bound),
        "eq. 9 as printed (∏_{j=1}^{i−1} W_p σ'(z_j)) = autograd": ((eq9_as_printed(D, J_b) - J_h).abs().max(), bound),
    }


def _measure_eq9_corrected(case: ShuffleCase) -> dict[str, tuple[Tensor, Tensor]]:
    D, J_h, J_b = _jacobians(case, detach=True)
    bound = _identity_bound(J_h, J_b)
    return {
        "eq. 8 corrected (σ'(z_t) W_p ∂h_{t−1}) = autograd": (
            (eq8_recursion(D, J_b, as_printed=False) - J_h).abs().max(), bound),
        "eq. 9 corrected (∏_{j=t}^{i+1} σ'(z_j) W_p) = autograd": (
            (eq9_closed_form(D[None], J_b[None])[0] - J_h).abs().max(), bound),
    }


def _measure_eq10(case: ShuffleCase) -> dict[str, tuple[Tensor, Tensor]]:
    _, J_h, J_b = _jacobians(case, detach=False)
    cum = J_b.cumsum(0)  # Σ_{i ≤ t} ∂b(x_i)/∂θ
    return {
        "‖∂h_t/∂b_k‖₂ ≤ ‖Σ_i ∂b(x_i)/∂b_k‖₂": _worst(torch.linalg.vector_norm(J_h, dim=1),
                                                     torch.linalg.vector_norm(cum, dim=1)),
        "‖∂h_t/∂b_k‖_∞ ≤ ‖Σ_i ∂b(x_i)/∂b_k‖_∞": _worst(J_h.abs().amax(dim=1), cum.abs().amax(dim=1)),
    }


def _measure_eq10_corrected(case: ShuffleCase) -> dict[str, tuple[Tensor, Tensor]]:
    _, J_h, J_b = _jacobians(case, detach=False)
    return {
        "‖∂h_t/∂b_k‖₂ ≤ Σ_i ‖∂b(x_i)/∂b_k‖₂": _worst(torch.linalg.vector_norm(J_h, dim=1),
                                                    torch.linalg.vector_norm(J_b, dim=1).cumsum(0)),
        "‖∂h_t/∂b_k‖_∞ ≤ Σ_i ‖∂b(x_i)/∂b_k‖_∞": _worst(J_h.abs().amax(dim=1), J_b.abs().amax(dim=1).cumsum(0)),
    }


def _loss_gradient(case: ShuffleCase) -> tuple[Tensor, Tensor]:
    """∂L/∂θ (P,) by autograd (graph kept for the ascent) and ∂b(x_t)/∂θ (T, d_h, P)."""
    d_h, T = case.size()
    params = _params(case, detach=False)
    loss = (_states(case, params)[0] * case.g).sum()
    grads = torch.autograd.grad(loss, list(params.values()), create_graph=torch.is_grad_enabled())
    J_b = _flatten(jacrev(lambda p: functional_call(case.cell.b, _b_params(p), (case.x,)))(params), list(params),
                   T, d_h)
    return torch.cat([g.reshape(-1) for g in grads]), J_b


def _measure_eq11(case: ShuffleCase) -> dict[str, tuple[Tensor, Tensor]]:
    grad, J_b = _loss_gradient(case)
    bound = torch.einsum("td,tdk->k", case.g, J_b.cumsum(0)).abs()
    return {"|∂L/∂b_k| ≤ |Σ_t ∂L/∂h_t Σ_{i≤t} ∂b(x_i)/∂b_k|": _worst(grad.abs(), bound)}


def _measure_eq11_corrected(case: ShuffleCase) -> dict[str, tuple[Tensor, Tensor]]:
    grad, J_b = _loss_gradient(case)
    inner = torch.linalg.vector_norm(J_b, dim=1).cumsum(0)  # (T, P): Σ_{i≤t} ‖∂b(x_i)/∂b_k‖₂
    bound = (torch.linalg.vector_norm(case.g, dim=1)[:, None] * inner).sum(0)
    return {"|∂L/∂b_k| ≤ Σ_t ‖∂L/∂h_t‖₂ Σ_{i≤t} ‖∂b(x_i)/∂b_k‖₂": _worst(grad.abs(), bound)}


def _free_eq10(case: ShuffleCase) -> list[Tensor]:
    return [case.x, *case.cell.parameters()]


def _free_eq11(case: ShuffleCase) -> list[Tensor]:
    return [case.x, case.g, *case.cell.parameters()]


# ================================================================================ Table 1: timing
@dataclass
class TimingCase:
    """A timing experiment: the SRNN recurrence (eq. 3) at several widths d_h.

    Attributes:
        d_hs: the widths timed, increasing. T: sequence length. d_i: input width.
        fr_hidden: f_r's hidden widths (fixed as d_h grows: "O(d_i)", Sec. 3).
        seed: seeds the cells' initialisation and the input.
        recurrence: ``"shift"`` (W_p by ``torch.roll``, as the cell does) or ``"dense"`` (W_p as a
            dense d_h×d_h matrix product, the cost of a learned recurrent matrix; outside the claim).
        reps: timed repetitions per width (the minimum is kept).
        batch: sequences per pass. Table 1 counts a minibatch of one; the cost is B times that, so
            the exponent of d_h does not depend on B, and B > 1 lifts the work per operation above
            torch's fixed per-call overhead, which would otherwise flatten the measured exponent.
        device: where the cells run.
    """

    d_hs: tuple[int, ...]
    T: int
    d_i: int
    fr_hidden: tuple[int, ...]
    seed: int
    recurrence: str = "shift"
    reps: int = 3
    batch: int = 16
    device: str = "cpu"

    def size(self) -> tuple[int, int]:
        """(largest d_h, T)."""
        return max(self.d_hs), self.T

    def state(self) -> dict:
        """Plain config values (a timing case has no tensors)."""
        return {"d_hs": list(self.d_hs), "T": self.T, "d_i": self.d_i, "fr_hidden": list(self.fr_hidden),
                "seed": self.seed, "recurrence": self.recurrence, "reps": self.reps, "batch": self.batch,
                "device": self.device}

    @classmethod
    def from_state(cls, state: dict, device="cpu", dtype=torch.float64) -> "TimingCase":
        """Rebuild a case from :meth:`state`, on the device it was timed on (see
        :func:`sample_timing_case` for why that is not the ``device`` argument)."""
        return cls(tuple(state["d_hs"]), int(state["T"]), int(state["d_i"]), tuple(state["fr_hidden"]),
                   int(state["seed"]), state["recurrence"], int(state["reps"]), int(state["batch"]), state["device"])


def sample_timing_case(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> TimingCase:
    """Widths h/16, h/4, h (a 16× span); d_i ∈ {1, 2, 4}; f_r with one hidden layer of 8 (Sec. 4,
    MemCopy/Adding) or two of 4.

    Always timed on the CPU, whatever ``device``: Table 1 counts operations, and one CPU thread
    executes them one after another, while a GPU runs O(d_h) elementwise work in near-constant
    time until it saturates (at these widths the measured exponent there is that of kernel-launch
    overhead, ≈ 0). A :class:`TimingCase` built by hand with ``device="cuda"`` is timed on CUDA.
    """
    d_i = [1, 2, 4][int(torch.randint(0, 3, (), generator=gen))]
    fr_hidden = [(8,), (4, 4)][int(torch.randint(0, 2, (), generator=gen))]
    return TimingCase((max(1, h // 16), max(1, h // 4), h), T, d_i, fr_hidden,
                      int(torch.randint(0, 2**31 - 1, (), generator=gen)), device="cpu")


def time_recurrence(case: TimingCase, dtype: torch.dtype = torch.float64) -> dict[int, float]:
    """Seconds for one forward pass of the recurrence at each width of ``case`` (minimum over
    ``case.reps``, after one untimed warm-up; widths interleaved so that a burst of load on the
    shared machine hits all of them alike).

    On the CPU the clock is the calling thread's CPU time (``time.thread_time``) with torch
    limited to one thread, so other processes on the machine barely move it; on CUDA it is wall
    time around a synchronised pass. The forward pass evaluates b on all T inputs at once and
    then runs the loop of eq. 3 (:meth:`cells.SRNN.forward`); the backward pass of a gradient
    step repeats the same O(d_h) operations in reverse, so its exponent is the same.

    Raises:
        ValueError: unknown ``case.recurrence``.
    """
    if case.recurrence not in ("shift", "dense"):
        raise ValueError(f"recurrence must be 'shift' or 'dense', got {case.recurrence!r}")
    device = torch.device(case.device)
    gen = torch.Generator().manual_seed(case.seed)
    cells = {d: SRNN(case.d_i, d, fr_hidden=case.fr_hidden, generator=gen, dtype=dtype, device=device)
             for d in case.d_hs}
    dense = {d: c.recurrent_matrix() for d, c in cells.items()} if case.recurrence == "dense" else {}
    x = torch.randn(case.batch, case.T, case.d_i, generator=gen, dtype=torch.float64)
    x = x.to(device=device, dtype=dtype)

    def run(d: int) -> None:
        cell = cells[d]
        if case.recurrence == "shift":
            cell(x)
            return
        bx, h, W_t = cell.b(x), x.new_zeros(case.batch, d), dense[d].mT
        for t in range(case.T):
            h = torch.relu(h @ W_t + bx[:, t])

    cuda = device.type == "cuda"
    clock = time.perf_counter if cuda else time.thread_time
    threads = torch.get_num_threads()
    best = {d: math.inf for d in case.d_hs}
    try:
        torch.set_num_threads(1)
        with torch.no_grad():
            for rep in range(case.reps + 1):
                for d in case.d_hs:
                    if cuda:
                        torch.cuda.synchronize(device)
                    start = clock()
                    run(d)
                    if cuda:
                        torch.cuda.synchronize(device)
                    if rep:  # rep 0 warms up allocator and caches
                        best[d] = min(best[d], clock() - start)
    finally:
        torch.set_num_threads(threads)
    return best


def fit_exponent(times: dict[int, float]) -> float:
    """Least-squares slope of log(time) against log(d_h): the measured exponent k in time ∝ d_hᵏ.

    Raises:
        ValueError: fewer than two distinct widths.
    """
    xs = [math.log(d) for d in times]
    if len(set(xs)) < 2:
        raise ValueError(f"need at least two distinct widths to fit an exponent, got {sorted(times)}")
    ys = [math.log(max(t, 1e-9)) for t in times.values()]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((a - mx) * (b - my) for a, b in zip(xs, ys)) / sum((a - mx) ** 2 for a in xs)


A_ROLL = Assumption("W_p applied as a permutation in O(d_h) per step (torch.roll), Sec. 3 'Time complexity'",
                    lambda c: (c.recurrence == "shift", f"recurrence = {c.recurrence}"))


def _measure_table1(case: TimingCase) -> dict[str, tuple[Tensor, Tensor]]:
    k = fit_exponent(time_recurrence(case))
    k_t = torch.tensor(k, dtype=torch.float64)
    lo = torch.tensor(TABLE1_EXPONENT - TABLE1_TOL, dtype=torch.float64)
    return {
        f"exponent of d_h ≤ {TABLE1_EXPONENT:g} + {TABLE1_TOL:g}": (k_t, k_t.new_tensor(TABLE1_EXPONENT + TABLE1_TOL)),
        # written as (1 − tol)/k ≤ 1; a non-positive k (no growth at all) counts as a failure
        f"exponent of d_h ≥ {TABLE1_EXPONENT:g} − {TABLE1_TOL:g}": (lo, k_t.clamp_min(1e-12)),
    }


# ======================================================================== Gambler's ruin (Sec. 3)
@dataclass
class WalkCase:
    """Monte Carlo of the Gambler's-ruin model of srnn.md Sec. 3 on SRNN units.

    Every unit of a (batch, d_h) SRNN state starts at h_0 = 1 and receives b(x_t) = +1 with
    probability ``p_up`` and −1 otherwise (the paper: "the probability of either obtaining a
    negative or a positive contribution ... is ½"); the state follows eq. 3 with ReLU and the
    shift W_p, and each unit is followed through the shift. A unit *vanishes* at the first t with
    z_t ≤ 0 and *survives* when it reaches T + 1 (the upper barrier that makes T/(1+T) the
    gambler's ruin probability from capital 1 out of T + 1).

    Attributes:
        d_h: units per state. batch: states (d_h·batch walks). T: the paper's T. p_up: P(b = +1).
        seed: seeds the contributions.
    """

    d_h: int
    batch: int
    T: int
    p_up: float
    seed: int

    def size(self) -> tuple[int, int]:
        """(d_h, T)."""
        return self.d_h, self.T

    def state(self) -> dict:
        """Plain config values."""
        return {"d_h": self.d_h, "batch": self.batch, "T": self.T, "p_up": self.p_up, "seed": self.seed}

    @classmethod
    def from_state(cls, state: dict, device="cpu", dtype=torch.float64) -> "WalkCase":
        """Rebuild a case from :meth:`state`."""
        return cls(int(state["d_h"]), int(state["batch"]), int(state["T"]), float(state["p_up"]), int(state["seed"]))


def sample_walk_case(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> WalkCase:
    """d_h = h units per state and enough states for :data:`GAMBLER_UNITS` walks, p_up = ½."""
    return WalkCase(h, math.ceil(GAMBLER_UNITS / h), T, 0.5, int(torch.randint(0, 2**31 - 1, (), generator=gen)))


def simulate_gamblers_ruin(case: WalkCase, dtype: torch.dtype = torch.float64) -> tuple[Tensor, Tensor]:
    """Run the walks of ``case`` until every unit has vanished or survived.

    Returns:
        ``(tau, vanished)``: steps until absorption (float64) and whether at 0, each (batch·d_h,).

    Raises:
        RuntimeError: some walk neither vanished nor survived within 40 (T+1)² + 100 steps (the
            chance of that is below e⁻¹⁹⁰ per walk: the survival probability decays like
            cos(π/(T+1))ᵗ).
    """
    gen = torch.Generator().manual_seed(case.seed)
    top = case.T + 1
    h = torch.ones(case.batch, case.d_h, dtype=dtype)
    active = torch.ones_like(h, dtype=torch.bool)  # indexed by unit (its position at t = 0)
    tau, vanished = torch.zeros_like(h), torch.zeros_like(active)
    for t in range(1, 40 * top**2 + 101):
        b = torch.where(torch.rand(h.shape, generator=gen, dtype=torch.float64) < case.p_up, 1.0, -1.0).to(dtype)
        z = shift(h) + b
        h = torch.relu(z)
        # shift moves position i + 1 to i, so the unit that started at r now sits at r − t (mod d_h)
        z_unit = torch.roll(z, shifts=t, dims=-1)
        down, up = active & (z_unit <= 0), active & (z_unit >= top)
        tau[down | up] = t
        vanished |= down
        active &= ~(down | up)
        if not active.any():
            return tau.reshape(-1), vanished.reshape(-1)
    raise RuntimeError(f"{int(active.sum())} walks still running after {t} steps (T = {case.T})")


A_FAIR = Assumption("P(b(x_t) = +1) = P(b(x_t) = −1) = ½ (Sec. 3)",
                    lambda c: (c.p_up == 0.5, f"P(b = +1) = {c.p_up:g}"))


def _mean_part(samples: Tensor, target: float) -> tuple[Tensor, Tensor]:
    n = samples.numel()
    sd = samples.std() if n > 1 else samples.new_zeros(())
    return (samples.mean() - target).abs(), GAMBLER_Z * sd / math.sqrt(max(n, 1))


def _walk_parts(case: WalkCase) -> tuple[Tensor, Tensor, dict[str, tuple[Tensor, Tensor]]]:
    tau, vanished = simulate_gamblers_ruin(case)
    T, M = case.T, tau.numel()
    p = T / (T + 1)
    p_hat = vanished.double().mean()
    parts = {
        "P(unit vanishes) = T/(1+T)": ((p_hat - p).abs(), _f64(GAMBLER_Z * math.sqrt(p * (1 - p) / M), tau)),
        "E[steps until the walk stops, at 0 or T+1] = T": _mean_part(tau, T),
    }
    return tau, vanished, parts


def _measure_gamblers_ruin(case: WalkCase) -> dict[str, tuple[Tensor, Tensor]]:
    tau, vanished, parts = _walk_parts(case)
    parts["E[steps until the unit vanishes | it vanishes] = T"] = _mean_part(tau[vanished], case.T)
    return parts


def _measure_gamblers_ruin_corrected(case: WalkCase) -> dict[str, tuple[Tensor, Tensor]]:
    tau, vanished, parts = _walk_parts(case)
    parts["E[steps until the unit vanishes | it vanishes] = (2T+1)/3"] = _mean_part(tau[vanished],
                                                                                    (2 * case.T + 1) / 3)
    return parts


# ============================================================================================ claims
_EQ4_SIZES = {"quick": [(1, 1), (2, 3), (5, 8), (16, 20), (128, 50)],
              "full": [(1, 1), (2, 3), (5, 8), (16, 20), (128, 50), (1024, 200)]}
_EQ9_SIZES = {"quick": [(1, 1), (1, 6), (2, 3), (4, 8), (8, 12)],
              "full": [(1, 1), (1, 6), (2, 3), (4, 8), (8, 12), (16, 24), (32, 40)]}
_GRAD_SIZES = {"quick": [(1, 2), (1, 6), (2, 4), (4, 8), (8, 10)],
               "full": [(1, 2), (1, 6), (2, 4), (4, 8), (8, 10), (16, 20), (32, 30)]}
_TIMING_SIZES = {"quick": [(16384, 4)], "full": [(16384, 4), (32768, 8)]}
_WALK_SIZES = {"quick": [(16, 1), (32, 2), (64, 3), (128, 5), (256, 8)],
               "full": [(16, 1), (32, 2), (64, 3), (128, 5), (256, 8), (256, 20), (512, 50)]}

_SHUFFLE = dict(paper="srnn", sample=sample_shuffle_case, case_type=ShuffleCase)
_EQ8_EQ9_EXPLANATION = (
    "Differentiating eq. 3, h_t = σ(W_p h_{t−1} + b(x_t)), gives ∂h_t/∂b_k = σ'(z_t)(W_p ∂h_{t−1}/∂b_k + "
    "∂b(x_t)/∂b_k): σ'(z_t) multiplies from the left. Eq. 8 prints W_p σ'(z_t), which differs unless σ'(z_t) "
    "is constant across units, and eq. 9 runs the product over j = 1..i−1, the steps *before* input i, where "
    "the expansion needs j = i+1..t, the steps after it (ordered σ'(z_t) W_p ⋯ σ'(z_{i+1}) W_p σ'(z_i)). "
    "Both printed forms agree with autograd only at t = 1 (or for d_h = 1 with constant σ'). "
    "See srnn.eq9.corrected.")

eq4 = Claim(
    id="srnn.eq4",
    paper="srnn",
    source="srnn.md, Sec. 3, eq. 4 and 'Analysis of gradient dynamics'",
    statement="W_p (eq. 4, a permutation) is orthogonal, so successive applications of W_p neither increase "
              "nor decrease the norm of the hidden state",
    measure="‖W_pᵀW_p − I‖₂; max over k ≤ T of |‖W_pᵏy‖₂ − ‖y‖₂|; distance of cells.srnn.shift/shift_matrix "
            "from eq. 4 written out entry by entry",
    bound="0, up to the rounding of one sum of d_h squares (EXACT_RTOL = 1e-12, relative)",
    assumptions=(A_PERMUTATION,),
    sample=sample_permutation_case,
    evaluate=_measure_eq4,
    sizes=_EQ4_SIZES,
    case_type=PermutationCase,
    explanation="A permutation matrix has exactly one 1 in every row and column, so W_pᵀW_p = I; anything else "
                "(a repeated or missing target, a scaled shift) is not norm-preserving.",
    notes="Half the cases use eq. 4's shift, half a uniformly random permutation (the text's 'without loss of "
          "generality'). The cell applies W_p with torch.roll; the third part pins that to eq. 4.",
)

eq9 = Claim(
    id="srnn.eq9",
    source="srnn.md, Sec. 3, eq. 8 (recursion) and eq. 9 (closed form), as printed",
    statement="∂h_t/∂b_k = W_p σ'(z_t) ∂h_{t−1}/∂b_k + σ'(z_t) ∂b(x_t)/∂b_k (eq. 8) and "
              "∂h_t/∂b_k = Σ_{i=1}^{t} σ'(z_i) (∏_{j=1}^{i−1} [W_p σ'(z_j)]) ∂b(x_i)/∂b_k (eq. 9)",
    measure="max |formula − autograd| over t, units and every scalar parameter b_k of network b",
    bound="IDENTITY_RTOL (1e-10) × (Σ_i ‖∂b(x_i)/∂θ‖_max + ‖∂h/∂θ‖_max)",
    assumptions=(A_H0_CONSTANT,),
    evaluate=_measure_eq9,
    sizes=_EQ9_SIZES,
    explanation=_EQ8_EQ9_EXPLANATION,
    notes="σ'(z) as a diagonal matrix; ReLU's σ'(0) = 0 as autograd. The check covers all of b's parameters "
          "(f_r's layers, W_s, b_s). h_0 is a constant (0 or a random state), as eq. 9's missing ∂h_0 term needs.",
    **_SHUFFLE,
)

eq9_corrected = Claim(
    id="srnn.eq9.corrected",
    source="srnn.md, Sec. 3, eq. 8–9, corrected by rnnaudit (cells.srnn.eq9_closed_form)",
    statement="∂h_t/∂b_k = σ'(z_t)(W_p ∂h_{t−1}/∂b_k + ∂b(x_t)/∂b_k) and "
              "∂h_t/∂b_k = Σ_{i=1}^{t} (∏_{j=t}^{i+1} σ'(z_j) W_p) σ'(z_i) ∂b(x_i)/∂b_k",
    measure="max |formula − autograd| over t, units and every scalar parameter b_k of network b",
    bound="IDENTITY_RTOL (1e-10) × (Σ_i ‖∂b(x_i)/∂θ‖_max + ‖∂h/∂θ‖_max)",
    assumptions=(A_H0_CONSTANT,),
    evaluate=_measure_eq9_corrected,
    sizes=_EQ9_SIZES,
    explanation="Would mean the chain rule through eq. 3 is mis-implemented; the only hypothesis is that h_0 "
                "does not depend on b (otherwise a term (∏_{j=t}^{1} σ'(z_j) W_p) ∂h_0/∂b_k is missing).",
    notes="The closed form keeps every term of the sum separately (cost O(T² d_h P)), so it checks eq. 9 "
          "itself and not the recursion.",
    **_SHUFFLE,
)

_EQ10_EXPLANATION = (
    "Eq. 10 moves the absolute value outside the sum: from eq. 9 with |σ'| ≤ 1 and W_p orthogonal one gets "
    "only ‖∂h_t/∂b_k‖ ≤ Σ_i ‖∂b(x_i)/∂b_k‖ (triangle inequality), not ≤ ‖Σ_i ∂b(x_i)/∂b_k‖. The terms are "
    "weighted by different σ' products and shifted to different units, so cancellations in Σ_i ∂b(x_i)/∂b_k "
    "do not carry over. Smallest counterexample: d_h = 1, σ'(z_1) = 0 (a switched-off ReLU), ∂b(x_1)/∂b_k = 1, "
    "∂b(x_2)/∂b_k = −1: |∂h_2/∂b_k| = 1 > |1 − 1| = 0. The conclusion drawn from it (linear, not exponential, "
    "growth) survives with the corrected bound; see srnn.eq10.corrected.")

eq10 = Claim(
    id="srnn.eq10",
    source="srnn.md, Sec. 3, eq. 10",
    statement="|∂h_t/∂b_k| ≤ |Σ_{i=1}^{t} ∂b(x_i)/∂b_k| (|σ'| ≤ 1, W_p orthogonal)",
    measure="‖∂h_t/∂b_k‖ by autograd through the cell, worst over t and every scalar parameter b_k of b",
    bound="‖Σ_{i≤t} ∂b(x_i)/∂b_k‖ (∂b by autograd through b alone), in ℓ2 and ℓ∞",
    assumptions=(A_H0_CONSTANT, A_SIGMA_PRIME),
    evaluate=_measure_eq10,
    sizes=_GRAD_SIZES,
    explanation=_EQ10_EXPLANATION,
    notes="|·| of a vector read as a norm; ℓ2 and ℓ∞ (the largest entry, the entrywise reading's worst unit) "
          "are both checked. An entrywise reading |(∂h_t)_r| ≤ |Σ_i ∂b(x_i)_r| without the shift fails even "
          "more easily, since W_p moves contributions to other units. Random cases violate it by orders of "
          "magnitude, so no adversarial ascent is run (srnn.eq10.corrected gets one).",
    **_SHUFFLE,
)

eq10_corrected = Claim(
    id="srnn.eq10.corrected",
    source="srnn.md, Sec. 3, eq. 10, corrected by rnnaudit",
    statement="‖∂h_t/∂b_k‖ ≤ Σ_{i=1}^{t} ‖∂b(x_i)/∂b_k‖ for ℓ2 and ℓ∞ (|σ'| ≤ 1, W_p a permutation)",
    measure="‖∂h_t/∂b_k‖ by autograd through the cell, worst over t and every scalar parameter b_k of b",
    bound="Σ_{i≤t} ‖∂b(x_i)/∂b_k‖, in ℓ2 and ℓ∞",
    assumptions=(A_H0_CONSTANT, A_SIGMA_PRIME),
    evaluate=_measure_eq10_corrected,
    free=_free_eq10,
    sizes=_GRAD_SIZES,
    explanation="Would break the triangle inequality on eq. 9: each term is ∂b(x_i)/∂b_k multiplied by "
                "diagonal matrices of norm ≤ 1 and permutations.",
    notes="Attained (ratio 1) for d_h = 1 with σ' = 1 and same-sign ∂b(x_i)/∂b_k. Grows at most linearly in t, "
          "which is what Sec. 3 concludes.",
    **_SHUFFLE,
)

eq11 = Claim(
    id="srnn.eq11",
    source="srnn.md, Sec. 3, eq. 11 (eq. 7 combined with eq. 10)",
    statement="|∂L/∂b_k| ≤ |Σ_{t=1}^{T} ∂L/∂h_t Σ_{i=1}^{t} ∂b(x_i)/∂b_k|",
    measure="|∂L/∂b_k| by autograd for L = Σ_t ⟨g_t, h_t⟩, worst over every scalar parameter b_k of b",
    bound="|Σ_t g_tᵀ Σ_{i≤t} ∂b(x_i)/∂b_k| with g_t = ∂L/∂h_t (explicit)",
    assumptions=(A_H0_CONSTANT, A_SIGMA_PRIME),
    evaluate=_measure_eq11,
    sizes=_GRAD_SIZES,
    explanation="Inherits eq. 10's error (|Σ| in place of Σ|·|) and adds another one: the sum over t can cancel "
                "too. With the eq. 10 counterexample and g = (0, 1): |∂L/∂b_k| = 1 > 0. See srnn.eq11.corrected.",
    notes="∂L/∂h_t in eq. 7 must be the explicit partial derivative (L = Σ_t ℓ_t(h_t)); read as the total "
          "(back-propagated) derivative, eq. 7 would count every path several times. L = Σ_t ⟨g_t, h_t⟩ makes "
          "it g_t exactly; a third of the cases put all of g at t = T. Random cases violate it by orders of "
          "magnitude, so no adversarial ascent is run (srnn.eq11.corrected gets one).",
    **_SHUFFLE,
)

eq11_corrected = Claim(
    id="srnn.eq11.corrected",
    source="srnn.md, Sec. 3, eq. 11, corrected by rnnaudit",
    statement="|∂L/∂b_k| ≤ Σ_{t=1}^{T} ‖∂L/∂h_t‖₂ Σ_{i=1}^{t} ‖∂b(x_i)/∂b_k‖₂",
    measure="|∂L/∂b_k| by autograd for L = Σ_t ⟨g_t, h_t⟩, worst over every scalar parameter b_k of b",
    bound="Σ_t ‖g_t‖₂ Σ_{i≤t} ‖∂b(x_i)/∂b_k‖₂",
    assumptions=(A_H0_CONSTANT, A_SIGMA_PRIME),
    evaluate=_measure_eq11_corrected,
    free=_free_eq11,
    sizes=_GRAD_SIZES,
    explanation="Would break Cauchy–Schwarz on eq. 7 combined with srnn.eq10.corrected.",
    notes="Linear in the contributions of b, so 'it cannot explode' holds in this form: the bound grows at most "
          "like T² max_i ‖∂b(x_i)/∂b_k‖ max_t ‖∂L/∂h_t‖.",
    **_SHUFFLE,
)

table1 = Claim(
    id="srnn.table1",
    paper="srnn",
    source="srnn.md, Sec. 3 'Time complexity' and Table 1 (SRNN row: O(T d_h d_i))",
    statement="The cost of the SRNN recurrence is O(T d_h d_i): linear in d_h ('our method is the only one "
              "that is linear in d_h'), for a minibatch of one and f_r of width O(d_i)",
    measure="least-squares slope k of log(time) against log(d_h) over d_h ∈ {h/16, h/4, h}; time = min over "
            "3 repetitions of the thread's CPU time for one forward pass of 16 sequences (b on all T inputs, "
            "then the loop of eq. 3)",
    bound=f"|k − {TABLE1_EXPONENT:g}| ≤ {TABLE1_TOL:g} (TABLE1_TOL)",
    assumptions=(A_ROLL,),
    sample=sample_timing_case,
    evaluate=_measure_table1,
    sizes=_TIMING_SIZES,
    case_type=TimingCase,
    explanation="A cost growing faster than linearly in d_h means W_p is not applied as an O(d_h) permutation "
                "(a dense W_p costs O(d_h²) per step, like the vanilla RNN/GRU/LSTM rows of Table 1).",
    notes="Measured exponents depend on the machine: thread CPU time ignores other processes, but caches do "
          "not, so exponents of 0.7–1.3 are the expected range for a linear cost; a dense W_p measures ≈ 2. "
          "16 sequences per pass (16·d_h ≥ 16384 numbers per operation) so that torch's per-call overhead "
          "does not hide the d_h-dependence; the exponent of d_h is the same for any minibatch size.",
)

_WALK = dict(paper="srnn", sample=sample_walk_case, sizes=_WALK_SIZES,
             case_type=WalkCase, assumptions=(A_FAIR,))
_WALK_MEASURE = (f"Monte Carlo over {GAMBLER_UNITS} SRNN units (eq. 3, ReLU, shift W_p, h_0 = 1, b(x_t) = ±1): "
                 "|estimate − stated value|")
_WALK_BOUND = (f"{GAMBLER_Z} standard errors (a two-sided normal confidence interval of coverage 1 − 6.8e-6 "
               "per comparison)")

gamblers_ruin = Claim(
    id="srnn.gamblers_ruin",
    source="srnn.md, Sec. 3, Gambler's-ruin estimate after eq. 11",
    statement="With ±1 contributions of probability ½, the probability that the hidden state vanishes is "
              "p(z_t ≤ 0) = T/(1+T), and 'the expectation value of the number of steps until this happens is T'",
    measure=_WALK_MEASURE,
    bound=_WALK_BOUND,
    evaluate=_measure_gamblers_ruin,
    explanation="T/(1+T) is the gambler's ruin probability from capital 1 with the game stopped at T + 1, and T is "
                "that game's expected *duration* 1·((T+1) − 1), which ends at either barrier. The number of steps "
                "until the unit vanishes, given that it does, has mean (2T+1)/3, not T (equal only for T = 1); "
                "and the SRNN unit has no upper barrier, so without it the unit vanishes with probability 1 after "
                "an infinite expected number of steps. See srnn.gamblers_ruin.corrected.",
    notes="Reading: the only one under which p = T/(1+T) holds, a walk from 1 absorbed at 0 (vanish) or T + 1. "
          "Parts 1 and 2 (probability, expected duration) are what the paper computed and hold; part 3 is the "
          "sentence's literal reading. Sec. 3 also says b(x_t) ≈ N(0, 1); the ±1 walk is the paper's own "
          "simplification, checked here as stated.",
    **_WALK,
)

gamblers_ruin_corrected = Claim(
    id="srnn.gamblers_ruin.corrected",
    source="srnn.md, Sec. 3, Gambler's-ruin estimate, corrected by rnnaudit",
    statement="P(vanish before reaching T+1) = T/(1+T); E[steps until the walk stops] = T; "
              "E[steps until vanishing | it vanishes] = (2T+1)/3",
    measure=_WALK_MEASURE,
    bound=_WALK_BOUND,
    evaluate=_measure_gamblers_ruin_corrected,
    explanation="Would contradict the gambler's-ruin formulas for a fair walk from 1 on {0, …, T+1}: "
                "P(ruin) = 1 − 1/(T+1), E[duration] = 1·T, E[duration | ruin] = (2(T+1) − 1)/3.",
    notes="The conditional mean follows from the Doob transform of the walk by P(ruin | x) = (T+1−x)/(T+1).",
    **_WALK,
)

CLAIMS = (eq4, eq9, eq9_corrected, eq10, eq10_corrected, eq11, eq11_corrected, table1, gamblers_ruin,
          gamblers_ruin_corrected)
