"""nc_gru.eq4: scoRNN's update (eq. 3–6) keeps A skew bit for bit and U orthogonal to one solve's rounding, with no
growth over the steps."""

import torch

from rnnaudit.bounds import measure_case
from rnnaudit.bounds.nc_gru import eq4
from rnnaudit.bounds.nc_gru.eq4 import sample_scornn_run, scornn_run
from tests.bounds.nc_gru.cases import assert_holds_inside_assumptions


def test_eq4_holds_inside_its_assumptions(tmp_path):
    assert_holds_inside_assumptions(eq4, [(2, 1), (4, 20)], tmp_path)


def test_no_accumulation_over_many_steps():
    """300 steps: A stays exactly skew and the defect of U^(300) is of the order of U^(1)'s (both ≤ 1e-14)."""
    case = sample_scornn_run(torch.Generator().manual_seed(2), 6, 300)
    As, Us = scornn_run(case)
    assert all(float((A + A.mT).abs().max()) == 0.0 for A in As)
    eye = torch.eye(6, dtype=torch.float64)
    defects = [float(torch.linalg.matrix_norm(U.mT @ U - eye, ord=2)) for U in Us]
    assert max(defects) < 1e-13 and defects[-1] < 100 * max(defects[1], 1e-16)
    assert measure_case(eq4, case)[0] <= 1
