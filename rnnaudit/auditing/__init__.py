"""The audit of trained models: which theorems' assumptions a model satisfies, and whether their bounds hold
on its parameters.

- :mod:`~rnnaudit.auditing.model`: one model (:func:`audit`, any recurrent module and inputs;
  :func:`audit_model`, a :class:`~rnnaudit.bounds.on_model.ModelView`);
- :mod:`~rnnaudit.auditing.runs`: run directories and checkpoints of the trainer (:func:`audit_run`,
  :func:`audit_checkpoint`), which hand runs of :class:`rnnaudit.Monitor` to
  :mod:`~rnnaudit.auditing.monitored`;
- :mod:`~rnnaudit.auditing.failures`: the step at which each assumption first fails;
- :mod:`~rnnaudit.auditing.summary`: the model summary at the top of every audit;
- :mod:`~rnnaudit.auditing.attractors`: fixed points and slow points (:func:`fixed_points`, the audit's section).

The package is named for the activity so that it never shadows the function ``rnnaudit.audit``.
"""

from rnnaudit.auditing.attractors import fixed_points
from rnnaudit.auditing.failures import first_failures, recorded_failures
from rnnaudit.auditing.model import audit, audit_model, model_view, task_inputs
from rnnaudit.auditing.monitored import audit_monitored_checkpoint, audit_monitored_run
from rnnaudit.auditing.runs import audit_checkpoint, audit_run
from rnnaudit.auditing.summary import model_summary, type_name

__all__ = ["audit", "audit_model", "model_view", "task_inputs", "audit_checkpoint", "audit_run",
           "audit_monitored_checkpoint", "audit_monitored_run", "first_failures", "recorded_failures",
           "model_summary", "type_name", "fixed_points"]
