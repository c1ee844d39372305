"""The tool contract, as in Qwen Code's ``tools.ts``: what every tool is and returns.

* a tool: :mod:`.tool_names` (every built-in's name, display name and legacy names),
  :mod:`.declarative` (:class:`BaseDeclarativeTool`: name, schema, validation, building
  an invocation), :mod:`.model_tool` (params as a pydantic model), :mod:`.tool_factory` (built
  on first use), :mod:`.kinds`, :mod:`.modifiable` (edit in an external editor);
* a call: :mod:`.invocation` (description, locations, confirmation, execution with an abort
  signal and live output), :mod:`.abort` (:class:`AbortSignal`), :mod:`.confirmation` (the
  prompts), :mod:`.outcome` (the user's answer), :mod:`.display`;
* its answer: :mod:`.results` (:class:`ToolResult`), :mod:`.parts`, :mod:`.errors`
  (:class:`ToolErrorType`), :mod:`.function_response` (what the model receives);
* its arguments: :mod:`.validation` (schema check with AJV's texts), :mod:`.plain_schema`
  (plain params proved valid without a library), :mod:`.coercion`, :mod:`.arg_limits`,
  :mod:`.well_formed` (any input, however malformed, gets one clear answer).
"""
