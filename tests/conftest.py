"""Shared test options: ``python -m pytest`` is the fast suite, every module's core tests; ``python -m pytest --full``
(what .ci/run runs) adds the tests marked slow. GPU tests skip cleanly without CUDA."""

import functools
import importlib.util
import os
import sys
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # as rnnaudit/__init__.py does; must precede importing torch
if "PYTEST_XDIST_WORKER" in os.environ:
    # the workers already occupy every core: a worker's own BLAS/OpenMP threads only oversubscribe them (the tests
    # of analysis/ on 2 cores: 150 s of CPU with 2 threads a worker, 93 s with 1). Set before torch and numpy load
    # their thread pools; inherited by the commands a test runs.
    for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_var, "1")

import pytest  # noqa: E402
import torch  # noqa: E402

if "PYTEST_XDIST_WORKER" in os.environ:
    torch.set_num_threads(1)  # in case a plugin imported torch before the variables above were set


def pytest_addoption(parser):
    parser.addoption("--full", action="store_true", default=False,
                     help="the full suite, as CI runs it: also the tests marked slow (larger sizes, every claim of a "
                          "family, end-to-end runs)")


#: Most worker processes the whole suite spreads over (each imports torch and collects every module, ~15 s of CPU).
MAX_WORKERS = 4


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    """The whole suite (``python -m pytest`` naming no path, with or without ``--full``) runs on every core, up to
    :data:`MAX_WORKERS`, through pytest-xdist when it is installed. A run naming files or tests, ``-n``, ``-p
    no:xdist``, ``--pdb``, ``--collect-only`` or one core stays in this process, where starting workers would cost
    more than it saves. Runs before xdist's own hook (this one registers later), which turns the count into
    workers."""
    if getattr(config.option, "numprocesses", "absent") is not None or hasattr(config, "workerinput"):
        return  # xdist missing or disabled, -n given, or this is a worker
    if config.getoption("usepdb", False) or config.getoption("collectonly", False) or config.getoption("keyword", ""):
        return
    if getattr(config, "args_source", None) != pytest.Config.ArgsSource.TESTPATHS:
        return
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if cores > 1:
        config.option.numprocesses = min(cores, MAX_WORKERS)
        if getattr(config.option, "dist", "no") == "no":
            # work stealing: a few tests take a minute, most take a second; an idle worker takes over the queue's tail
            config.option.dist = "worksteal"


def pytest_configure(config):
    """In an xdist worker the suite already occupies every core: a check a test runs stays in that worker's process
    (one claim after another, as ``jobs=1``) instead of starting a pool of its own per call (a forkserver that
    imports torch, ~8 s of CPU each). Tests of the pool pass ``jobs`` explicitly."""
    if hasattr(config, "workerinput"):
        import rnnaudit.checking

        rnnaudit.checking.usable_cores = lambda: 1


def pytest_collection_modifyitems(config, items):
    skip_slow = pytest.mark.skip(reason="slow: the full suite runs it (python -m pytest --full)")
    skip_gpu = pytest.mark.skip(reason="no CUDA device (torch.cuda.is_available() is False)")
    for item in items:
        # a parametrized family keeps its cheap cases in the fast suite: SLOW_CASES = {test name: {case ids}}
        slow_cases = getattr(item.module, "SLOW_CASES", {}) if isinstance(item, pytest.Function) else {}
        if getattr(item, "callspec", None) is not None and item.callspec.id in slow_cases.get(item.originalname, ()):
            item.add_marker(pytest.mark.slow)
        if "slow" in item.keywords and not config.getoption("--full"):
            item.add_marker(skip_slow)
        if "gpu" in item.keywords and not torch.cuda.is_available():
            item.add_marker(skip_gpu)


def cli_status(argv: list[str]) -> int:
    """The exit status of ``rnnaudit ARGV`` run in this process: ``main``'s return value, or the code of
    the SystemExit that argparse raises for its own errors, --help and --version."""
    from rnnaudit import cli

    try:
        return cli.main(argv)
    except SystemExit as exc:
        return exc.code


#: Devices every device-agnostic test runs on: the CPU always, CUDA where present.
DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


@pytest.fixture(scope="session")
def report_dir(tmp_path_factory):
    """One small sgornn check (profile shrunk so it takes seconds), shared by the report tests."""
    from rnnaudit.bounds import Profile
    from rnnaudit.checking import check

    from filelock import FileLock

    # one check for the whole run: xdist's workers share the base directory's parent, and the lock makes the first
    # worker write it while the others wait (the tests only read it)
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent
    out = root / "shared-sgornn-check"
    with FileLock(str(out) + ".lock"):
        if not (out / "results.json").is_file():
            check(["sgornn"], profile=Profile("quick", n_random=6, restarts=1, ascent_steps=4), seed=7, out_dir=out,
                  progress=False)
    return out


@functools.lru_cache(maxsize=None)
def load_benchmark(name: str):
    """The script ``benchmarks/NAME.py`` as a module, loaded once per session. The scripts import their
    shared pieces (``bench_jacobian``) by name, as they do when run from their folder."""
    folder = str(Path(__file__).resolve().parents[1] / "benchmarks")
    sys.path.insert(0, folder)
    try:
        spec = importlib.util.spec_from_file_location(name, Path(folder) / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(folder)
