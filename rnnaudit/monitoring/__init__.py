"""Monitoring a user's own training loop: :class:`Monitor` records what the trainer records into a run
directory that ``rnnaudit audit``, ``compare`` and the figures read.

- :mod:`~rnnaudit.monitoring.monitor`: the :class:`Monitor` itself;
- :mod:`~rnnaudit.monitoring.probes`: what a record measures (gradient norms by role, gates,
  Jacobian summaries, ‖∂L/∂h_0‖, the top Lyapunov exponent);
- :mod:`~rnnaudit.monitoring.runs`: the run directory's files and how they are read back.

Named for the activity so that it never shadows the class ``rnnaudit.Monitor``. Nothing here imports
:mod:`rnnaudit.auditing`; the audit reads monitored runs through :mod:`~rnnaudit.monitoring.runs`.
"""

from rnnaudit.monitoring.monitor import Monitor

__all__ = ["Monitor"]
