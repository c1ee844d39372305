"""The tool contract, as in Qwen Code's `tools.ts`: what every tool is and returns.

* a tool: `declarative` (`BaseDeclarativeTool`: name, schema, validation, building an
  invocation), `model_tool` (params as a pydantic model), `tool_factory` (built on first use),
  `kinds`, `modifiable` (edit in an external editor);
* a call: `invocation` (description, locations, confirmation, execution with an `abort`
  signal and live output), `confirmation`, `display`;
* its answer: `results` (`ToolResult`), `parts`, `errors` (`ToolErrorType`),
  `function_response` (what the model receives);
* its arguments: `validation` (schema check with Ajv's texts), `coercion`, `arg_limits`,
  `well_formed` (any input, however malformed, gets one clear answer).
"""
