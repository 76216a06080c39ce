"""Shuffling RNN (srnn.md Sec. 3, eq. 3–6; Rotman & Wolf).

    h_t = σ(W_p h_{t−1} + b(x_t)),   b(x) = f_r(x) ⊙ sigmoid(W_s x + b_s),   p_t = s(h_t)

W_p is the fixed cyclic shift of eq. 4, applied with ``torch.roll`` in O(d_h) per step; b
does not see the hidden state, so it runs on all T inputs in one batched call before the loop
(the "Time complexity" paragraph of Sec. 3).

Eq. 8–9 as printed put the factors in the wrong order; :func:`eq9_closed_form` implements
the expansion that follows from eq. 3 (see its docstring and tests/test_cells_srnn.py).
"""

from __future__ import annotations

import torch
from torch import Tensor, nn
from torch.func import functional_call, jacrev

from rnnaudit.cells._validate import check_sizes
from rnnaudit.cells.base import LEAKY_RELU_SLOPE, RecurrentCell, get_activation, initial_parameter

__all__ = ["SRNN", "shift", "shift_matrix", "eq9_closed_form", "activation_derivative"]


def shift(y: Tensor, dim: int = -1) -> Tensor:
    """W_p y along ``dim`` for the shift of srnn.md eq. 4: (W_p y)_i = y_{(i+1) mod d_h}.

    O(d_h) per vector (``torch.roll``), any shape, dtype and device.
    """
    return torch.roll(y, shifts=-1, dims=dim)


def shift_matrix(d_h: int, *, dtype: torch.dtype | None = None, device=None) -> Tensor:
    """Dense W_p of srnn.md eq. 4, shape (d_h, d_h): ones at (i, i+1) and (d_h−1, 0).

    Raises:
        ValueError: ``d_h < 1``.
    """
    check_sizes(d_h=d_h)
    return shift(torch.eye(d_h, dtype=dtype, device=device), dim=0)


def activation_derivative(name: str, z: Tensor) -> Tensor:
    """σ'(z) elementwise for σ in ``relu`` (σ'(0) = 0, as autograd), ``leaky_relu`` (slope
    :data:`cells.base.LEAKY_RELU_SLOPE` at z ≤ 0, as autograd), ``tanh``, ``identity``.

    Raises:
        ValueError: unknown name, or an activation this closed form does not cover.
    """
    get_activation(name)
    if name == "relu":
        return (z > 0).to(z.dtype)
    if name == "leaky_relu":
        return torch.where(z > 0, torch.ones_like(z), torch.full_like(z, LEAKY_RELU_SLOPE))
    if name == "tanh":
        return 1 - torch.tanh(z) ** 2
    if name == "identity":
        return torch.ones_like(z)
    raise ValueError(f"activation_derivative has no closed form for activation {name!r}")


def eq9_closed_form(sigma_prime: Tensor, db: Tensor) -> Tensor:
    r"""∂h_t/∂θ for t = 1..T from the closed form of srnn.md eq. 9, with h_0 independent of θ.

    Differentiating eq. 3 gives ∂h_t/∂θ = D_t (W_p ∂h_{t−1}/∂θ + ∂b(x_t)/∂θ) with
    D_t = diag σ'(z_t), whose expansion is

    .. math:: \frac{\partial h_t}{\partial\theta} = \sum_{i=1}^{t}
              \Big(\prod_{j=t}^{i+1} D_j W_p\Big) D_i \frac{\partial b(x_i)}{\partial\theta}

    (product ordered j = t, t−1, …, i+1 from the left). Eq. 8 as printed has W_p D_t instead
    of D_t W_p, and eq. 9 runs the product over j = 1..i−1 (the steps *before* input i); both
    agree with this only for t = 1. Each term is kept separately and every product is
    applied term by term (W_p by :func:`shift`), so this is the sum of eq. 9, not the
    recursion of eq. 8; cost O(T² d_h P).

    Args:
        sigma_prime: σ'(z_t), shape (batch, T, d_h).
        db: ∂b(x_t)/∂θ, shape (batch, T, d_h, P) for P scalar parameters θ.

    Returns:
        ∂h_t/∂θ, shape (batch, T, d_h, P), dtype/device of ``db``.

    Raises:
        ValueError: shapes that do not match.
    """
    if sigma_prime.dim() != 3 or db.dim() != 4 or db.shape[:3] != sigma_prime.shape:
        raise ValueError(f"sigma_prime must be (batch, T, d_h) and db (batch, T, d_h, P) with matching leading "
                         f"dims, got {tuple(sigma_prime.shape)} and {tuple(db.shape)}")
    terms = db[:, :0]  # terms[:, i] = (∏_{j=t}^{i+1} D_j W_p) D_i ∂b(x_i)/∂θ at the current t
    out = []
    for t in range(db.shape[1]):
        terms = torch.cat([shift(terms, dim=-2), db[:, t:t + 1]], dim=1) * sigma_prime[:, t, None, :, None]
        out.append(terms.sum(dim=1))
    return torch.stack(out, dim=1)


