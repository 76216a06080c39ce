"""``rnnaudit check --jobs N``: claims checked in worker processes give the report of a one-process check, and a
worker's error, a dead worker and Ctrl-C end the check as they do in one process."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rnnaudit.bounds import Profile
from rnnaudit.checking import check
from rnnaudit.claim_workers import WorkerError, usable_cores
from tests.conftest import cli_status

#: Small enough that a check of a few claims takes seconds, large enough that the ascent and the global search run.
TINY = Profile("quick", n_random=4, restarts=1, ascent_steps=3, cma_evaluations=6, global_seconds=600.0)

#: Papers with few claims between them, some failing (so counterexamples are written by the workers).
PAPERS = ["echo_state", "s4d", "mamba"]


def _claims(out):
    return json.loads((out / "results.json").read_text())["claims"]


@pytest.mark.slow  # two checks, one of them starting a pool of workers that import torch: 25 s
def test_a_check_in_two_worker_processes_writes_the_claims_of_a_one_process_check(tmp_path):
    one = check(PAPERS, profile=TINY, seed=5, out_dir=tmp_path / "one", progress=False, jobs=1)
    two = check(PAPERS, profile=TINY, seed=5, out_dir=tmp_path / "two", progress=False, jobs=2)
    assert _claims(tmp_path / "one") == _claims(tmp_path / "two")
    assert [r.claim for r in one.results] == [r.claim for r in two.results]  # the registry's own claim objects
    assert [[rd.reading for rd in r.readings] for r in one.results] == [[rd.reading for rd in r.readings]
                                                                         for r in two.results]
    assert sorted(p.name for p in (tmp_path / "one" / "counterexamples").iterdir()) == sorted(
        p.name for p in (tmp_path / "two" / "counterexamples").iterdir())
    # the workers draw the report's figures: the same files, numbers and pixels as the one process
    figures = json.loads((tmp_path / "two" / "results.json").read_text())["figures"]
    assert figures == json.loads((tmp_path / "one" / "results.json").read_text())["figures"]
    assert len(figures) == len(PAPERS)  # a tightness plot per paper
    for name in sorted(p.name for p in (tmp_path / "one" / "figures").iterdir()):
        a, b = tmp_path / "one" / "figures" / name, tmp_path / "two" / "figures" / name
        if name.endswith(".png"):
            from PIL import Image

            assert Image.open(a).tobytes() == Image.open(b).tobytes(), name
        else:
            assert a.read_bytes() == b.read_bytes(), name


def test_the_claims_are_handed_out_in_an_order_that_holds_each_claim_once():
    from rnnaudit.bounds import CLAIMS_BY_PAPER
    from rnnaudit.claim_workers import check_in_workers

    claims = CLAIMS_BY_PAPER["s4d"]
    for order in ([0], [0, 0], [1, 2]):
        with pytest.raises(ValueError, match="order must hold every claim's index once"):
            check_in_workers(claims, TINY, seed=0, device="cpu", out_dir=None, jobs=2, on_start=print,
                             on_progress=print, on_done=print, order=order)


def test_the_longest_claims_are_estimated_longest_and_an_unmeasured_claim_gets_the_default():
    from rnnaudit.claim_costs import DEFAULT_SECONDS, QUICK_CPU_SECONDS, estimated_seconds

    slowest = max(QUICK_CPU_SECONDS, key=QUICK_CPU_SECONDS.get)
    assert estimated_seconds(slowest) > 10 * DEFAULT_SECONDS
    assert estimated_seconds("no_such_paper.claim") == DEFAULT_SECONDS
    assert all(v >= DEFAULT_SECONDS for v in QUICK_CPU_SECONDS.values())
    from rnnaudit.bounds import claim_by_id

    for claim_id in QUICK_CPU_SECONDS:  # a renamed claim would be scheduled as unmeasured
        claim_by_id(claim_id)


@pytest.mark.slow  # starts a pool of workers that import torch: 6 s
def test_an_error_in_a_worker_is_raised_as_in_one_process_and_leaves_no_report(tmp_path):
    broken = Profile("no-such-profile", n_random=1, restarts=0, ascent_steps=0)  # no claim has sizes for it
    raised = []
    for jobs in (1, 2):
        with pytest.raises(KeyError) as err:
            check(PAPERS, profile=broken, out_dir=tmp_path / f"r{jobs}", progress=False, jobs=jobs)
        raised.append(str(err.value))
        assert not (tmp_path / f"r{jobs}").exists() or not any((tmp_path / f"r{jobs}").iterdir())
        assert not list(tmp_path.glob(".*staging*"))
    assert raised[0] == raised[1] == "'no-such-profile'"


def test_jobs_must_be_a_positive_integer(tmp_path):
    for jobs in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="jobs"):
            check(PAPERS, profile=TINY, progress=False, jobs=jobs)
    assert cli_status(["check", "--jobs", "0", "--out", str(tmp_path / "r")]) == 2
    assert usable_cores() >= 1


class _DiesInTheWorker(Profile):
    """A profile whose copy in a worker process ends that process as it is unpickled (exit status 3)."""

    def __reduce__(self):
        return os._exit, (3,)


def test_a_worker_that_dies_ends_the_check_with_one_error_naming_its_claim(tmp_path):
    with pytest.raises(WorkerError, match=r"echo_state\.\w+ ended without a result \(exit status 3"):
        check(PAPERS, profile=_DiesInTheWorker("quick", 2, 0, 0), out_dir=tmp_path / "r", progress=False, jobs=2)
    assert not list(tmp_path.glob(".*staging*"))


def _descendants(pid: int) -> set[int]:
    """Process ids below ``pid`` (Linux /proc): the forkserver and the workers it forked."""
    found, todo = set(), [pid]
    while todo:
        p = todo.pop()
        for task in Path(f"/proc/{p}/task").glob("*"):
            try:
                children = {int(c) for c in (task / "children").read_text().split()}
            except OSError:
                continue
            todo += list(children - found)
            found |= children
    return found


def _running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] not in "ZX"
    except (OSError, IndexError):
        return False


def _default_sigint():
    """In the child before exec: Ctrl-C as a terminal gives it. A shell starts a background job with SIGINT ignored,
    and an ignored signal stays ignored across exec, so a suite started with ``&`` would test nothing."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads the process tree from Linux's /proc")
def test_ctrl_c_ends_the_check_and_its_workers_and_keeps_the_previous_report(tmp_path):
    out = tmp_path / "report"
    assert cli_status(["check", "--paper", "mamba", "--out", str(out), "--jobs", "1"]) == 0
    before = (out / "results.json").read_bytes()
    proc = subprocess.Popen([sys.executable, "-m", "rnnaudit.cli", "check", "--paper", *PAPERS, "--jobs", "2",
                             "--out", str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True, preexec_fn=_default_sigint)
    deadline = time.monotonic() + 300
    while len(_descendants(proc.pid)) < 3 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)  # the forkserver and two workers
    below = _descendants(proc.pid)
    assert len(below) >= 3
    time.sleep(1.0)
    os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the whole process group
    assert proc.wait(timeout=120) == 130
    assert proc.stderr.read().decode().strip().splitlines()[-1] == "rnnaudit: interrupted"
    deadline = time.monotonic() + 30
    while any(_running(p) for p in below) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(_running(p) for p in below)
    assert (out / "results.json").read_bytes() == before
    assert not list(tmp_path.glob(".*staging*"))
