"""A CPU ``torch.Generator`` seeds every cell on every device, and the same seed gives the same cell there as on
the CPU (a CUDA tensor refuses a CPU generator, so each cell draws where the generator lives and then places its
parameters). On a machine without CUDA only the CPU case runs."""

import pytest
import torch

from rnnaudit.cells import lru, min_rnn, mlstm, s4d, selective_ssm, slstm
from rnnaudit.cells.registry import CELLS
from tests.conftest import DEVICES

SEEDED = {name: cls for name, cls in CELLS.items() if name != "lstm"}  # the LSTM baseline is torch's own init
SEEDED.update({"lru": lru.LRU, "min_gru": min_rnn.MinGRU, "min_lstm": min_rnn.MinLSTM, "s4d": s4d.S4D,
               "mlstm": mlstm.MLSTM, "slstm": slstm.SLSTM, "selective_ssm": selective_ssm.SelectiveSSM})


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(SEEDED))
def test_a_cpu_generator_seeds_the_same_cell_on_every_device(name, device):
    build = SEEDED[name]
    cpu = build(3, 8, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    placed = build(3, 8, generator=torch.Generator().manual_seed(0), dtype=torch.float64, device=device)
    other = build(3, 8, generator=torch.Generator().manual_seed(1), dtype=torch.float64, device=device)
    mine, theirs = placed.state_dict(), cpu.state_dict()
    assert mine.keys() == theirs.keys()
    for key, value in mine.items():
        assert value.device.type == torch.device(device).type, key
        assert torch.equal(value.cpu(), theirs[key]), key
    # the seed is what decides: another seed draws another cell
    assert any(not torch.equal(v.cpu(), theirs[k]) for k, v in other.state_dict().items() if v.is_floating_point())
