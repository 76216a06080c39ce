"""srnn.md, Sec. 2, eq. 2 and its where-clause: the gradient of a vanilla RNN (eq. 1) with respect to W_1,

    ∂L/∂W_1 = Σ_t ∂L/∂h_t σ'(z_t) h_{t−1},  ∂L/∂h_t = Σ_{t'=t+1}^{T} ∂L/∂h_{t'} ∂h_{t'}/∂h_t,
    ∂h_{t'}/∂h_t = ∏_{i=t}^{t'} ∂h_{i+1}/∂h_i = ∏_{i=t}^{t'} σ'(z_i) W_1,

as printed and corrected. Eq. 2 itself holds; the where-clause's product has one factor too many, with σ' at the
wrong step — the clear-cut error, on which the verdict rests. The where-clause's sum also leaves out the direct
∂ℓ_t/∂h_t: with a loss at every step every direct term is missing, and with the loss on h_T alone the empty sum
still gives ∂L/∂h_T = 0, so it is an error for every nonzero loss, measured as its own part (with the true
Jacobians, so apart from the product).
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


def _last_step_loss(case: VanillaCase, D: Tensor, h_prev: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """Eq. 2 with the printed product in the reading of the sum most favourable to the paper: the loss on h_T only
    (L = ⟨g_T, h_T⟩), ∂L/∂h_T = g_T taken as the recursion's start, ∂L/∂h_t = g_T ∏(printed) for t < T (the sum is
    then right term by term); against autograd's ∂L/∂W_1 for that loss."""
    T = D.shape[0]
    g_T = case.g[-1]
    truth = grad(lambda W1: (vanilla_states(case, W1)[1][-1] * g_T).sum())(case.W1)
    rows, arows = [], []
    for t in range(1, T + 1):
        if t == T:
            rows.append(g_T)
            arows.append(g_T.abs())
        else:
            rows.append(g_T @ jacobian_product(D, case.W1, t, T, as_printed=True))
            arows.append(g_T.abs() @ jacobian_product(D.abs(), case.W1.abs(), t, T, as_printed=True))
    d_l, a_l = torch.stack(rows), torch.stack(arows)
    formula = torch.einsum("ta,tb->ab", d_l * D, h_prev)
    abs_formula = torch.einsum("ta,tb->ab", a_l * D.abs(), h_prev.abs())
    return _compare(formula, abs_formula, truth)


