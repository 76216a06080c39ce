"""The time budget of the long commands (``heatmap``, ``lyapunov``, ``spectrum``): the estimate, printed before the
work starts, refused in one line when it exceeds ``--max-minutes`` (a map or a spectrum at the size limits, or past
them with --allow-large, runs for minutes to hours).

The estimates are counts of work units times the seconds of one unit measured now on this machine:
:func:`rnnaudit.analysis.estimate_cost` (heatmap), :func:`rnnaudit.analysis.lyapunov.lyapunov_cost`,
:func:`rnnaudit.figures.spectrum.spectrum_cost`. Any other command with an estimate in seconds uses
:func:`check_budget` (or :func:`announce_and_check`) the same way.
"""

from __future__ import annotations

__all__ = ["DEFAULT_MAX_MINUTES", "check_budget", "announce_and_check"]

#: The budget when --max-minutes is not given: long enough for every default-sized job on a laptop, short enough
#: that an unintended job at the size limits is refused before it runs for an hour.
DEFAULT_MAX_MINUTES = 10.0


#: What makes each command's job smaller, for the refusal line.
SMALLER = {"heatmap": "a shorter --T, a coarser --resolution", "lyapunov": "a shorter --T, fewer exponents --k",
           "spectrum": "one matrix with --role, a smaller model", "audit": "a shorter --T, fewer or shorter --inputs"}


def check_budget(command: str, seconds: float, max_minutes: float | None, smaller: str | None = None) -> None:
    """Refuse (one line naming --max-minutes) a job whose estimate, ``seconds``, exceeds the budget.

    Args:
        command: the subcommand, first word of the line. seconds: the estimate. max_minutes: --max-minutes, None for
            :data:`DEFAULT_MAX_MINUTES`. smaller: what makes the job smaller (default: :data:`SMALLER`'s entry).

    Raises:
        rnnaudit.untrusted.InputError: ``seconds`` above ``max_minutes`` (default :data:`DEFAULT_MAX_MINUTES`), or not
            a finite number (an estimate that overflowed is above every budget).
    """
    import math

    from rnnaudit.untrusted import InputError

    budget = DEFAULT_MAX_MINUTES if max_minutes is None else max_minutes
    if not (seconds <= 60 * budget):  # NaN and inf included
        flag = f"--max-minutes {max(1, int(seconds / 60) + 1)}" if math.isfinite(seconds) else "a larger --max-minutes"
        hint = smaller or SMALLER.get(command)
        raise InputError(f"{command}: estimated about {seconds / 60:.3g} minutes on this machine, above the budget "
                         f"of {budget:g} minutes; pass {flag} to run it, or choose smaller sizes"
                         + (f" ({hint})" if hint else ""))


def announce_and_check(command: str, estimate, max_minutes: float | None, smaller: str | None = None) -> None:
    """Print ``estimate: <estimate.describe()>`` (one line, before any work) and refuse it over the budget
    (:func:`check_budget` with ``estimate.seconds``).

    Raises:
        rnnaudit.untrusted.InputError: as :func:`check_budget`.
    """
    print(f"estimate: {estimate.describe()}", flush=True)
    check_budget(command, estimate.seconds, max_minutes, smaller)
