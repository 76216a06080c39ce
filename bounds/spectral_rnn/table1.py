"""spectral_rnn.md, Sec. 4.2, Table 1: flop counts of Hprod, Hgrad and the local forward/backward steps.

Algorithms 1–3 are run on the reflectors' supports, with ‖u_k‖² cached and α reused as Sec. 4.2
says, under :class:`~rnnaudit.bounds.spectral_rnn.flops.FlopCounter`; the counted code is checked
equal to the dense W h of eq. 6 and its autograd gradients. Rows 3–6 as printed are not the sums of
rows 1–2; ``spectral_rnn.table1.corrected`` checks the sums.
"""

from __future__ import annotations

import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, ExactVerdict, Supremum
from rnnaudit.bounds.spectral_rnn.cases import (A_M_RANGE, F64, GRAD_RTOL, CountCase, draw, gauss, randint,
                                                random_reflectors, t64)
from rnnaudit.bounds.spectral_rnn.flops import count_flops
from rnnaudit.bounds.spectral_rnn.reflectors import dense_w
from rnnaudit.bounds.spectral_rnn.symbolic import chain_sum

__all__ = ["table1", "table1_corrected", "FLOP_SLACK", "O_N_CONSTANT", "sparse_hprod", "sparse_hgrad",
           "sparse_local_fp", "sparse_local_bp", "reflector_norms", "TABLE1_PRINTED", "TABLE1_CORRECTED",
           "table1_counts", "A_CACHE", "A_REUSE", "closed_form_counts", "exact_table1", "table1_supremum"]

#: Table 1's per-kernel rows are exact formulas; conventions differ by O(1) per kernel (a dot product
#: of length k is 2k − 1 or 2k flops; the scalar products 2/‖u‖² · uᵀh, αβ, −α).
FLOP_SLACK = 4
#: "O(n)" in Table 1 made explicit: |counted − leading terms| ≤ C_O · n. A correct row's remainder
#: is at most (a) ≤ 4 scalar flops per reflector, ≤ 2n reflectors: 8n; (b) the linear remainder of
#: Σ_{k=n−m+1}^{n} k = mn − m²/2 + m/2 times a per-k coefficient ≤ 6: ≤ 3m per chain, ≤ 6n; (c) the
#: diagonal Σ steps, ≤ 3n: together ≤ 17n. A wrong leading coefficient c·n·m exceeds 20n once c·m > 20.
O_N_CONSTANT = 20.0


def sparse_hprod(h: Tensor, u: Tensor, c: Tensor | None = None) -> tuple[Tensor, Tensor]:
    """Hprod (Algorithm 2) on the support of û_k only: ĥ = h − α û_k, α = c uᵀh_{n−k+1:n}.

    Args:
        h: (n,). u: (k,), the free part of û_k. c: cached 2/‖u‖² (0-d), or None to compute it here.

    Returns:
        (ĥ (n,), α 0-d); α is kept for Hgrad. No argument checks (inner loop of a flop count).

    Source: spectral_rnn.md Algorithm 2, eq. 8; Table 1 row 1 (4k flops with ‖u‖² cached).
    """
    n, k = h.shape[0], u.shape[0]
    if c is None:
        c = 2 / torch.dot(u, u)
    tail = h[n - k:]
    alpha = c * torch.dot(u, tail)
    out = h.clone()
    out[n - k:] = tail - alpha * u
    return out, alpha


