"""srnn.md, Sec. 2, eq. 2 and its where-clause: the gradient of a vanilla RNN (eq. 1) with respect to W_1,

    ∂L/∂W_1 = Σ_t ∂L/∂h_t σ'(z_t) h_{t−1},  ∂L/∂h_t = Σ_{t'=t+1}^{T} ∂L/∂h_{t'} ∂h_{t'}/∂h_t,
    ∂h_{t'}/∂h_t = ∏_{i=t}^{t'} ∂h_{i+1}/∂h_i = ∏_{i=t}^{t'} σ'(z_i) W_1,

as printed (eq. 2 itself holds; the where-clause drops the explicit term of ∂L/∂h_t and has one factor too
many, with σ' at the wrong step) and corrected.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor
from torch.func import grad, jacrev

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, ExactVerdict
from rnnaudit.cells import activation_derivative, get_activation

__all__ = ["VanillaCase", "sample_vanilla_case", "vanilla_states", "jacobian_product", "eq2", "eq2_corrected",
           "EQ2_RTOL"]

#: Autograd against a product of ≤ T matrices and a sum of ≤ T² terms: rounding stays below ~T·d_h ulps of the
#: same expression evaluated in absolute values (the scale used); 1e-10 of it leaves > 1000× at T·d_h ≤ 50,
#: while a missing term or an extra factor σ'W_1 changes the result at O(1) relative.
EQ2_RTOL = 1e-10


@dataclass
class VanillaCase:
    """One sequence through the vanilla RNN of srnn.md eq. 1, h_t = σ(W_1 h_{t−1} + W_2 x_t), with the loss
    L = Σ_t ⟨g_t, h_t⟩ (explicit ∂L/∂h_t = g_t).

    Attributes:
        W1: (d_h, d_h). W2: (d_h, d_i). x: (T, d_i). h0: (d_h,). g: (T, d_h). activation: σ's name.
    """

    W1: Tensor
    W2: Tensor
    x: Tensor
    h0: Tensor
    g: Tensor
    activation: str = "tanh"

    def size(self) -> tuple[int, int]:
        """(d_h, T)."""
        return self.W1.shape[0], self.x.shape[0]


def sample_vanilla_case(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> VanillaCase:
    """W_1 Gaussian with spectral scale 0.5, 1 or 2 (decaying, neutral, growing products), d_i ∈ {1, 2, 3}, σ = tanh
    in 2/3 of the cases and ReLU otherwise (eq. 1: 'such as tanh or ReLU'), h_0 Gaussian, g Gaussian or only at
    t = T. ``h`` = d_h ≥ 1, ``T`` ≥ 1."""
    d_i = int(torch.randint(1, 4, (), generator=gen))
    scale = [0.5, 1.0, 2.0][int(torch.randint(0, 3, (), generator=gen))]
    W1 = scale * torch.randn(h, h, generator=gen, dtype=torch.float64) / math.sqrt(h)
    W2 = torch.randn(h, d_i, generator=gen, dtype=torch.float64)
    x = torch.randn(T, d_i, generator=gen, dtype=torch.float64)
    h0 = torch.randn(h, generator=gen, dtype=torch.float64)
    g = torch.randn(T, h, generator=gen, dtype=torch.float64)
    if float(torch.rand((), generator=gen)) < 1 / 3:
        g[:-1] = 0
    activation = "tanh" if float(torch.rand((), generator=gen)) < 2 / 3 else "relu"
    conv = lambda t: t.to(device=device, dtype=dtype)  # noqa: E731
    return VanillaCase(conv(W1), conv(W2), conv(x), conv(h0), conv(g), activation)


def vanilla_states(case: VanillaCase, W1: Tensor, e_h: Tensor | None = None) -> tuple[Tensor, Tensor]:
    """z_t, h_t (each (T, d_h)) of eq. 1, with e_h (T + 1, d_h) added to h_0..h_T (so ∂h_{t'}/∂e_h[t] is the total
    ∂h_{t'}/∂h_t and ∂L/∂e_h[t] the total ∂L/∂h_t)."""
    sigma = get_activation(case.activation)
    h = case.h0 if e_h is None else case.h0 + e_h[0]
    zs, hs = [], []
    for t in range(case.x.shape[0]):
        z = W1 @ h + case.W2 @ case.x[t]
        h = sigma(z) if e_h is None else sigma(z) + e_h[t + 1]
        zs.append(z)
        hs.append(h)
    return torch.stack(zs), torch.stack(hs)


def jacobian_product(D: Tensor, W1: Tensor, t: int, t2: int, *, as_printed: bool) -> Tensor:
    """∂h_{t2}/∂h_t (1-based steps, t < t2) as a product of σ'(z_i) W_1, the later factors on the left.

    As printed: ∏_{i=t}^{t2} σ'(z_i) W_1 (t2 − t + 1 factors, σ' of the step the factor leaves). Corrected:
    ∏_{i=t+1}^{t2} σ'(z_i) W_1 (one factor per step, ∂h_i/∂h_{i−1} = diag σ'(z_i) W_1).

    Args:
        D: σ'(z_i) for i = 1..T, (T, d_h). W1: (d_h, d_h).
    """
    lo = t if as_printed else t + 1
    out = torch.eye(W1.shape[0], dtype=W1.dtype, device=W1.device)
    for i in range(lo, t2 + 1):
        out = (D[i - 1][:, None] * W1) @ out
    return out


def _truth(case: VanillaCase):
    d_h, T = case.size()
    e = case.h0.new_zeros(T + 1, d_h)

    def loss(W1, e_h):
        return (vanilla_states(case, W1, e_h)[1] * case.g).sum()

    dW1, delta = grad(loss, argnums=(0, 1))(case.W1, e)
    J = jacrev(lambda e_h: vanilla_states(case, case.W1, e_h)[1])(e)  # (T, d_h, T + 1, d_h)
    with torch.no_grad():
        z, h = vanilla_states(case, case.W1)
    D = activation_derivative(case.activation, z)
    h_prev = torch.cat([case.h0[None], h[:-1]])
    return dW1, delta[1:], J, D, h_prev


def _compare(formula: Tensor, abs_formula: Tensor, truth: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    ref = truth.abs().max() if truth.numel() else truth.new_zeros(())
    err = (formula - truth).abs().max() if truth.numel() else truth.new_zeros(())
    scale = (abs_formula.abs().max() if truth.numel() else truth.new_zeros(())) + ref
    return err, EQ2_RTOL * scale.clamp_min(torch.finfo(truth.dtype).tiny), ref


def _parts(case: VanillaCase, *, as_printed: bool) -> dict[str, tuple[Tensor, Tensor, Tensor]]:
    dW1, delta, J, D, h_prev = _truth(case)
    T = D.shape[0]
    W1, aW1 = case.W1, case.W1.abs()
    pairs = [(t, t2) for t2 in range(1, T + 1) for t in range(1, t2)]
    stack = lambda xs: torch.stack(xs) if xs else W1.new_zeros(0)  # noqa: E731
    prod = stack([jacobian_product(D, W1, t, t2, as_printed=as_printed) for t, t2 in pairs])
    aprod = stack([jacobian_product(D.abs(), aW1, t, t2, as_printed=as_printed) for t, t2 in pairs])
    true_J = stack([J[t2 - 1, :, t, :] for t, t2 in pairs])
    # ∂L/∂h_t from the where-clause (printed: the t' > t terms only; corrected: plus the explicit g_t)
    d_where, a_where = [], []
    for t in range(1, T + 1):
        acc = torch.zeros_like(case.g[0]) if as_printed else case.g[t - 1].clone()
        aacc = acc.abs()
        for t2 in range(t + 1, T + 1):
            P = jacobian_product(D, W1, t, t2, as_printed=as_printed)
            aP = jacobian_product(D.abs(), aW1, t, t2, as_printed=as_printed)
            acc = acc + case.g[t2 - 1] @ P
            aacc = aacc + case.g[t2 - 1].abs() @ aP
        d_where.append(acc)
        a_where.append(aacc)
    d_where, a_where = torch.stack(d_where), torch.stack(a_where)
    # the same sum with the true Jacobians, to isolate the where-clause's own sum from its product
    g_true = torch.stack([(case.g[t - 1] if not as_printed else torch.zeros_like(case.g[0]))
                          + sum((case.g[t2 - 1] @ J[t2 - 1, :, t, :] for t2 in range(t + 1, T + 1)),
                                torch.zeros_like(case.g[0])) for t in range(1, T + 1)])
    a_g_true = case.g.abs().sum() * J.abs().max() + case.g.abs().max()
    eq2 = lambda dl, hp: torch.einsum("ta,tb->ab", dl * D, hp)  # noqa: E731
    word = "printed" if as_printed else "corrected"
    return {
        f"∂h_t'/∂h_t = ∏ σ'(z_i) W_1 ({word} range) = autograd": _compare(prod, aprod, true_J),
        f"∂L/∂h_t by the {word} where-clause (true Jacobians) = total ∂L/∂h_t": _compare(
            g_true, a_g_true.expand_as(g_true), delta),
        f"eq. 2 with ∂L/∂h_t and ∂h_t'/∂h_t as in the {word} where-clause = ∂L/∂W_1": _compare(
            eq2(d_where, h_prev), eq2(a_where, h_prev.abs()), dW1),
        "eq. 2 with the total ∂L/∂h_t (autograd) = ∂L/∂W_1": _compare(
            eq2(delta, h_prev), eq2(delta.abs(), h_prev.abs()), dW1),
    }


def _symbolic_where(s, *, as_printed: bool):
    """The where-clause's Jacobian products and ∂L/∂h_t, and eq. 2's ∂L/∂W_1 from them, in sympy."""
    import sympy as sp

    D = [sp.diag(*row) for row in s.d]

    def prod(t, t2):
        out = sp.eye(s.d_h)
        for i in range(t if as_printed else t + 1, t2 + 1):
            out = D[i - 1] * s.W1 * out
        return out

    delta = []
    for t in range(1, s.T + 1):
        acc = sp.zeros(1, s.d_h) if as_printed else sp.Matrix([s.g[t - 1]])
        for t2 in range(t + 1, s.T + 1):
            acc += sp.Matrix([s.g[t2 - 1]]) * prod(t, t2)
        delta.append(acc)
    dW1 = sp.zeros(s.d_h, s.d_h)
    for t in range(1, s.T + 1):
        dW1 += (delta[t - 1] * D[t - 1]).T * sp.Matrix([s.h[t - 1]])
    return {k: prod(*k[::-1]) for k in s.J}, delta, dW1


def _exact(as_printed: bool) -> ExactVerdict:
    """The where-clause and eq. 2 against sympy's chain rule through eq. 1 (generic σ, d_h = 2, T = 3)."""
    import sympy as sp

    from rnnaudit.bounds.srnn.symbolic import first_nonzero, symbolic_vanilla

    s = symbolic_vanilla(2, 3)
    prods, delta, dW1 = _symbolic_where(s, as_printed=as_printed)
    diffs, labels = [], []
    for (t2, t1), J in s.J.items():
        diffs += list(prods[(t2, t1)] - J)
        labels += [f"∂h_{t2}/∂h_{t1}"] * 4
    for t in range(s.T):
        diffs += [delta[t][r] - s.delta[t][r] for r in range(s.d_h)]
        labels += [f"∂L/∂h_{t + 1}"] * s.d_h
    diffs += list(dW1 - sp.Matrix(s.dW1))
    labels += ["∂L/∂W_1"] * 4
    symbols = [x for rows in (s.d, s.g) for row in rows for x in row] + list(s.W1)
    found = first_nonzero(diffs, symbols)
    if found is None:
        return ExactVerdict("proved", "∂h_t'/∂h_t = ∏_{i=t+1}^{t'} σ'(z_i) W_1, ∂L/∂h_t = g_t + Σ_{t'>t} g_{t'} "
                                      "∂h_t'/∂h_t and eq. 2 with them equal sympy's derivatives of eq. 1 identically "
                                      "(generic σ, d_h = 2, T = 3, L = Σ_t ⟨g_t, h_t⟩).")
    k, point = found
    return ExactVerdict("violated", f"{labels[k]} as printed ≠ sympy's derivative of eq. 1 (generic σ, d_h = 2, "
                                    f"T = 3): difference {sp.factor(diffs[k])}; at σ', W_1, g on the grid "
                                    f"{{1/6, …, 5/6}} it is {diffs[k].xreplace(point)} ≠ 0.")


def _finite(c: VanillaCase) -> tuple[bool, str]:
    ok = all(bool(torch.isfinite(t).all()) for t in (c.W1, c.W2, c.x, c.h0, c.g))
    return ok, "finite" if ok else "non-finite entries"


A_EQ1 = Assumption("a vanilla RNN, eq. 1, with σ differentiable at every z_t (tanh, or ReLU off z = 0)", _finite)

_VANILLA = CaseSpace(case_type=VanillaCase, sample=sample_vanilla_case,
                     sizes={"quick": [(1, 2), (2, 3), (3, 4), (4, 6)],
                            "full": [(1, 2), (2, 3), (3, 4), (4, 6), (8, 10), (16, 12)]})

eq2 = Claim(
    id="srnn.eq2",
    source="srnn.md, Sec. 2, eq. 2 and its where-clause",
    statement="∂L/∂W_1 = Σ_t ∂L/∂h_t σ'(z_t) h_{t−1}, where ∂L/∂h_t = Σ_{t'=t+1}^T ∂L/∂h_{t'} ∂h_{t'}/∂h_t and "
              "∂h_{t'}/∂h_t = ∏_{i=t}^{t'} ∂h_{i+1}/∂h_i = ∏_{i=t}^{t'} σ'(z_i) W_1",
    assumptions=(A_EQ1,),
    measure="each printed formula against autograd through eq. 1 (L = Σ_t ⟨g_t, h_t⟩): the Jacobians ∂h_t'/∂h_t for "
            "1 ≤ t < t' ≤ T, the total ∂L/∂h_t, ∂L/∂W_1",
    bound="EQ2_RTOL (1e-10) × the formula evaluated in absolute values (+ |truth|)",
    evaluate=lambda c: _parts(c, as_printed=True),
    cases=_VANILLA,
    explanation="Eq. 2 itself is right when ∂L/∂h_t is the total derivative (its last part holds). The where-clause is "
                "not: (i) ∂h_{t'}/∂h_t has t' − t factors ∂h_i/∂h_{i−1} = diag σ'(z_i) W_1, i = t+1..t'; the printed "
                "∏_{i=t}^{t'} has one more, and with σ'(z_i) in place of σ'(z_{i+1}) for ∂h_{i+1}/∂h_i; (ii) the "
                "sum over t' > t leaves out the explicit ∂ℓ_t/∂h_t, so ∂L/∂h_T = 0 (wrong unless the loss ignores "
                "h_T) and eq. 2 evaluated with it misses every direct term. See srnn.eq2.corrected.",
    notes="Reading: ∂L/∂h_{t'} inside the where-clause's sum is the explicit partial (L = Σ_t ℓ_t(h_t)); read as the "
          "total it makes the recursion circular (∂L/∂h_T = 0 forces every ∂L/∂h_t = 0). The product is taken with "
          "the later factors on the left (the chain rule's order); the other order fails the same way (its factor "
          "count is already wrong). Part 2 uses the true Jacobians, part 3 the printed ones, to separate the two "
          "errors.",
    exact=lambda: _exact(as_printed=True),
)

eq2_corrected = Claim(
    id="srnn.eq2.corrected",
    source="srnn.md, Sec. 2, eq. 2, corrected by rnnaudit",
    statement="∂L/∂W_1 = Σ_t (∂L/∂h_t ⊙ σ'(z_t)) h_{t−1}ᵀ with ∂L/∂h_t = ∂ℓ_t/∂h_t + Σ_{t'>t} ∂ℓ_{t'}/∂h_{t'} "
              "∂h_{t'}/∂h_t and ∂h_{t'}/∂h_t = ∏_{i=t+1}^{t'} diag σ'(z_i) W_1 (i = t' leftmost)",
    assumptions=(A_EQ1,),
    measure="the same as srnn.eq2, with the corrected formulas",
    bound="EQ2_RTOL (1e-10) × the formula evaluated in absolute values (+ |truth|)",
    evaluate=lambda c: _parts(c, as_printed=False),
    cases=_VANILLA,
    explanation="Would mean the chain rule through eq. 1 is mis-implemented.",
    notes="The growth argument of Sec. 2 survives: ∂h_{t'}/∂h_t contains W_1^{t'−t} interleaved with σ' factors, so "
          "its norm can grow or decay exponentially in t' − t. The first input passes through t' − 1 such factors "
          "(the 'processed T times' of Sec. 1 counts the T cell applications).",
    exact=lambda: _exact(as_printed=False),
)
