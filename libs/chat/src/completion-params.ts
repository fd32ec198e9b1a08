import { ApiError } from '@app/common';
import type { ResponseFormat, ToolChoice, ToolDefinition } from '@app/providers';
import type { ChatParams } from './chat.service';
import type { ChatCompletionRequestDto } from './dto/chat-completions.dto';

function bad(message: string, param: string): ApiError {
  return ApiError.badRequest(message, param, 'invalid_value');
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** OpenAI request fields → canonical ChatParams, with errors that name the field. */
export function completionParams(dto: ChatCompletionRequestDto): ChatParams {
  if (dto.stream_options !== undefined && dto.stream_options !== null && !dto.stream)
    throw bad('stream_options is only allowed when stream is true.', 'stream_options');
  refuseUnsupportedOutputs(dto);
  const legacy = legacyFunctions(dto);
  const toolList = legacy ? legacy.tools : tools(dto.tools);
  const choice = legacy ? legacy.choice : toolChoice(dto.tool_choice);
  // tool_choice and parallel_tool_calls mean nothing without tools (and upstreams refuse them then)
  const withTools = toolList !== undefined && toolList.length > 0;
  return {
    max_tokens: dto.max_completion_tokens ?? dto.max_tokens,
    temperature: dto.temperature,
    top_p: dto.top_p,
    stop: stop(dto.stop),
    seed: dto.seed,
    // safety_identifier is OpenAI's newer name for the same end-user identifier
    user: dto.user ?? dto.safety_identifier,
    n: dto.n,
    tools: withTools ? toolList : undefined,
    tool_choice: withTools ? choice : undefined,
    // the deprecated function calling answers with one function_call at most
    parallel_tool_calls: withTools ? (legacy ? false : dto.parallel_tool_calls) : undefined,
    response_format: responseFormat(dto.response_format),
    frequency_penalty: dto.frequency_penalty,
    presence_penalty: dto.presence_penalty,
    logit_bias: logitBias(dto.logit_bias),
    logprobs: dto.logprobs,
    top_logprobs: dto.top_logprobs ?? undefined,
    reasoning_effort: dto.reasoning_effort ?? undefined,
    service_tier: dto.service_tier,
    prediction: prediction(dto.prediction),
    verbosity: dto.verbosity ?? undefined,
  };
}

/**
 * Outputs the gateway cannot produce for any model (audio, web search) are a 400 naming the field
 * rather than an answer that silently lacks them; `modalities: ["text"]` asks for nothing more.
 */
function refuseUnsupportedOutputs(dto: ChatCompletionRequestDto): void {
  const unsupported = (param: string, what: string): ApiError =>
    ApiError.badRequest(`${param}: ${what} is not supported.`, param, 'unsupported_parameter');
  if (dto.modalities) {
    const other = dto.modalities.find((m) => m !== 'text');
    if (other !== undefined) throw unsupported('modalities', `the output modality '${other}'`);
  }
  if (dto.audio !== undefined && dto.audio !== null) throw unsupported('audio', 'audio output');
  if (dto.web_search_options !== undefined && dto.web_search_options !== null)
    throw unsupported('web_search_options', 'web search');
}

/** Whether the request uses the deprecated `functions` / `function_call` (then the answer does too). */
export function usesLegacyFunctions(dto: Pick<ChatCompletionRequestDto, 'functions' | 'function_call'>): boolean {
  return (
    (dto.functions !== undefined && dto.functions !== null) ||
    (dto.function_call !== undefined && dto.function_call !== null)
  );
}

/**
 * The deprecated `functions` ([{name, description?, parameters?}]) and `function_call` ("none" |
 * "auto" | {name}) as tools and tool_choice. Mixing them with tools / tool_choice is refused.
 */
function legacyFunctions(
  dto: ChatCompletionRequestDto,
): { tools: ToolDefinition[] | undefined; choice: ToolChoice | undefined } | null {
  if (!usesLegacyFunctions(dto)) return null;
  if (dto.tools !== undefined || (dto.tool_choice !== undefined && dto.tool_choice !== null))
    throw bad('Use either functions / function_call or tools / tool_choice, not both.', 'functions');
  const fns = dto.functions ?? undefined;
  if (fns !== undefined && !Array.isArray(fns)) throw bad('functions must be an array.', 'functions');
  const list = fns?.map((f, i) => {
    if (!isRecord(f)) throw bad(`functions[${i}] must be {name, description?, parameters?}.`, `functions[${i}]`);
    return functionTool(f, `functions[${i}]`);
  });
  const fc = dto.function_call ?? undefined;
  let choice: ToolChoice | undefined;
  if (fc === undefined) choice = undefined;
  else if (fc === 'none' || fc === 'auto') choice = fc;
  else if (isRecord(fc) && typeof fc.name === 'string') {
    if (!list?.some((t) => t.function.name === fc.name))
      throw bad(`function_call names ${fc.name}, which is not in functions.`, 'function_call');
    choice = { type: 'function', function: { name: fc.name } };
  } else throw bad('function_call must be "none", "auto" or {name}.', 'function_call');
  return { tools: list, choice };
}

function logitBias(v: Record<string, number> | undefined): Record<string, number> | undefined {
  if (v === undefined) return undefined;
  for (const [k, b] of Object.entries(v)) {
    if (!/^\d+$/.test(k)) throw bad(`logit_bias keys must be token ids; got "${k}".`, 'logit_bias');
    if (typeof b !== 'number' || b < -100 || b > 100)
      throw bad(`logit_bias["${k}"] must be a number from -100 to 100.`, `logit_bias.${k}`);
  }
  return v;
}

function prediction(v: Record<string, unknown> | null | undefined): Record<string, unknown> | undefined {
  if (v === undefined || v === null) return undefined;
  const c = v.content;
  const parts = Array.isArray(c) && c.every((p) => isRecord(p) && p.type === 'text' && typeof p.text === 'string');
  if (v.type !== 'content' || (typeof c !== 'string' && !parts))
    throw bad('prediction must be {type: "content", content: string or text parts}.', 'prediction');
  return { type: 'content', content: c };
}

function stop(v: unknown): string | string[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && v.length <= 4 && v.every((s) => typeof s === 'string')) return v as string[];
  throw bad('stop must be a string or an array of at most 4 strings.', 'stop');
}