def sparse_hgrad(h: Tensor, u: Tensor, g: Tensor, c: Tensor | None = None,
                 alpha: Tensor | None = None) -> tuple[Tensor, Tensor]:
    """Hgrad (Algorithm 3, α from the reflector input) with Table 1's accounting: β, h̄ = g − βû and the
    αβû term touch only û's k entries; −αg − βh is formed on all n entries, as Algorithm 3 writes it.

    Args:
        h: (n,) reflector input. u: (k,). g: (n,) ∂L/∂ĥ. c: cached 2/‖u‖² or None. alpha: α from the
            forward pass (reused, Sec. 4.2) or None to recompute it.

    Returns:
        (∂L/∂h (n,), ∂L/∂u (k,)).

    Source: spectral_rnn.md Algorithm 3, eq. 12–13; Table 1 row 2 (3n + 6k flops with both savings).
    """
    n, k = h.shape[0], u.shape[0]
    if c is None:
        c = 2 / torch.dot(u, u)
    if alpha is None:
        alpha = c * torch.dot(u, h[n - k:])
    tail_g = g[n - k:]
    beta = c * torch.dot(u, tail_g)
    h_bar = g.clone()
    h_bar[n - k:] = tail_g - beta * u
    u_bar = (-alpha) * g - beta * h
    return h_bar, u_bar[n - k:] + (alpha * beta) * u


def _norm_cache(U_hat: Tensor | None) -> list:
    if U_hat is None:
        return []
    sq = (U_hat * U_hat).sum(0)
    return list(torch.where(sq > 0, 2 / torch.where(sq > 0, sq, torch.ones_like(sq)), torch.zeros_like(sq)))


def sparse_local_fp(h: Tensor, U_hat: Tensor, sigma: Tensor | None, V_hat: Tensor | None, *,
                    norms: tuple[list, list] | None = None) -> tuple[Tensor, dict]:
    """Algorithm 1, forward part, for one square h̃ = W h with every reflector applied on its support.

    Args:
        h: (n,). U_hat: (n, m1), V_hat: (n, m2) or None, zero-padded (``cells.spectral`` layout).
        sigma: (n,) or None (oRNN: no Σ). norms: (cu, cv), the 2/‖u_k‖² and 2/‖v_k‖² computed once per
            iteration (Sec. 4.2, see :func:`reflector_norms`), or None to compute them in every Hprod/Hgrad.

    Returns:
        (W h (n,), trace) with the reflector inputs and α's for :func:`sparse_local_bp`.

    Source: spectral_rnn.md Algorithm 1 (forward), Table 1 rows 3 and 5.
    """
    m1, m2 = U_hat.shape[1], 0 if V_hat is None else V_hat.shape[1]
    cu, cv = norms if norms is not None else ([None] * m1, [None] * m2)
    trace = {"v_in": [], "v_alpha": [], "u_in": {}, "u_alpha": {}, "cu": cu, "cv": cv}
    for j in range(m2):  # k = n, …, k2
        trace["v_in"].append(h)
        h, a = sparse_hprod(h, V_hat[j:, j], cv[j])
        trace["v_alpha"].append(a)
    trace["hv"] = h
    if sigma is not None:
        h = h * sigma
    for j in reversed(range(m1)):  # k = k1, …, n
        trace["u_in"][j] = h
        h, a = sparse_hprod(h, U_hat[j:, j], cu[j])
        trace["u_alpha"][j] = a
    return h, trace


def reflector_norms(U_hat: Tensor, V_hat: Tensor | None) -> tuple[list, list]:
    """The per-iteration cache of Sec. 4.2: [2/‖û_k‖²] for each column of U_hat and V_hat (0 for û = 0)."""
    return _norm_cache(U_hat), _norm_cache(V_hat)


