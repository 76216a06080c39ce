"""The cases of enrnn.md's claims on the ENRNN cell: one sequence through eq. 2–3 with a linear loss.

Cells are :class:`rnnaudit.cells.ENRNN` in eval mode, so forming W^(S) never latches the
normalisation (the latch is set explicitly where a case needs it). The generic save/reload rule of
:mod:`rnnaudit.bounds.cases` records the cell's training flag, so a reloaded case is in eval mode
too and ENRNNCase needs no ``state``/``from_state`` of its own.

Shared here: :class:`PaperCase` (the paper's own numbers, for the claims about its tables and settings),
:class:`ENRNNCase`, the recurrent matrix W of eq. 2 (with an optional excluded lower
block), the random cells and dominant-eigenvalue matrices the coupling, Theorem 3.1 and
Proposition 3.2 samplers build on, and the assumption that W is block upper triangular.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass

import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, NotApplicable
from rnnaudit.cells import ENRNN

__all__ = ["PaperCase", "paper_case", "A_AS_PRINTED", "ENRNNCase", "recurrent_matrix", "input_weights_and_bias",
           "dominant_matrix", "random_angle", "draw",
           "new_cell", "finish_case", "enrnn_cases_from_model", "short_term_matrix", "A_UPPER", "EPS0_NOTE"]


@dataclass
class ENRNNCase:
    """One sequence through an ENRNN cell (eval mode) with a linear loss.

    Attributes:
        cell: :class:`rnnaudit.cells.ENRNN`, in eval mode.
        x: inputs (1, T, m).
        v: (T, n); L = Σ_t ⟨v_t, h_t⟩.
        W_lower: ``None``, or a (p, q) block coupling h^(L) into h^(S) (W[q:, :q]), which eq. 2
            excludes; used to show the checks can fail.
    """

    cell: ENRNN
    x: Tensor
    v: Tensor
    W_lower: Tensor | None = None

    def __post_init__(self):
        self.cell.eval()  # W^(S) must never latch the normalisation while a case is measured

    def size(self) -> tuple[int, int]:
        """(n, T)."""
        return self.cell.hidden_size, self.x.shape[1]


@dataclass
class PaperCase:
    """The paper's own numbers (tables, stated sizes and settings): nothing is drawn, every case is the paper.

    Attributes:
        T: a sequence length where a claim is about a family of lengths (the copying task), else 1.
    """

    T: int = 1

    def size(self) -> tuple[int, int]:
        """(1, T)."""
        return 1, self.T


def paper_case(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> PaperCase:
    """The paper at sequence length T (the sampler of the claims about the paper's numbers)."""
    return PaperCase(T)


A_AS_PRINTED = Assumption("the numbers as printed in enrnn.md", lambda c: (isinstance(c, PaperCase), "as printed"))


def enrnn_cases_from_model(view) -> list[ENRNNCase]:
    """A model's sequences through a float64 eval-mode copy of its ENRNN cell, one case per input
    sequence of ``view`` (:class:`rnnaudit.bounds.on_model.ModelView`), with the loss L = vᵀh_T of its
    single readout row (v_t = 0 for t < T), or zero loss weights when the readout has several rows
    (the Jacobian claims do not use them).

    Raises:
        NotApplicable: the cell is not an :class:`rnnaudit.cells.ENRNN`.
    """
    if not isinstance(view.cell, ENRNN):
        raise NotApplicable(f"enrnn.md's claims are about the block recurrence of eq. 2–3 (ENRNN); the model's cell "
                            f"is {type(view.cell).__name__}")
    cell = copy.deepcopy(view.cell).double().eval()
    readout = view.readout
    cases = []
    for x in view.inputs:
        v = torch.zeros(x.shape[0], cell.hidden_size, dtype=torch.float64)
        if readout is not None and readout.shape[0] == 1:
            v[-1] = readout[0].detach().double()
        cases.append(ENRNNCase(cell, x[None].detach().double(), v))
    return cases


def recurrent_matrix(case: ENRNNCase) -> Tensor:
    """W of eq. 2 from the cell, plus the excluded lower block when the case has one; (n, n)."""
    W = case.cell.recurrent_matrix()
    if case.W_lower is None:
        return W
    q = case.cell.long_size
    lower = torch.zeros_like(W)
    lower[q:, :q] = case.W_lower
    return W + lower


def input_weights_and_bias(cell: ENRNN) -> tuple[Tensor, Tensor]:
    """U = [U^(L); U^(S)] (n, m) and b = [b^(L); b^(S)] (n,) of eq. 3."""
    return torch.cat([cell.U_L, cell.U_S]), torch.cat([cell.b_L, cell.b_S])


def dominant_matrix(gen: torch.Generator, m: int, rho: float, *, angle: float | None, gap: float,
                    spread: float) -> Tensor:
    """T = P D P⁻¹ (m, m), float64, whose eigenvalue(s) of largest modulus ρ are ρe^{±i·angle} (a real
    ±ρ when ``angle`` is None, with a random sign, or when m = 1 or sin(angle) = 0), all others real
    of modulus ≤ (1 − gap)ρ. P = I + spread·N(0, 1): spread 0 is normal, 0.1 nearly normal, 1
    strongly non-normal. Formed with ``torch.linalg.solve``, no explicit inverse.
    """
    D = torch.diag((torch.rand(m, generator=gen, dtype=torch.float64) * 2 - 1) * (1 - gap) * rho)
    if angle is not None and m >= 2 and abs(math.sin(angle)) > 1e-12:
        c, s = math.cos(angle), math.sin(angle)
        D[:2, :2] = rho * torch.tensor([[c, -s], [s, c]], dtype=torch.float64)
    elif angle is not None:
        D[0, 0] = rho if math.cos(angle) > 0 else -rho
    else:
        D[0, 0] = rho if float(torch.rand((), generator=gen)) < 0.5 else -rho
    P = torch.eye(m, dtype=torch.float64) + spread * torch.randn(m, m, generator=gen, dtype=torch.float64)
    return torch.linalg.solve(P.mT, (P @ D).mT).mT


def random_angle(gen: torch.Generator) -> float | None:
    """None (a real dominant eigenvalue) or an angle in [0.2, π − 0.2] (a complex pair), half each."""
    return None if draw(gen) < 0.5 else 0.2 + draw(gen) * (math.pi - 0.4)


def draw(gen: torch.Generator) -> float:
    """One U[0, 1) number from ``gen``."""
    return float(torch.rand((), generator=gen))


def new_cell(gen: torch.Generator, n: int, *, min_short: int = 1, activation: str, eps: float) -> ENRNN:
    """A random float64 ENRNN in eval mode with n = q + p units, p ≥ ``min_short``, m ∈ {1, 2, 3} inputs,
    random Θ of a random scale, W^(C) (three times in four) Glorot scaled by 1, 10 or 30, and biases
    in [−0.3, 0.3]."""
    p = int(torch.randint(min_short, n + 1, (), generator=gen))
    q = n - p
    m = int(torch.randint(1, 4, (), generator=gen))
    cell = ENRNN(m, q, p, eps=eps, coupling=draw(gen) < 0.75, activation=activation,
                 num_negative=int(torch.randint(0, q + 1, (), generator=gen)), generator=gen, dtype=torch.float64)
    with torch.no_grad():
        cell.phi.theta.copy_(torch.randn(q, q, generator=gen, dtype=torch.float64) * (0.1 + 2 * draw(gen)))
        if cell.W_C is not None:
            cell.W_C.mul_([1.0, 10.0, 30.0][int(torch.randint(0, 3, (), generator=gen))])
        cell.b_L.uniform_(-0.3, 0.3, generator=gen)
        cell.b_S.uniform_(-0.3, 0.3, generator=gen)
    return cell.eval()


def finish_case(cell: ENRNN, gen: torch.Generator, T: int, device, dtype) -> ENRNNCase:
    """The case of ``cell`` with Gaussian inputs x (1, T, m) and loss weights v (T, n), on ``device``
    in ``dtype``."""
    x = torch.randn(1, T, cell.input_size, generator=gen, dtype=torch.float64)
    v = torch.randn(T, cell.hidden_size, generator=gen, dtype=torch.float64)
    return ENRNNCase(cell.to(device=device, dtype=dtype), x.to(device=device, dtype=dtype),
                     v.to(device=device, dtype=dtype))


def short_term_matrix(c: ENRNNCase) -> Tensor:
    """W^(S) as the cell forms it (the Sec. 4 rule), detached; (p, p)."""
    return c.cell.short_term_matrix().detach()


def _has_lower(c: ENRNNCase) -> bool:
    return c.W_lower is not None and bool((c.W_lower != 0).any())


A_UPPER = Assumption("W block upper triangular: no coupling from h^(L) to h^(S) (eq. 2)", lambda c: (
    not _has_lower(c), "lower block present" if _has_lower(c) else "W[q:, :q] = 0"))

EPS0_NOTE = ("Sec. 3.1 and Prop. 3.2 require ε > 0, but Sec. 5 trains with 'ε = 0 in Proposition 3.2'; with "
             "ε = 0 the normalised W^(S) has ρ(W^(S)) = 1 exactly, not < 1 as Sec. 3.1 says.")
