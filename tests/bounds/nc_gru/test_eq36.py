"""nc_gru.eq36: the proof's Jacobians (eq. 29, 32, 36, 40) equal autograd's, for the GRU and the NC-GRU."""

import torch

from rnnaudit.bounds import measure_case
from rnnaudit.bounds.nc_gru import eq36
from rnnaudit.bounds.nc_gru.eq36 import sample_step_case
from rnnaudit.cells import GRU, NCGRU
from tests.bounds.nc_gru.cases import assert_holds_inside_assumptions


def test_eq36_holds_inside_its_assumptions(tmp_path):
    assert_holds_inside_assumptions(eq36, [(1, 1), (3, 1), (8, 1)], tmp_path)


def test_eq36_sampler_draws_both_cells_and_every_ncgru_variant():
    gen = torch.Generator().manual_seed(0)
    cells = [sample_step_case(gen, 3, 1).cell for _ in range(40)]
    assert any(type(c) is GRU for c in cells)
    assert {c.orthogonal for c in cells if type(c) is NCGRU} == {("c",), ("r", "c"), ("r", "u", "c")}
    for c in cells[:10]:
        case = sample_step_case(gen, 3, 1)
        assert measure_case(eq36, case)[0] <= 1
