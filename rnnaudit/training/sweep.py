"""Sweeps: a run-spec file lists runs (cells × T × learning rates × seeds, like sgornn.md's
learning-rate search, Sec. 3.1); they run one after another in this process, or through
``submitit``: its local executor (separate processes, the code path a cluster takes) or SLURM.
No home-made distributed runner.

Spec (JSON, or TOML with the same structure)::

    {"out": "runs/lr-search",
     "base": {"task": "adding", "steps": 20000, "preset": "sgornn-addition"},
     "grid": {"cell": ["sgornn", "fastrnn"], "T": [500, 1000], "lr": [1e-2, 1e-3, 1e-4], "seed": [1]}}

Each run's directory is ``out/<key>=<value>_...`` in grid order; a run whose directory already
holds a final checkpoint is skipped, one with a partial run (killed, at any moment) is resumed, so
running a sweep again after a kill completes it to the results of an uninterrupted one. Two entries
of an axis that are the same run (``"lr": [0.01, 1e-2]``) are refused before anything runs.

An optional ``"slurm"`` table (:data:`SLURM_FIELDS`: partition, time, mem, cpus_per_task,
array_parallelism) sets the jobs' resources on Slurm. There a grid goes out as one job array
(submitit's ``map_array``), job states are read with ``squeue`` (no accounting storage needed),
and a job that reaches its time limit or is preempted is requeued and resumes from its run's
latest checkpoint (submitit's checkpointing). docs/sweeps.md is the user's guide.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import os
import re
import shutil
import subprocess
import time
from dataclasses import fields
from pathlib import Path

import torch

from rnnaudit.limits import check_sizes
from rnnaudit.outputs import DirectoryLock
from rnnaudit.training import PRESETS, TrainConfig, load_checkpoint, preset_config, train
from rnnaudit.untrusted import InputError, control_character, read_json_file, read_text_file

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

__all__ = ["DEFAULT_TIME_MIN", "MAX_RUNS", "SLURM_FIELDS", "expand", "load_spec", "run_sweep", "slurm_parameters",
           "slurm_states", "submit_sweep", "wait_for_jobs", "script_path", "slurm_job_name", "MAX_SQUEUE_FAILURES"]

#: Largest grid a spec may expand to (a typo such as a 10⁶-long list should fail fast, not queue jobs).
MAX_RUNS = 10_000


def _check_out(path: Path, out: str) -> None:
    """The spec's ``out`` where ``--out`` may go (:func:`rnnaudit.outputs.check_output_location`): a directory,
    writable; named with the spec when it is not (``/proc/self``).

    Raises:
        rnnaudit.untrusted.InputError: naming the spec and the field.
    """
    from rnnaudit.outputs import check_output_location

    try:
        check_output_location(out, f"{path}: field 'out'")
        target = Path(out)
        if target.exists() and not target.is_dir():
            raise InputError(f"{path}: field 'out' {out[:200]!r} exists and is not a directory")
        existing = target if target.exists() else next(p for p in target.absolute().parents if p.exists())
        if not os.access(existing, os.W_OK):
            raise InputError(f"{path}: field 'out' {out[:200]!r}: {existing} is not writable")
    except InputError:
        raise
    except (ValueError, OSError) as err:  # a name too long, a NUL byte
        raise InputError(str(err) if isinstance(err, ValueError) else f"{path}: field 'out': {err}") from None


def load_spec(path: str | Path) -> dict:
    """Read a sweep spec from .json or .toml.

    Raises:
        rnnaudit.untrusted.InputError: unreadable; other suffix; not JSON/TOML (with the position);
            missing ``out``/``grid``; ``base`` or ``grid`` not a table; an empty or non-list grid axis;
            more than :data:`MAX_RUNS` runs; a run :func:`expand` rejects (repeated grid values included);
            an invalid ``slurm`` table (:func:`slurm_parameters`).
    """
    path = Path(path)
    if path.suffix == ".json":
        spec = read_json_file(path, "sweep spec")
    elif path.suffix == ".toml":
        try:
            spec = tomllib.loads(read_text_file(path, "sweep spec"))
        except (tomllib.TOMLDecodeError, RecursionError) as err:
            raise InputError(f"{path}: the sweep spec is not valid TOML ({err})") from None
    else:
        raise InputError(f"{path}: a sweep spec must be .json or .toml")
    if not isinstance(spec.get("out"), str) or not spec["out"] or not isinstance(spec.get("grid"), dict):
        raise InputError(f"{path}: a sweep spec needs 'out' (a directory name) and 'grid' (a table of lists), and "
                         "optionally 'base'")
    _check_out(path, spec["out"])
    if not isinstance(spec.get("base", {}), dict):
        raise InputError(f"{path}: 'base' must be a table of run fields")
    if not isinstance(spec.get("slurm", {}), dict):
        raise InputError(f"{path}: 'slurm' must be a table with some of {list(SLURM_FIELDS)}")
    slurm_parameters(spec.get("slurm", {}), label=lambda key: f"{path}: slurm.{key}")
    runs = 1
    for key, values in spec["grid"].items():
        if not isinstance(values, list) or not values:
            raise InputError(f"{path}: grid axis {key!r} must be a non-empty list, got {values!r}")
        runs *= len(values)
    if runs > MAX_RUNS:
        raise InputError(f"{path}: the grid has {runs} runs, more than {MAX_RUNS}")
    try:
        expand(spec)  # every run valid, with the file named in the message
    except ValueError as err:
        raise InputError(f"{path}: {err}") from None
    return spec


def expand(spec: dict) -> list[tuple[Path, TrainConfig]]:
    """The (run directory, config) of every point of the grid, in grid order.

    With ``base["preset"]``, each run is :func:`rnnaudit.training.preset_config` of that preset
    with ``base`` and then the grid point as overrides (so a grid over ``cell`` drops the preset's
    cell arguments and ``param_lr``, as ``rnnaudit train --preset ... --cell ...`` does); without
    one, the :class:`TrainConfig` defaults with those overrides.

    Raises:
        ValueError: unknown preset or config field (names the field); an invalid or too large run
            (names the run).
    """
    known = {f.name for f in fields(TrainConfig)}
    base = dict(spec.get("base", {}))
    preset = base.pop("preset", None)
    if preset is not None and preset not in PRESETS:
        raise InputError(f"unknown preset {preset!r}; known: {sorted(PRESETS)}")
    keys = list(spec["grid"])
    for name in list(base) + keys:
        if name not in known:
            raise InputError(f"unknown run field {name!r}; TrainConfig fields are {sorted(known)}")
    for key in keys:
        _refuse_repeats(key, spec["grid"][key])
    runs, seen = [], {}
    for values in itertools.product(*(spec["grid"][k] for k in keys)):
        overrides = {**base, **dict(zip(keys, values))}
        name = "_".join(f"{k}={v}" for k, v in zip(keys, values)) or "run"
        try:
            # preset_config applies the CLI's rule: a grid value that changes the preset's cell (task,
            # optimizer) drops the preset's cell_kwargs and param_lr (task_kwargs, optimizer_kwargs).
            config = preset_config(preset, **overrides) if preset is not None else TrainConfig(**overrides)
            config.validate(device_available=False)
        except (TypeError, ValueError) as err:
            raise InputError(f"run {name}: {err}") from None
        check_sizes(f"run {name}", T=config.T, hidden=config.hidden_size, batch=config.batch, steps=config.steps)
        if "/" in name or name.startswith("."):
            raise InputError(f"run {name!r}: grid values must not make directory names with '/' or a leading '.'")
        same = seen.setdefault(repr(config), name)
        if same != name:
            raise InputError(f"runs {same} and {name} are the same run (equal configs); every grid point must differ")
        runs.append((Path(spec["out"]) / name, config))
    return runs


def _canonical(value):
    """A key equal for grid values that are the same run field: 1 and 1.0, 0.01 and 1e-2 (one float once
    parsed); True stays apart from 1, and integers are compared exactly (seeds above 2⁵³)."""
    if isinstance(value, float) and value.is_integer():
        return ("number", int(value))
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return ("number", value)
    if isinstance(value, list):
        return ("list", tuple(_canonical(v) for v in value))
    if isinstance(value, dict):
        return ("table", tuple(sorted((str(k), _canonical(v)) for k, v in value.items())))
    return (type(value).__name__, value)


def _refuse_repeats(key: str, values: list) -> None:
    """One line naming the axis and both entries when two values of a grid axis are one run (equal values, or
    values that name the same run directory, such as 1 and "1")."""
    by_value, by_name = {}, {}
    for i, value in enumerate(values, 1):
        try:
            first = by_value.setdefault(_canonical(value), i)
        except TypeError:  # an unhashable value inside (the run's own validation names it)
            first = i
        first = first if first != i else by_name.setdefault(f"{key}={value}", i)
        if first != i:
            raise InputError(f"grid axis {key!r} repeats a value: entries {first} and {i} ({values[first - 1]!r} "
                             f"and {value!r}) are the same run '{key}={value}'; every grid point must differ")


def _finished(run_dir: Path, config: TrainConfig) -> bool:
    try:
        return int(load_checkpoint(run_dir)["step"]) >= config.steps
    except (ValueError, FileNotFoundError):
        return False


def _resume(run_dir: Path) -> bool:
    """Continue what is there: a run directory with run.json is resumed (from its checkpoint, or from step
    0 when it was killed before its first one)."""
    return (run_dir / "run.json").is_file()


def run_sweep(spec: dict, *, progress: bool = True) -> list[dict]:
    """Run every point of the grid here, one after another; finished runs are skipped and partial
    ones resumed. Returns one summary per run (with its directory).

    Raises:
        rnnaudit.outputs.LockedError: another sweep is running the same ``out``.
    """
    out = []
    runs = expand(spec)  # every run valid before anything is written
    with DirectoryLock(spec["out"]):
        for run_dir, config in runs:
            if _finished(run_dir, config):
                out.append({"run": str(run_dir), "skipped": True})
                continue
            out.append({"run": str(run_dir), **train(config, run_dir, resume=_resume(run_dir), progress=progress)})
    return out




# --- submitit: separate processes here, or Slurm jobs -----------------------------------------------------------

#: The fields of a spec's ``"slurm"`` table (and of ``rnnaudit sweep``'s flags of the same names): submitit's
#: SlurmExecutor parameters, which become ``#SBATCH`` lines.
SLURM_FIELDS = ("partition", "time", "mem", "cpus_per_task", "array_parallelism")

#: Time limit of a Slurm job when neither the spec nor the command line gives one, in minutes (submitit's own
#: default, 5 minutes, is shorter than most runs).
DEFAULT_TIME_MIN = 24 * 60

_MAX_TIME_MIN = 366 * 24 * 60  # a year: a larger limit is a typo, and Slurm's own maximum is "UNLIMITED"
_MAX_COUNT = 2**31 - 1  # Slurm stores CPU counts and array throttles as 32-bit integers
_PARTITION = re.compile(r"[A-Za-z0-9_.-]+(,[A-Za-z0-9_.-]+)*")  # a partition, or a comma-separated list
_MEM = re.compile(r"([0-9]+)([KMGT]?)", re.IGNORECASE)  # sbatch --mem: megabytes, or with a K/M/G/T suffix
_TIME = re.compile(r"(?:([0-9]+)-)?([0-9]+)(?::([0-9]+))?(?::([0-9]+))?")


def _slurm_minutes(value, name: str) -> int:
    """A time limit in whole minutes (rounded up) from minutes or one of sbatch's formats: M, M:S, H:M:S, D-H,
    D-H:M, D-H:M:S."""
    if isinstance(value, int) and not isinstance(value, bool):
        minutes = value
    elif isinstance(value, str) and (m := _TIME.fullmatch(value.strip())):
        days, parts = m.group(1), [int(x) for x in m.groups()[1:] if x is not None]
        if days is not None:  # D-H, D-H:M, D-H:M:S
            hours, mins, secs = (parts + [0, 0])[:3]
            seconds = ((int(days) * 24 + hours) * 60 + mins) * 60 + secs
        else:  # M, M:S, H:M:S
            seconds = (parts[0] * 60 if len(parts) == 1 else parts[0] * 60 + parts[1] if len(parts) == 2
                       else (parts[0] * 60 + parts[1]) * 60 + parts[2])
        minutes = -(-seconds // 60)
    else:
        raise InputError(f"{name}: expected a time limit in minutes or as [D-]HH:MM:SS, got {value!r}")
    if not 1 <= minutes <= _MAX_TIME_MIN:
        raise InputError(f"{name}: expected a time limit from 1 minute to 366 days, got {value!r}")
    return minutes


def _slurm_mem(value, name: str) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    m = _MEM.fullmatch(value.strip()) if isinstance(value, str) else None
    if m is None or int(m.group(1)) == 0:  # --mem=0 would mean "all of the node's memory": say it explicitly
        raise InputError(f"{name}: expected memory per node as a positive number of megabytes or with a unit "
                         f"(500M, 4G), got {value!r}")
    return f"{int(m.group(1))}{m.group(2).upper() or 'M'}"


def _slurm_count(value, name: str) -> int:
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= _MAX_COUNT:
        raise InputError(f"{name}: expected a positive integer, got {value!r}")
    return value


def _slurm_partition(value, name: str) -> str:
    if not isinstance(value, str) or not _PARTITION.fullmatch(value):
        raise InputError(f"{name}: expected a partition name (letters, digits, '_', '.', '-'; several joined by "
                         f"','), got {value!r}")
    return value


_SLURM_CHECKS = {"partition": _slurm_partition, "time": _slurm_minutes, "mem": _slurm_mem,
                 "cpus_per_task": _slurm_count, "array_parallelism": _slurm_count}


def slurm_parameters(section, label=lambda key: f"slurm.{key}") -> dict:
    """Validate a ``"slurm"`` table into submitit ``SlurmExecutor`` parameters.

    Args:
        section: a dict with some of :data:`SLURM_FIELDS`: ``partition`` (str), ``time`` (minutes, or
            sbatch's ``[D-]HH:MM:SS`` forms), ``mem`` (megabytes per node, or with a unit: ``"4G"``),
            ``cpus_per_task`` and ``array_parallelism`` (the most array tasks running at once) as
            positive integers. label: names a field in messages (the spec file's field, or the CLI flag).

    Returns:
        the same keys with ``time`` in whole minutes (rounded up) and ``mem`` as sbatch's ``--mem``.

    Raises:
        rnnaudit.untrusted.InputError: not a table; an unknown field; a value out of range (one line naming it).
    """
    if not isinstance(section, dict):
        raise InputError(f"the 'slurm' table must be a table with some of {list(SLURM_FIELDS)}, got {section!r}")
    for key in section:
        if key not in _SLURM_CHECKS:
            raise InputError(f"{label(key)}: unknown Slurm field; known: {list(SLURM_FIELDS)}")
    return {key: _SLURM_CHECKS[key](value, label(key)) for key, value in section.items()}


def script_path(value, name: str, *, executor: str = "slurm") -> Path:
    """A path that submitit writes into the batch script (the log folder), as the absolute path it writes.

    submitit shell-quotes it on the ``srun`` line and on each ``#SBATCH`` line, but a ``#SBATCH`` line is a
    comment to the shell: a newline in the path ends it, and the rest of the path becomes a command line of
    the script. So no control character (C0, DEL, C1), line separator or lone surrogate is accepted; on Slurm,
    no ``%`` either (Slurm expands ``%j``, ``%x``, ... in the log paths, which then are not where rnnaudit reads).

    Args:
        value: ``str`` or path-like. name: the flag or field, for the message (``--folder``).

    Raises:
        rnnaudit.untrusted.InputError: one line naming ``name``, the value and the character.
    """
    absolute = Path(value).expanduser().absolute()  # the folder as submitit writes it (the cwd's name included)
    bad = control_character(absolute)
    if bad is not None:
        raise InputError(f"{name} {str(value)[:200]!r}: a control character ({bad!r}) would split a line of the "
                         "batch script and of every message naming the folder; refused")
    if executor == "slurm" and "%" in str(absolute):
        raise InputError(f"{name} {str(value)[:200]!r}: Slurm expands '%' in log paths (%j, %x, ...); choose a "
                         "folder without '%'")
    return absolute


def slurm_job_name(out: str) -> str:
    """The Slurm job name of a sweep: ``rnnaudit-`` and the name of its ``out`` directory, every character
    other than letters, digits, ``_``, ``.`` and ``-`` replaced by ``_`` (it is one ``#SBATCH`` word, and only
    a label), at most 64 characters."""
    return "rnnaudit-" + re.sub(r"[^A-Za-z0-9_.-]", "_", Path(str(out)).name)[:55]


class _TrainJob:
    """One run as a submitit job: a module-level class, which the job process imports by name.

    On a time limit or a preemption, Slurm sends SIGUSR2 (submitit asks for it ``signal_delay_s`` before the
    limit: 90 s, or a quarter of a limit under 6 minutes); submitit then calls :meth:`checkpoint` and requeues
    the job with what it returns, up to 3 times for time limits (preemptions without limit). The requeued job
    resumes the run from its latest checkpoint file, so the steps since that checkpoint are taken again, to the
    same values (the trainer's resume is exact on the CPU).
    """

    def __call__(self, config: TrainConfig, run_dir: str) -> dict:
        # the CPUs Slurm gave the job: torch would otherwise start one thread per core of the whole node
        cpus = os.environ.get("SLURM_CPUS_PER_TASK") or os.environ.get("SLURM_CPUS_ON_NODE")
        if cpus and cpus.isdigit() and int(cpus) > 0:
            torch.set_num_threads(int(cpus))
        path = Path(run_dir)
        return {"run": run_dir, **train(config, path, resume=_resume(path), progress=False)}

    def checkpoint(self, config: TrainConfig, run_dir: str):
        """The same call again: :meth:`__call__` resumes from the run's checkpoint file (submitit's
        checkpointing protocol; the model state is in the run directory, not in this object)."""
        import submitit

        return submitit.helpers.DelayedSubmission(self, config, run_dir)


_SLURM_ACTIVE = frozenset({"PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "REQUEUED", "REQUEUE_FED",
                           "REQUEUE_HOLD", "RESIZING", "SUSPENDED", "STOPPED", "SIGNALING", "STAGE_OUT",
                           "SPECIAL_EXIT", "PREEMPTED", "RESV_DEL_HOLD", "POWER_UP_NODE", "UPDATE_DB"})
#: The state shown for a job that squeue no longer lists: it ended at least MinJobAge (300 s by default) ago.
GONE = "ENDED (no longer in squeue)"


def slurm_states() -> dict[str, str]:
    """The state of every job of this user that the Slurm controller still lists, by job id (``123`` or, for
    an array task, ``123_4``), read with ``squeue``: it works without accounting storage, where ``sacct``
    does not. A pending job's state carries its reason: ``PENDING (Resources)``.

    Raises:
        OSError: squeue is missing or failed (its message).
    """
    done = subprocess.run(["squeue", "--me", "--states=all", "--array", "--noheader", "--format=%i|%T|%r"],
                          check=False, capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        raise OSError(f"squeue failed: {' '.join(done.stderr.split())}")
    states = {}
    for line in done.stdout.splitlines():
        job_id, state, reason = (line.split("|") + ["", ""])[:3]
        states[job_id.strip()] = f"{state} ({reason})" if state == "PENDING" and reason not in ("", "None") else state
    return states


def _max_array_size() -> int:
    """Slurm's MaxArraySize (array indices run from 0 to MaxArraySize - 1); its default where unreadable."""
    try:
        out = subprocess.run(["scontrol", "show", "config"], check=False, capture_output=True, text=True,
                             timeout=60).stdout
        return max(1, int(re.search(r"^MaxArraySize\s*=\s*(\d+)", out, re.MULTILINE).group(1)))
    except (OSError, subprocess.SubprocessError, AttributeError, ValueError):
        return 1001


def _executor(executor: str, folder: Path, slurm: dict, job_name: str):
    try:
        import submitit
    except ImportError:
        raise ValueError("--executor local|slurm needs submitit: pip install 'rnnaudit[cluster]'") from None
    if executor == "local":
        ex = submitit.LocalExecutor(folder=str(folder))
        ex.update_parameters(timeout_min=DEFAULT_TIME_MIN)
        return ex
    if executor != "slurm":
        raise ValueError(f"executor must be 'local' or 'slurm', got {executor!r}")
    for command in ("sbatch", "srun", "squeue"):
        if shutil.which(command) is None:
            raise ValueError(f"--executor slurm: {command} is not on PATH; run the sweep on a Slurm login node (or "
                             "start a single-node Slurm: scripts/slurm-single-node.sh start, see docs/sweeps.md)")
    ex = submitit.SlurmExecutor(folder=str(folder))
    parameters = {"time": DEFAULT_TIME_MIN, "job_name": job_name} | slurm
    # SIGUSR2 (checkpoint and requeue) comes signal_delay_s before the limit: submitit's 90 s, but at most a
    # quarter of a short limit, so that it never arrives before the job has started
    parameters["signal_delay_s"] = min(90, parameters["time"] * 60 // 4)
    ex.update_parameters(**parameters)
    return ex


def _submit(ex, executor: str, todo: list) -> list:
    """One job per run, as job arrays on Slurm (one array per MaxArraySize runs); sbatch's refusal (an
    unknown partition, a time above the partition's limit) becomes one ValueError."""
    import submitit

    chunk = _max_array_size() if executor == "slurm" else max(len(todo), 1)
    jobs = []
    for start in range(0, len(todo), chunk):
        part = todo[start:start + chunk]
        stderr = io.StringIO()
        try:
            with contextlib.redirect_stderr(stderr):  # submitit prints sbatch's error before raising it
                jobs += ex.map_array(_TrainJob(), [c for _, c in part], [str(d) for d, _ in part])
        except submitit.core.utils.FailedJobError as err:
            message = " ".join(str(err).split()) or " ".join(stderr.getvalue().split())
            raise ValueError(f"sbatch refused the sweep's jobs: {message}") from None
        except submitit.core.utils.FailedSubmissionError as err:  # no "job <id>" in what sbatch printed
            said = re.search(r'sbatch output "(.*)"\nJob instance', str(err), re.DOTALL)
            raise ValueError(f"sbatch's reply names no job id, so the jobs cannot be followed; sbatch printed: "
                             f"\"{_printable((said.group(1) if said else str(err)).strip())}\" (check with squeue --me whether "
                             "jobs were queued)") from None
        except UnicodeDecodeError:  # submitit decodes sbatch's reply as UTF-8
            raise ValueError("sbatch's reply is not UTF-8 text, so the jobs cannot be followed (check with "
                             "squeue --me whether jobs were queued)") from None
    return jobs


_RESULT_WAIT_S = 30.0  # how long a completed job's result file may take to appear (NFS attribute caching)


def _outcome(job, run: str, state: str) -> dict:
    """The run's summary from its finished job, or ``failed`` (the error's last line, or how the job ended)
    and ``log`` (the job's stderr file)."""
    import submitit

    entry = {"run": run, "job_id": job.job_id}
    log = str(job.paths.stderr)
    deadline = time.monotonic() + _RESULT_WAIT_S
    while state == "COMPLETED" and not job.paths.result_pickle.exists() and time.monotonic() < deadline:
        time.sleep(0.5)  # a shared file system can show the result file after the job has ended
    if not job.paths.result_pickle.exists():
        # cancelled, killed, out of time or memory: submitit never wrote a result (and job.result() would wait
        # on sacct, which a cluster without accounting storage cannot answer)
        return {**entry, "failed": f"ended as {state} without a result", "log": log}
    try:
        return {**entry, **job.result()}
    except submitit.core.utils.UncompletedJobError as err:
        trace = str(err).split("-" * 22)  # FailedJobError: the job's traceback between two lines of dashes
        lines = [x for x in (trace[1] if len(trace) > 2 else str(err)).splitlines() if x.strip()]
        return {**entry, "failed": lines[-1].strip() if lines else type(err).__name__, "log": log}


#: Consecutive failed ``squeue`` calls after which :func:`wait_for_jobs` gives up (a controller down for good, a
#: broken squeue): at the polling intervals' cap of 30 s, about five minutes without an answer.
MAX_SQUEUE_FAILURES = 10


def _printable(text: str, limit: int = 200) -> str:
    """``text`` from another program, for one line: control characters escaped, cut at ``limit`` characters."""
    shown = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return shown if len(shown) <= limit else shown[:limit] + " …"


def wait_for_jobs(jobs: list, runs: list[str], executor: str, *, on_state=None, poll_s: float = 1.0,
                  max_poll_s: float = 30.0, max_failures: int = MAX_SQUEUE_FAILURES) -> list[dict]:
    """Poll until every job has ended; report each change of state; return each run's outcome.

    Args:
        jobs: submitit jobs, one per run. runs: their run directories. executor: ``"local"`` or ``"slurm"``.
        on_state: called as ``on_state(run, job_id, state)`` whenever a job's state changes (Slurm's states
            from squeue, see :func:`slurm_states`; submitit's for local jobs).
        poll_s: shortest polling interval in seconds; the interval is a tenth of the time waited so far, up to
            ``max_poll_s``, so that a long sweep asks the controller about twice a minute.
        max_failures: consecutive failed ``squeue`` calls after which the wait gives up (a single failure is asked
            again at the next poll).

    Raises:
        OSError: ``squeue`` failed ``max_failures`` times in a row; names the jobs still unfinished (they stay
            submitted) and squeue's last message.

    Returns:
        per run, in order: its summary with ``job_id``, or ``{"run", "job_id", "failed", "log"}`` for a job that
        raised (``failed`` is the error's last line) or ended without a result (cancelled, out of time).
    """
    last: dict[str, str] = {}
    ended: dict[str, str] = {}
    started = time.monotonic()
    failures = 0
    while len(ended) < len(jobs):
        if executor == "slurm":
            try:
                listed = slurm_states()
                failures = 0
            except (OSError, subprocess.SubprocessError) as err:
                listed = None  # the controller did not answer this time: ask again at the next poll
                failures += 1
                if failures >= max_failures:
                    waiting = [job.job_id for job in jobs if job.job_id not in ended]
                    shown = ", ".join(waiting[:20]) + (f" and {len(waiting) - 20} more" if len(waiting) > 20 else "")
                    raise OSError(f"squeue failed {failures} times in a row ({_printable(str(err))}); gave up waiting "
                                  f"on job(s) {shown}, which stay submitted (see them with squeue --me)") from None
        for job, run in zip(jobs, runs):
            if job.job_id in ended:
                continue
            if executor == "slurm":
                if listed is None:
                    continue
                state = listed.get(job.job_id, GONE)
                done = state == GONE or state.split(" ")[0] not in _SLURM_ACTIVE
            else:
                done = job.done()
                state = job.state
            if last.get(job.job_id) != state:
                last[job.job_id] = state
                if on_state is not None:
                    on_state(run, job.job_id, state)
            if done:
                ended[job.job_id] = state
        if len(ended) < len(jobs):
            time.sleep(min(max(poll_s, (time.monotonic() - started) / 10), max_poll_s))
    return [_outcome(job, run, ended[job.job_id]) for job, run in zip(jobs, runs)]


def submit_sweep(spec: dict, *, executor: str = "local", folder: str | Path = "submitit-logs",
                 slurm: dict | None = None, wait: bool | None = None, on_state=None,
                 poll_s: float = 1.0) -> list[dict]:
    """Hand every unfinished run to submitit: one job per run, a grid as one job array on Slurm.

    Args:
        spec: a loaded spec. executor: ``"local"`` (submitit's LocalExecutor: separate processes on
            this machine, the code path Slurm takes) or ``"slurm"`` (``sbatch``; job states from ``squeue``).
            folder: submitit's folder: the jobs' logs ``<job id>_<task>_log.out`` and ``.err``.
        slurm: Slurm fields (:func:`slurm_parameters`) over the spec's ``"slurm"`` table; the time limit
            defaults to :data:`DEFAULT_TIME_MIN`.
        wait: poll until every job has ended (:func:`wait_for_jobs`) and return the outcomes (default: for
            ``"local"`` only). on_state, poll_s: see :func:`wait_for_jobs`.

    Returns:
        one dict per run: ``{"run", "skipped": True}``, ``{"run", "job_id"}`` (not waited for), the run's
        summary with its ``job_id``, or ``{"run", "job_id", "failed", "log"}``.

    Raises:
        ValueError: unknown executor; submitit is not installed (the ``cluster`` extra); Slurm fields with the
            local executor, or invalid ones (names the field); a ``folder`` with a control character, or on
            Slurm a ``%`` (:func:`script_path`); no sbatch/srun/squeue; sbatch refused the jobs.
        rnnaudit.outputs.LockedError: another sweep is submitting or waiting on the same ``out``.
    """
    if slurm and executor != "slurm":
        raise ValueError(f"Slurm fields {sorted(slurm)} apply to executor 'slurm', not {executor!r}")
    section = slurm_parameters(spec.get("slurm", {})) | slurm_parameters(slurm or {})
    folder = script_path(folder, "folder", executor=executor)
    runs = expand(spec)
    out, jobs, todo = [], [], []
    with DirectoryLock(spec["out"]):
        for run_dir, config in runs:
            if _finished(run_dir, config):
                out.append({"run": str(run_dir), "skipped": True})
            else:
                todo.append((run_dir, config))
        if todo:
            ex = _executor(executor, folder, section, slurm_job_name(spec["out"]))
            jobs = _submit(ex, executor, todo)
        submitted = {str(d): job for (d, _), job in zip(todo, jobs)}
        out += [{"run": run, "job_id": job.job_id} for run, job in submitted.items()]
        wait = executor == "local" if wait is None else wait
        if wait and jobs:
            outcomes = wait_for_jobs(jobs, list(submitted), executor, on_state=on_state, poll_s=poll_s)
            out = [s for s in out if s.get("skipped")] + outcomes
    order = {str(d): i for i, (d, _) in enumerate(runs)}
    return sorted(out, key=lambda s: order[s["run"]])
