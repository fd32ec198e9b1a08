/** Adapter families by `type` (see provider-adapters.ts); a definition's `type` must be a key here. */
import { anthropicProvider } from './anthropic/anthropic.provider';
import { geminiProvider } from './gemini/gemini.provider';
import { gigachatProvider } from './gigachat/gigachat.provider';
import { localProvider } from './local/local.providers';
import { openaiProvider } from './openai/openai.provider';
import { ProviderAdapters } from './provider-adapters';
import { yandexProvider } from './yandex/yandex.provider';

export const ADAPTER_FAMILIES: Readonly<Record<string, ProviderAdapters>> = {
  [openaiProvider.type]: openaiProvider,
  [anthropicProvider.type]: anthropicProvider,
  [geminiProvider.type]: geminiProvider,
  [localProvider.type]: localProvider,
  [yandexProvider.type]: yandexProvider,
  [gigachatProvider.type]: gigachatProvider,
};
