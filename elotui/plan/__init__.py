"""Deciding what to ask: the presentations to judge and their order, the calls that answer them
(rendered prompts, few-shot examples, perturbations, cache keys), the dry-run estimate and the adaptive
choice of the next batch. Executing the plan is elotui.run's."""
