"""The generic save/reload rule of cases (bounds/cases.py): every field kind round-trips, and a tampered
state is refused with a clear error, never by running code named in the file."""

import dataclasses

import pytest
import torch

from rnnaudit.bounds.cases import case_from_state, case_state, copy_case
from rnnaudit.cells import ENRNN, SGORNN, VPRNNRotations

F64 = torch.float64


@dataclasses.dataclass
class Mixed:
    cell: SGORNN
    phi: VPRNNRotations
    x: torch.Tensor
    perm: torch.Tensor
    sizes: tuple
    label: str
    scale: float
    extra: torch.Tensor | None = None

    def size(self):
        return self.cell.hidden_size, self.x.shape[1]


def _mixed():
    gen = torch.Generator().manual_seed(3)
    cell = SGORNN(2, 4, k=3, clip_beta=False, dtype=F64, generator=gen)
    phi = VPRNNRotations(6, 2, dtype=F64, generator=gen)
    return Mixed(cell, phi, torch.randn(1, 5, 2, dtype=F64, generator=gen), torch.randperm(7, generator=gen),
                 (1, 2), "x", 0.5)


def test_every_field_kind_round_trips_and_is_torch_load_safe(tmp_path):
    case = _mixed()
    torch.save(case_state(case), tmp_path / "s.pt")
    back = case_from_state(Mixed, torch.load(tmp_path / "s.pt", weights_only=True))
    assert back.cell.config() == case.cell.config() and back.phi.config() == case.phi.config()
    for a, b in zip(back.cell.state_dict().values(), case.cell.state_dict().values()):
        assert torch.equal(a, b)
    assert torch.equal(back.phi.permutations, case.phi.permutations)
    assert torch.equal(back.x, case.x) and torch.equal(back.perm, case.perm) and back.perm.dtype == torch.int64
    assert (back.sizes, back.label, back.scale, back.extra) == ((1, 2), "x", 0.5, None)
    x = torch.randn(3, 5, 2, dtype=F64)
    assert torch.equal(back.cell(x), case.cell(x))


def test_a_copy_is_independent_and_takes_the_dtype_asked_for():
    case = _mixed()
    twin = copy_case(case, dtype=torch.float32)
    assert twin.x.dtype == torch.float32 and twin.perm.dtype == torch.int64
    with torch.no_grad():
        twin.cell.W.add_(1.0)
    assert not torch.allclose(twin.cell.W.double(), case.cell.W)


def test_a_module_comes_back_in_its_training_mode():
    @dataclasses.dataclass
    class Holder:
        cell: ENRNN

    cell = ENRNN(2, 2, 2, dtype=F64, generator=torch.Generator().manual_seed(0)).eval()
    assert not case_from_state(Holder, case_state(Holder(cell))).cell.training
    assert case_from_state(Holder, case_state(Holder(cell.train()))).cell.training


def test_a_state_naming_an_unknown_module_type_is_refused():
    state = case_state(_mixed())
    state["cell"]["__module__"] = "os.system"
    with pytest.raises(ValueError, match="module type must be one of"):
        case_from_state(Mixed, state)


def test_a_state_with_missing_or_unknown_fields_is_refused():
    state = case_state(_mixed())
    with pytest.raises(ValueError, match="needs the fields"):
        case_from_state(Mixed, {k: v for k, v in state.items() if k != "x"})
    with pytest.raises(ValueError, match="needs the fields"):
        case_from_state(Mixed, {**state, "bogus": 1})


def test_parameters_that_do_not_fit_the_module_are_refused():
    state = case_state(_mixed())
    state["cell"]["params"]["W"] = torch.zeros(9, 9, dtype=F64)
    with pytest.raises(ValueError, match="do not fit SGORNN"):
        case_from_state(Mixed, state)