def _parts(case: VanillaCase, *, as_printed: bool) -> dict[str, tuple[Tensor, Tensor, Tensor]]:
    dW1, delta, J, D, h_prev = _truth(case)
    T = D.shape[0]
    W1, aW1 = case.W1, case.W1.abs()
    pairs = [(t, t2) for t2 in range(1, T + 1) for t in range(1, t2)]
    stack = lambda xs: torch.stack(xs) if xs else W1.new_zeros(0)  # noqa: E731
    prod = stack([jacobian_product(D, W1, t, t2, as_printed=as_printed) for t, t2 in pairs])
    aprod = stack([jacobian_product(D.abs(), aW1, t, t2, as_printed=as_printed) for t, t2 in pairs])
    true_J = stack([J[t2 - 1, :, t, :] for t, t2 in pairs])
    eq2 = lambda dl, hp: torch.einsum("ta,tb->ab", dl * D, hp)  # noqa: E731
    total = _compare(eq2(delta, h_prev), eq2(delta.abs(), h_prev.abs()), dW1)
    if as_printed:
        # the where-clause's sum with the true Jacobians, to judge its missing direct term apart from its product
        g_sum = torch.stack([sum((case.g[t2 - 1] @ J[t2 - 1, :, t, :] for t2 in range(t + 1, T + 1)),
                                 torch.zeros_like(case.g[0])) for t in range(1, T + 1)])
        a_g_sum = case.g.abs().sum() * J.abs().max()
        return {
            "∂h_t'/∂h_t = ∏ σ'(z_i) W_1 (printed range) = autograd": _compare(prod, aprod, true_J),
            "∂L/∂h_t = Σ_{t'>t} ∂L/∂h_t' ∂h_t'/∂h_t (printed sum, true Jacobians) = total ∂L/∂h_t": _compare(
                g_sum, a_g_sum.expand_as(g_sum), delta),
            "eq. 2 with the printed product, loss on h_T only (∂L/∂h_T = g_T given) = ∂L/∂W_1": _last_step_loss(
                case, D, h_prev),
            "eq. 2 with the total ∂L/∂h_t (autograd) = ∂L/∂W_1": total,
        }
    # ∂L/∂h_t from the corrected where-clause: the explicit g_t plus the t' > t terms
    d_where, a_where = [], []
    for t in range(1, T + 1):
        acc = case.g[t - 1].clone()
        aacc = acc.abs()
        for t2 in range(t + 1, T + 1):
            acc = acc + case.g[t2 - 1] @ jacobian_product(D, W1, t, t2, as_printed=False)
            aacc = aacc + case.g[t2 - 1].abs() @ jacobian_product(D.abs(), aW1, t, t2, as_printed=False)
        d_where.append(acc)
        a_where.append(aacc)
    d_where, a_where = torch.stack(d_where), torch.stack(a_where)
    # the same sum with the true Jacobians, to isolate the where-clause's own sum from its product
    g_true = torch.stack([case.g[t - 1] + sum((case.g[t2 - 1] @ J[t2 - 1, :, t, :] for t2 in range(t + 1, T + 1)),
                                              torch.zeros_like(case.g[0])) for t in range(1, T + 1)])
    a_g_true = case.g.abs().sum() * J.abs().max() + case.g.abs().max()
    return {
        "∂h_t'/∂h_t = ∏ σ'(z_i) W_1 (corrected range) = autograd": _compare(prod, aprod, true_J),
        "∂L/∂h_t by the corrected where-clause (true Jacobians) = total ∂L/∂h_t": _compare(
            g_true, a_g_true.expand_as(g_true), delta),
        "eq. 2 with ∂L/∂h_t and ∂h_t'/∂h_t as in the corrected where-clause = ∂L/∂W_1": _compare(
            eq2(d_where, h_prev), eq2(a_where, h_prev.abs()), dW1),
        "eq. 2 with the total ∂L/∂h_t (autograd) = ∂L/∂W_1": total,
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
    """Against sympy's chain rule through eq. 1 (generic σ, d_h = 2, T = 3): as printed, the where-clause's product
    (the part the verdict rests on); corrected, the product, ∂L/∂h_t and eq. 2 with them."""
    import sympy as sp

    from rnnaudit.bounds.srnn.symbolic import first_nonzero, symbolic_vanilla

    s = symbolic_vanilla(2, 3)
    prods, delta, dW1 = _symbolic_where(s, as_printed=as_printed)
    diffs, labels = [], []
    for (t2, t1), J in s.J.items():
        diffs += list(prods[(t2, t1)] - J)
        labels += [f"∂h_{t2}/∂h_{t1}"] * 4
    symbols = [x for rows in (s.d, s.g) for row in rows for x in row] + list(s.W1)
    if as_printed:  # the verdict rests on the product alone (the sum's direct term depends on the loss)
        found = first_nonzero(diffs, symbols)
        if found is None:
            return ExactVerdict("proved", "∏_{i=t}^{t'} σ'(z_i) W_1 equals sympy's ∂h_t'/∂h_t (d_h = 2, T = 3).")
        k, point = found
        return ExactVerdict("violated", f"{labels[k]} as printed (∏_{{i=t}}^{{t'}} σ'(z_i) W_1) ≠ sympy's derivative "
                                        f"of eq. 1 (generic σ, d_h = 2, T = 3): difference {sp.factor(diffs[k])}; at "
                                        f"σ', W_1 on the grid {{1/6, …, 5/6}} it is {diffs[k].xreplace(point)} ≠ 0.")
    for t in range(s.T):
        diffs += [delta[t][r] - s.delta[t][r] for r in range(s.d_h)]
        labels += [f"∂L/∂h_{t + 1}"] * s.d_h
    diffs += list(dW1 - sp.Matrix(s.dW1))
    labels += ["∂L/∂W_1"] * 4
    found = first_nonzero(diffs, symbols)
    if found is None:
        return ExactVerdict("proved", "∂h_t'/∂h_t = ∏_{i=t+1}^{t'} σ'(z_i) W_1, ∂L/∂h_t = g_t + Σ_{t'>t} g_{t'} "
                                      "∂h_t'/∂h_t and eq. 2 with them equal sympy's derivatives of eq. 1 identically "
                                      "(generic σ, d_h = 2, T = 3, L = Σ_t ⟨g_t, h_t⟩).")
    k, point = found
    return ExactVerdict("violated", f"{labels[k]} as corrected ≠ sympy's derivative of eq. 1 (generic σ, d_h = 2, "
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
    measure="against autograd through eq. 1: the printed product ∂h_t'/∂h_t for 1 ≤ t < t' ≤ T (the part the verdict "
            "rests on); the where-clause's sum with the true Jacobians against the total ∂L/∂h_t (its missing direct "
            "term); eq. 2 with that product and the loss on h_T only (L = ⟨g_T, h_T⟩, the sum's most favourable "
            "reading); eq. 2 with the total ∂L/∂h_t",
    bound="EQ2_RTOL (1e-10) × the formula evaluated in absolute values (+ |truth|)",
    evaluate=lambda c: _parts(c, as_printed=True),
    cases=_VANILLA,
    explanation="The where-clause's product has the wrong range: ∂h_{t'}/∂h_t has t' − t factors ∂h_i/∂h_{i−1} = "
                "diag σ'(z_i) W_1, i = t+1..t'; the printed ∏_{i=t}^{t'} has one more, and with σ'(z_i) in place of "
                "σ'(z_{i+1}) for ∂h_{i+1}/∂h_i (d_h = 1, T = 2, tanh: σ'(z_1)σ'(z_2)w² = 0.058 against the true "
                "σ'(z_2)w = 0.360 at w = 1/2, u = 1, h_0 = 1/3, x = (1, −1)). This error alone carries the verdict "
                "(first part); it carries over to ∂L/∂W_1 even where the sum is right (second part), while eq. 2 "
                "itself, with the total ∂L/∂h_t, is right (last part). The where-clause's sum also misses a term, the direct "
                "∂ℓ_t/∂h_t (second part, measured with the true Jacobians so that it is judged apart from the "
                "product): for every loss it gives ∂L/∂h_T = 0 (an empty sum), and with a loss at every step it "
                "drops every direct term. See srnn.eq2.corrected.",
    notes="The where-clause's sum Σ_{t'>t} ∂L/∂h_{t'} ∂h_{t'}/∂h_t leaves out the direct ∂ℓ_t/∂h_t; Sec. 2 does not "
          "fix the loss, so this was decided with every loss in view: with the loss on h_T only the printed sum is "
          "right for every t < T and only t = T is missing (∂L/∂h_T, an empty sum, would have to be the "
          "recursion's given start, which the text does not say); with a loss at every step every direct term is "
          "missing. So it is an error for every nonzero loss, and its own part fails (the cases put g at every "
          "step, or at T only). An independent sympy "
          "check (d_h = 1, T = 2, L = h_2, tanh, w = 1/2, u = 1, h_0 = 1/3, x = (1, −1)) agrees: the printed sum "
          "with the true Jacobian and ∂L/∂h_2 = 1 given equals ∂L/∂w identically, while with the printed product "
          "and ∂L/∂h_2 = 0 (the empty sum) eq. 2 is off by −0.626. srnn.eq2.corrected includes the direct term, "
          "right for every loss. Reading: ∂L/∂h_{t'} inside the sum is the explicit "
          "partial (L = Σ_t ℓ_t(h_t)); read as the total it makes the recursion circular (∂L/∂h_T = 0 forces every "
          "∂L/∂h_t = 0). The product is taken with the later factors on the left (the chain rule's order); the other "
          "order fails the same way (its factor count is already wrong).",
    exact=lambda: _exact(as_printed=True),
)

eq2_corrected = Claim(
    id="srnn.eq2.corrected",
    source="srnn.md, Sec. 2, eq. 2, corrected by rnnaudit",
    statement="∂L/∂W_1 = Σ_t (∂L/∂h_t ⊙ σ'(z_t)) h_{t−1}ᵀ with ∂L/∂h_t = ∂ℓ_t/∂h_t + Σ_{t'>t} ∂ℓ_{t'}/∂h_{t'} "
              "∂h_{t'}/∂h_t and ∂h_{t'}/∂h_t = ∏_{i=t+1}^{t'} diag σ'(z_i) W_1 (i = t' leftmost)",
    assumptions=(A_EQ1,),
    measure="against autograd through eq. 1 (L = Σ_t ⟨g_t, h_t⟩): the corrected product ∂h_t'/∂h_t for "
            "1 ≤ t < t' ≤ T; ∂L/∂h_t by the corrected where-clause (with the true Jacobians); eq. 2 with the corrected "
            "where-clause; eq. 2 with the total ∂L/∂h_t",
    bound="EQ2_RTOL (1e-10) × the formula evaluated in absolute values (+ |truth|)",
    evaluate=lambda c: _parts(c, as_printed=False),
    cases=_VANILLA,
    explanation="Would mean the chain rule through eq. 1 is mis-implemented.",
    notes="The growth argument of Sec. 2 survives: ∂h_{t'}/∂h_t contains W_1^{t'−t} interleaved with σ' factors, so "
          "its norm can grow or decay exponentially in t' − t. The first input passes through t' − 1 such factors "
          "(the 'processed T times' of Sec. 1 counts the T cell applications).",
    exact=lambda: _exact(as_printed=False),
)
