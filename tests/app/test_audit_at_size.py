"""The audit at real sizes: one step map per model sequence read by every claim, norms factorised only where a
maximum or a worst ratio needs them (the same numbers as factorising all), and the user's model never switched to
training mode."""

import math

import pytest
import torch
from torch import nn

from rnnaudit.analysis.norms import PairNorms, spectral
from rnnaudit.bounds import architectures as arch
from rnnaudit.bounds.core import safe_ratio, worst_pair


def _matrices(seed: int, n: int = 24, p: int = 7, q: int = 5) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    scales = torch.exp(torch.randn(n, 1, 1, generator=g, dtype=torch.float64))
    return torch.randn(n, p, q, generator=g, dtype=torch.float64) * scales


@pytest.mark.parametrize("seed", range(6))
def test_pair_norms_give_the_same_maximum_and_worst_pair_as_every_exact_norm(seed):
    M = _matrices(seed)
    exact = spectral(M)
    bound = torch.rand(M.shape[0], generator=torch.Generator().manual_seed(100 + seed), dtype=torch.float64) * 3
    bound[seed % M.shape[0]] = 0.0  # a zero bound is ranked by the measured value alone (safe_ratio)
    value, i = PairNorms(M).max()
    assert value == exact.max() and i == int(exact.argmax())
    m, b = PairNorms(M).worst(bound, safe_ratio)
    m0, b0 = worst_pair(exact, bound)
    assert m == m0 and b == b0


def test_pair_norms_factorise_fewer_matrices_than_all_when_one_dominates():
    M = _matrices(7)
    M[3] *= 1e3  # its lower bound is above every other upper bound
    norms = PairNorms(M)
    value, i = norms.max()
    assert i == 3 and value == spectral(M[3]) and int(norms.known.sum()) == 1


def test_pair_norms_bounds_enclose_the_exact_norms():
    """Negative control of the certificate: a bound below the exact value would let max() skip the true maximum."""
    M = _matrices(8)
    norms = PairNorms(M)
    exact = spectral(M)
    assert bool((norms.lower <= exact).all()) and bool((exact <= norms.upper).all())


def test_the_norm_is_torchs_own_value_bit_for_bit():
    M = _matrices(9)
    assert torch.equal(spectral(M), torch.linalg.matrix_norm(M, ord=2))


def test_one_audit_forms_each_sequences_step_jacobians_once(monkeypatch):
    import rnnaudit

    calls = []
    real = arch.step_jacobians

    def counted(case, *a, **k):
        if k.get("state", True):  # ∂h_t/∂x_t alone (state=False) is formed where inputs() asks for it
            calls.append((case.kind, case.layers, case.h0.shape[0]))
        return real(case, *a, **k)

    monkeypatch.setattr(arch, "step_jacobians", counted)
    torch.manual_seed(0)
    model = nn.LSTM(3, 5, num_layers=2, batch_first=True)
    rnnaudit.audit(model, torch.randn(2, 9, 3), diagnostics=False)
    whole = [c for c in calls if c[1] == 2]
    # one map per sequence of the whole stack, one per sequence and layer for the per-layer claims
    assert len(whole) == 2 and len([c for c in calls if c[1] == 1]) <= 2 * 2
    assert not arch._MEMO  # the maps are dropped when the audit ends


def test_the_audit_never_switches_the_users_model_to_training_mode():
    import rnnaudit

    class Frozen(nn.GRU):
        def train(self, mode: bool = True):  # the library must never call it (nor .eval(), which calls it)
            raise AssertionError(f"train({mode}) called on the user's model")

    torch.manual_seed(0)
    model = Frozen(3, 4, batch_first=True)
    nn.Module.train(model, False)
    result = rnnaudit.audit(model, torch.randn(2, 6, 3), loss_fn=lambda out, y: ((out - y) ** 2).mean(),
                            targets=torch.zeros(2, 6, 4, dtype=torch.float64))
    assert math.isfinite(result["initial_state_gradient"]["norm"]) and not model.training


def test_the_cli_prints_the_audits_estimate_and_refuses_one_above_the_memory_limit(tmp_path, capsys, monkeypatch):
    from tests.conftest import cli_status

    torch.manual_seed(0)
    torch.save(nn.GRU(2, 6, batch_first=True).state_dict(), tmp_path / "w.pt")
    torch.save(torch.randn(1, 8, 2), tmp_path / "x.pt")
    monkeypatch.chdir(tmp_path)
    # a limit below what the maps of 8 steps of a 6-wide state need (the jacobian chunks alone are 128 MiB)
    assert cli_status(["audit", "--arch", "gru", "--weights", "w.pt", "--inputs", "x.pt", "--out", "a",
                       "--memory-limit", "0.01"]) == 2
    captured = capsys.readouterr()
    assert "estimate: audit of" in captured.out and not (tmp_path / "a").exists()
    assert len(captured.err.strip().splitlines()) == 1 and "--memory-limit" in captured.err


