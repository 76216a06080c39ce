"""bounds.architectures: the step Jacobians, their norms and products of one sequence are computed once per case
content (the audit checks them for several claims, twice each), recomputed whenever anything they depend on changes."""

import copy

import torch

from rnnaudit.bounds import architectures as arch
from rnnaudit.bounds.architectures import sample_arch
from rnnaudit.bounds.pascanu2013 import cases as pc


def _counting(monkeypatch):
    calls = []
    real = arch.step_jacobians

    def counted(case, *a, **k):
        calls.append(case)
        return real(case, *a, **k)

    monkeypatch.setattr(arch, "step_jacobians", counted)
    arch._MEMO.clear()
    return calls


def test_eta_and_growth_of_equal_copies_are_computed_once_and_equal_the_direct_values(monkeypatch):
    case = sample_arch(torch.Generator().manual_seed(3), "lstm", 4, 9)
    direct_eta = float(arch.spectral(arch.step_jacobians(case)[0]).max())
    direct_growth = float(arch.product_norms(arch.step_jacobians(case)[0], arch.MAX_STARTS)[0].max())
    calls = _counting(monkeypatch)
    for copy_ in (case, copy.deepcopy(case), copy.deepcopy(case)):
        assert pc.A_ETA.check(copy_)[1].endswith(f"{direct_eta:.6g}")
        assert float(pc.growth(copy_)) == direct_growth
    assert len(calls) == 1


def test_a_changed_weight_or_input_is_recomputed(monkeypatch):
    """Negative control: an in-place change to any tensor the Jacobians depend on changes the key."""
    case = sample_arch(torch.Generator().manual_seed(4), "gru", 3, 6)
    calls = _counting(monkeypatch)
    before = float(pc.eta(case))
    with torch.no_grad():
        case.weights[0][1].mul_(3.0)
    after = float(pc.eta(case))
    with torch.no_grad():
        case.x.add_(1.0)
    pc.eta(case)
    assert len(calls) == 3 and after != before


def test_a_case_an_ascent_differentiates_is_never_stored(monkeypatch):
    case = sample_arch(torch.Generator().manual_seed(5), "rnn_tanh", 3, 5)
    case.weights[0][1].requires_grad_(True)
    calls = _counting(monkeypatch)
    e = pc.eta(case)
    e.backward()  # the gradient reaches the weights: the value was computed, not taken from the memo
    pc.eta(case)
    assert case.weights[0][1].grad is not None and len(calls) == 2 and not arch._MEMO


def test_a_result_larger_than_the_memo_budget_is_computed_and_not_kept(monkeypatch):
    case = sample_arch(torch.Generator().manual_seed(6), "rnn_tanh", 3, 5)
    calls = _counting(monkeypatch)
    monkeypatch.setattr(arch, "MEMO_NUMBERS", 10)  # J alone is 5·3·3 = 45 numbers
    pc.eta(case)
    pc.eta(case)
    assert len(calls) == 2 and not arch._MEMO


def test_inside_an_audit_a_tensors_digest_is_shared_by_its_aliases_and_follows_every_write(monkeypatch):
    """Inside shared_maps the digest of a tensor's bytes is computed once for all its ``detach()`` aliases and views
    of the same memory (each claim builds its cases through its own aliases), and again after a write through any
    alias (``detach()``, ``.data``, numpy: the referee's stale cases), for a conjugate or negative view (its values,
    not the bytes beneath), and for another tensor at a freed address."""
    import hashlib

    import numpy as np

    from rnnaudit.bounds import case_keys

    hashed = []
    real = hashlib.blake2b

    def counting(data=b"", **kw):
        hashed.append(memoryview(data).nbytes)
        return real(data, **kw)

    def fresh(t):
        return real(t.detach().resolve_conj().resolve_neg().contiguous().numpy().tobytes(), digest_size=16).digest()

    monkeypatch.setattr(case_keys.hashlib, "blake2b", counting)
    w = torch.randn(64, 32, dtype=torch.float64)
    with arch.shared_maps():
        first = case_keys._tensor_digest(w.detach())
        assert case_keys._tensor_digest(w.detach()) == first and case_keys._tensor_digest(w[:, :]) == first
        assert hashed.count(w.numel() * 8) == 1
        for write in (lambda: w.detach()[0, 0].add_(1.0), lambda: w.data.mul_(2.0), lambda: w.numpy().__setitem__(
                (1, 1), 7.0)):
            write()
            assert case_keys._tensor_digest(w.detach()) == fresh(w)
        z = torch.randn(4, 3, dtype=torch.complex128)
        assert case_keys._tensor_digest(z.imag) != case_keys._tensor_digest(z.conj().imag) == fresh(z.conj().imag)
        r = torch.randn(5, dtype=torch.float64)
        assert case_keys._tensor_digest(torch._neg_view(r)) == fresh(-r) != case_keys._tensor_digest(r)
        arr = np.ones((3, 3))
        case_keys._tensor_digest(torch.from_numpy(arr))
        arr[0, 0] = 5.0
        assert case_keys._tensor_digest(torch.from_numpy(arr)) == fresh(torch.from_numpy(arr))
        del w
        for _ in range(8):  # new tensors of the same shape, possibly at the freed address: their own bytes' digest
            other = torch.zeros(64, 32, dtype=torch.float64)
            assert case_keys._tensor_digest(other) == fresh(other)
    assert not case_keys._DIGESTS  # dropped with the audit's maps
