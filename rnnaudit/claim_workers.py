"""Checking claims in worker processes: ``rnnaudit check --jobs N`` runs independent claims side by side.

Each claim's search is seeded from (seed, claim id) alone (:func:`rnnaudit.bounds.claim_generator`) and runs on
one thread, so a claim's result does not depend on which process checks it, in which order or beside what: the
report is the same for every number of jobs (up to the wall-clock stops that the global optimiser records,
``stopped: "time"``, which depend on the load either way).

Note [why not concurrent.futures]: a worker reports each case as it is measured, so the progress bars move as
they do in one process, and Ctrl-C or a failing claim stops the other workers at once; ``ProcessPoolExecutor``
can do neither before Python 3.14 (it has no progress channel and no way to end a running task). A worker is a
``multiprocessing`` process with one pipe: claim ids go in, progress and pickled results come out.

Workers start from the ``forkserver`` (``spawn`` where there is none): a fresh interpreter that has imported the
claims once, never a ``fork`` of a parent whose thread pools may be running. They ignore SIGINT (the parent
decides, and ends them), and end themselves when the parent is gone, so a killed check leaves no process behind.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import signal
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from collections import deque
from dataclasses import dataclass, replace
from multiprocessing.connection import wait

__all__ = ["usable_cores", "check_in_workers", "Job", "WorkerError", "start_workers_early"]

#: What every worker imports, imported once by the forkserver so that workers fork from an interpreter that has it:
#: the claims (6.4 s of CPU with torch), and torch._dynamo, which torch.optim.Adam imports on first use (the
#: ascent's optimiser; 1.7 s of CPU), measured at a load average of 25; cma (the global optimiser of claims with
#: over 20 free parameters; it imports pyplot: 2.5 s) and the report's figure modules (the workers draw them too).
_PRELOAD = ("rnnaudit.bounds", "torch._dynamo", "cma", "rnnaudit.figures.paper_figures", "rnnaudit.figures.tightness")

#: Seconds between a worker's checks that its parent is still alive.
_PARENT_POLL = 0.5


class WorkerError(RuntimeError):
    """A worker process ended without returning its claim's result (killed, out of memory, crashed)."""


class _RemoteTraceback(Exception):
    """The traceback of an error raised in a worker, chained to the error re-raised in the parent (``--debug``)."""

    def __str__(self) -> str:
        return self.args[0]


def usable_cores() -> int:
    """CPU cores this process may run on (its affinity mask where the OS has one, else ``os.cpu_count()``), ≥ 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # no affinity call (macOS, Windows)
        return max(1, os.cpu_count() or 1)


def _portable(result):
    """``result`` without its claim and reading objects (closures, not picklable); :func:`_restored` puts them back."""
    return replace(result, claim=None, readings=[replace(rd, reading=None) for rd in result.readings])


def _restored(result, claim):
    return replace(result, claim=claim,
                   readings=[replace(rd, reading=reading) for rd, reading in zip(result.readings, claim.readings)])


def _watch_parent() -> None:
    """End this worker when its parent is gone (its parent process id changes: it was re-parented)."""
    parent = os.getppid()

    def watch():
        while os.getppid() == parent:
            time.sleep(_PARENT_POLL)
        os._exit(1)

    threading.Thread(target=watch, name="rnnaudit-parent-watch", daemon=True).start()


def _send(conn, message) -> None:
    conn.send_bytes(pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))


def _worker(conn, profile, seed: int, device: str, out_dir) -> None:
    """A worker's loop: receive ``(ref, claim id)`` or ``(ref, (job name, kwargs))``, check the claim (sending
    ``("progress", ref, n)`` as cases are measured) or run the job (:data:`rnnaudit.check_figures.JOBS`), then send
    ``("done", ref, result)`` or ``("error", ref, exception, traceback text)``; None ends."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _watch_parent()
    import torch

    from rnnaudit.bounds import check_claim, claim_by_id

    torch.set_num_threads(1)  # each claim runs on one thread anyway (search._one_thread); the workers are the threads
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):  # the parent closed the pipe
            return
        if task is None:
            return
        index, what = task
        try:
            if isinstance(what, str):
                result = check_claim(claim_by_id(what), profile, seed=seed, device=device, out_dir=out_dir,
                                     progress=lambda n, i=index: _send(conn, ("progress", i, n)))
                message = ("done", index, _portable(result))
            else:
                from rnnaudit.check_figures import JOBS

                name, kwargs = what
                message = ("done", index, JOBS[name](**kwargs))
        except Exception as err:  # noqa: BLE001 - any error goes back to the parent, which raises it
            text = "".join(traceback.format_exception(err))
            try:
                pickle.dumps(err)
                message = ("error", index, err, text)
            except Exception:  # noqa: BLE001 - an exception that does not pickle: its type and message
                message = ("error", index, RuntimeError(f"{type(err).__name__}: {err}"), text)
        try:
            _send(conn, message)
        except (BrokenPipeError, OSError):
            return


def _context():
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
    if ctx.get_start_method() == "forkserver":
        ctx.set_forkserver_preload(list(_PRELOAD))
    return ctx


@dataclass(frozen=True)
class Job:
    """A job a worker runs beside the claims: ``rnnaudit.check_figures.JOBS[name](**kwargs)`` (plain, picklable
    arguments); ``key`` names it to the caller."""

    name: str
    kwargs: dict
    key: object


def start_workers_early() -> None:
    """Start the forkserver now, so that it imports what the workers need (:data:`_PRELOAD`, ~8 s of CPU) while this
    process is still importing the claims, on the other core, instead of after it. Nothing to do where workers
    start by ``spawn``; harmless if no worker is ever started (the server ends with this process)."""
    ctx = _context()
    if ctx.get_start_method() == "forkserver":
        from multiprocessing import forkserver

        forkserver.ensure_running()


