import { ChatAdapter } from '../types';
import { mapYandexError } from './yandex.errors';
import { buildYandexChatRequest } from './yandex.request';
import { mapYandexChatResponse } from './yandex.response';
import { createYandexStreamState, flushYandexStream, mapYandexStreamEvent, YandexStreamState } from './yandex.stream';

/** Yandex AI Studio Foundation Models API (llm.api.cloud.yandex.net, foundationModels/v1). */
export const yandexAdapter: ChatAdapter<YandexStreamState> = {
  type: 'yandex',
  streamFraming: 'ndjson',
  buildChatRequest: buildYandexChatRequest,
  mapChatResponse: mapYandexChatResponse,
  createStreamState: createYandexStreamState,
  mapStreamEvent: mapYandexStreamEvent,
  flush: flushYandexStream,
  mapError: mapYandexError,
};

export * from './yandex.access';
export * from './yandex.request';
export * from './yandex.response';
export * from './yandex.stream';
export * from './yandex.errors';
export * from './yandex.embeddings';