function tools(v: unknown[] | undefined): ToolDefinition[] | undefined {
  if (!v) return undefined;
  return v.map((t, i) => {
    const at = `tools[${i}]`;
    if (!isRecord(t) || t.type !== 'function' || !isRecord(t.function))
      throw bad(`${at} must be {type: "function", function: {name, description?, parameters?}}.`, at);
    return functionTool(t.function, `${at}.function`);
  });
}

/** One function definition ({name, description?, parameters?, strict?}) found at `at`. */
function functionTool(f: Record<string, unknown>, at: string): ToolDefinition {
  if (typeof f.name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(f.name))
    throw bad(`${at}.name must match ^[a-zA-Z0-9_-]{1,64}$.`, `${at}.name`);
  if (f.description !== undefined && typeof f.description !== 'string')
    throw bad(`${at}.description must be a string.`, `${at}.description`);
  if (f.parameters !== undefined && !isRecord(f.parameters))
    throw bad(`${at}.parameters must be a JSON Schema object.`, `${at}.parameters`);
  return {
    type: 'function',
    function: {
      name: f.name,
      ...(f.description !== undefined ? { description: f.description as string } : {}),
      ...(f.parameters !== undefined ? { parameters: f.parameters as Record<string, unknown> } : {}),
      ...(typeof f.strict === 'boolean' ? { strict: f.strict } : {}),
    },
  };
}

function toolChoice(v: unknown): ToolChoice | undefined {
  if (v === undefined || v === null) return undefined;
  if (v === 'none' || v === 'auto' || v === 'required') return v;
  if (isRecord(v) && v.type === 'function' && isRecord(v.function) && typeof v.function.name === 'string')
    return { type: 'function', function: { name: v.function.name } };
  throw bad('tool_choice must be "none", "auto", "required" or {type: "function", function: {name}}.', 'tool_choice');
}

function responseFormat(v: unknown): ResponseFormat | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isRecord(v)) throw bad('response_format must be an object.', 'response_format');
  if (v.type === 'text') return { type: 'text' };
  if (v.type === 'json_object') return { type: 'json_object' };
  if (v.type === 'json_schema') {
    const s = v.json_schema;
    if (!isRecord(s) || typeof s.name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(s.name))
      throw bad(
        'response_format.json_schema.name is required (^[a-zA-Z0-9_-]{1,64}$).',
        'response_format.json_schema.name',
      );
    if (s.schema !== undefined && !isRecord(s.schema))
      throw bad(
        'response_format.json_schema.schema must be a JSON Schema object.',
        'response_format.json_schema.schema',
      );
    return {
      type: 'json_schema',
      json_schema: {
        name: s.name,
        ...(typeof s.description === 'string' ? { description: s.description } : {}),
        ...(s.schema ? { schema: s.schema as Record<string, unknown> } : {}),
        ...(typeof s.strict === 'boolean' ? { strict: s.strict } : {}),
      },
    };
  }
  throw bad('response_format.type must be text, json_object or json_schema.', 'response_format.type');
}
