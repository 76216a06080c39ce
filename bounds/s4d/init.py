"""S4D's initial eigenvalues (arXiv 2206.11893; formulas as in the reference code, bounds/s4d/__init__.py):
S4D-Lin A_n = −1/2 + iπn, S4D-Inv A_n = −1/2 + i(N/π)(N/(2n + 1) − 1), n = 0..N/2 − 1, N the state size.

An identity between the cell's A at initialisation and the closed form, evaluated independently here from n and N
(the cell computes it vectorised in float64). Tolerance: one product and one quotient of values up to πN/2 or N²/π:
4 roundings relative, 1e-15·max|A|.
"""

from __future__ import annotations

import math

import torch

from rnnaudit.bounds.cell_case import CellCase
from rnnaudit.bounds.core import Assumption, CaseSpace, Claim
from rnnaudit.bounds.s4d.cases import sample_s4d
from rnnaudit.cells import S4D

__all__ = ["init", "INIT_RTOL", "closed_form"]

INIT_RTOL = 1e-15


def closed_form(init_name: str, M: int) -> list[complex]:
    """The M eigenvalues of S4D-Lin or S4D-Inv for state size N = 2M, one Python complex each."""
    N = 2 * M
    if init_name == "lin":
        return [complex(-0.5, math.pi * n) for n in range(M)]
    return [complex(-0.5, N / math.pi * (N / (2 * n + 1) - 1)) for n in range(M)]


def _measure(case: CellCase):
    cell = case.cell
    A = cell.A().detach()
    ref = torch.tensor(closed_form(cell.init, cell.state_size), dtype=A.dtype, device=A.device).expand_as(A)
    scale = ref.abs().max()
    return {f"A = S4D-{cell.init.capitalize()} closed form": ((A - ref).abs().max(), INIT_RTOL * scale, scale)}


def _fresh(case: CellCase) -> tuple[bool, str]:
    return isinstance(case.cell, S4D), f"{type(case.cell).__name__} as initialised"


init = Claim(
    id="s4d.init",
    source="Gu, Gupta, Goel & Ré 2022 (arXiv 2206.11893), S4D-Lin and S4D-Inv (formulas read in the reference code "
           "state-spaces/s4, not in the paper's text)",
    statement="S4D-Lin: A_n = −1/2 + iπn; S4D-Inv: A_n = −1/2 + i(N/π)(N/(2n + 1) − 1), n = 0..N/2 − 1",
    assumptions=(Assumption("an S4D cell at initialisation", _fresh),),
    measure="max_n |A_n(cell) − A_n(closed form)|",
    bound="INIT_RTOL·max_n |A_n|",
    evaluate=_measure,
    cases=CaseSpace(case_type=CellCase, sample=sample_s4d, sizes={"quick": [(2, 1), (16, 1)],
                                                                  "full": [(2, 1), (16, 1), (128, 1), (1024, 1)]}),
    explanation="The cell would not initialise A as the paper's S4D-Lin / S4D-Inv.",
    notes="Holds. S4D-Lin's imaginary parts are the frequencies πn of a Fourier basis; S4D-Inv's approximate the "
          "HiPPO-LegS eigenvalues' asymptotics (reference code's comment). The check reads a trained cell's A too, "
          "where it fails by design (training moves A): not run on models.",
)
