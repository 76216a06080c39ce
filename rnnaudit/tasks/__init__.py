"""Input sequences: the papers' synthetic tasks (``synthetic``) and loaders of their real data sets
(``datasets``).

A leaf package: it imports nothing else of rnnaudit, so every layer may draw inputs from it (the
claims' samplers use the addition problem, the trainer uses every task).
"""

from rnnaudit.tasks.synthetic import (ADDITION_BASELINE_MSE, TASKS, addition_problem, copy_task, denoise_task,
                                      parenthesis_task, task_baseline)

__all__ = ["ADDITION_BASELINE_MSE", "TASKS", "addition_problem", "copy_task", "denoise_task", "parenthesis_task",
           "task_baseline"]