class _GatedInput(nn.Module):
    """Network b of srnn.md eq. 5 / Fig. 1(b): b(x) = f_r(x) ⊙ sigmoid(W_s x + b_s).

    f_r is an MLP d_i → hidden → … → d_h with ReLU between layers (Sec. 4: "the activation
    function σ … within the network b was a ReLU") and an affine last layer, so b can be
    negative, as the Gambler's-ruin argument of Sec. 3 needs. He-normal weights, zero biases
    (Sec. 3 cites [6] for b(x_t) ≈ N(0, 1)).
    """

    def __init__(self, d_i, d_h, fr_hidden, gating, generator, kw):
        super().__init__()
        sizes = [d_i, *fr_hidden, d_h]
        layers: list[nn.Module] = []
        for k, (a, c) in enumerate(zip(sizes[:-1], sizes[1:])):
            lin = nn.Linear(a, c, **kw)
            lin.weight = initial_parameter(nn.init.kaiming_normal_, lin.weight.shape, generator, **kw,
                                           nonlinearity="relu" if k < len(sizes) - 2 else "linear")
            nn.init.zeros_(lin.bias)
            layers += [lin, nn.ReLU()]
        self.f_r = nn.Sequential(*layers[:-1])
        self.gate = None
        if gating:
            self.gate = nn.Linear(d_i, d_h, **kw)  # weight W_s (d_h, d_i), bias b_s (d_h,)
            self.gate.weight = initial_parameter(nn.init.xavier_uniform_, self.gate.weight.shape, generator, **kw)
            nn.init.zeros_(self.gate.bias)

    def forward(self, x: Tensor) -> Tensor:
        out = self.f_r(x)
        return out if self.gate is None else out * torch.sigmoid(self.gate(x))


