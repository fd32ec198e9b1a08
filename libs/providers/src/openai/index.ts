import { ChatAdapter } from '../types';
import { mapOpenAiError } from './openai.errors';
import { buildOpenAiChatRequest } from './openai.request';
import { mapOpenAiChatResponse } from './openai.response';
import { createOpenAiStreamState, flushOpenAiStream, mapOpenAiStreamEvent, OpenAiStreamState } from './openai.stream';

/** Any OpenAI-compatible upstream: OpenAI, DeepSeek, OpenRouter, vLLM, Ollama. */
export const openaiAdapter: ChatAdapter<OpenAiStreamState> = {
  type: 'openai',
  buildChatRequest: buildOpenAiChatRequest,
  mapChatResponse: mapOpenAiChatResponse,
  createStreamState: createOpenAiStreamState,
  mapStreamEvent: mapOpenAiStreamEvent,
  flush: flushOpenAiStream,
  mapError: mapOpenAiError,
};

export * from './openai.request';
export * from './openai.response';
export * from './openai.stream';
export * from './openai.errors';
export * from './openai.embeddings';
