/** Canonical request → Gemini `POST {baseUrl}/v1beta/models/{model}:generateContent` (or `:streamGenerateContent?alt=sse`). */
import {
  CanonicalChatRequest,
  ReasoningEffort,
  ChatMessage,
  ImagePart,
  ProviderConnection,
  ProviderError,
  ToolChoice,
  ToolDefinition,
} from '../types';
import { isHttpUrl, joinUrl, parseDataUrl } from '../http/urls';
import { contentText } from '../message-text';
import { isRecord, parseJson } from '../http/wire-json';
import { resolveToolResultNames } from '../synthetic-tool-ids';

export interface GeminiFunctionCallPart {
  functionCall: { name: string; args: Record<string, unknown> };
  thoughtSignature?: string;
}

export type GeminiPart =
  | { text: string }
  | { inlineData: { mimeType: string; data: string } }
  | { fileData: { mimeType: string; fileUri: string } }
  | GeminiFunctionCallPart
  | { functionResponse: { name: string; response: Record<string, unknown> } };

export interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiPart[];
}

export interface GeminiFunctionDeclaration {
  name: string;
  description?: string;
  /** standard JSON Schema (unlike `parameters`, which only takes Google's OpenAPI subset) */
  parametersJsonSchema?: Record<string, unknown>;
}

export interface GeminiToolConfig {
  functionCallingConfig: { mode: 'AUTO' | 'ANY' | 'NONE'; allowedFunctionNames?: string[] };
}

export interface GeminiGenerationConfig {
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  stopSequences?: string[];
  seed?: number;
  candidateCount?: number;
  responseMimeType?: string;
  responseJsonSchema?: Record<string, unknown>;
  presencePenalty?: number;
  frequencyPenalty?: number;
  thinkingConfig?: { thinkingBudget: number };
}

/** Thinking budget (tokens) per OpenAI reasoning_effort (Gemini 2.5 thinkingConfig). */
export const GEMINI_THINKING_BUDGET: Record<ReasoningEffort, number> = {
  minimal: 128,
  low: 1024,
  medium: 8192,
  high: 24576,
};

export interface GeminiRequestBody {
  contents: GeminiContent[];
  systemInstruction?: { parts: Array<{ text: string }> };
  tools?: Array<{ functionDeclarations: GeminiFunctionDeclaration[] }>;
  toolConfig?: GeminiToolConfig;
  generationConfig?: GeminiGenerationConfig;
}

/**
 * Gemini 3 rejects replayed function calls without the thought signature it issued, which the
 * canonical format cannot carry. Google documents this value for history the client did not get
 * from the model (or cannot return verbatim); it is put on the first function call of each model turn.
 */
export const GEMINI_DUMMY_THOUGHT_SIGNATURE = 'skip_thought_signature_validator';

function invalid(message: string, param: string): ProviderError {
  return new ProviderError('invalid_request', message, undefined, undefined, param);
}

const MIME_BY_EXTENSION: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  heic: 'image/heic',
  heif: 'image/heif',
  pdf: 'application/pdf',
};

export function guessMimeType(url: string): string {
  let path = url;
  try {
    path = new URL(url).pathname;
  } catch {
    // keep the raw string
  }
  const extension = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase() ?? '';
  return MIME_BY_EXTENSION[extension] ?? 'image/jpeg';
}

/** data: URL → inlineData; http(s) URL → fileData (the gateway normally inlines images first). */
export function toGeminiImagePart(part: ImagePart, param: string): GeminiPart {
  const url = part.image_url.url;
  const data = parseDataUrl(url);
  if (data) return { inlineData: { mimeType: data.mimeType, data: data.data } };
  if (isHttpUrl(url)) return { fileData: { mimeType: guessMimeType(url), fileUri: url } };
  throw invalid('Image URLs must be data: URLs or http(s) URLs', param);
}

function toParts(content: ChatMessage['content'], param: string): GeminiPart[] {
  if (content === null) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ text: content }];
  const parts: GeminiPart[] = [];
  content.forEach((part, i) => {
    if (part.type === 'text') {
      if (part.text !== '') parts.push({ text: part.text });
    } else {
      parts.push(toGeminiImagePart(part, `${param}[${i}]`));
    }
  });
  return parts;
}

function parseArgs(args: string, param: string): Record<string, unknown> {
  if (args.trim() === '') return {};
  const parsed = parseJson(args);
  if (!parsed.ok || !isRecord(parsed.value)) throw invalid('Tool call arguments must be a JSON object', param);
  return parsed.value;
}

/** Tool output → functionResponse.response, which must be a JSON object. */
export function toFunctionResponse(content: ChatMessage['content']): Record<string, unknown> {
  const text = contentText(content);
  const parsed = parseJson(text);
  if (parsed.ok && isRecord(parsed.value)) return parsed.value;
  return { result: parsed.ok ? parsed.value : text };
}

function toModelParts(message: ChatMessage, param: string): GeminiPart[] {
  const text = contentText(message.content);
  const parts: GeminiPart[] = text === '' ? [] : [{ text }];
  (message.tool_calls ?? []).forEach((call, j) => {
    const part: GeminiFunctionCallPart = {
      functionCall: {
        name: call.function.name,
        args: parseArgs(call.function.arguments, `${param}.tool_calls[${j}].function.arguments`),
      },
    };
    if (j === 0) part.thoughtSignature = GEMINI_DUMMY_THOUGHT_SIGNATURE;
    parts.push(part);
  });
  return parts;
}