class SRNN(RecurrentCell):
    r"""Shuffling RNN cell, srnn.md eq. 3–6.

    .. math:: h_t = \sigma(W_p h_{t-1} + b(x_t)), \quad
              b(x) = f_r(x) \odot \mathrm{sigmoid}(W_s x + b_s)

    Args:
        input_size: d_i. hidden_size: d_h.
        fr_hidden: hidden widths of the MLP f_r (Sec. 4: ``(8,)`` for MemCopy and Adding,
            ``(32, 32, 32)`` for pMNIST and TIMIT); ``()`` makes f_r a single affine map.
        gating: multiply by the sigmoid gate of eq. 5; ``False`` is the no-gating ablation
            of Fig. 4 (b = f_r).
        activation: σ of eq. 3, ``"relu"`` (Sec. 4) or ``"tanh"``/``"identity"``.
        output_size: width of the affine output map s of eq. 6 (``None``: no s). s is a
            readout, not part of the recurrence, so :meth:`parameters_by_role` leaves it out.
        generator, dtype, device: initialisation RNG and parameter placement.

    Raises:
        ValueError: sizes < 1, non-positive hidden widths, unknown activation.
    """

    recurrent_role = "W_p"  # eq. 4

    def __init__(self, input_size: int, hidden_size: int, *, fr_hidden: tuple[int, ...] = (8,), gating: bool = True,
                 activation: str = "relu", output_size: int | None = None, generator: torch.Generator | None = None,
                 dtype: torch.dtype | None = None, device: torch.device | str | None = None):
        super().__init__()
        check_sizes(input_size=input_size, hidden_size=hidden_size)
        fr_hidden = tuple(fr_hidden)
        check_sizes(**{f"fr_hidden[{i}]": w for i, w in enumerate(fr_hidden)})
        if output_size is not None:
            check_sizes(output_size=output_size)
        get_activation(activation)
        self.input_size, self.hidden_size, self.activation = input_size, hidden_size, activation
        kw = {"dtype": dtype, "device": device}
        self.b = _GatedInput(input_size, hidden_size, fr_hidden, gating, generator, kw)
        self.s = None
        if output_size is not None:
            self.s = nn.Linear(hidden_size, output_size, **kw)
            self.s.weight = initial_parameter(nn.init.xavier_uniform_, self.s.weight.shape, generator, **kw)
            nn.init.zeros_(self.s.bias)

    def recurrent_matrix(self) -> Tensor:
        """Dense W_p of eq. 4, shape (d_h, d_h), the cell's dtype/device (orthogonal, fixed)."""
        p = next(self.parameters())
        return shift_matrix(self.hidden_size, dtype=p.dtype, device=p.device)

    def step(self, x_t: Tensor, h: Tensor) -> Tensor:
        """One step of eq. 3: x_t (batch, d_i), h (batch, d_h) → (batch, d_h).

        Raises:
            ValueError: wrong last dimension or dtype of ``x_t`` or ``h`` (shape and dtype only, so that
                ``torch.func.vmap`` over this method works).
        """
        self.check_step_args(x_t, h)
        return get_activation(self.activation)(shift(h) + self.b(x_t))

    def preactivations(self, x: Tensor, h0: Tensor | None = None) -> tuple[Tensor, Tensor]:
        """(z, h), both (batch, T, d_h): z_t = W_p h_{t−1} + b(x_t) and h_t = σ(z_t).

        b is evaluated once on the whole (batch, T, d_i) tensor; the loop only shifts and adds.

        Raises:
            ValueError: see :meth:`cells.base.RecurrentCell.initial_state`.
        """
        h = self.initial_state(x, h0)
        sigma, bx = get_activation(self.activation), self.b(x)
        zs, hs = [], []
        for bx_t in bx.unbind(1):  # unbind: slicing costs O(T) per step in backward (cells/base.py)
            z = shift(h) + bx_t
            h = sigma(z)
            zs.append(z)
            hs.append(h)
        return torch.stack(zs, dim=1), torch.stack(hs, dim=1)

    def forward(self, x: Tensor, h0: Tensor | None = None) -> Tensor:
        """Hidden states (batch, T, d_h) for x (batch, T, d_i); h0 defaults to zeros.

        Raises:
            ValueError: wrong shape/width/dtype, T = 0, NaN/Inf (see ``initial_state``).
        """
        return self.preactivations(x, h0)[1]

    def readout(self, h: Tensor) -> Tensor:
        """p_t = s(h_t) of eq. 6 for h (..., d_h) → (..., output_size).

        Raises:
            ValueError: the cell was built with ``output_size=None``.
        """
        if self.s is None:
            raise ValueError("this SRNN has no output map s; construct it with output_size=...")
        return self.s(h)

    def config(self) -> dict:
        """Constructor arguments of this cell's structure (:meth:`rnnaudit.cells.base.RecurrentCell.config`)."""
        linears = [m for m in self.b.f_r if isinstance(m, nn.Linear)]
        return {"input_size": self.input_size, "hidden_size": self.hidden_size,
                "fr_hidden": [m.out_features for m in linears[:-1]], "gating": self.b.gate is not None,
                "activation": self.activation, "output_size": None if self.s is None else self.s.out_features}

    def parameters_by_role(self) -> dict[str, Tensor]:
        """{"f_r.W1", "f_r.b1", …, "f_r.W{L}", "f_r.b{L}", "W_s", "b_s"} (gate entries only with
        gating). W_p has no parameters; s is excluded (readout)."""
        roles = {}
        for k, lin in enumerate(m for m in self.b.f_r if isinstance(m, nn.Linear)):
            roles[f"f_r.W{k + 1}"], roles[f"f_r.b{k + 1}"] = lin.weight, lin.bias
        if self.b.gate is not None:
            roles["W_s"], roles["b_s"] = self.b.gate.weight, self.b.gate.bias
        return roles

    def eq9_jacobian(self, x: Tensor, h0: Tensor | None = None) -> dict[str, Tensor]:
        """∂h_t/∂θ for every parameter θ of b, by the closed form :func:`eq9_closed_form`.

        ∂b(x_t)/∂θ comes from ``torch.func.jacrev`` of b alone (one call over all t); only the
        recurrence part is the closed form, so comparing with autograd through the whole
        cell tests eq. 9.

        Args:
            x: (batch, T, d_i). h0: (batch, d_h) or None (treated as a constant).

        Returns:
            role (as :meth:`parameters_by_role`) → tensor (batch, T, d_h, *θ.shape).

        Raises:
            ValueError: see :meth:`forward`.
        """
        z, _ = self.preactivations(x, h0)
        roles = self.parameters_by_role()
        names = {id(p): n for n, p in self.b.named_parameters()}
        params = {names[id(p)]: p.detach() for p in roles.values()}
        db = jacrev(lambda prm: functional_call(self.b, prm, (x,)))(params)
        batch, T, d_h = z.shape
        flat = torch.cat([db[n].reshape(batch, T, d_h, -1) for n in params], dim=-1)
        dh = eq9_closed_form(activation_derivative(self.activation, z.detach()), flat)
        out, start = {}, 0
        for role, p in roles.items():
            out[role] = dh[..., start:start + p.numel()].reshape(batch, T, d_h, *p.shape)
            start += p.numel()
        return out
