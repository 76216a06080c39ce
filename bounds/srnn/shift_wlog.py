"""srnn.md, Sec. 3, after eq. 3: "Without loss of generality, the permutation can be chosen as the shift
operation" of eq. 4.

Reading: the WLOG as a relabeling of the hidden units, Q W_p Qᵀ = W_shift for a permutation matrix Q (then
h'_t = Q h_t solves eq. 3 with the shift and b' = Q b, s' = s Qᵀ, so the analysis done for the shift covers W_p).
Conjugation preserves the cycle type and the shift is one d_h-cycle, so the relabeling exists exactly for the
permutations that are one d_h-cycle; for those the claim checks the relabeling and the equality of the two SRNNs.
For the other permutations the relabeling argument says nothing; that the shift then loses generality is not
shown either (see the claim's notes).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, ExactVerdict, Reading
from rnnaudit.bounds.srnn.cases import f64
from rnnaudit.cells import SRNN, get_activation, shift, shift_matrix

__all__ = ["WlogCase", "sample_cycle_case", "sample_permutation_case", "relabeling", "measure_relabeling",
           "measure_any_permutation", "shift_wlog", "WLOG_RTOL"]

#: Permutation matrices and their powers are exact in floating point; an SRNN run with W_p and the relabelled
#: shift-SRNN perform the same additions in the same order, so they agree to rounding of the entries
#: (~1e-16 relative); 1e-12 leaves a wide margin, while a wrong relabeling moves whole entries.
WLOG_RTOL = 1e-12


@dataclass
class WlogCase:
    """A permutation W_p (as the index map ``perm``: (W_p y)_i = y_{perm[i]}) and an SRNN b run with it.

    Attributes:
        perm: (d_h,) int64, a permutation of 0..d_h−1. cell: :class:`cells.SRNN` (its b and σ; the cell's
            own W_p, the shift, is not used for the W_p run). x: (1, T, d_i). h0: (1, d_h).
    """

    perm: Tensor
    cell: SRNN
    x: Tensor
    h0: Tensor

    def size(self) -> tuple[int, int]:
        """(d_h, T)."""
        return self.perm.numel(), self.x.shape[1]


def _draw(gen: torch.Generator, perm: Tensor, T: int, device, dtype) -> WlogCase:
    h = perm.numel()
    d_i = int(torch.randint(1, 4, (), generator=gen))
    cell = SRNN(d_i, h, fr_hidden=(4,), gating=float(torch.rand((), generator=gen)) < 0.5,
                activation="relu" if float(torch.rand((), generator=gen)) < 0.5 else "tanh", generator=gen,
                dtype=torch.float64)
    x = torch.randn(1, T, d_i, generator=gen, dtype=torch.float64)
    h0 = torch.rand(1, h, generator=gen, dtype=torch.float64)
    return WlogCase(perm.to(device), cell.to(device=device, dtype=dtype), x.to(device=device, dtype=dtype),
                    h0.to(device=device, dtype=dtype))


def sample_cycle_case(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> WlogCase:
    """A uniformly random d_h-cycle: the shift with its units relabelled at random."""
    relabel = torch.randperm(h, generator=gen)
    perm = torch.empty(h, dtype=torch.int64)
    perm[relabel] = relabel[(torch.arange(h) + 1) % h]  # unit relabel[i] is followed by relabel[i + 1]
    return _draw(gen, perm, T, device, dtype)


def sample_permutation_case(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> WlogCase:
    """A uniformly random permutation of d_h units (one d_h-cycle with probability 1/d_h)."""
    return _draw(gen, torch.randperm(h, generator=gen), T, device, dtype)


def _matrix(perm: Tensor, dtype) -> Tensor:
    return torch.eye(perm.numel(), dtype=dtype, device=perm.device)[perm]


def _cycles(perm: Tensor) -> int:
    seen, count = set(), 0
    for start in range(perm.numel()):
        if start not in seen:
            count += 1
            i = start
            while i not in seen:
                seen.add(i)
                i = int(perm[i])
    return count


def relabeling(perm: Tensor) -> Tensor:
    """Q as an index map ((Q y)_k = y_{c_k}) with c_0 = 0, c_{k+1} = perm[c_k], so that Q W_p Qᵀ = W_shift when
    ``perm`` is one d_h-cycle (for other permutations the returned map is not a permutation).

    Raises:
        ValueError: ``perm`` is not one d_h-cycle.
    """
    if _cycles(perm) != 1:
        raise ValueError(f"perm must be one d_h-cycle for a relabeling onto the shift, got {_cycles(perm)} cycles")
    c = [0]
    for _ in range(perm.numel() - 1):
        c.append(int(perm[c[-1]]))
    return torch.tensor(c, dtype=torch.int64, device=perm.device)


A_PERMUTATION = Assumption("W_p is a permutation matrix (Sec. 3)",
                           lambda c: (sorted(c.perm.tolist()) == list(range(c.perm.numel())),
                                      f"perm = {c.perm.tolist()}"))
A_CYCLE = Assumption("W_p is one d_h-cycle (the permutations the relabeling covers)",
                     lambda c: (_cycles(c.perm) == 1, f"{_cycles(c.perm)} cycle(s)"))


def _run(case: WlogCase, W_p, b_x: Tensor, h: Tensor) -> Tensor:
    sigma, hs = get_activation(case.cell.activation), []
    for t in range(b_x.shape[0]):
        h = sigma(W_p(h) + b_x[t])
        hs.append(h)
    return torch.stack(hs)


def measure_relabeling(case: WlogCase, relabel=None) -> dict[str, tuple[Tensor, Tensor, Tensor]]:
    """The claim's parts with the relabeling ``relabel(perm)`` (default :func:`relabeling`; a test passes a wrong one
    to see the check fail)."""
    q = (relabel or relabeling)(case.perm)
    W = _matrix(case.perm, case.x.dtype)
    Q = _matrix(q, W.dtype)
    S = shift_matrix(W.shape[0], dtype=W.dtype, device=W.device)
    with torch.no_grad():
        bx = case.cell.b(case.x)[0]
        h_p = _run(case, lambda h: h[case.perm], bx, case.h0[0])
        h_s = _run(case, shift, bx[:, q], case.h0[0][q])
    ref = h_p.abs().max()
    return {
        "Q W_p Qᵀ = W_shift (Q from the cycle)": ((Q @ W @ Q.T - S).abs().max(), f64(0.5, W), f64(1.0, W)),
        "SRNN(W_p, b) relabelled = SRNN(shift, Q b): Q h_t = h'_t": ((h_p[:, q] - h_s).abs().max(),
                                                                     WLOG_RTOL * torch.clamp(ref, min=1.0), ref),
    }


def measure_any_permutation(case: WlogCase) -> dict[str, tuple[Tensor, ...]]:
    """The reading 'every permutation is a relabeling of the shift': :func:`measure_relabeling` for a d_h-cycle; for
    any other permutation no relabeling exists (conjugation keeps the cycle type), measured as its number of cycles
    beyond one against 0."""
    cycles = _cycles(case.perm)
    if cycles == 1:
        return measure_relabeling(case)
    W = case.x
    return {"some Q with Q W_p Qᵀ = W_shift: cycles of W_p beyond one": (f64(cycles - 1, W), f64(0.0, W))}


def _exact_any() -> ExactVerdict:
    """At d_h = 3 the identity and the three transpositions are permutations that no relabeling makes the shift."""
    from itertools import permutations

    from sympy.combinatorics import Permutation

    S = Permutation([1, 2, 0])
    bad = [p for p in permutations(range(3)) if not any(Permutation(list(q)) * Permutation(list(p))
                                                         * ~Permutation(list(q)) == S for q in permutations(range(3)))]
    return ExactVerdict("violated" if bad else "proved",
                        f"d_h = 3: {len(bad)} of the 6 permutations ({', '.join(str(list(p)) for p in bad)}) are "
                        "conjugate to no shift (sympy.combinatorics, every relabeling tried)")


def _exact() -> ExactVerdict:
    """Every permutation of n ≤ 4 units against every relabeling Q (sympy.combinatorics, exact): conjugate to the shift
    iff one n-cycle."""
    from itertools import permutations

    from sympy.combinatorics import Permutation

    not_relabelings = 0
    for n in range(1, 5):
        S = Permutation([(i + 1) % n for i in range(n)])
        not_relabelings = 0
        for p in permutations(range(n)):
            P = Permutation(list(p))
            relabelings = (Permutation(list(q)) for q in permutations(range(n)))
            conj = any(Q * P * ~Q == S for Q in relabelings)  # Q runs over the whole group, so does ~Q
            single = len(P.full_cyclic_form) == 1
            if conj != single:
                return ExactVerdict("violated", f"n = {n}, W_p = {P.array_form}: conjugate to the shift {conj}, "
                                                f"one cycle {single}")
            not_relabelings += not conj
    return ExactVerdict("proved", f"For every d_h ≤ 4 and every permutation W_p: some relabeling Q gives Q W_p Qᵀ = "
                                  f"the shift iff W_p is one d_h-cycle (sympy.combinatorics, all pairs checked; at "
                                  f"d_h = 4, {not_relabelings} of the 24 permutations are not relabelings).")


_SIZES = {"quick": [(1, 2), (2, 2), (3, 3), (5, 4), (8, 6)],
          "full": [(1, 2), (2, 2), (3, 3), (5, 4), (8, 6), (16, 10), (64, 12)]}

shift_wlog = Claim(
    id="srnn.shift_wlog",
    source="srnn.md, Sec. 3, after eq. 3: 'Without loss of generality, the permutation can be chosen as the shift'",
    statement="The WLOG, read as a relabeling of the hidden units, holds for every permutation W_p that is one "
              "d_h-cycle: with Q the relabeling along the cycle, Q W_p Qᵀ = W_shift, and the SRNN with (W_p, b, h_0) "
              "equals the SRNN with (eq. 4's shift, Q b, Q h_0) up to h'_t = Q h_t",
    assumptions=(A_PERMUTATION, A_CYCLE),
    measure="|Q W_p Qᵀ − W_shift|_max; max_t |Q h_t − h'_t| for the two recurrences run on the same inputs",
    bound="no entry off (0/1 matrices: a gap < 1/2), and WLOG_RTOL (1e-12) × max(1, |h|_max)",
    evaluate=measure_relabeling,
    cases=CaseSpace(case_type=WlogCase, sample=sample_cycle_case, sizes=_SIZES),
    explanation="Would mean the cycle relabeling does not conjugate W_p into the shift, or σ does not commute with "
                "permutations (it acts entrywise).",
    notes="Q is read off the cycle: c_0 = 0, c_{k+1} = W_p's image of c_k, (Q y)_k = y_{c_k}; then Q W_p = W_shift Q. "
          "Which permutations are relabelings of the shift: exactly the single d_h-cycles (conjugation keeps the cycle"
          " type; the exact verdict checks every pair at d_h ≤ 4). The others — 18 of the 24 permutations at d_h = 4, "
          "W_p = I, every involution at d_h ≥ 3 — are not covered by the relabeling argument; they are outside the "
          "WLOG's scope, and that the shift loses generality against them is not shown either: no function that some "
          "other permutation's SRNN computes and the shift's cannot is exhibited here or in the paper, so the sentence"
          " gets no 'violated' verdict. The one separation exhibited here goes the other way: at d_h = 2, h_0 = 0, "
          "ReLU, T = 2, the shift's SRNN computes x_1 − x_2 exactly for x_1, x_2 ∈ [0, 1] (f_r(x) = (x, 0), gate "
          "weight and bias 0, so b(x) = (x/2, 0), h_2 = (x_2/2, x_1/2), readout 2(h_{2,2} − h_{2,1})), and W_p = I "
          "cannot: each unit computes ReLU(ReLU(b_r(x_1)) + b_r(x_2)), symmetric in (x_1, x_2) wherever b_r(x_1) and "
          "b_r(x_2) share a sign; f_r is piecewise linear and the gate positive, so [0, 1] has a subinterval on which "
          "neither b_r changes sign, and there every readout is symmetric while x_1 − x_2 is not. The gradient "
          "analysis of Sec. 3 holds for every permutation (srnn.eq4).",
    exact=_exact,
    readings=(Reading(
        "every permutation W_p, as a relabeling",
        "For every permutation W_p some relabeling Q of the units gives Q W_p Qᵀ = W_shift (the sentence's 'the "
        "permutation' taken as any W_p)",
        "Sec. 3 introduces W_p as 'a permutation matrix' with no condition on its cycles before the WLOG",
        measure_any_permutation, cases=CaseSpace(case_type=WlogCase, sample=sample_permutation_case, sizes=_SIZES),
        exact=_exact_any, assumptions=(A_PERMUTATION,)),),
)
