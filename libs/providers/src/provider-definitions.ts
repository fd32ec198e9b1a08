/**
 * Every provider the catalog can route to. Dependency-free (data files only): the app hands
 * ENV_PROVIDERS to the configuration (AppConfig.load), which then reads their <PREFIX>_* variables;
 * the registry looks definitions up here.
 *
 * An OpenAI-compatible provider is one more definition (`type: 'openai'`, its env prefix and
 * default base URL) listed below, plus its models in catalog/models.json.
 */
import { ANTHROPIC } from './anthropic/anthropic.definition';
import { DEEPSEEK } from './deepseek/deepseek.definition';
import { GEMINI } from './gemini/gemini.definition';
import { GIGACHAT } from './gigachat/gigachat.definition';
import { LOCAL } from './local/local.definition';
import { OPENAI } from './openai/openai.definition';
import type { ProviderDefinition, ProviderEnvSpec } from './provider-definition';
import { YANDEX } from './yandex/yandex.definition';

export type {
  Jurisdiction,
  ProviderDefinition,
  ProviderEnvSpec,
  ProviderEnvVariable,
  ProviderCapabilities,
} from './provider-definition';

export const PROVIDER_DEFINITIONS: readonly ProviderDefinition[] = [
  OPENAI,
  DEEPSEEK,
  ANTHROPIC,
  GEMINI,
  LOCAL,
  YANDEX,
  GIGACHAT,
];

export const PROVIDER_NAMES: readonly string[] = PROVIDER_DEFINITIONS.map((d) => d.name);

/** The definitions that read credentials from the environment, with their env spec. */
export const ENV_PROVIDERS: readonly (ProviderDefinition & { env: ProviderEnvSpec })[] = PROVIDER_DEFINITIONS.filter(
  (d): d is ProviderDefinition & { env: ProviderEnvSpec } => d.env !== undefined,
);

export function findProviderDefinition(name: string): ProviderDefinition | undefined {
  return PROVIDER_DEFINITIONS.find((d) => d.name === name);
}

/** Upstream calls an image request for `n` images makes on this provider (its `imageCallPerImage` capability). */
export function imageCallsFor(provider: string, n: number): number {
  return findProviderDefinition(provider)?.capabilities.imageCallPerImage ? n : 1;
}