def sparse_local_bp(g: Tensor, U_hat: Tensor, sigma: Tensor | None, V_hat: Tensor | None, trace: dict, *,
                    dsigma: Tensor | None = None, reuse_alpha: bool = True) -> dict[str, object]:
    """Algorithm 1, backward part, on the reflectors' supports (Hgrad = :func:`sparse_hgrad`).

    Args:
        g: (n,) ∂L/∂h̃. U_hat, sigma, V_hat, trace: as for / from :func:`sparse_local_fp`.
        dsigma: (n,) cached dσ/dσ̂ = 2r f'(σ̂) (eq. 7; fixed within an iteration) or None.
        reuse_alpha: reuse the forward α's (Sec. 4.2).

    Returns:
        {"h": ∂L/∂h (n,), "U": [∂L/∂u_k (k,) for k = n … k1], "V": [… k = n … k2], "sigma", "sigma_hat"}.

    Source: spectral_rnn.md Algorithm 1 (backward, Hgrad on the reflector input), Table 1 rows 4 and 6.
    """
    out: dict[str, object] = {"U": [None] * U_hat.shape[1]}
    for j in range(U_hat.shape[1]):  # k = n, …, k1
        g, out["U"][j] = sparse_hgrad(trace["u_in"][j], U_hat[j:, j], g, trace["cu"][j],
                                      trace["u_alpha"][j] if reuse_alpha else None)
    if sigma is not None:
        out["sigma"] = g * trace["hv"]
        g = g * sigma
        if dsigma is not None:
            out["sigma_hat"] = dsigma * out["sigma"]
    m2 = len(trace["cv"])
    out["V"] = [None] * m2
    for j in reversed(range(m2)):  # k = k2, …, n
        g, out["V"][j] = sparse_hgrad(trace["v_in"][j], V_hat[j:, j], g, trace["cv"][j],
                                      trace["v_alpha"][j] if reuse_alpha else None)
    out["h"] = g
    return out


#: Table 1 as printed: row → (formula text, formula of (n, m1, m2)); the oRNN rows take m = m1. "O(n)" rows
#: are compared up to :data:`O_N_CONSTANT` · n, the per-kernel rows up to :data:`FLOP_SLACK`.
TABLE1_PRINTED = {
    "Spectral-RNN local FP": ("4n(m1 + m2) − 2m1² − 2m2²", lambda n, m1, m2: 4 * n * (m1 + m2) - 2 * m1**2 - 2 * m2**2),
    "Spectral-RNN local BP": ("6n(m1 + m2) − 1.5m1² − 1.5m2²",
                              lambda n, m1, m2: 6 * n * (m1 + m2) - 1.5 * m1**2 - 1.5 * m2**2),
    "oRNN local FP": ("4nm − m²", lambda n, m1, m2: 4 * n * m1 - m1**2),
    "oRNN local BP": ("7nm − 2m²", lambda n, m1, m2: 7 * n * m1 - 2 * m1**2),
}
#: The same rows as sums of Table 1's own first two rows (4k per Hprod, 3n + 6k per Hgrad) over the
#: reflectors k = n − m + 1, …, n of each chain, Σ_k k = mn − m²/2 + O(n).
TABLE1_CORRECTED = {
    "Spectral-RNN local FP": TABLE1_PRINTED["Spectral-RNN local FP"],
    "Spectral-RNN local BP": ("9n(m1 + m2) − 3m1² − 3m2²", lambda n, m1, m2: 9 * n * (m1 + m2) - 3 * m1**2 - 3 * m2**2),
    "oRNN local FP": ("4nm − 2m²", lambda n, m1, m2: 4 * n * m1 - 2 * m1**2),
    "oRNN local BP": ("9nm − 3m²", lambda n, m1, m2: 9 * n * m1 - 3 * m1**2),
}


