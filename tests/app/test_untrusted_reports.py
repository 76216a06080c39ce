"""``rnnaudit audit`` of a Monitor run whose directory name and recorded model type are hostile (backticks, a
tag with an event handler, a pipe, mathtext): report.md rendered by Python-Markdown and report.html parsed as
HTML hold no element or attribute that came from them, the names still read as themselves, and the trajectory
figure is drawn (its title is the path, never mathtext)."""

import json
from html.parser import HTMLParser
from pathlib import Path

import markdown
import torch

from rnnaudit import Monitor
from tests.conftest import cli_status

ROOT = Path(__file__).resolve().parents[2]
FACTORY = "tests.app.monitor_models:exp_rnn"
RUN_NAME = r"run``s` <img src=x onerror=alert(1)> $\x$ |b"
MODEL_TYPE = "`a` <script>alert(2)</script><img src=y onerror=alert(3)>"


class _Tags(HTMLParser):
    def __init__(self, html: str):
        super().__init__()
        self.tags, self.text = [], ""
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text += data

    def injected(self) -> list:
        """Elements and attributes only the run's names could have made: an image other than an embedded PNG or
        the report's own trajectory.png, a script, any on* attribute (the page's own script is counted apart)."""
        return [(t, a) for t, a in self.tags
                if (t == "img" and not (a.get("src", "").startswith("data:image/png;base64,")
                                        or a.get("src") == "trajectory.png"))
                or any(k.startswith("on") for k in a)]


def _monitored_run(run_dir: Path) -> Path:
    """A Monitor run of a module rebuilt through a factory, then its recorded model type replaced (run.json and
    every checkpoint), as anyone who can write the directory can."""
    from tests.app.monitor_models import exp_rnn

    torch.manual_seed(0)
    model = exp_rnn()
    x = torch.randn(2, 8, 2)
    with Monitor(model, run_dir, every=1, inputs=x, wrap_kwargs={"recurrent": {"W": "rec.weight"}},
                 tensorboard=False) as mon:
        for step in range(2):
            model(x).sum().backward()
            mon.record(step)
    for ckpt in (run_dir / "checkpoints").glob("step_*.pt"):
        payload = torch.load(ckpt, weights_only=True)
        payload["model"]["type"] = MODEL_TYPE
        torch.save(payload, ckpt)
    info = json.loads((run_dir / "run.json").read_text())
    info["model"]["type"] = MODEL_TYPE
    (run_dir / "run.json").write_text(json.dumps(info))
    return run_dir


def test_a_hostile_run_directory_and_recorded_model_type_reach_the_audit_reports_as_text(tmp_path, monkeypatch,
                                                                                          capsys):
    run = _monitored_run(tmp_path / RUN_NAME)
    monkeypatch.chdir(ROOT)  # the factory is imported from the tests package
    assert cli_status(["audit", str(run), "--model", FACTORY, "--out", str(tmp_path / "audit")]) == 0, \
        capsys.readouterr().err
    out = tmp_path / "audit"
    assert (out / "trajectory.png").is_file()
    md = _Tags(markdown.markdown((out / "report.md").read_text(), extensions=["tables", "attr_list"]))
    html = _Tags((out / "report.html").read_text())
    for page in (md, html):
        assert page.injected() == []
        assert MODEL_TYPE in page.text and RUN_NAME in page.text
    assert "script" not in [t for t, _ in md.tags]
    assert [t for t, _ in html.tags].count("script") == 1  # the page's own sorting script, nothing else