def test_the_audit_estimate_grows_with_the_sequence_length_and_fits_a_small_model():
    from rnnaudit.auditing.cost import audit_cost
    from rnnaudit.cells.adapters import wrap

    cell = wrap(nn.LSTM(3, 16, num_layers=2))
    short = audit_cost(cell, 20, 1, claims=10, seconds_per_gemm=1e-6, memory_limit=2 ** 31)
    long = audit_cost(cell, 400, 1, claims=10, seconds_per_gemm=1e-6, memory_limit=2 ** 31)
    assert short.fits and long.peak_bytes > short.peak_bytes and long.seconds > short.seconds
    assert not audit_cost(cell, 400, 1, claims=10, seconds_per_gemm=1e-6, memory_limit=2 ** 20).fits



def test_the_audit_estimate_of_a_stacked_lstm_is_its_packed_map_not_the_sum_of_the_phases():
    """The per-layer maps are dropped after each claim and the diagnostics form one layer of one sequence at a time,
    so the peak is the packed map's phase (J, the pair products, the input products) and the transients beside it:
    for an LSTM(150) × 2 at T = 400 about 1.47 GB (1.46 GB measured above the interpreter's resident memory, where the
    sum of the phases said 2.5 GiB); the line adds the interpreter's to compare with a measured peak."""
    from rnnaudit.auditing.cost import _INTERPRETER_BYTES, _TRANSIENT_BYTES, audit_cost
    from rnnaudit.bounds.architectures import MAX_STARTS, pair_schedule
    from rnnaudit.cells.adapters import wrap

    T, S, n = 400, 600, 150
    pairs = sum(len(ts) for ts in pair_schedule(T, MAX_STARTS).values())
    est = audit_cost(wrap(nn.LSTM(n, 150, num_layers=2)), T, 1, claims=10, seconds_per_gemm=1e-6,
                     seconds_per_op=1e-6, memory_limit=2 ** 34)
    assert est.peak_bytes == 8 * (T * S * S + pairs * (S * S + S * n)) + _TRANSIENT_BYTES
    assert f"about {(est.peak_bytes + _INTERPRETER_BYTES) / 2 ** 30:.3g} GiB resident" in est.describe()

def test_the_norms_leave_torchs_thread_count_and_lapacks_batched_lu_working():
    """Switching torch.set_num_threads to 1 and back broke MKL's batched LU afterwards (torch 2.13): the audit's
    fixed-point search then raised; the norms must not switch threads."""
    threads = torch.get_num_threads()
    PairNorms(_matrices(10)).max()
    spectral(_matrices(11))
    g = torch.Generator().manual_seed(12)
    A = torch.randn(64, 128, 128, generator=g, dtype=torch.float64)
    _, info = torch.linalg.solve_ex(A, torch.randn(64, 128, generator=g, dtype=torch.float64))
    assert torch.get_num_threads() == threads and int(info.abs().sum()) == 0


def test_a_failing_assumption_is_explained_once_and_later_claims_refer_to_it():
    from rnnaudit.auditing.notes import assumption_notes

    eta = {"name": "η < 1", "holds": False, "detail": "η = max ‖∂h_t/∂h_{t−1}‖₂ = 4.06"}
    other = {"name": "η < 1", "holds": False, "detail": "η = max ‖∂h_t/∂h_{t−1}‖₂ = 2.5"}
    claims = [{"id": f"p.{k}", "applies": True, "assumptions": [a]} for k, a in enumerate((eta, eta, other))]
    notes = assumption_notes({"claims": claims, "diagnostics": []})
    assert "4.06" in notes[0]["line"] and "see" not in notes[0]
    assert notes[1]["see"] == "p.0" and "4.06" not in notes[1]["line"]
    assert "2.5" in notes[2]["line"] and "see" not in notes[2]  # a different value is its own finding


