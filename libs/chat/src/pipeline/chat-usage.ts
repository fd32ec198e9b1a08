import type { ChatCost, MeteredCharge } from '@app/billing';
import type {
  CanonicalUsage,
  ModelEntry,
  PromptUsage,
  RouteProgress,
  TokenizerService,
  ToolCall,
} from '@app/providers';
import { ChatCandidate, ChatRouting, IMAGE_TOKEN_ESTIMATE, PreparedChat } from './chat.types';

/**
 * Usage the gateway counts: the delivered text with its tokenizer; the prompt as the upstream
 * reported it when the answer started (`reported`, e.g. Anthropic's message_start), else as counted.
 */
export function countUsage(
  tokenizers: TokenizerService,
  prep: PreparedChat,
  delivered: string,
  reported: PromptUsage | null = null,
): CanonicalUsage {
  const completion = tokenizers.chat.count(delivered);
  const prompt = reported ?? {
    prompt_tokens: prep.promptTokens + prep.images * IMAGE_TOKEN_ESTIMATE,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
  };
  return { ...prompt, completion_tokens: completion, total_tokens: prompt.prompt_tokens + completion };
}

/** The charge of a served answer: its cost, and the ledger entry's details (routing when it was rerouted). */
export function chargeFor(
  prep: PreparedChat,
  served: ModelEntry,
  usage: CanonicalUsage,
  cost: ChatCost,
  estimated: boolean,
  progress: RouteProgress<ChatCandidate>,
): MeteredCharge {
  const routed =
    served.key !== prep.model.key || progress.retries > 0
      ? { requested_model: prep.model.key, retries: progress.retries, fallbacks: progress.fallbacks }
      : {};
  return {
    costMicro: cost.totalMicro,
    details: {
      endpoint: prep.input.endpoint,
      model: served.key,
      apiKeyId: prep.input.caller.apiKeyId,
      promptTokens: usage.prompt_tokens,
      completionTokens: usage.completion_tokens,
      totalTokens: usage.prompt_tokens + usage.completion_tokens,
      fx: served.fx ?? null,
      breakdown: {
        ...cost,
        cache_read_tokens: usage.cache_read_tokens,
        cache_write_tokens: usage.cache_write_tokens,
        ...(usage.cache_write_1h_tokens ? { cache_write_1h_tokens: usage.cache_write_1h_tokens } : {}),
        ...(usage.reasoning_tokens ? { reasoning_tokens: usage.reasoning_tokens } : {}),
        images: prep.images,
        usage_estimated: estimated,
        ...routed,
      },
    },
  };
}

export function routingOf(p: RouteProgress<ChatCandidate>): ChatRouting {
  return { attempts: p.attempts, retries: p.retries, fallbacks: p.fallbacks, deployment: p.deployment };
}

export function toolText(t: ToolCall): string {
  return t.function.name + t.function.arguments;
}
