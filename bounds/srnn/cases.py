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
from rnnaudit.cells import SRNN, activation_derivative, get_activation, shift
from rnnaudit.tasks.synthetic import addition_problem

__all__ = ["ShuffleCase", "sample_shuffle_case", "sample_relu_case", "affine_case", "shuffle_starts", "relu_starts",
           "SHUFFLE", "GRAD_SIZES", "A_H0_CONSTANT", "A_SIGMA_PRIME", "A_RELU", "cell_params", "b_params",
           "hidden_states", "perturbed_states", "flatten_jacobian", "jacobians", "f64"]


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


def sample_relu_case(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> ShuffleCase:
    """:func:`sample_shuffle_case` with σ = ReLU always (the statements of Sec. 3 that are about ReLU)."""
    case = sample_shuffle_case(gen, h, T, device, dtype)
    case.cell.activation = "relu"
    return case


def affine_case(weight, bias, x, *, activation: str = "relu", h0=None, g=None, device="cpu",
                dtype=torch.float64) -> ShuffleCase:
    """A hand-built case with d_i = 1, no gate and f_r a single affine map: b(x_t) = weight·x_t + bias.

    Args:
        weight, bias: sequences of d_h floats. x: sequence of T floats (the scalar inputs).
        activation: σ of eq. 3. h0: d_h floats (zeros if None). g: (T, d_h) nested floats (ones if None).

    Raises:
        ValueError: weight and bias of different lengths, or an empty x.
    """
    weight, bias = torch.tensor(weight, dtype=torch.float64), torch.tensor(bias, dtype=torch.float64)
    if weight.shape != bias.shape or weight.dim() != 1 or len(x) < 1:
        raise ValueError(f"weight and bias must be two equal-length sequences and x non-empty, got "
                         f"{tuple(weight.shape)}, {tuple(bias.shape)}, {len(x)} inputs")
    d_h, T = weight.numel(), len(x)
    cell = SRNN(1, d_h, fr_hidden=(), gating=False, activation=activation, dtype=torch.float64)
    with torch.no_grad():
        cell.b.f_r[0].weight.copy_(weight[:, None])
        cell.b.f_r[0].bias.copy_(bias)
    conv = lambda t: t.to(device=device, dtype=dtype)  # noqa: E731
    xs = torch.tensor(x, dtype=torch.float64).reshape(1, T, 1)
    h0 = torch.zeros(1, d_h, dtype=torch.float64) if h0 is None else torch.tensor([h0], dtype=torch.float64)
    g = torch.ones(T, d_h, dtype=torch.float64) if g is None else torch.tensor(g, dtype=torch.float64)
    return ShuffleCase(cell.to(device=device, dtype=dtype), conv(xs), conv(h0), conv(g))


def shuffle_starts(h: int, T: int, device="cpu", dtype=torch.float64) -> list[ShuffleCase]:
    """Structured SRNN cases at any (d_h, T), measured before the random ones:

    - *all active*: ReLU, b(x_t) = 2 > 0 for every unit and step, so σ' ≡ 1 and ∂h_T/∂h_t = W_p^{T−t}
      is a permutation (‖·‖₂ = 1, the supremum of the no-growth bounds), all ∂b(x_i)/∂b_k of one sign
      (the triangle and Cauchy–Schwarz bounds of eq. 10–11 corrected are tight at d_h = 1);
    - *tanh, saturating*: b ≡ 1, every σ'(z_t) ≤ sech²(1) < 1: ∂h_T/∂h_t decays geometrically;
    - *switched off, then on*: ReLU, b(x) = −x, x = (1, −1, 0, …): z_1 = −1 kills every unit, z_2 = 1
      revives them, so ∂h_2/∂w = −1 while Σ_i ∂b(x_i)/∂w = 0 (the one-unit counterexample of eq. 10, at
      every d_h);
    - *all off*: ReLU, b ≡ −1: every σ'(z_t) = 0, ∂h_T/∂h_t = 0.
    """
    x_off_on = [1.0, -1.0] + [0.0] * (T - 2) if T >= 2 else [1.0]
    return [affine_case([1.0] * h, [1.0] * h, [1.0] * T, device=device, dtype=dtype),
            affine_case([0.0] * h, [1.0] * h, [0.0] * T, activation="tanh", device=device, dtype=dtype),
            affine_case([-1.0] * h, [0.0] * h, x_off_on, device=device, dtype=dtype),
            affine_case([0.0] * h, [-1.0] * h, [0.0] * T, device=device, dtype=dtype)]


def relu_starts(h: int, T: int, device="cpu", dtype=torch.float64) -> list[ShuffleCase]:
    """The ReLU cases of :func:`shuffle_starts` (for the statements about ReLU)."""
    return [c for c in shuffle_starts(h, T, device, dtype) if c.cell.activation == "relu"]


#: Sizes (d_h, T) of eq. 10–11 (eq. 9 has its own, see :mod:`rnnaudit.bounds.srnn.eq9`).
GRAD_SIZES = {"quick": [(1, 2), (1, 6), (2, 4), (4, 8), (8, 10)],
              "full": [(1, 2), (1, 6), (2, 4), (4, 8), (8, 10), (16, 20), (32, 30)]}

#: SRNN cases inside eq. 9–11's assumptions: random draws and :func:`shuffle_starts` (the corrected
#: bounds free x, g and the cell's parameters with ``dataclasses.replace``).
SHUFFLE = CaseSpace(case_type=ShuffleCase, sample=sample_shuffle_case, sizes=GRAD_SIZES, starts=shuffle_starts)


# ----------------------------------------------------------------------------------- assumptions
A_H0_CONSTANT = Assumption("h_0 does not depend on b's parameters (eq. 9 starts from ∂h_0/∂b_k = 0)",
                           lambda c: (c.x0 is None, "h_0 = b(x_0)" if c.x0 is not None else "h_0 constant"))
A_SIGMA_PRIME = Assumption("|σ'| ≤ 1 (ReLU, leaky ReLU, tanh)",
                           lambda c: (c.cell.activation in ("relu", "leaky_relu", "tanh", "identity"),
                                      f"σ = {c.cell.activation}"))
A_RELU = Assumption("σ = ReLU (Sec. 3: 'For the ReLU activation function')",
                    lambda c: (c.cell.activation == "relu", f"σ = {c.cell.activation}"))


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


def perturbed_states(case: ShuffleCase, params: dict[str, Tensor], e_h: Tensor | None = None,
                     e_z: Tensor | None = None) -> tuple[Tensor, Tensor]:
    """z_t and h_t, each (T, d_h), of eq. 3 computed step by step with additive perturbations:
    h̃_0 = h_0 + e_h[0], z_t = W_p h̃_{t−1} + b(x_t) + e_z[t−1], h̃_t = σ(z_t) + e_h[t]; returns the h̃_t.

    At e = 0 this is the cell's forward pass; its derivatives with respect to e_h[t] and e_z[t−1] are the
    *total* derivatives through the recurrence with respect to h_t and z_t (e.g. ∂h_T/∂h_t = ∂h̃_T/∂e_h[t],
    the total ∂L/∂h_t = ∂L/∂e_h[t]), which no product formula is used to compute.

    Args:
        e_h: (T + 1, d_h) or None. e_z: (T, d_h) or None.
    """
    sigma = get_activation(case.cell.activation)
    bx = functional_call(case.cell.b, b_params(params), (case.x,))[0]
    h = _h0(case, params)[0]
    if e_h is not None:
        h = h + e_h[0]
    zs, hs = [], []
    for t in range(bx.shape[0]):
        z = shift(h) + bx[t]
        if e_z is not None:
            z = z + e_z[t]
        h = sigma(z)
        if e_h is not None:
            h = h + e_h[t + 1]
        zs.append(z)
        hs.append(h)
    return torch.stack(zs), torch.stack(hs)


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
