"""Work that moves by itself (seeds 002 and 003): one step,
:func:`~.step.supervise`, that the runner calls after each change (and every rescan),
``teamdeck supervise`` runs by hand or in a loop, and tests call with their clock.

- :mod:`.plans`: every approved plan is driven as far as it goes (``plan run`` without
  anyone typing it): waves delegated, reported waves verified, PASS to the next wave.
- :mod:`.review`: a task whose guardian says ``onReview`` is verified once every worker
  reported; a FAIL with ``retries`` left goes back to its workers by itself.
- :mod:`.stalls`: the nudges with backoff, then the ``member-stalled`` decision (what is
  due is read by protocol/coordination/stall_scan.py, which the status and the roster show; a nudge is
  protocol/coordination/nudges.py; answering the decision is protocol/effects/stall_gates.py).

Every step is an event in the task's or plan's log, its actor :data:`~.steps.ACTOR`, its
cause in the event's reason; the step is idempotent, so calling it again changes nothing.
"""
