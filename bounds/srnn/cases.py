"""The cases of srnn.md's gradient claims (eq. 8–11): one sequence through an SRNN cell.

The gradient claims run an :class:`rnnaudit.cells.SRNN` on one sequence. "b_k" is every scalar
parameter of network b (f_r's weights and biases, W_s, b_s); ∂h_t/∂b_k comes from autograd
through the whole cell (``torch.func.jacrev``) and ∂b(x_i)/∂b_k from autograd through b alone.

Shared here: :class:`ShuffleCase` with its sampler and search space (:data:`SHUFFLE`), the
assumptions of eq. 9–11, the Jacobians they all measure, and :func:`f64` (a float as a float64
0-d tensor, for bounds that are constants).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor
from torch.func import functional_call, jacrev

from rnnaudit.bounds.core import Assumption, CaseSpace
from rnnaudit.cells import SRNN, activation_derivative
from rnnaudit.tasks.synthetic import addition_problem

__all__ = ["ShuffleCase", "sample_shuffle_case", "SHUFFLE", "GRAD_SIZES", "A_H0_CONSTANT", "A_SIGMA_PRIME",
           "cell_params", "b_params", "hidden_states", "flatten_jacobian", "jacobians", "f64"]


def f64(x: float, like: Tensor) -> Tensor:
    """``x`` as a 0-d float64 tensor on ``like``'s device."""
    return torch.tensor(float(x), dtype=torch.float64, device=like.device)


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


#: Sizes (d_h, T) of eq. 10–11 (eq. 9 has its own, see :mod:`rnnaudit.bounds.srnn.eq9`).
GRAD_SIZES = {"quick": [(1, 2), (1, 6), (2, 4), (4, 8), (8, 10)],
              "full": [(1, 2), (1, 6), (2, 4), (4, 8), (8, 10), (16, 20), (32, 30)]}

#: SRNN cases inside eq. 9–11's assumptions, random only (the corrected bounds free x, g and the
#: cell's parameters with ``dataclasses.replace``).
SHUFFLE = CaseSpace(case_type=ShuffleCase, sample=sample_shuffle_case, sizes=GRAD_SIZES)


# ----------------------------------------------------------------------------------- assumptions
A_H0_CONSTANT = Assumption("h_0 does not depend on b's parameters (eq. 9 starts from ∂h_0/∂b_k = 0)",
                           lambda c: (c.x0 is None, "h_0 = b(x_0)" if c.x0 is not None else "h_0 constant"))
A_SIGMA_PRIME = Assumption("|σ'| ≤ 1 (ReLU, leaky ReLU, tanh)", lambda c: (c.cell.activation in ("relu", "leaky_relu", "tanh", "identity"),
                                                               f"σ = {c.cell.activation}"))


# ---------------------------------------------------------------------------------- measurements
def cell_params(case: ShuffleCase, detach: bool) -> dict[str, Tensor]:
    """The cell's parameters by name, detached or as the leaves themselves (for the ascent)."""
    return {n: (p.detach() if detach else p) for n, p in case.cell.named_parameters()}


def b_params(params: dict[str, Tensor]) -> dict[str, Tensor]:
    """The entries of network b among the cell's ``params``, named as inside b."""
    return {n[len("b."):]: p for n, p in params.items() if n.startswith("b.")}


def _h0(case: ShuffleCase, params: dict[str, Tensor]) -> Tensor:
    if case.x0 is None:
        return case.h0
    return functional_call(case.cell.b, b_params(params), (case.x0,))


def hidden_states(case: ShuffleCase, params: dict[str, Tensor]) -> Tensor:
    """All hidden states (1, T, d_h) of the cell, as a function of its parameters."""
    return functional_call(case.cell, params, (case.x, _h0(case, params)))


def flatten_jacobian(jac: dict[str, Tensor], names: list[str], T: int, d_h: int) -> Tensor:
    """A ``jacrev`` result by parameter name as one (T, d_h, P) tensor, parameters in ``names`` order."""
    return torch.cat([jac[n].reshape(T, d_h, -1) for n in names], dim=-1)


def jacobians(case: ShuffleCase, detach: bool) -> tuple[Tensor, Tensor, Tensor]:
    """σ'(z_t) (T, d_h); ∂h_t/∂θ (T, d_h, P) by autograd through the cell; ∂b(x_t)/∂θ (T, d_h, P)
    by autograd through b alone. θ runs over all P scalar parameters of b."""
    d_h, T = case.size()
    params = cell_params(case, detach)
    names = list(params)
    J_h = flatten_jacobian(jacrev(lambda p: hidden_states(case, p))(params), names, T, d_h)
    J_b = flatten_jacobian(jacrev(lambda p: functional_call(case.cell.b, b_params(p), (case.x,)))(params), names,
                           T, d_h)
    with torch.no_grad():
        z, _ = case.cell.preactivations(case.x, _h0(case, params).detach())
    return activation_derivative(case.cell.activation, z[0]), J_h, J_b