def check_in_workers(claims: Sequence, profile, *, seed: int, device: str, out_dir, jobs: int,
                     on_start: Callable[[int], None], on_progress: Callable[[int, int], None],
                     on_done: Callable[[int], None], order: Sequence[int] | None = None,
                     extra_jobs: Sequence[Job] = (), follow_up: Callable[[int, object], Sequence[Job]] | None = None,
                     on_job_done: Callable[[Job, object], None] | None = None) -> list:
    """Check ``claims`` (registered :class:`~rnnaudit.bounds.core.Claim` records, found again by id in each worker)
    in ``jobs`` worker processes, each claim exactly as :func:`rnnaudit.bounds.check_claim` checks it in this one,
    and run the figure jobs handed to them (:class:`Job`) in the same workers.

    Args:
        claims: the claims, in report order; each must be the one ``rnnaudit.bounds.claim_by_id`` gives for its id.
        profile, seed, device, out_dir: as for :func:`rnnaudit.bounds.check_claim` (``out_dir``: the
            counterexamples directory, written by the workers).
        jobs: worker processes (≥ 1; no more are started than there are claims).
        on_start: called with a claim's index when a worker takes it. on_progress: ``(index, n)`` after a claim's
            cases (as check_claim's ``progress``). on_done: called with a claim's index when its result is in.
        order: the claims' indices in the order they are handed out (default: report order); longest first keeps
            both workers busy to the end (:mod:`rnnaudit.claim_costs`). The results come back in report order.
        extra_jobs: jobs ready at the start, handed out before the claims.
        follow_up: ``(index, result)`` after each claim's result is in → jobs now ready (e.g. a paper's figure once
            its last claim is checked), handed out before the claims left.
        on_job_done: ``(job, its return value)`` as each job ends.

    Returns:
        the :class:`~rnnaudit.bounds.ClaimResult` of each claim, in the order of ``claims``.

    Raises:
        the first error a claim or job raised in its worker (its type and message as raised there, the worker's
        traceback chained to it); :class:`WorkerError` when a worker ended without a result. The other workers are
        ended first.
    """
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be a positive int, got {jobs!r}")
    order = list(range(len(claims))) if order is None else list(order)
    if sorted(order) != list(range(len(claims))):
        raise ValueError("order must hold every claim's index once")
    ctx = _context()
    queue: deque = deque(order)  # claim indices, or ("job", Job) in front of them
    queue.extendleft(("job", job) for job in reversed(extra_jobs))
    results: list = [None] * len(claims)
    workers = []  # (process, connection, what it is running (claim index or ("job", Job)), or None)
    try:
        for _ in range(min(jobs, len(claims))):
            parent_end, child_end = ctx.Pipe()
            proc = ctx.Process(target=_worker, args=(child_end, profile, seed, device, out_dir), daemon=True,
                               name="rnnaudit-check-worker")
            proc.start()
            child_end.close()
            workers.append([proc, parent_end, None])
        for w in workers:
            _assign(w, claims, queue, on_start)
        while any(w[2] is not None for w in workers):
            busy = [w for w in workers if w[2] is not None]
            ready = wait([w[1] for w in busy] + [w[0].sentinel for w in busy])
            for w in busy:
                if w[1] in ready:
                    try:
                        message = pickle.loads(w[1].recv_bytes())
                    except (EOFError, OSError):
                        message = None
                    if message is None:
                        raise _died(w, claims)
                    kind = message[0]
                    if kind == "progress":
                        on_progress(message[1], message[2])
                        continue
                    if kind == "error":
                        err, text = message[2], message[3]
                        raise err from _RemoteTraceback(f"in the worker {_doing(w[2], claims)}:\n{text}")
                    running, w[2] = w[2], None
                    if isinstance(running, int):
                        results[running] = _restored(message[2], claims[running])
                        on_done(running)
                        if follow_up is not None:
                            queue.extendleft(("job", job) for job in reversed(follow_up(running, results[running])))
                    elif on_job_done is not None:
                        on_job_done(running[1], message[2])
                    _assign(w, claims, queue, on_start)
                elif w[0].sentinel in ready and not w[1].poll():
                    raise _died(w, claims)
            idle = [w for w in workers if w[2] is None]
            for w in idle:  # a claim's follow-up jobs can reach a worker that found the queue empty
                _assign(w, claims, queue, on_start)
    finally:
        for proc, conn, index in workers:
            if index is None and proc.is_alive():
                try:
                    conn.send(None)
                except OSError:
                    pass
            else:
                proc.terminate()
        for proc, conn, _ in workers:
            proc.join(timeout=5)
            if proc.is_alive():
                proc.kill()
                proc.join()
            conn.close()
    return results


def _doing(running, claims: Sequence) -> str:
    if isinstance(running, int):
        return f"checking {claims[running].id}"
    return f"drawing {running[1].name} {running[1].key}"


def _assign(worker: list, claims: Sequence, queue: deque, on_start: Callable[[int], None]) -> None:
    if worker[2] is not None or not queue:
        return
    item = queue.popleft()
    worker[2] = item
    if isinstance(item, int):
        on_start(item)
        worker[1].send((item, claims[item].id))
    else:
        job = item[1]
        worker[1].send((("job", job.key), (job.name, job.kwargs)))


def _died(worker: list, claims: Sequence) -> WorkerError:
    proc, _, running = worker
    proc.join(timeout=1)
    return WorkerError(f"the worker process {_doing(running, claims)} ended without a result (exit status "
                       f"{proc.exitcode}; killed, or out of memory?)")
