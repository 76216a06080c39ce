"""The audit and the probes of a module that lives on a CUDA device, in evaluation mode (cuDNN's RNN backward
refuses evaluation mode, and the library never calls ``.train()``): the claims and diagnostics read a CPU copy,
∂L/∂h_0 runs the module's forward on its device, so the verdicts are those of its CPU twin and the numbers agree
within float64 rounding; the module itself is left as it was. Skipped where no CUDA device is present (the ``gpu``
marker, tests/conftest.py)."""

import copy
import math

import pytest
import torch

import rnnaudit
from rnnaudit.analysis.jacobian import hidden_jacobian_maps
from rnnaudit.cells import wrap

# float64 on two BLAS libraries: each step's rounding is ~1e-16 relative; the claims' worst ratios and the
# gradient are sums and products over T = 12 steps of width 8, so 1e-9 leaves a wide margin over rounding and
# is far below any difference a wrong kernel would make
RTOL = 1e-9


def _loss(out, targets):
    return ((out - targets) ** 2).mean()


def _twins(kind: str):
    torch.manual_seed(0)
    module = getattr(torch.nn, kind)(4, 8, num_layers=2, batch_first=True).eval()
    return module, copy.deepcopy(module).cuda().eval()


@pytest.mark.gpu
@pytest.mark.parametrize("kind", ["RNN", "GRU", "LSTM"])
def test_audit_of_a_cuda_module_in_eval_mode_matches_its_cpu_twin(kind):
    cpu_module, gpu_module = _twins(kind)
    x, targets = torch.randn(2, 12, 4), torch.randn(2, 12, 8)
    cpu = rnnaudit.audit(cpu_module, x, loss_fn=_loss, targets=targets)
    before = {k: v.clone() for k, v in gpu_module.state_dict().items()}
    gpu = rnnaudit.audit(gpu_module, x.cuda(), loss_fn=_loss, targets=targets.cuda())
    assert not gpu_module.training and next(gpu_module.parameters()).is_cuda
    assert all(torch.equal(v, before[k]) for k, v in gpu_module.state_dict().items())
    assert [c["id"] for c in gpu["claims"]] == [c["id"] for c in cpu["claims"]]
    for a, b in zip(cpu["claims"], gpu["claims"]):
        assert (a["applies"], a["assumptions_hold"], a["verdict"]) == (b["applies"], b["assumptions_hold"],
                                                                     b["verdict"]), a["id"]
        if isinstance(a["worst_ratio"], float) and math.isfinite(a["worst_ratio"]):
            assert b["worst_ratio"] == pytest.approx(a["worst_ratio"], rel=RTOL), a["id"]
    assert gpu["initial_state_gradient"]["norm"] == pytest.approx(cpu["initial_state_gradient"]["norm"], rel=RTOL)
    assert gpu["initial_state_gradient"]["norm"] > 0


@pytest.mark.gpu
def test_hidden_jacobian_maps_on_cuda_match_the_cpu():
    cpu_module, gpu_module = _twins("GRU")
    x = torch.randn(12, 4, dtype=torch.float64)
    cpu = hidden_jacobian_maps(wrap(cpu_module.double()), x)
    gpu = hidden_jacobian_maps(wrap(gpu_module.double()), x.cuda())
    assert gpu.spectral.is_cuda
    # each spectral value is certified within relative rtol below its product's norm, on either device
    torch.testing.assert_close(gpu.spectral.cpu(), cpu.spectral, rtol=2 * cpu.rtol + RTOL, atol=0)
    torch.testing.assert_close(gpu.frobenius.cpu(), cpu.frobenius, rtol=RTOL, atol=0)
