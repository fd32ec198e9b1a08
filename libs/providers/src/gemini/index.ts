import { ChatAdapter } from '../types';
import { mapGeminiError } from './gemini.errors';
import { buildGeminiChatRequest } from './gemini.request';
import { mapGeminiChatResponse } from './gemini.response';
import { createGeminiStreamState, flushGeminiStream, GeminiStreamState, mapGeminiStreamEvent } from './gemini.stream';

/** Google Gemini API (generativelanguage.googleapis.com, v1beta generateContent). */
export const geminiAdapter: ChatAdapter<GeminiStreamState> = {
  type: 'gemini',
  buildChatRequest: buildGeminiChatRequest,
  mapChatResponse: mapGeminiChatResponse,
  createStreamState: createGeminiStreamState,
  mapStreamEvent: mapGeminiStreamEvent,
  flush: flushGeminiStream,
  mapError: mapGeminiError,
};

export * from './gemini.request';
export * from './gemini.response';
export * from './gemini.stream';
export * from './gemini.errors';
