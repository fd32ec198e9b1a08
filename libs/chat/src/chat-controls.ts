import { ApiError } from '@app/common';
import { CHAT_CONTROLS, ChatControl, ModelEntry } from '@app/providers';
import type { ChatParams } from './chat.service';

/**
 * Sampling and output controls beyond the basics, and which models honour them. Each one is
 * forwarded to providers that take it (OpenAI and OpenAI-compatible servers), translated where
 * the provider has an equivalent (reasoning_effort → Anthropic's thinking budget, Gemini's
 * thinkingConfig; penalties → Gemini's generationConfig), and refused with a 400 naming the field
 * for a model that cannot honour it — never silently dropped. A neutral value (a 0 penalty, an
 * empty logit_bias, logprobs false, service_tier "auto") asks for nothing and always passes.
 */
/** OpenAI reasoning models (o-series, gpt-5): reasoning_effort, not the sampling controls. */
const OPENAI_REASONING = /^(o\d|gpt-5)/;

/** The controls a model honours (by provider, and for OpenAI by model family). */
export function supportedControls(model: Pick<ModelEntry, 'provider' | 'upstream_model'>): ReadonlySet<ChatControl> {
  switch (model.provider) {
    case 'openai': {
      if (OPENAI_REASONING.test(model.upstream_model)) {
        const out: ChatControl[] = ['reasoning_effort', 'service_tier'];
        if (model.upstream_model.startsWith('gpt-5')) out.push('verbosity');
        return new Set(out);
      }
      return new Set<ChatControl>([
        'frequency_penalty',
        'presence_penalty',
        'logit_bias',
        'logprobs',
        'top_logprobs',
        'service_tier',
        'prediction',
      ]);
    }
    case 'deepseek':
      // deepseek-reasoner ignores the sampling controls and has no logprobs
      return model.upstream_model.includes('reasoner')
        ? new Set<ChatControl>()
        : new Set<ChatControl>(['frequency_penalty', 'presence_penalty', 'logprobs', 'top_logprobs']);
    case 'anthropic':
      return new Set<ChatControl>(['reasoning_effort']);
    case 'gemini':
      return new Set<ChatControl>(['frequency_penalty', 'presence_penalty', 'reasoning_effort']);
    case 'yandex':
      // reasoning_effort → reasoningOptions; the Foundation Models API has no penalties or logprobs
      return new Set<ChatControl>(['reasoning_effort']);
    case 'local':
    case 'gigachat':
      // GigaChat's only extra sampling control (repetition_penalty) has no OpenAI counterpart
      return new Set<ChatControl>();
    default:
      // other OpenAI-compatible servers (vLLM, Ollama, OpenRouter): the OpenAI sampling controls
      return new Set<ChatControl>(['frequency_penalty', 'presence_penalty', 'logit_bias', 'logprobs', 'top_logprobs']);
  }
}

/** Whether the request asks for the control (a neutral value asks for nothing). */
function asked(p: ChatParams, c: ChatControl): boolean {
  const v = p[c];
  if (v === undefined || v === null) return false;
  if (c === 'frequency_penalty' || c === 'presence_penalty') return v !== 0;
  if (c === 'logit_bias') return Object.keys(v as object).length > 0;
  if (c === 'logprobs') return v === true;
  if (c === 'service_tier') return v !== 'auto';
  return true;
}

/** The controls the request asks for. */
export function askedControls(p: ChatParams): ChatControl[] {
  return CHAT_CONTROLS.filter((c) => asked(p, c));
}

/**
 * 400 (before any call) when the model cannot honour a control the request asks for. `param`
 * maps a control to the request's field name (the Responses API names some differently).
 */
export function assertControls(model: ModelEntry, p: ChatParams, param: (c: ChatControl) => string = (c) => c): void {
  const wanted = askedControls(p);
  // most requests ask for none: the model's set is built only for those that do
  if (wanted.length) {
    const supported = supportedControls(model);
    for (const c of wanted) {
      if (!supported.has(c))
        throw ApiError.badRequest(
          `${param(c)} is not supported by the model '${model.key}'.`,
          param(c),
          'unsupported_parameter',
        );
    }
  }
  if (asked(p, 'reasoning_effort') && model.provider === 'anthropic') {
    // extended thinking: a budget of at least 1024 tokens below max_tokens, the default temperature
    // and no forced tool (JSON mode is a forced tool on Claude)
    if (p.max_tokens !== undefined && p.max_tokens <= 1024)
      throw ApiError.badRequest(
        `reasoning_effort on '${model.key}' needs max_tokens above 1024 (the thinking budget is at least 1024 tokens).`,
        param('reasoning_effort'),
        'unsupported_parameter',
      );
    if (p.temperature !== undefined || p.top_p !== undefined)
      throw ApiError.badRequest(
        `reasoning_effort on '${model.key}' cannot be combined with temperature or top_p.`,
        p.temperature !== undefined ? 'temperature' : 'top_p',
        'unsupported_parameter',
      );
    const forced =
      (p.response_format !== undefined && p.response_format.type !== 'text') ||
      p.tool_choice === 'required' ||
      typeof p.tool_choice === 'object';
    if (forced)
      throw ApiError.badRequest(
        `reasoning_effort on '${model.key}' cannot be combined with structured output or a forced tool choice.`,
        param('reasoning_effort'),
        'unsupported_parameter',
      );
  }
  if (p.top_logprobs !== undefined && p.logprobs !== true)
    throw ApiError.badRequest('top_logprobs needs logprobs: true.', param('top_logprobs'), 'invalid_value');
}
