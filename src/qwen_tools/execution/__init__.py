"""The execution flow of a tool call: look-up, validation, confirmation, execution, response.

* `tool_call` — one call through the whole lifecycle (`run_tool_call`); `call_types` — its
  states and completed form;
* `scheduler` — `ToolScheduler`: batches of calls, approvals, events, cancellation;
* approvals: `approval` (what needs asking in each approval mode), `permissions` and
  `permission_rules` (`permissions.allow/ask/deny`), `sensitive_paths`, `modify`;
* the answer: `output_budget` and `persisted_output` (large outputs truncated and saved),
  `provider_messages` and `messages` (function responses for each model API), `telemetry`.
"""
