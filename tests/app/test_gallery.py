"""The gallery reads each package's installed weight file, as data, into the equivalent float64 torch module,
which reproduces the package's own forward pass in float64; a weight changed by 1e-6 is seen by the same
comparison; the audit's numbers on these models are the ones recomputed here independently.

Each test skips where its package is not installed (the ``gallery`` extra, which the ``test`` extra includes)."""

import copy
import importlib.metadata
import subprocess
import sys

import numpy as np
import pytest
import torch

#: Largest difference accepted between our float64 module and the package's float64 forward pass. Both evaluate
#: the same arithmetic in another order: T ≤ 62 steps of dot products of length ≤ 272 on values of order 10, so
#: rounding is below T · n · 10 · 2⁻⁵³ ≈ 2e-11 with room to spare; a wrong gate order or transposed weight
#: differs by O(0.1) and a weight changed by 1e-6 by ~1e-7 (the controls below).
REFERENCE_TOL = 1e-10


def _installed(distribution: str) -> None:
    try:
        importlib.metadata.distribution(distribution)
    except importlib.metadata.PackageNotFoundError:
        pytest.skip(f"{distribution} is not installed (pip install -e '.[gallery]')")


def test_g2p_en_encoder_gru_reproduces_the_packages_own_grucell_and_a_changed_weight_does_not():
    _installed("g2p-en")
    from rnnaudit.gallery import g2p_en

    model = g2p_en.extract(word="cat")
    assert model.inputs.shape == (1, 4, 256) and model.rnn.weight_hh_l0.dtype == torch.float64
    assert model.reference_error <= REFERENCE_TOL
    changed = copy.deepcopy(model.rnn)
    with torch.no_grad():
        changed.weight_hh_l0[0, :] += 1e-6
        ours = changed(model.inputs)[0][0].numpy()
    assert np.abs(ours - g2p_en.package_encoder(model.rnn, model.inputs)).max() > REFERENCE_TOL


