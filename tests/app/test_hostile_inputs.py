"""A hostile corpus for the command line: every kind of file rnnaudit reads, valid, empty, truncated,
garbage, tampered and malicious, and bad flags and paths. Every case must end with exit status 0 or 2,
one line on stderr for 2, no traceback, no hang, no payload executed, nothing written outside the
output directory."""

import copy
import json
import os
import pickle
import shutil
import signal
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import torch

from rnnaudit.bounds import Profile, check_claim
from rnnaudit.bounds.sgornn import eq31
from rnnaudit.training import TrainConfig, train
from tests.conftest import cli_status

MARKER = "PAYLOAD_RAN"


class _Payload:
    """Unpickling this runs ``touch PAYLOAD_RAN`` in the current directory."""

    def __reduce__(self):
        return (os.system, (f"touch {MARKER}",))


class Hang(BaseException):
    """Raised by the alarm: a case that runs past its time limit."""


@dataclass
class Corpus:
    root: Path
    run: Path
    checkpoint: Path
    counterexample: Path
    files: dict[str, Path]
    modules: Path  # user model modules, copied into the working directory of the --model cases


def _write_pt(path: Path, obj) -> Path:
    torch.save(obj, path)
    return path


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Corpus:
    root = tmp_path_factory.mktemp("corpus")
    run = root / "run"
    train(TrainConfig(cell="sgornn", T=5, hidden_size=4, batch=2, steps=6, record_every=2, checkpoint_every=2,
                      val_batches=1), run, progress=False)
    checkpoint = run / "checkpoints" / "step_00000006.pt"
    result = check_claim(eq31, Profile("quick", n_random=3, restarts=0, ascent_steps=0), out_dir=root / "ce")
    counterexample = Path(result.counterexample)
    valid_ckpt = torch.load(checkpoint, weights_only=True)
    valid_ce = torch.load(counterexample, weights_only=True)
    raw = checkpoint.read_bytes()
    f: dict[str, Path] = {}
    d = root / "files"
    d.mkdir()
    # generic bad .pt files
    (d / "empty.pt").write_bytes(b"")
    (d / "truncated.pt").write_bytes(raw[: len(raw) // 2])
    (d / "garbage.pt").write_bytes(os.urandom(4096))
    (d / "json.pt").write_text('{"format": "rnnaudit-checkpoint-1"}')
    (d / "plain-pickle.pt").write_bytes(pickle.dumps({"a": 1}))
    (d / "malicious-raw.pt").write_bytes(pickle.dumps(_Payload()))
    _write_pt(d / "malicious-zip.pt", {"format": "rnnaudit-checkpoint-1", "config": _Payload()})
    _write_pt(d / "tensor.pt", torch.zeros(3))
    for name in ("empty", "truncated", "garbage", "json", "plain-pickle", "malicious-raw", "malicious-zip",
                 "tensor"):
        f[f"pt:{name}"] = d / f"{name}.pt"
    (d / "a-directory.pt").mkdir()
    f["pt:directory"] = d / "a-directory.pt"
    f["pt:missing"] = d / "missing.pt"

    # tampered checkpoints: loadable, wrong inside
    def ckpt(name, change):
        payload = copy.deepcopy(valid_ckpt)
        change(payload)
        f[f"ckpt:{name}"] = _write_pt(d / f"ckpt-{name}.pt", payload)

    ckpt("format", lambda p: p.update(format="other"))
    ckpt("no-config", lambda p: p.pop("config"))
    ckpt("bogus-cell", lambda p: p["config"].update(cell="nosuch"))
    ckpt("bogus-task", lambda p: p["config"].update(task="nosuch"))
    ckpt("string-T", lambda p: p["config"].update(T="100"))
    ckpt("huge-T", lambda p: p["config"].update(T=10**9))
    ckpt("huge-hidden", lambda p: p["config"].update(hidden_size=10**6))
    ckpt("negative-batch", lambda p: p["config"].update(batch=-3))
    ckpt("wrong-shape", lambda p: p["model"].update({"cell.W": torch.zeros(7, 7)}))
    ckpt("missing-key", lambda p: p["model"].pop("cell.W"))
    ckpt("extra-key", lambda p: p["model"].update({"cell.bogus": torch.zeros(1)}))
    ckpt("nan-parameter", lambda p: p["model"]["cell.W"].fill_(float("nan")))
    ckpt("permutation-out-of-range", lambda p: p["model"]["cell.phi.permutations"].fill_(99))
    ckpt("permutation-repeated", lambda p: p["model"]["cell.phi.permutations"].fill_(0))
    ckpt("step-string", lambda p: p.update(step="four"))
    ckpt("step-negative", lambda p: p.update(step=-4))
    ckpt("model-list", lambda p: p.update(model=[1, 2]))
    ckpt("config-list", lambda p: p.update(config=[1, 2]))
    ckpt("bad-optimizer", lambda p: p.update(optimizer={"state": 3}))
    ckpt("bad-rng", lambda p: p.update(data_rng=torch.zeros(2)))
    ckpt("lr-string", lambda p: p["config"].update(lr="fast"))
    ckpt("cell-kwargs-bogus", lambda p: p["config"].update(cell_kwargs={"nosuch": 1}))

    # tampered counterexamples
    def ce(name, change):
        payload = copy.deepcopy(valid_ce)
        change(payload)
        f[f"ce:{name}"] = _write_pt(d / f"ce-{name}.pt", payload)

    ce("unknown-claim", lambda p: p.update(claim_id="sgornn.theorem99"))
    ce("old-format", lambda p: p.pop("format"))
    ce("ratio-string", lambda p: p.update(ratio="big"))
    ce("case-missing-field", lambda p: p["case"].pop("x"))
    ce("case-extra-field", lambda p: p["case"].update(bogus=1))
    ce("module-type", lambda p: p["case"]["cell"].update({"__module__": "os.system"}))
    ce("huge-hidden", lambda p: p["case"]["cell"]["config"].update(hidden_size=10**9))
    ce("huge-T", lambda p: p["case"].update(x=torch.zeros(1, 2, 2)) or p["case"]["cell"]["config"].update(k=10**9))
    ce("wrong-input-width", lambda p: p["case"].update(x=torch.zeros(1, 5, 17, dtype=torch.float64)))
    ce("params-shape", lambda p: p["case"]["cell"]["params"].update({"W": torch.zeros(9, 9)}))
    ce("case-not-dict", lambda p: p.update(case=[1, 2, 3]))
    ce("claim-id-int", lambda p: p.update(claim_id=7))

    # run directories with bad files inside
    def run_dir(name, change):
        target = root / "runs" / name
        target.mkdir(parents=True)
        for src in run.rglob("*"):
            dest = target / src.relative_to(run)
            if src.is_dir():
                dest.mkdir(exist_ok=True)
            elif not src.name.endswith(".lock"):
                dest.write_bytes(src.read_bytes())
        change(target)
        f[f"run:{name}"] = target

    run_dir("latest-traversal", lambda r: (r / "checkpoints" / "latest.txt").write_text("../../../../etc/passwd\n"))
    run_dir("latest-garbage", lambda r: (r / "checkpoints" / "latest.txt").write_bytes(b"\xff\xfe\x00garbage"))
    run_dir("latest-empty", lambda r: (r / "checkpoints" / "latest.txt").write_text(""))
    run_dir("latest-missing-target", lambda r: (r / "checkpoints" / "latest.txt").write_text("step_00000999.pt\n"))
    run_dir("no-checkpoints", lambda r: [p.unlink() for p in (r / "checkpoints").iterdir()])
    run_dir("trajectory-bad-line-3", lambda r: _replace_line(r / "trajectory.jsonl", 2, "{not json\n"))
    run_dir("trajectory-array-line", lambda r: _replace_line(r / "trajectory.jsonl", 0, "[1, 2]\n"))
    run_dir("trajectory-string-value", lambda r: _replace_line(r / "trajectory.jsonl", 1,
                                                               '{"step": 4, "loss": "nan-ish"}\n'))
    run_dir("trajectory-no-step", lambda r: _replace_line(r / "trajectory.jsonl", 0, '{"loss": 1.0}\n'))
    run_dir("trajectory-binary", lambda r: (r / "trajectory.jsonl").write_bytes(os.urandom(300) + b"\n"))
    run_dir("trajectory-missing", lambda r: (r / "trajectory.jsonl").unlink())
    run_dir("run-json-garbage", lambda r: (r / "run.json").write_text("garbage{"))
    run_dir("run-json-array", lambda r: (r / "run.json").write_text("[]"))
    run_dir("run-json-wrong-types", lambda r: (r / "run.json").write_text(json.dumps({"T": "x", "steps": [1]})))
    run_dir("checkpoint-malicious", lambda r: (r / "checkpoints" / "step_00000006.pt").write_bytes(
        pickle.dumps(_Payload())))

    # sweep specs
    specs = {
        "not-json.json": "{", "not-toml.toml": "= = =", "array.json": "[1]", "no-grid.json": '{"out": "x"}',
        "grid-not-table.json": '{"out": "x", "grid": [1]}', "axis-not-list.json": '{"out": "x", "grid": {"T": 5}}',
        "axis-empty.json": '{"out": "x", "grid": {"T": []}}', "unknown-field.json": '{"out": "x", "grid": {"Q": [1]}}',
        "bad-value.json": '{"out": "x", "grid": {"T": ["long"]}}', "huge-T.json": '{"out": "x", "grid": {"T": [1e12]}}',
        "huge-grid.json": json.dumps({"out": "x", "grid": {"seed": list(range(200)), "T": list(range(1, 200))}}),
        "bad-preset.json": '{"out": "x", "base": {"preset": "nosuch"}, "grid": {"T": [2]}}',
        "base-not-table.json": '{"out": "x", "base": 3, "grid": {"T": [2]}}',
        "slash-in-name.json": '{"out": "x", "grid": {"cell": ["../../evil"]}}',
        "yaml.yaml": "out: x", "binary.json": "\udcff",
    }
    for name, text in specs.items():
        (d / name).write_bytes(text.encode("utf-8", "surrogateescape"))
        f[f"spec:{name}"] = d / name

    # a user's own model: weights and inputs files, model modules
    gru = torch.nn.GRU(2, 3, batch_first=True)
    good = gru.state_dict()
    user = {
        "gru-weights": good, "gru-nan-weights": {k: torch.full_like(v, float("nan")) for k, v in good.items()},
        "gru-wrong-shape": {**good, "weight_hh_l0": torch.zeros(5, 5)}, "gru-missing-key": {
            k: v for k, v in good.items() if k != "weight_hh_l0"},
        "gru-extra-key": {**good, "bogus": torch.zeros(1)}, "not-a-dict": torch.zeros(3),
        "inputs-ok": torch.zeros(1, 4, 2), "inputs-wrong-width": torch.zeros(1, 4, 7),
        "inputs-rank-4": torch.zeros(1, 1, 4, 2), "inputs-nan": torch.full((1, 4, 2), float("nan")),
        "inputs-int": torch.zeros(1, 4, 2, dtype=torch.int64), "inputs-empty": torch.zeros(1, 0, 2),
        "inputs-dict": {"x": torch.zeros(1, 4, 2)}, "inputs-huge-T": torch.zeros(1, 1, 2).expand(1, 10**6, 2),
        # a few KB describing 240 GB and 104 GB of float64: refused from the shapes, before any allocation
        "gru-expanded-bomb": {"weight_ih_l0": torch.zeros(1, 1).expand(300_000, 2),
                              "weight_hh_l0": torch.zeros(1, 1).expand(300_000, 100_000),
                              "bias_ih_l0": torch.zeros(1).expand(300_000),
                              "bias_hh_l0": torch.zeros(1).expand(300_000)},
        "inputs-expanded-bomb": torch.zeros(1, 1, 1).expand(6500, 10**6, 2),
    }
    for name, value in user.items():
        f[f"user:{name}"] = _write_pt(d / f"user-{name}.pt", value)
    (d / "user-malicious.pt").write_bytes(pickle.dumps(_Payload()))
    f["user:malicious"] = d / "user-malicious.pt"
    modules = {"raises_on_import": "raise RuntimeError('boom at import')\n",
               "syntax_error": "def f(:\n", "factory_raises": "def make():\n    raise ValueError('boom')\n",
               "not_a_module": "def make():\n    return 42\n", "no_recurrence": "import torch\n"
               "def make():\n    return torch.nn.Linear(2, 3)\n", "takes_args": "import torch\n"
               "def make(size):\n    return torch.nn.GRU(2, size)\n", "exits": "import sys\nsys.exit(3)\n"}
    for name, text in modules.items():
        (d / "modules").mkdir(exist_ok=True)
        (d / "modules" / f"{name}.py").write_text(text)
    return Corpus(root, run, checkpoint, counterexample, f, d / "modules")


def _replace_line(path: Path, index: int, line: str) -> None:
    lines = path.read_text().splitlines(keepends=True)
    lines[index] = line
    path.write_text("".join(lines))


def _cases(c: Corpus) -> list[tuple[str, list[str]]]:
    """(name, argv) of every hostile case; ``{out}`` stands for the case's own output directory."""
    out = []
    pts = [k for k in c.files if k.startswith(("pt:", "ckpt:"))]
    for key in pts:
        p = str(c.files[key])
        out += [(f"audit {key}", ["audit", p, "--out", "{out}"]),
                (f"heatmap {key}", ["heatmap", p, "--out", "{out}.png"]),
                (f"spectrum {key}", ["spectrum", p, "--out", "{out}.png"])]
    for key in [k for k in c.files if k.startswith("ce:")] + [k for k in c.files if k.startswith("pt:")]:
        out.append((f"reproduce {key}", ["reproduce", str(c.files[key])]))
    for key in [k for k in c.files if k.startswith("ce:")]:  # a counterexample where a checkpoint is expected
        out += [(f"audit {key}", ["audit", str(c.files[key]), "--out", "{out}"]),
                (f"heatmap {key}", ["heatmap", str(c.files[key]), "--out", "{out}.png"])]
    for key in [k for k in c.files if k.startswith("run:")]:
        r = str(c.files[key])
        out += [(f"audit {key}", ["audit", r, "--out", "{out}"]),
                (f"heatmap {key}", ["heatmap", r, "--T", "5", "--out", "{out}.png"]),
                (f"compare {key}", ["compare", r, "--out", "{out}.png"]),
                (f"spectrum {key}", ["spectrum", r, "--out", "{out}.png"]),
                (f"resume {key}", ["train", "--cell", "sgornn", "--T", "5", "--hidden", "4", "--batch", "2",
                                   "--steps", "6", "--record-every", "2", "--checkpoint-every", "2",
                                   "--val-batches", "1", "--out", r, "--resume"])]
    for key in [k for k in c.files if k.startswith("spec:")]:
        out.append((f"sweep {key}", ["sweep", str(c.files[key])]))
    run, ckpt, ce = str(c.run), str(c.checkpoint), str(c.counterexample)
    flags = [
        ["check", "--seed", str(2**64)], ["check", "--seed", "-1"], ["check", "--seed", "1.5"], ["check", "--paper"],
        ["check", "--paper", "nosuch"], ["check", "--quick", "--full"], ["check", "--device", "tpu"],
        ["check", "--out", ckpt], ["check", "--out", "a" * 300], ["check", "--out", str(c.root / "files")],
        ["check", "--bogus"], ["train", "--lr", "1e308"], ["train", "--lr", "nan"], ["train", "--lr", "-1"],
        ["train", "--lr", "inf"], ["train", "--T", "0"], ["train", "--T", "-5"], ["train", "--T", "1e3"],
        ["train", "--T", "x"], ["train", "--hidden", "8x"], ["train", "--hidden", str(10**7), "--out", "{out}"],
        ["train", "--steps", str(10**13), "--out", "{out}"], ["train", "--batch", str(10**9), "--out", "{out}"],
        ["train", "--T", str(10**8), "--out", "{out}"], ["train", "--seed", str(2**70)], ["train", "--cell", "x"],
        ["train", "--task", "x"], ["train", "--preset", "x"], ["train", "--resume", "--overwrite"],
        ["train", "--preset", "enrnn-adding", "--hidden", "8", "--steps", "1", "--out", "{out}"],
        ["train", "--out", run, "--T", "5"], ["train", "--out", ckpt], ["train", "--out", "{out}", "--resume"],
        ["train", "--out", str(c.root / "files"), "--overwrite"],
        ["heatmap"], ["heatmap", "nosuchcell", "--out", "{out}.png"], ["heatmap", "sgornn", "--out", "{out}.txt"],
        ["heatmap", "sgornn", "--T", "0"], ["heatmap", "sgornn", "--T", str(10**9), "--out", "{out}.png"],
        ["heatmap", "sgornn", "--hidden", str(10**6), "--out", "{out}.png"], ["heatmap", run, "--step", "3",
                                                                              "--out", "{out}.png"],
        ["heatmap", ckpt, "--step", "2", "--out", "{out}.png"], ["heatmap", "sgornn", "--rtol", "2"],
        ["heatmap", "sgornn", "--rtol", "0"], ["heatmap", "sgornn", "--certified", "--rtol", "1e-3"],
        ["heatmap", run, "--task", "copy", "--out", "{out}.png"], ["spectrum", "sgornn", "--out", "{out}.svgx"],
        ["spectrum", "nosuch", "--out", "{out}.png"], ["compare", "--out", "{out}.png"],
        ["compare", str(c.root / "nosuch"), "--out", "{out}.png"], ["compare", ckpt, "--out", "{out}.png"],
        ["compare", run, "--key", "nosuchkey", "--out", "{out}.png"], ["compare", run, "--out", "{out}.jpeg"],
        ["audit"], ["audit", str(c.root / "nosuch")], ["audit", run, "--out", ckpt],
        ["audit", run, "--step", "999", "--out", "{out}"], ["reproduce"], ["reproduce", str(c.root / "nosuch.pt")],
        ["reproduce", ce, "--bogus"], ["sweep", str(c.root / "nosuch.json")], ["sweep", run],
        ["sweep", str(c.files["spec:array.json"]), "--executor", "nosuch"], ["nosuchcommand"], [],
        ["--debugg"], ["check", "--paper", "srnn", "--seed", "one"],
        ["heatmap", "gru", "--hidden", "12000", "--out", "{out}.png"],
        ["heatmap", "gru", "--hidden", "4", "--T", "100000", "--certified", "--out", "{out}.png"],  # all pairs: 149 GiB
    ]
    out += [(f"flags {' '.join(a)[:60]}", a) for a in flags]
    u = {k.removeprefix("user:"): str(v) for k, v in c.files.items() if k.startswith("user:")}
    files = str(c.root / "files")
    for command in ("audit", "heatmap", "spectrum", "lyapunov"):
        dest = ["--out", "{out}" if command == "audit" else "{out}.png"]
        for w in ("gru-nan-weights", "gru-wrong-shape", "gru-missing-key", "gru-extra-key", "not-a-dict",
                  "malicious", "gru-expanded-bomb"):
            out.append((f"{command} --arch gru --weights {w}", [command, "--arch", "gru", "--weights", u[w], *dest]))
        for x in ("inputs-wrong-width", "inputs-rank-4", "inputs-nan", "inputs-int", "inputs-empty", "inputs-dict",
                  "malicious", "inputs-expanded-bomb"):
            out.append((f"{command} --inputs {x}", [command, "--arch", "gru", "--weights", u["gru-weights"],
                                                    "--inputs", u[x], *dest]))
    for argv in (["--arch", "lstm", "--weights", u["gru-weights"]], ["--arch", "rnn", "--weights", u["gru-weights"]],
                 ["--arch", "gru"], ["--weights", u["gru-weights"]], ["--arch", "gru", "--weights", files],
                 ["--arch", "gru", "--weights", u["gru-weights"], "--inputs", u["inputs-huge-T"]],
                 ["--arch", "gru", "--weights", u["gru-weights"], "--task", "copy"],
                 ["--arch", "gru", "--weights", u["gru-weights"], "--inputs", u["inputs-ok"], run],
                 ["--model", "nosuchmodule:make"], ["--model", "no_colon"], ["--model", ":make"],
                 ["--model", f"{files}/modules/syntax_error.py:f"], *(["--model", f"{m}:make"] for m in (
                     "raises_on_import", "syntax_error", "factory_raises", "not_a_module", "no_recurrence",
                     "takes_args", "exits")), ["--model", "os:system"], ["--model", "torch.nn:GRU"]):
        out.append((f"audit {' '.join(argv)[:60]}", ["audit", *argv, "--out", "{out}"]))
    return out


#: How many cases _cases builds: the parametrization below runs exactly these (adding a case means raising it).
N_CASES = 383


def test_the_hostile_corpus_has_enough_cases(corpus):
    assert len(_cases(corpus)) == N_CASES >= 300


def _run_case(argv, tmp_path, monkeypatch, capsys, limit=120, modules: Path | None = None):
    work = tmp_path / "cwd"
    work.mkdir()
    monkeypatch.chdir(work)
    if modules is not None and "--model" in argv:  # the user's modules are imported from the current directory
        for module in modules.glob("*.py"):
            shutil.copy(module, work)
        monkeypatch.setattr(sys, "path", list(sys.path))
    out = tmp_path / "cwd" / "out"
    argv = [a.replace("{out}", str(out)) for a in argv]

    def alarm(signum, frame):
        raise Hang(f"{argv} ran past {limit} s")
    previous = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(limit)
    try:
        status = cli_status(argv)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    captured = capsys.readouterr()
    return status, captured, work, out


@pytest.mark.parametrize("index", range(N_CASES))
def test_hostile_case(index, corpus, tmp_path, monkeypatch, capsys):
    name, argv = _cases(corpus)[index]
    status, captured, work, out = _run_case(argv, tmp_path, monkeypatch, capsys, modules=corpus.modules)
    err = captured.err
    assert "Traceback" not in err and "Traceback" not in captured.out, name
    assert status in (0, 2), (name, status, err[-500:])
    if status == 2:
        lines = [line for line in err.splitlines() if "error:" in line]
        assert len(lines) == 1 and lines[0] == err.strip().splitlines()[-1], (name, err[-500:])
        assert "weights_only=False" not in err, name
    assert not (work / MARKER).exists() and not (corpus.root / MARKER).exists(), name
    written = {p.name for p in work.iterdir() if p.suffix != ".py" and p.name != "__pycache__"}
    # the case's own output, or a command's default output when the case gives none, with its lock file
    outputs = {out.name, f"{out.name}.png", "rnnaudit-check", "rnnaudit-audit", "heatmap.png", "spectrum.png",
               "lyapunov.png", "compare.png", "runs", "submitit-logs"}
    # each figure's data beside it (rnnaudit.figures.saving)
    outputs |= {f"{stem}{suffix}" for stem in (out.name, "heatmap", "spectrum", "lyapunov", "compare")
                for suffix in (".csv", ".npz")}
    allowed = outputs | {f".{name}.lock" for name in outputs}
    assert written <= allowed, (name, written)


# ----------------------------------------------------------------------------------------------
# dtypes, layouts and devices the probes cannot compute with
# ----------------------------------------------------------------------------------------------

_ODD_TENSORS = {
    "float8": (lambda t: t.to(torch.float8_e4m3fn), "float8_e4m3fn"),
    "sparse": (lambda t: t.to_sparse() if t.dim() == 2 else t, "sparse_coo"),
    "meta": (lambda t: t.to("meta"), "meta device"),
}


def _odd_state_dict(kind: str) -> dict:
    torch.manual_seed(0)
    convert = _ODD_TENSORS[kind][0]
    return {k: convert(v.detach().clone()) for k, v in torch.nn.RNN(2, 4, batch_first=True).state_dict().items()}


def _one_error_line(err: str) -> str:
    lines = [line for line in err.strip().splitlines() if line]
    assert len(lines) == 1 and "internal error" not in lines[0] and "Traceback" not in err, err[-600:]
    return lines[0]


@pytest.mark.parametrize("kind,suffix", [(k, ".pt") for k in _ODD_TENSORS] + [("float8", ".safetensors")])
@pytest.mark.parametrize("command", ["spectrum", "heatmap"])
def test_float8_sparse_and_meta_weights_files_get_one_line_naming_the_tensor(tmp_path, capsys, command, kind, suffix):
    """float8, sparse and meta tensors ended in "internal error" (isfinite/ne not implemented, item() of a meta
    tensor); now one line naming the tensor and its dtype or layout, exit 2. Control: the same weights in float32
    draw the figure."""
    sd = _odd_state_dict(kind)
    path = tmp_path / f"w{suffix}"
    if suffix == ".safetensors":  # the format holds dense tensors with values only: float8 is its odd case
        from safetensors.torch import save_file

        save_file({k: v.contiguous() for k, v in sd.items()}, str(path))
    else:
        torch.save(sd, path)
    x = tmp_path / "x.pt"
    torch.save(torch.randn(6, 2, dtype=torch.float64), x)
    inputs = ["--inputs", str(x)] if command == "heatmap" else []
    argv = [command, "--weights", str(path), *inputs, "--out", str(tmp_path / "f.png")]
    assert cli_status(argv) == 2
    line = _one_error_line(capsys.readouterr().err)
    assert "weight_" in line or "bias_" in line, line
    assert _ODD_TENSORS[kind][1] in line, line
    good = tmp_path / "good.pt"
    torch.save({k: v.to(torch.float32) for k, v in _odd_state_dict("float8").items()}, good)
    assert cli_status([command, "--weights", str(good), *inputs, "--out", str(tmp_path / "g.png")]) == 0


@pytest.mark.parametrize("kind", list(_ODD_TENSORS))
def test_a_monitor_checkpoint_with_float8_sparse_or_meta_weights_is_one_line(tmp_path, capsys, kind):
    from rnnaudit import Monitor

    rnn = torch.nn.RNN(2, 4, batch_first=True)
    run = tmp_path / "run"
    with Monitor(rnn, run, every=1, inputs=torch.randn(1, 6, 2), tensorboard=False) as mon:
        mon.record(0)
    assert cli_status(["spectrum", str(run), "--out", str(tmp_path / "ok.png")]) == 0  # control
    capsys.readouterr()
    ckpt = next((run / "checkpoints").glob("step_*.pt"))
    payload = torch.load(ckpt, weights_only=True)
    convert = _ODD_TENSORS[kind][0]
    for key in ("state_dict", "plain_state_dict"):
        if isinstance(payload.get(key), dict):
            payload[key] = {k: convert(v) for k, v in payload[key].items()}
    torch.save(payload, ckpt)
    for command in ("spectrum", "heatmap"):
        assert cli_status([command, str(run), "--out", str(tmp_path / f"{command}.png")]) == 2
        line = _one_error_line(capsys.readouterr().err)
        assert "weight_" in line and _ODD_TENSORS[kind][1] in line, line


@pytest.mark.parametrize("kind", ["float8", "sparse"])
def test_wrap_refuses_a_module_in_float8_or_sparse_naming_the_parameter(kind):
    from rnnaudit import wrap

    rnn = torch.nn.RNN(2, 4, batch_first=True)
    if kind == "float8":
        rnn = rnn.to(torch.float8_e4m3fn)
    else:
        rnn.weight_hh_l0 = torch.nn.Parameter(rnn.weight_hh_l0.detach().to_sparse())
    with pytest.raises(ValueError, match=rf"'weight_\w+_l0' is .*{_ODD_TENSORS[kind][1]}"):
        wrap(rnn)
    assert wrap(torch.nn.RNN(2, 4)).hidden_size == 4  # control


# ----------------------------------------------------------------------------------------------
# file names that are not UTF-8
# ----------------------------------------------------------------------------------------------

def _not_utf8(tmp_path: Path, name: bytes) -> str:
    """A path whose last part is the bytes ``name`` (not UTF-8), as Python receives it from argv (PEP 383)."""
    return os.path.join(str(tmp_path), os.fsdecode(name))


@pytest.mark.slow
def test_file_names_that_are_not_utf8_are_read_and_written(tmp_path, monkeypatch, capsys):
    """A weights file, a figure, an audit directory and a run directory named with the byte 0xff: the command
    line ended in "'utf-8' codec can't encode character" (the figure's metadata, a title). Now each command works,
    and the metadata keeps the byte as an escape."""
    from PIL import Image

    from rnnaudit.training import TrainConfig, train

    torch.manual_seed(0)
    weights = _not_utf8(tmp_path, b"w\xff.pt")
    torch.save(torch.nn.RNN(2, 4, batch_first=True).state_dict(), weights)
    x = tmp_path / "x.pt"
    torch.save(torch.randn(6, 2, dtype=torch.float64), x)
    run = _not_utf8(tmp_path, b"run\xff")
    train(TrainConfig(cell="fastrnn", T=4, hidden_size=3, batch=2, steps=2, record_every=1, checkpoint_every=1,
                      val_batches=1), run, progress=False)
    figure = _not_utf8(tmp_path, b"s\xff.png")
    commands = [["spectrum", "--weights", weights, "--out", figure],
                ["heatmap", "--weights", weights, "--inputs", str(x), "--out", _not_utf8(tmp_path, b"h\xff.pdf")],
                ["audit", "--weights", weights, "--inputs", str(x), "--out", _not_utf8(tmp_path, b"a\xff")],
                ["audit", run, "--out", _not_utf8(tmp_path, b"b\xff")],
                ["compare", run, "--out", _not_utf8(tmp_path, b"c\xff.svg")]]
    for argv in commands:
        monkeypatch.setattr(sys, "argv", ["rnnaudit", *argv])
        assert cli_status(argv) == 0, (argv, capsys.readouterr().err[-400:])
    assert "\\xff" in Image.open(figure).text["command"]
    assert os.path.exists(_not_utf8(tmp_path, b"b\xff")) and os.path.exists(_not_utf8(tmp_path, b"c\xff.svg"))


def test_bytes_paths_are_read_or_refused_naming_the_argument(tmp_path):
    from rnnaudit import Monitor, audit_run
    from rnnaudit.user_models import load_state_dict_file

    name = os.fsencode(str(tmp_path)) + b"/w\xff.pt"
    torch.save(torch.nn.RNN(2, 4).state_dict(), os.fsdecode(name))
    assert set(load_state_dict_file(name)) == set(torch.nn.RNN(2, 4).state_dict())
    with pytest.raises(TypeError, match=r"run_dir must be a path .*os\.fsdecode"):
        Monitor(torch.nn.GRU(2, 3), os.fsencode(str(tmp_path)) + b"/m\xff", tensorboard=False)
    with pytest.raises(TypeError, match=r"run_dir must be a path .*os\.fsdecode"):
        audit_run(os.fsencode(str(tmp_path)))


def test_a_symlink_loop_or_dangling_link_is_named_as_such_not_missing(tmp_path, capsys):
    """A symlink loop given as --inputs read "no such inputs file"; it now says "symlink loop", and a link to a
    missing file names its target. Control: a missing plain file is still "no such"."""
    torch.save(torch.nn.RNN(2, 4, batch_first=True).state_dict(), tmp_path / "w.pt")
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    (tmp_path / "dangling").symlink_to(tmp_path / "gone.pt")
    for inputs, needle in (("a", "cannot resolve the inputs file: a symlink loop"),
                           ("dangling", "gone.pt', which does not exist"), ("missing.pt", "no such inputs file")):
        argv = ["heatmap", "--weights", str(tmp_path / "w.pt"), "--inputs", str(tmp_path / inputs), "--out",
                str(tmp_path / "h.png")]
        assert cli_status(argv) == 2
        assert needle in _one_error_line(capsys.readouterr().err)


@pytest.mark.parametrize("edit,needle", [({"task": "nosuch"}, "field 'task' is 'nosuch'"),
                                         ({"task_kwargs": 5}, "fields 'T' and 'task_kwargs' do not fit")])
def test_compare_on_a_damaged_run_json_names_the_file(tmp_path, capsys, edit, needle):
    """compare on a run.json with an unknown task ended in an internal error naming only the key ("KeyError:
    'nosuch'"); now one line naming the file and the field. Control: the undamaged run compares."""
    run = tmp_path / "run"
    train(TrainConfig(cell="fastrnn", T=4, hidden_size=3, batch=2, steps=2, record_every=1, checkpoint_every=1,
                      val_batches=1), run, progress=False)
    assert cli_status(["compare", str(run), "--out", str(tmp_path / "ok.png")]) == 0
    capsys.readouterr()
    info = json.loads((run / "run.json").read_text())
    (run / "run.json").write_text(json.dumps({**info, **edit}))
    assert cli_status(["compare", str(run), "--out", str(tmp_path / "c.png")]) == 2
    line = _one_error_line(capsys.readouterr().err)
    assert f"{run / 'run.json'}: " in line and needle in line, line


#: The fast suite runs every fourth case of the corpus (the corpus lists its cases family by family, so each family
#: keeps some); the full suite (python -m pytest --full) runs all of them.
FAST_SAMPLE = 4
SLOW_CASES = {"test_hostile_case": {str(i) for i in range(N_CASES) if i % FAST_SAMPLE or i == 152},  # 152: 7 s
              # one case per command and file format in the fast suite; every dtype in the full one
              "test_float8_sparse_and_meta_weights_files_get_one_line_naming_the_tensor": {
                  "spectrum-float8-.pt", "spectrum-meta-.pt", "spectrum-float8-.safetensors", "heatmap-float8-.pt",
                  "heatmap-sparse-.pt", "heatmap-meta-.pt"},
              "test_a_monitor_checkpoint_with_float8_sparse_or_meta_weights_is_one_line": {"sparse", "meta"}}