/** Conversation turns (system/developer excluded), consecutive same-role turns merged, empty turns dropped. */
export function toGeminiContents(messages: ChatMessage[]): GeminiContent[] {
  const toolNames = resolveToolResultNames(messages);
  const out: GeminiContent[] = [];
  messages.forEach((message, i) => {
    const param = `messages[${i}]`;
    let turn: GeminiContent;
    switch (message.role) {
      case 'user':
        turn = { role: 'user', parts: toParts(message.content, `${param}.content`) };
        break;
      case 'assistant':
        turn = { role: 'model', parts: toModelParts(message, param) };
        break;
      case 'tool': {
        const name = toolNames.get(i);
        if (name === undefined)
          throw invalid('Cannot find the tool call this tool message answers', `${param}.tool_call_id`);
        turn = { role: 'user', parts: [{ functionResponse: { name, response: toFunctionResponse(message.content) } }] };
        break;
      }
      default:
        return;
    }
    if (turn.parts.length === 0) return;
    const last = out[out.length - 1];
    if (last !== undefined && last.role === turn.role) last.parts.push(...turn.parts);
    else out.push(turn);
  });
  return out;
}

export function toGeminiSystemInstruction(messages: ChatMessage[]): GeminiRequestBody['systemInstruction'] {
  const parts = messages
    .filter((m) => m.role === 'system' || m.role === 'developer')
    .map((m) => contentText(m.content))
    .filter((t) => t !== '')
    .map((text) => ({ text }));
  return parts.length > 0 ? { parts } : undefined;
}

export function toGeminiFunctionDeclaration(tool: ToolDefinition): GeminiFunctionDeclaration {
  const out: GeminiFunctionDeclaration = { name: tool.function.name };
  if (tool.function.description !== undefined) out.description = tool.function.description;
  if (tool.function.parameters !== undefined) out.parametersJsonSchema = tool.function.parameters;
  return out;
}

export function toGeminiToolConfig(choice: ToolChoice | undefined): GeminiToolConfig | undefined {
  if (choice === undefined) return undefined;
  if (choice === 'auto') return { functionCallingConfig: { mode: 'AUTO' } };
  if (choice === 'required') return { functionCallingConfig: { mode: 'ANY' } };
  if (choice === 'none') return { functionCallingConfig: { mode: 'NONE' } };
  return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.function.name] } };
}

export function toGeminiGenerationConfig(req: CanonicalChatRequest): GeminiGenerationConfig | undefined {
  const config: GeminiGenerationConfig = {};
  if (req.max_tokens !== undefined) config.maxOutputTokens = req.max_tokens;
  if (req.temperature !== undefined) config.temperature = req.temperature;
  if (req.top_p !== undefined) config.topP = req.top_p;
  if (req.stop !== undefined) {
    const stops = (typeof req.stop === 'string' ? [req.stop] : req.stop).filter((s) => s !== '');
    if (stops.length > 0) config.stopSequences = stops;
  }
  if (req.seed !== undefined) config.seed = req.seed;
  if (req.n !== undefined) config.candidateCount = req.n;
  if (req.presence_penalty !== undefined) config.presencePenalty = req.presence_penalty;
  if (req.frequency_penalty !== undefined) config.frequencyPenalty = req.frequency_penalty;
  if (req.reasoning_effort !== undefined)
    config.thinkingConfig = { thinkingBudget: GEMINI_THINKING_BUDGET[req.reasoning_effort] };
  const format = req.response_format;
  if (format !== undefined && format.type !== 'text') {
    config.responseMimeType = 'application/json';
    if (format.type === 'json_schema' && format.json_schema.schema !== undefined)
      config.responseJsonSchema = format.json_schema.schema;
  }
  return Object.keys(config).length > 0 ? config : undefined;
}

export function buildGeminiBody(req: CanonicalChatRequest): GeminiRequestBody {
  const body: GeminiRequestBody = { contents: toGeminiContents(req.messages) };
  const system = toGeminiSystemInstruction(req.messages);
  if (system !== undefined) body.systemInstruction = system;
  if (req.tools !== undefined && req.tools.length > 0) {
    body.tools = [{ functionDeclarations: req.tools.map(toGeminiFunctionDeclaration) }];
    const toolConfig = toGeminiToolConfig(req.tool_choice);
    if (toolConfig !== undefined) body.toolConfig = toolConfig;
  }
  const generationConfig = toGeminiGenerationConfig(req);
  if (generationConfig !== undefined) body.generationConfig = generationConfig;
  // user and parallel_tool_calls have no Gemini counterpart
  return body;
}

export function geminiChatUrl(baseUrl: string, model: string, stream: boolean): string {
  const id = model.replace(/^models\//, '');
  return joinUrl(baseUrl, `v1beta/models/${id}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`);
}

export function buildGeminiChatRequest(
  req: CanonicalChatRequest,
  conn: ProviderConnection,
): { url: string; headers: Record<string, string>; body: GeminiRequestBody } {
  return {
    url: geminiChatUrl(conn.baseUrl, req.model, req.stream === true),
    headers: { 'content-type': 'application/json', 'x-goog-api-key': conn.apiKey },
    body: buildGeminiBody(req),
  };
}