def test_g2p_en_is_read_without_importing_the_package_whose_import_downloads_nltk_data():
    _installed("g2p-en")
    code = ("import sys; from rnnaudit.gallery import g2p_en; m = g2p_en.extract('cat'); "
            "print(m.reference_error, 'g2p_en' in sys.modules, 'nltk' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    error, g2p_imported, nltk_imported = out.stdout.split()
    assert float(error) <= REFERENCE_TOL and (g2p_imported, nltk_imported) == ("False", "False")


def test_beatnet_stacked_lstm_reproduces_the_packages_own_forward_and_a_changed_weight_does_not():
    _installed("BeatNet")
    from rnnaudit.gallery import beatnet

    model = beatnet.extract(T=20)
    assert model.rnn.num_layers == 2 and model.inputs.shape == (1, 20, 150)
    assert model.reference_error <= REFERENCE_TOL
    front, lstm, head = beatnet.load()
    feats = beatnet.click_track_features(20)
    with torch.no_grad():
        lstm.weight_hh_l1[0, :] += 1e-6
        ours = head(lstm(front(feats))[0]).transpose(1, 2)
    assert (ours - beatnet.package_forward(feats)).abs().max() > REFERENCE_TOL


def test_beatnet_whole_model_pickle_is_refused_and_never_run():
    _installed("BeatNet")
    from rnnaudit.gallery import beatnet
    from rnnaudit.gallery.installed import installed_file
    from rnnaudit.untrusted import InputError

    with pytest.raises(InputError, match="model-1.pt"):
        beatnet.load(installed_file("BeatNet", "BeatNet/models/model-1.pt"))


def test_silero_vad_lstm_reproduces_its_onnx_graph_evaluated_in_float64_and_a_changed_weight_does_not():
    _installed("silero-vad")
    pytest.importorskip("onnx")
    from rnnaudit.gallery import silero_vad

    model = silero_vad.extract(seconds=0.25)
    assert model.inputs.shape == (1, 7, 128) and model.reference_error <= REFERENCE_TOL
    assert ((0 <= model.extra["speech_probs"]) & (model.extra["speech_probs"] <= 1)).all()
    encoder, lstm, out = silero_vad.load()
    x = silero_vad.chunks(silero_vad.voiced_signal(0.25))
    with torch.no_grad():
        lstm.weight_hh_l0[0, :] += 1e-6
        _, (h, c) = lstm(encoder(x))
    theirs = silero_vad.package_forward(x)["state"]
    assert np.abs(torch.cat([h, c]).numpy() - theirs).max() > REFERENCE_TOL


def test_a_missing_package_is_named_with_the_extra_that_installs_it():
    from rnnaudit.gallery.installed import NotInstalled, installed_file

    with pytest.raises(NotInstalled, match=r"no-such-gallery-package is not installed .*rnnaudit\[gallery\]"):
        installed_file("no-such-gallery-package", "x/weights.npz")


def _step_norms_gru(gru: torch.nn.GRU, x: torch.Tensor) -> torch.Tensor:
    """‖∂h_t/∂h_{t−1}‖₂ for t = 1..T of a one-layer GRU on x (1, T, n), by torch.func.jacrev of torch's own
    GRUCell."""
    cell = torch.nn.GRUCell(gru.input_size, gru.hidden_size).double()
    cell.load_state_dict({k[:-3]: v for k, v in gru.state_dict().items()})
    h, norms = torch.zeros(gru.hidden_size, dtype=torch.float64), []
    for t in range(x.shape[1]):
        J = torch.func.jacrev(lambda s: cell(x[0, t], s))(h)
        norms.append(torch.linalg.matrix_norm(J, 2))
        h = cell(x[0, t], h).detach()
    return torch.stack(norms)


@pytest.mark.slow
def test_the_audit_of_the_g2p_gru_reports_the_norms_recomputed_here():
    _installed("g2p-en")
    import rnnaudit
    from rnnaudit.gallery import g2p_en

    model = g2p_en.extract(word="audit")  # T = 6
    report = rnnaudit.audit(model.rnn, model.inputs, trained_dtype=torch.float32)
    W_hr, W_hz, W_hn = model.rnn.weight_hh_l0.detach().chunk(3)
    for name, W in (("W_hr", W_hr), ("W_hz", W_hz), ("W_hn", W_hn)):
        assert report["model"]["recurrent"][name]["spectral_norm"] == pytest.approx(
            torch.linalg.matrix_norm(W, 2).item(), rel=1e-9)
    (d,) = report["diagnostics"]
    steps = _step_norms_gru(model.rnn, model.inputs)
    assert d["contractivity"] == pytest.approx(steps.max().item(), rel=1e-8)
    assert d["contractivity_at"][1] == int(steps.argmax()) + 1
    assert any(c["applies"] for c in report["claims"]) and all(c["applies"] or c["reason"] for c in report["claims"])
    assert report["fixed_points"][0]["n_starts"] > 0


@pytest.mark.slow
def test_the_audit_of_stacked_lstms_reports_each_layer_and_the_norms_recomputed_here():
    """BeatNet's LSTM on 4 frames and the digits LSTM (a few training steps): one diagnostics entry per layer,
    the gate blocks' ‖W‖₂ as torch.linalg computes them."""
    _installed("BeatNet")
    import rnnaudit
    from rnnaudit.gallery import beatnet, digits_lstm

    pytest.importorskip("sklearn")
    for model in (beatnet.extract(T=4), digits_lstm.extract(steps=5, n_sequences=2)):
        x = model.inputs[:, :4]
        report = rnnaudit.audit(model.rnn, x, trained_dtype=torch.float32)
        assert [d["part"] for d in report["diagnostics"]] == ["layer 0", "layer 1"]
        recurrent = report["model"]["recurrent"]
        for layer in (0, 1):
            blocks = getattr(model.rnn, f"weight_hh_l{layer}").detach().chunk(4)
            norms = sorted(torch.linalg.matrix_norm(W, 2).item() for W in blocks)
            reported = sorted(v["spectral_norm"] for k, v in recurrent.items() if k.startswith(f"l{layer}."))
            assert reported == pytest.approx(norms, rel=1e-9), (model.name, layer, list(recurrent))


def test_a_corrupt_or_non_finite_g2p_checkpoint_is_one_input_error(tmp_path):
    from rnnaudit.gallery import g2p_en
    from rnnaudit.untrusted import InputError

    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"PK\x03\x04garbage")
    with pytest.raises(InputError, match="not a readable npz"):
        g2p_en.load_encoder(bad)
    nan = tmp_path / "nan.npz"
    np.savez(nan, enc_emb=np.full((29, 256), np.nan), enc_w_ih=np.zeros((768, 256)), enc_w_hh=np.zeros((768, 256)),
             enc_b_ih=np.zeros(768), enc_b_hh=np.zeros(768))
    with pytest.raises(InputError, match="enc_emb has non-finite entries"):
        g2p_en.load_encoder(nan)


@pytest.mark.parametrize("kwargs, match", [({"T": 0}, "T must be a positive int"), ({"T": -3}, "T must be"),
                                           ({"T": 20, "bpm": 0}, "bpm must be"),
                                           ({"T": 20, "bpm": float("nan")}, "bpm must be")])
def test_synthetic_beat_features_refuse_what_has_no_frames_or_no_tempo(kwargs, match):
    from rnnaudit.gallery import beatnet

    with pytest.raises(ValueError, match=match):
        beatnet.click_track_features(**kwargs)


@pytest.mark.parametrize("seconds", [-1.0, 0.0, float("nan"), float("inf")])
def test_a_synthetic_voice_signal_refuses_a_duration_without_samples(seconds):
    from rnnaudit.gallery import silero_vad

    with pytest.raises(ValueError, match="seconds must be a finite duration"):
        silero_vad.voiced_signal(seconds)