def test_the_step_norm_label_names_the_state_or_block_the_layer_and_the_sequences():
    from rnnaudit.analysis.norms import step_norm_name

    assert step_norm_name("h (256)") == "max ‖∂h_t/∂h_{t−1}‖₂"
    assert step_norm_name("h (150), c (150)", "all 8 sequences") == \
        "max ‖∂s_t/∂s_{t−1}‖₂ of s = h (150), c (150) (over all 8 sequences)"
    assert "l1.c (3)" in step_norm_name("the packed state [l0.h (3) | l1.h (3) | l0.c (3) | l1.c (3)]")
    assert step_norm_name(block="h block", part="layer 1", over="all 8 sequences") == \
        "max ‖∂h_t/∂h_{t−1}‖₂ (layer 1; h block, the rest of the state held fixed; over all 8 sequences)"
    assert step_norm_name(block="state h", part="layer 0, reverse") == "max ‖∂h_t/∂h_{t−1}‖₂ (layer 0, reverse)"
    assert step_norm_name(block="(h, c) state", part="layer 0") == \
        "max ‖∂s_t/∂s_{t−1}‖₂ (layer 0; s = the whole (h, c) state)"


@pytest.mark.parametrize("make", [lambda: nn.LSTM(3, 5, num_layers=2, batch_first=True),
                                  lambda: nn.GRU(3, 4, batch_first=True)])
def test_the_diagnostics_read_the_claims_maps_and_equal_their_own_computation(make):
    """Each layer's step Jacobians are diagonal blocks of the packed state's (layer below held as input): the
    audit's diagnostics, from those blocks, equal state_diagnostics forming its own Jacobians per layer."""
    import rnnaudit
    from rnnaudit.analysis.diagnostics import state_diagnostics
    from rnnaudit.auditing.layers import recurrences
    from rnnaudit.cells.copying import probe_copy

    torch.manual_seed(0)
    model = make()
    x = torch.randn(3, 12, 3, dtype=torch.float64)
    audited = rnnaudit.audit(model, x, measure_bounds=False)["diagnostics"]
    for d, part in zip(audited, recurrences(probe_copy(model), x), strict=True):
        own = state_diagnostics(part.cell, part.inputs, max_sequences=3)
        assert d["sequences"] == 3 and d["contractivity"] == pytest.approx(own.contractivity, rel=1e-12)
        assert d["horizon"] == own.horizon and d["contractivity_at"] == list(own.contractivity_at)


def test_the_audit_estimate_counts_the_per_step_work_that_dominates_at_small_widths(tmp_path, capsys):
    """A GRU(6) on 4 sequences of T = 30000: its linear algebra is about a second, but the claims step through
    every sequence in Python (about 200 small operations per sequence-step): 4·30000·200 operations of 10 µs is
    240 s, and that is what the estimate says, so --max-minutes 1 refuses the audit before it starts (it ran for
    minutes with an estimate of 0.35 s)."""
    from rnnaudit.auditing.cost import audit_cost
    from rnnaudit.cells.adapters import wrap
    from tests.conftest import cli_status

    est = audit_cost(wrap(nn.GRU(2, 6)), 30000, 4, claims=10, seconds_per_gemm=1e-7, seconds_per_op=1e-5,
                     memory_limit=2 ** 34)
    assert est.step_seconds == pytest.approx(4 * 30000 * 200 * 1e-5)
    assert est.seconds >= est.step_seconds and "s of per-step work" in est.describe()
    torch.save(nn.GRU(2, 6).state_dict(), tmp_path / "gru.pt")
    assert cli_status(["audit", "--weights", str(tmp_path / "gru.pt"), "--T", "30000", "--max-minutes", "1",
                       "--out", str(tmp_path / "a")]) == 2
    captured = capsys.readouterr()
    assert "estimate: audit of" in captured.out and not (tmp_path / "a").exists()
    assert len(captured.err.strip().splitlines()) == 1 and "--max-minutes" in captured.err, captured.err


@pytest.mark.parametrize("T", [1, 9, 40])
def test_the_maps_end_to_end_norm_is_the_chain_products_norm(T):
    """‖∂h_T/∂h_0‖₂ read from the map's product schedule (the pair (0, T)) equals the norm of J_T ⋯ J_1 multiplied out
    on its own, to 1e-14 relative (the same products in the same order; only the sign of a zero may differ)."""
    case = arch.sample_arch(torch.Generator().manual_seed(T), "lstm", 6, T, layers=2)
    J = arch.step_jacobians(case)[0]
    P = J[0]
    for t in range(1, T):
        P = J[t] @ P
    with arch.shared_maps():
        value = arch.step_map(case).end_to_end()
    assert float(value) == pytest.approx(float(spectral(P)), rel=1e-14)
