import type { Caller } from '@app/auth';
import type { ChatCost, RequestHold } from '@app/billing';
import type {
  CanonicalChatChunk,
  CanonicalChatRequest,
  CanonicalChatResponse,
  CanonicalUsage,
  ChatControl,
  ChatMessage,
  ChatProvider,
  ModelEntry,
} from '@app/providers';
import type { RequestProtection } from '@app/data-protection';

/** Tokens reserved per image before the provider reports the real count (≈ a 1092×1092 image on Claude). */
export const IMAGE_TOKEN_ESTIMATE = 1600;
/**
 * The least output a call capped to the balance is sent with (per choice): below it the request is
 * refused (402) as one the balance cannot cover.
 */
export const MIN_CAPPED_OUTPUT_TOKENS = 16;
/** Response header of a call whose output was capped to what the balance affords: the max_tokens sent upstream. */
export const MAX_TOKENS_CAPPED_HEADER = 'x-gateway-max-tokens-capped';

/** Generation parameters: the canonical request without model, messages and stream. */
export type ChatParams = Omit<CanonicalChatRequest, 'model' | 'messages' | 'stream'>;

export interface ChatCallInput {
  caller: Caller;
  requestId: string;
  endpoint: string;
  modelKey: string;
  /** request extension: model keys tried after `modelKey` (instead of the catalog's `fallbacks`) */
  fallbacks?: string[];
  messages: ChatMessage[];
  params: ChatParams;
  /** param name used in errors about images (e.g. "file_urls" or "messages") */
  imageParam: string;
  /**
   * Models whose upstream gets the caller's own body (see UpstreamCall), not the canonical request:
   * their images are not fetched and inlined.
   */
  sendsOwnBody?: (model: ModelEntry) => boolean;
  /** Models for which a max_tokens above their output cap is lowered to the cap instead of refused. */
  capsMaxTokens?: (model: ModelEntry) => boolean;
  /** the request's hold taken before its retrieval (the answer's hold is taken out of it) */
  within?: RequestHold | null;
  /** the request's name of a control (the Responses API says reasoning.effort, text.verbosity …) */
  controlParam?: (c: ChatControl) => string;
  /** countPrompt(messages, params) when the caller counted these very messages already (not counted twice) */
  promptTokens?: number;
  /** check(input) when the caller checked these very messages and params already (not checked twice) */
  checked?: ChatChecked;
  /**
   * The output may be capped to what the balance affords (default: when the caller gave no
   * max_tokens); /v1/messages, whose max_tokens is required, reads it as a ceiling.
   */
  capOutput?: boolean;
  /** the least output tokens a capped call is sent with (default MIN_CAPPED_OUTPUT_TOKENS) */
  minOutputTokens?: number;
}

/** What ChatService.check needs of a call. */
export type ChatCheckInput = Pick<
  ChatCallInput,
  'modelKey' | 'fallbacks' | 'messages' | 'params' | 'imageParam' | 'capsMaxTokens' | 'controlParam'
> & {
  caller?: Caller;
};

/** The requested model and the fallbacks the caller may use. */
export interface ChatChecked {
  model: ModelEntry;
  fallbacks: ModelEntry[];
}

/** One model the call may be served by, with its own upstream request. */
export interface ChatCandidate {
  model: ModelEntry;
  request: CanonicalChatRequest;
  /** this model's worst case */
  holdMicro: number;
  /** the prompt side of the hold, in tokens (padded prompt + images), for capping the output */
  promptHoldTokens?: number;
  /** the hold with the least output a capped call is sent with */
  minHoldMicro?: number;
  /** set when the output was capped to what the balance affords: the max_tokens sent */
  cappedOutput?: number;
}

export interface PreparedChat {
  input: ChatCallInput;
  /** the requested model */
  model: ModelEntry;
  /** the requested model's upstream request */
  request: CanonicalChatRequest;
  /** the requested model, then the fallbacks that accept this request and are callable */
  candidates: ChatCandidate[];
  promptTokens: number;
  images: number;
  /** the worst case, held when the call starts: the dearest candidate's */
  holdMicro: number;
  /**
   * When the output may be capped to the balance: the least hold the call can run with (the
   * cheapest runnable candidate with the least output); the hold is then flexible (MeterSpec.minMicro).
   */
  minHoldMicro?: number;
  /** how each attempt calls its upstream, when not with the candidate's canonical request */
  upstream?: UpstreamCall;
  /** the caller's data policy on this request (its placeholders when personal data is masked) */
  protection?: RequestProtection;
}

/**
 * An endpoint's own way to call a candidate's upstream (e.g. a wire format passed through
 * natively). Results keep the canonical shape, so usage, accounting and billing stay the same.
 */
export interface UpstreamCall {
  complete(c: ChatCandidate, provider: ChatProvider, signal: AbortSignal): Promise<CanonicalChatResponse>;
  stream(c: ChatCandidate, provider: ChatProvider, signal: AbortSignal): Promise<AsyncIterable<CanonicalChatChunk>>;
}

/** How the call was routed (retries, fallbacks, deployment), for headers, logs and metrics. */
export interface ChatRouting {
  /** upstream attempts, all models together */
  attempts: number;
  retries: number;
  fallbacks: number;
  deployment: string;
}

export interface ChatOutcome {
  response: CanonicalChatResponse;
  usage: CanonicalUsage;
  cost: ChatCost;
  chargedMicro: number;
  /** usage was counted by the gateway (provider reported none, or the client disconnected) */
  usageEstimated: boolean;
  /** the model that served the answer (the requested one, or a fallback); priced at its rates */
  servedModel: ModelEntry;
  routing: ChatRouting;
}

export interface StreamOutcome extends ChatOutcome {
  aborted: boolean;
  text: string;
  reasoning: string;
}

/** What ChatService.events yields: each chunk as it comes (model = the served catalog key), then the settled outcome. */
/** How an endpoint words a chat stream (ChatService.relay). */
export interface RelaySteps<E> {
  chunk(chunk: CanonicalChatChunk): Iterable<E>;
  error(err: unknown): Iterable<E>;
  end(outcome: StreamOutcome): Iterable<E>;
}

export type ChatStreamEvent = { type: 'chunk'; chunk: CanonicalChatChunk } | { type: 'end'; outcome: StreamOutcome };