def table1_counts(n: int, m1: int, m2: int, *, cache_norms: bool = True, reuse_alpha: bool = True,
                  generator: torch.Generator | None = None) -> dict[str, int]:
    """Counted flops of one local FP/BP step (Algorithm 1) of Spectral-RNN (n, m1, m2) and oRNN (n, m = m1),
    and of single Hprod/Hgrad calls at k = n, k1, 1, on random float64 data.

    Returns:
        {"Hprod k=<k>", "Hgrad k=<k>", "Spectral-RNN local FP", "Spectral-RNN local BP", "oRNN local FP",
         "oRNN local BP"} → flops.

    Raises:
        ValueError: n < 1 or m1, m2 outside [0, n].

    Source: spectral_rnn.md Sec. 4.2, Table 1.
    """
    if n < 1 or not (0 <= m1 <= n and 0 <= m2 <= n):
        raise ValueError(f"need n >= 1 and 0 <= m1, m2 <= n, got n={n}, m1={m1}, m2={m2}")
    gen = generator if generator is not None else torch.Generator().manual_seed(0)
    U_hat, V_hat = random_reflectors(gen, n, m1), random_reflectors(gen, n, m2) if m2 else None
    sigma, dsigma = 1 + 0.1 * gauss(gen, n), 0.1 * torch.rand(n, generator=gen, dtype=F64)
    h, g = gauss(gen, n), gauss(gen, n)
    out = {}
    for k in sorted({n, max(n - m1 + 1, 1), 1}):
        u = gauss(gen, k)
        c = None if not cache_norms else 2 / torch.dot(u, u)
        out[f"Hprod k={k}"], (_, a) = count_flops(sparse_hprod, h, u, c)
        out[f"Hgrad k={k}"], _ = count_flops(sparse_hgrad, h, u, g, c, a if reuse_alpha else None)
    for model, s, V in (("Spectral-RNN", sigma, V_hat), ("oRNN", None, None)):
        norms = reflector_norms(U_hat, V) if cache_norms else None  # once per iteration: not counted
        flops_fp, (_, trace) = count_flops(sparse_local_fp, h, U_hat, s, V, norms=norms)
        flops_bp, _ = count_flops(sparse_local_bp, g, U_hat, s, V, trace, dsigma=None if s is None else dsigma,
                                  reuse_alpha=reuse_alpha)
        out[f"{model} local FP"], out[f"{model} local BP"] = flops_fp, flops_bp
    return out


def _sparse_matches_dense(case: CountCase, gen: torch.Generator) -> Tensor:
    """Relative error between the sparse recurrence (whose flops are counted) and the dense W h of eq. 6
    with its autograd gradients (h, each u_k and v_k, σ̂ through eq. 7): the counted code is Algorithm 1."""
    n, m1, m2 = case.n, case.m1, case.m2
    U_hat, V_hat = random_reflectors(gen, n, m1), random_reflectors(gen, n, m2) if m2 else None
    sigma_hat, r = gauss(gen, n), 0.3
    s = torch.sigmoid(sigma_hat)
    sigma, dsigma = 2 * r * (s - 0.5) + 1, 2 * r * s * (1 - s)
    h, g = gauss(gen, n), gauss(gen, n)
    with torch.no_grad():
        y, trace = sparse_local_fp(h, U_hat, sigma, V_hat,
                                   norms=reflector_norms(U_hat, V_hat) if case.cache_norms else None)
        grads = sparse_local_bp(g, U_hat, sigma, V_hat, trace, dsigma=dsigma, reuse_alpha=case.reuse_alpha)
    leaves = [t.clone().requires_grad_() for t in (h, U_hat, sigma_hat)]
    leaves += [V_hat.clone().requires_grad_()] if m2 else []
    sig = 2 * r * (torch.sigmoid(leaves[2]) - 0.5) + 1
    y_ref = dense_w(leaves[1], sig, leaves[3] if m2 else None) @ leaves[0]
    ref = torch.autograd.grad(y_ref @ g, leaves)
    hg = h.norm() * g.norm()
    errs = [(y - y_ref.detach()).norm() / (y_ref.detach().norm() + h.norm()),
            (grads["h"] - ref[0]).norm() / (3 * g.norm())]
    errs += [(grads["U"][j] - ref[1][j:, j]).norm() / (ref[1][:, j].norm() + 8 * hg / U_hat[:, j].norm())
             for j in range(m1)]
    errs += [(grads["V"][j] - ref[3][j:, j]).norm() / (ref[3][:, j].norm() + 8 * hg / V_hat[:, j].norm())
             for j in range(m2)]
    errs.append((grads["sigma_hat"] - ref[2]).norm() / (ref[2].norm() + hg))
    return torch.stack(errs).max()


