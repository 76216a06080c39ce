"""The batch script a Slurm sweep submits holds no command that came from a flag or a spec: a log folder with a
control character is refused naming the field, and one with spaces, ``$(...)`` and backticks stays one quoted
word, so the script run by bash does nothing but start srun. The script is the one submitit writes, captured
by a stand-in sbatch (no cluster needed)."""

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from rnnaudit.training.sweep import script_path, slurm_job_name, submit_sweep
from tests.conftest import cli_status

submitit = pytest.importorskip("submitit")

BASE = {"task": "adding", "steps": 2, "T": 5, "hidden_size": 4, "batch": 4, "record_every": 1, "checkpoint_every": 1,
        "val_batches": 1}


@pytest.fixture
def fake_slurm(tmp_path, monkeypatch):
    """sbatch, srun and squeue stand-ins on PATH: sbatch keeps the script it is given and answers with a job id,
    srun writes its arguments one per line; the directory they record into."""
    bin_dir, record = tmp_path / "bin", tmp_path / "record"
    bin_dir.mkdir()
    record.mkdir()
    scripts = {"sbatch": f'cp "$1" {shlex.quote(str(record / "script.sh"))}\necho "Submitted batch job 42"\n',
               "srun": f"printf '%s\\n' \"$@\" > {shlex.quote(str(record / 'srun-args'))}\n",
               "squeue": "exit 1\n", "scontrol": "exit 1\n"}
    for name, body in scripts.items():
        (bin_dir / name).write_text("#!/bin/sh\n" + body)
        (bin_dir / name).chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    monkeypatch.chdir(tmp_path)
    return record


def _spec(tmp_path, out="runs") -> Path:
    path = tmp_path / "spec.json"
    path.write_text(json.dumps({"out": str(tmp_path / out), "base": BASE, "grid": {"cell": ["sgornn"]}}))
    return path


@pytest.mark.parametrize("char", ["\n", "\r", "\x00", "\x1b", "\x85", "\u2028"])
def test_a_folder_with_a_control_character_is_refused_naming_the_flag(tmp_path, fake_slurm, capsys, char):
    """A newline in --folder ended the ``#SBATCH --output=`` comment line and made the rest of the folder a
    command line of the batch script (``touch pwned #``). Now one line naming --folder, exit status 2, and
    nothing is submitted."""
    folder = f"logs{char}touch pwned #" if char != "\x00" else "logs\x00x"
    if char == "\x00":  # argv cannot carry a NUL: the Python API gets it
        with pytest.raises(ValueError, match=r"^folder 'logs\\x00x': a control character"):
            submit_sweep(json.loads(_spec(tmp_path).read_text()), executor="slurm", folder=folder)
    else:
        assert cli_status(["sweep", str(_spec(tmp_path)), "--executor", "slurm", "--folder", folder]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "--folder" in err and "control character" in err and "batch script" in err
    assert not (fake_slurm / "script.sh").exists() and not (tmp_path / "runs").exists()
    assert not (tmp_path / "pwned").exists()


def test_a_folder_in_the_python_api_is_checked_as_submitit_writes_it(tmp_path, monkeypatch):
    """The folder is made absolute with the current directory's name: a newline there is refused too."""
    cwd = tmp_path / "a\nb"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    with pytest.raises(ValueError, match="^folder 'submitit-logs': a control character"):
        script_path("submitit-logs", "folder")
    assert script_path(tmp_path / "logs", "folder") == tmp_path / "logs"
    with pytest.raises(ValueError, match="Slurm expands '%'"):
        script_path(tmp_path / "logs%x", "--folder")
    assert script_path(tmp_path / "logs%x", "--folder", executor="local") == tmp_path / "logs%x"


def test_a_folder_with_spaces_and_command_substitutions_stays_one_quoted_word(tmp_path, fake_slurm, capsys):
    """--folder 'my logs/$(touch pwned)`touch pwned2`' and a spec ``out`` of the same kind: the script submitit
    writes, run by bash with the stand-in srun, creates no file, and srun receives the folder's paths as single
    arguments; the job name is one plain #SBATCH word (sbatch reads #SBATCH lines itself, not as the shell
    does)."""
    folder = tmp_path / "my logs" / "$(touch pwned)`touch pwned2`"
    spec = _spec(tmp_path, out="my runs $(touch pwned3)")
    assert cli_status(["sweep", str(spec), "--executor", "slurm", "--folder", str(folder)]) == 0
    assert "submitted as job 42" in capsys.readouterr().out
    script = (fake_slurm / "script.sh").read_text()
    assert "#SBATCH --job-name=rnnaudit-my_runs___touch_pwned3_\n" in script
    comments = [line for line in script.splitlines() if line.startswith("#SBATCH")]
    assert any(line.startswith("#SBATCH --output=") and str(folder) in line for line in comments)
    commands = [line for line in script.splitlines() if line.strip() and not line.startswith("#")]
    assert commands[0] == "export SUBMITIT_EXECUTOR=slurm" and commands[1].startswith("srun ") and len(commands) == 2
    done = subprocess.run(["bash", str(fake_slurm / "script.sh")], cwd=tmp_path, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert not list(tmp_path.rglob("pwned*"))
    args = (fake_slurm / "srun-args").read_text().splitlines()
    assert args[:2] == ["--unbuffered", "--output"] and args[2] == f"{folder}/%j_%t_log.out"
    assert args[4] == f"{folder}/%j_%t_log.err" and args[-1] == str(folder) and args[-4:-1] == ["-u", "-m",
                                                                                              "submitit.core._submit"]
    assert args[5] == sys.executable


def test_a_job_name_is_one_plain_word_of_at_most_64_characters():
    assert slurm_job_name("runs/lr-search") == "rnnaudit-lr-search"
    assert slurm_job_name("runs/a b\n$(x)`y`'z'") == "rnnaudit-a_b___x__y__z_"
    assert len(slurm_job_name("runs/" + "x" * 500)) == 64
