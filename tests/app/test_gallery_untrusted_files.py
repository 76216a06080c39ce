"""The gallery readers (rnnaudit/gallery/) given a path: every size a file claims is checked before anything is
allocated, and a tensor the network does not have, non-finite weights, an initializer shorter than its shape or
stored as external data are each one InputError naming the file and the tensor. Each file is built here from the
reader's own table of shapes; a control file of the same build loads."""

import io
import zipfile

import numpy as np
import pytest
import torch

from rnnaudit.gallery import beatnet, g2p_en
from rnnaudit.untrusted import InputError


def _g2p_file(path, **override):
    rng = np.random.default_rng(0)
    arrays = {k: rng.standard_normal(shape) * 0.1 for k, shape in g2p_en._SHAPES.items()}
    arrays.update(override)
    np.savez(path, **arrays)
    return path


def test_g2p_npy_headers_claiming_huge_arrays_are_refused_before_numpy_allocates(tmp_path):
    path = tmp_path / "huge.npz"
    with zipfile.ZipFile(path, "w") as archive:
        for name in g2p_en._SHAPES:
            buf = io.BytesIO()
            np.lib.format.write_array_header_1_0(buf, {"descr": "<f8", "fortran_order": False, "shape": (2 ** 40,)})
            archive.writestr(f"{name}.npy", buf.getvalue() + b"\0" * 64)
    with pytest.raises(InputError, match=r"huge\.npz: enc_\w+ is float64 \(1099511627776,\), expected floating"):
        g2p_en.load_encoder(path)
    right_shape = tmp_path / "short.npz"  # the right shape, with fewer bytes than it claims
    with zipfile.ZipFile(right_shape, "w") as archive:
        for name, shape in g2p_en._SHAPES.items():
            buf = io.BytesIO()
            np.lib.format.write_array_header_1_0(buf, {"descr": "<f8", "fortran_order": False, "shape": shape})
            archive.writestr(f"{name}.npy", buf.getvalue() + b"\0" * 64)
    with pytest.raises(InputError, match=r"claims \d+ bytes, but its member of the archive holds \d+"):
        g2p_en.load_encoder(right_shape)
    gru, embedding = g2p_en.load_encoder(_g2p_file(tmp_path / "good.npz"))  # control
    assert embedding.shape == (29, 256) and gru.weight_hh_l0.dtype == torch.float64


def test_a_g2p_path_larger_than_the_gallerys_limit_is_refused_before_reading(tmp_path, monkeypatch):
    from rnnaudit.gallery import installed

    path = _g2p_file(tmp_path / "good.npz")
    monkeypatch.setattr(installed, "MAX_WEIGHT_FILE_BYTES", path.stat().st_size - 1)
    with pytest.raises(InputError, match=r"good\.npz: \d+ bytes, above the \d+ a gallery weight file may have"):
        g2p_en.load_encoder(path)


def _beatnet_state():
    gen = torch.Generator().manual_seed(0)
    return {k: torch.randn(shape, generator=gen, dtype=torch.float64) * 0.1 for k, shape in beatnet._SHAPES.items()}


def test_a_beatnet_file_with_a_tensor_the_network_lacks_is_one_line_naming_it(tmp_path):
    state = _beatnet_state()
    torch.save(state, tmp_path / "good.pt")
    front, lstm, head = beatnet.load(tmp_path / "good.pt")  # control
    assert torch.equal(lstm.weight_hh_l1, state["lstm.weight_hh_l1"])
    state["lstm.weight_hh_l7"] = torch.zeros(3)
    torch.save(state, tmp_path / "extra.pt")
    with pytest.raises(InputError, match=r"extra\.pt: unexpected tensor 'lstm\.weight_hh_l7'; expected BeatNet's"):
        beatnet.load(tmp_path / "extra.pt")


def test_beatnet_weights_with_nan_are_refused_as_g2p_refuses_them(tmp_path):
    state = _beatnet_state()
    state["lstm.weight_hh_l0"][3, 4] = float("nan")
    torch.save(state, tmp_path / "nan.pt")
    with pytest.raises(InputError, match=r"nan\.pt: lstm\.weight_hh_l0 has non-finite entries"):
        beatnet.load(tmp_path / "nan.pt")
    with pytest.raises(InputError, match=r"enc_w_hh has non-finite entries"):
        g2p_en.load_encoder(_g2p_file(tmp_path / "nan.npz", enc_w_hh=np.full((768, 256), np.nan)))


@pytest.fixture
def silero_file(tmp_path):
    """make(change) writes an ONNX model holding silero-vad's initializers (random values), after ``change`` edits
    the list of TensorProtos; returns its path."""
    onnx = pytest.importorskip("onnx")
    from onnx import helper, numpy_helper

    def make(change=lambda inits: None, name="m.onnx"):
        rng = np.random.default_rng(0)
        from rnnaudit.gallery import silero_vad

        inits = [numpy_helper.from_array((rng.standard_normal(shape) * 0.1).astype(np.float32), k)
                 for k, shape in silero_vad._SHAPES.items()]
        change({i.name: i for i in inits})
        graph = helper.make_graph([], "g", [], [], initializer=inits)
        onnx.save(helper.make_model(graph), tmp_path / name)
        return tmp_path / name

    return make


def test_a_silero_initializer_shorter_than_its_shape_or_stored_outside_is_one_line_naming_it(silero_file):
    import onnx

    from rnnaudit.gallery import silero_vad

    encoder, lstm, out = silero_vad.load(silero_file())  # control
    assert lstm.weight_hh_l0.shape == (512, 128)

    def short(inits):
        inits["model.decoder.rnn.weight_hh"].raw_data = inits["model.decoder.rnn.weight_hh"].raw_data[:100]

    with pytest.raises(InputError, match=r"short\.onnx: initializer model\.decoder\.rnn\.weight_hh holds data that "
                                         r"does not fill its shape"):
        silero_vad.load(silero_file(short, "short.onnx"))

    def external(inits):
        init = inits["model.decoder.rnn.bias_hh"]
        init.ClearField("raw_data")
        init.data_location = onnx.TensorProto.EXTERNAL
        entry = init.external_data.add()
        entry.key, entry.value = "location", "/etc/hostname"

    with pytest.raises(InputError, match=r"external\.onnx: initializer model\.decoder\.rnn\.bias_hh is stored as "
                                         r"external data"):
        silero_vad.load(silero_file(external, "external.onnx"))

    def nan(inits):
        from onnx import numpy_helper

        init = inits["model.decoder.rnn.weight_hh"]
        init.CopyFrom(numpy_helper.from_array(np.full((512, 128), np.nan, dtype=np.float32), init.name))

    with pytest.raises(InputError, match=r"initializer model\.decoder\.rnn\.weight_hh has non-finite entries"):
        silero_vad.load(silero_file(nan, "nan.onnx"))