def closed_form_counts(n: int, m1: int, m2: int) -> dict[str, int]:
    """What :func:`table1_counts` counts for the local rows, in closed form (with both Sec. 4.2 savings):
    FP = Σ 4k + n (the Σ step), BP = Σ (3n + 6k + 2) + 3n (Σ̄, Σg, σ̂), oRNN the same without Σ, over
    k = n − m + 1, …, n of each chain (Σ_k k = mn − m(m − 1)/2). Pinned against the counter by
    tests/bounds/spectral_rnn/test_table1.py."""
    S1, S2 = (m * n - m * (m - 1) // 2 for m in (m1, m2))
    return {"Spectral-RNN local FP": 4 * (S1 + S2) + n,
            "Spectral-RNN local BP": 3 * n * (m1 + m2) + 6 * (S1 + S2) + 2 * (m1 + m2) + 3 * n,
            "oRNN local FP": 4 * S1, "oRNN local BP": 3 * n * m1 + 6 * S1 + 2 * m1}


def table1_supremum(rows: dict):
    """(n, T) → max over m1, m2 ∈ [0, n] and the local rows of |counted − row|/(C_O n), from
    :func:`closed_form_counts` (the per-kernel rows reach at most 2/FLOP_SLACK = 0.5)."""
    def value(n: int, T: int) -> float:
        best = 2 / FLOP_SLACK
        for m1 in range(n + 1):
            for m2 in range(n + 1):
                counts = closed_form_counts(n, m1, m2)
                best = max(best, max(abs(counts[r] - f(n, m1, m2)) / (O_N_CONSTANT * n) for r, (_, f) in rows.items()))
        return best
    return value


def exact_table1(rows: dict) -> ExactVerdict:
    """Rows 3–6 against the sums of rows 1–2 (Hprod 4k, Hgrad 3n + 6k) over the reflectors k = n − m + 1, …, n of
    each chain, by sympy. Reading of "+ O(n)" (uniform over 0 ≤ m1, m2 ≤ n): the difference, with m1 = a n and
    m2 = b n, has no n² term for any a, b ∈ [0, 1] (a polynomial of degree 2 in (n, m1, m2) is O(n) on that
    region exactly when its quadratic part vanishes). "violated" names the rows and their n² coefficients.

    Source: spectral_rnn.md Sec. 4.2, Table 1.
    """
    import sympy as sp

    n, m1, m2, a, b = sp.symbols("n m1 m2 a b", positive=True)
    hprod = lambda m: chain_sum(0, 4, m, n)  # noqa: E731  (row 1: 4k per reflector)
    hgrad = lambda m: chain_sum(3 * n, 6, m, n)  # noqa: E731  (row 2: 3n + 6k per reflector)
    sums = {"Spectral-RNN local FP": hprod(m1) + hprod(m2), "Spectral-RNN local BP": hgrad(m1) + hgrad(m2),
            "oRNN local FP": hprod(m1), "oRNN local BP": hgrad(m1)}
    wrong = []
    for row, (text, formula) in rows.items():
        printed = sp.nsimplify(formula(n, m1, m2))
        quad = sp.factor(sp.expand((sums[row] - printed).subs({m1: a * n, m2: b * n})).coeff(n, 2))
        if quad != 0:
            worst = quad.subs({a: 1, b: 1})
            wrong.append(f"{row}: Σ of rows 1–2 = {sp.expand(sums[row])} vs {text}; the difference's n² coefficient "
                         f"is {quad} (m1 = a n, m2 = b n), {worst} n² at m1 = m2 = n")
    if wrong:
        return ExactVerdict("violated", "; ".join(wrong) + ": not O(n)")
    return ExactVerdict("proved", "every local row equals the sum of 4k (Hprod) and 3n + 6k (Hgrad) over its "
                                  "reflectors up to terms linear in (n, m1, m2), hence O(n) for 0 ≤ m1, m2 ≤ n")


def _starts(h, T, device, dtype) -> list[CountCase]:
    """The extremes of the reflector counts: m1 = m2 = n (where every row's n·m residual peaks), one chain
    full and the other empty, and a single reflector."""
    return [CountCase(h, h, h), CountCase(h, h, 0), CountCase(h, 0, h), CountCase(h, 1, 0)]


def _measure(case: CountCase, rows: dict) -> dict[str, tuple[Tensor, ...]]:
    gen = torch.Generator().manual_seed(case.n * 1009 + case.m1 * 31 + case.m2)
    counts = table1_counts(case.n, case.m1, case.m2, cache_norms=case.cache_norms, reuse_alpha=case.reuse_alpha,
                           generator=gen)
    n = case.n
    hprod = max(abs(v - 4 * int(k.split("=")[1])) for k, v in counts.items() if k.startswith("Hprod"))
    hgrad = max(abs(v - (3 * n + 6 * int(k.split("=")[1]))) for k, v in counts.items() if k.startswith("Hgrad"))
    parts = {"Hprod(h, u_k) = 4k": (t64(hprod), t64(FLOP_SLACK)),
             "Hgrad(h, u_k, g) = 3n + 6k": (t64(hgrad), t64(FLOP_SLACK))}
    for row, (text, formula) in rows.items():
        # (|counted − row|, C_O n, counted): the report's relative error is |counted − row|/counted
        parts[f"{row} = {text} + O(n)"] = (t64(abs(counts[row] - formula(n, case.m1, case.m2))), t64(O_N_CONSTANT * n),
                                           t64(counts[row]))
    parts["counted recurrence = dense W h of eq. 6 and its autograd gradients (relative error)"] = (
        _sparse_matches_dense(case, gen), t64(GRAD_RTOL))
    return parts


def _sample(gen, h, T, device, dtype) -> CountCase:
    """m1 uniform in [1, n] (m1 = n in a third of the cases: the largest quadratic terms), m2 in [0, n]."""
    m1 = h if draw(gen) < 1 / 3 else randint(gen, 1, h)
    return CountCase(h, m1, randint(gen, 0, h))


A_CACHE = Assumption("‖u_k‖² computed once per iteration (Sec. 4.2)", lambda c: (
    c.cache_norms, f"cache_norms = {c.cache_norms}"))
A_REUSE = Assumption("α reused from forward propagation in Hgrad (Sec. 4.2)", lambda c: (
    c.reuse_alpha, f"reuse_alpha = {c.reuse_alpha}"))

_KERNEL_COUNTS = CaseSpace(case_type=CountCase, sample=_sample, starts=_starts,
                           sizes={"quick": [(2, 1), (4, 1), (8, 1), (16, 1), (32, 1)],
                                  "full": [(2, 1), (8, 1), (32, 1), (64, 1), (128, 1), (256, 1)]})

table1 = Claim(
    id="spectral_rnn.table1",
    source="spectral_rnn.md, Sec. 4.2, Table 1",
    statement="Hprod 4k, Hgrad 3n + 6k; Spectral-RNN local FP 4n(m1 + m2) − 2m1² − 2m2² + O(n), local BP "
              "6n(m1 + m2) − 1.5m1² − 1.5m2² + O(n); oRNN local FP 4nm − m² + O(n), local BP 7nm − 2m² + O(n)",
    assumptions=(A_CACHE, A_REUSE, A_M_RANGE),
    measure="flops counted at dispatch (FlopCounter) while running Algorithms 1–3 on the reflectors' supports with "
            "‖u_k‖² cached and α reused (Sec. 4.2), checked equal to the dense W h and its autograd gradients",
    bound="FLOP_SLACK = 4 for the per-kernel rows; C_O · n with C_O = 20 for the O(n) rows",
    evaluate=lambda c: _measure(c, TABLE1_PRINTED),
    cases=_KERNEL_COUNTS,
    exact=lambda: exact_table1(TABLE1_PRINTED),
    supremum=Supremum(table1_supremum(TABLE1_PRINTED),
                      "max over m1, m2 ∈ [0, n] and the four local rows of |counted − printed|/(C_O n), counted in "
                      "closed form (closed_form_counts, pinned to the counter by a test); the BP row's residual "
                      "3n(m1 + m2) − 1.5(m1² + m2²) + O(n) grows with m on [0, n], so m1 = m2 = n attains it "
                      "(a structured start)", at=(32, 1)),
    explanation="Rows 3–6 should be sums of rows 1–2 over the reflectors (Σ_{k=n−m+1}^{n} k = mn − m²/2 + O(n)). "
                "Only the Spectral-RNN FP row is. Summing Hgrad = 3n + 6k gives BP 9n(m1 + m2) − 3m1² − 3m2², "
                "not 6n(m1 + m2) − 1.5(m1² + m2²) (that needs 3n + 3k per Hgrad); oRNN FP is 4nm − 2m² "
                "(Spectral FP with m2 = 0), not 4nm − m²; oRNN BP is 9nm − 3m², not 7nm − 2m² (that needs "
                "3n + 4k). See spectral_rnn.table1.corrected.",
    notes="Two readings of '+ O(n)': uniform (|counted − row| ≤ C_O n at every size checked, the numerical parts) "
          "and asymptotic (the residual's n² coefficient vanishes for m1 = a n, m2 = b n, the exact verdict); both "
          "fail for the same rows. The residual of a wrong row grows like n·m, so no constant C_O repairs it: "
          "the BP row's ratio is "
          "≈ (3n(m1 + m2) − 1.5(m1² + m2²))/(C_O n). Algorithm 3 as written forms −αg − βh on all n entries "
          "(the 3n term); the same on the k-entry support would cost 9k. cells.spectral.reflect (padded "
          "length-n vectors, ‖û‖² recomputed) costs 6n + 1 per Hprod, so its reflector loop is ≈ 6n(m1 + m2), "
          "not Table 1's count (efficiency, not correctness).",
)

table1_corrected = Claim(
    id="spectral_rnn.table1.corrected",
    source="spectral_rnn.md, Sec. 4.2, Table 1, rows 3–6 recomputed by rnnaudit from rows 1–2",
    statement="Hprod 4k, Hgrad 3n + 6k; Spectral-RNN FP 4n(m1 + m2) − 2m1² − 2m2² + O(n), BP "
              "9n(m1 + m2) − 3m1² − 3m2² + O(n); oRNN FP 4nm − 2m² + O(n), BP 9nm − 3m² + O(n)",
    assumptions=(A_CACHE, A_REUSE, A_M_RANGE),
    measure="as spectral_rnn.table1",
    bound="FLOP_SLACK = 4 for the per-kernel rows; C_O · n with C_O = 20 for the O(n) rows",
    evaluate=lambda c: _measure(c, TABLE1_CORRECTED),
    cases=_KERNEL_COUNTS,
    exact=lambda: exact_table1(TABLE1_CORRECTED),
    supremum=Supremum(table1_supremum(TABLE1_CORRECTED),
                      "max over m1, m2 ∈ [0, n] of |counted − corrected row|/(C_O n) and the per-kernel rows' "
                      "2/FLOP_SLACK, from closed_form_counts; the residuals are linear (≤ 13n), attained at the "
                      "extreme reflector counts the structured starts contain", at=(32, 1)),
    explanation="Would mean the counted recurrence does not cost what rows 1–2 say, summed.",
    notes="The remainders are ≤ 13n (Σ_k's linear terms, O(1) scalars per reflector, the Σ steps).",
)
