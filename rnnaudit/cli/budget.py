"""The time budget of ``rnnaudit heatmap``: its estimate, printed before the work starts, refused in one line when
it exceeds ``--max-minutes`` (a map at the largest allowed T runs for minutes to hours).

The estimate is :func:`rnnaudit.analysis.estimate_cost` calibrated by rates measured now on this machine
(:func:`rnnaudit.analysis.gemm_seconds`, :func:`rnnaudit.analysis.grid_maps.push_seconds`).
"""

from __future__ import annotations

__all__ = ["DEFAULT_MAX_MINUTES", "check_budget"]

#: The budget when --max-minutes is not given: long enough for every default-sized job on a laptop, short enough
#: that an unintended job at the size limits is refused before it runs for an hour.
DEFAULT_MAX_MINUTES = 10.0


def check_budget(command: str, seconds: float, max_minutes: float | None) -> None:
    """Refuse (one line naming --max-minutes) a job whose estimate, ``seconds``, exceeds the budget.

    Raises:
        rnnaudit.untrusted.InputError: ``seconds`` above ``max_minutes`` (default :data:`DEFAULT_MAX_MINUTES`).
    """
    from rnnaudit.untrusted import InputError

    budget = DEFAULT_MAX_MINUTES if max_minutes is None else max_minutes
    if seconds > 60 * budget:
        raise InputError(f"{command}: estimated about {seconds / 60:.3g} minutes on this machine, above the budget "
                         f"of {budget:g} minutes; pass --max-minutes {max(1, int(seconds / 60) + 1)} to run it, or "
                         "choose smaller sizes (a shorter --T, a coarser --resolution)")
