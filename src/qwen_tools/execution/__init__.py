"""The execution flow of a tool call: look-up, validation, approval, execution, response.

* :mod:`.tool_call` — one call through its lifecycle (:func:`run_tool_call`, or its steps
  ``prepare_call``, ``approve_call`` and ``execute_call``); :mod:`.call_types` — the request and
  the completed call;
* :mod:`.scheduler` — :class:`ToolScheduler`: batches of calls, approvals, events, cancellation;
* approvals: :mod:`.approval` (what needs asking in each approval mode), :mod:`.permission_rules`
  (``permissions.deny``/``ask``/``allow``), :mod:`.permissions` (pre-approval by rules and
  "always allow" answers), :mod:`.sensitive_paths`, :mod:`.modify` (modify with an editor);
* :mod:`.hook_points` — where a call meets the user's hooks (``PreToolUse``,
  ``PermissionRequest``, ``PostToolUse``, ``PostToolUseFailure``);
* the answer: :mod:`.output_budget` and :mod:`.persisted_output` (large outputs truncated and
  saved), :mod:`.provider_messages` (function responses for each model API), :mod:`.messages`
  (the texts of refusals and cancellations), :mod:`.telemetry`.
"""
