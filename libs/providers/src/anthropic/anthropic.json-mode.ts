/**
 * JSON mode for Anthropic. The Messages API has no `response_format`, so JSON output is produced
 * with a forced tool: a tool named `json_output` whose input schema is the requested JSON schema
 * (or `{type: "object"}` for json_object) and `tool_choice: {type: "tool", name: "json_output"}`.
 * Claude then answers with one `tool_use` block whose `input` is the JSON document; the response and
 * stream mappers turn that block back into plain message content (a JSON string) with
 * finish_reason "stop", so callers see an ordinary JSON-mode answer.
 *
 * When the request also has its own tools, the model must be free to call those instead:
 * json_output is added next to them and tool_choice becomes `any` (one tool per turn), unless the
 * caller forced a specific tool. The name is reserved: a caller tool named `json_output` would be
 * taken for the JSON answer.
 */
import { ResponseFormat } from '../types';

export const JSON_OUTPUT_TOOL_NAME = 'json_output';

export interface AnthropicTool {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
}

/** The forced tool for a JSON response_format, or undefined for text / no format. */
export function jsonOutputTool(format: ResponseFormat | undefined): AnthropicTool | undefined {
  if (format === undefined || format.type === 'text') return undefined;
  if (format.type === 'json_object') {
    return {
      name: JSON_OUTPUT_TOOL_NAME,
      description: 'Give your answer by calling this tool with the answer as a JSON object.',
      input_schema: { type: 'object' },
    };
  }
  const { name, description, schema } = format.json_schema;
  const purpose = description !== undefined && description !== '' ? ` ${description}` : '';
  return {
    name: JSON_OUTPUT_TOOL_NAME,
    description: `Give your answer by calling this tool with a JSON object matching the "${name}" schema.${purpose}`,
    input_schema: schema ?? { type: 'object' },
  };
}
