import { Injectable } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { ApiError, Clock } from '@app/common';
import { AppConfig, missingProviderCredential } from '@app/config';
import {
  ModelCatalogService,
  ModelEntry,
  PROVIDER_DEFINITIONS,
  ProviderDefinition,
  ProviderRegistry,
  findProviderDefinition,
  providerErrorToApiError,
} from '@app/providers';
import { ProviderHealthRepository } from './provider-health.repository';
import { healthOf } from './provider-health';
import { ProviderStatusDto, ProviderStatusListDto, ProviderTestResultDto } from './provider-status.dto';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** What "Test" asks: one word in, at most one token out. */
const TEST_PROMPT = 'ping';

/**
 * The operator's view of the providers: how each is configured (credential, base URL, CA file),
 * its health from the request log over the last hour and day, and a one-token test call.
 */
@Injectable()
export class ProviderStatusService {
  constructor(
    private readonly config: AppConfig,
    private readonly catalog: ModelCatalogService,
    private readonly registry: ProviderRegistry,
    private readonly health: ProviderHealthRepository,
    private readonly clock: Clock,
  ) {}

  async list(): Promise<ProviderStatusListDto> {
    const now = this.clock.now();
    const calls = await this.health.callsSince(now - DAY_MS);
    return {
      object: 'list',
      data: PROVIDER_DEFINITIONS.map((d) => {
        const own = calls.filter((c) => c.provider === d.name);
        return this.status(d, {
          last_hour: healthOf(own.filter((c) => c.createdAt >= now - HOUR_MS)),
          last_day: healthOf(own),
        });
      }),
    };
  }

  /** The smallest real request to the provider: its cheapest chat model, one word, one token back. */
  async test(name: string): Promise<ProviderTestResultDto> {
    const d = findProviderDefinition(name);
    if (!d) throw ApiError.notFound(`No provider '${name}'.`, 'provider_not_found', 'provider');
    const model = this.testModel(d);
    const tested_at = new Date(this.clock.now()).toISOString();
    const result = (error: ProviderTestResultDto['error'], latency_ms: number | null = null) => ({
      provider: d.name,
      model: model?.key ?? null,
      ok: error === null,
      latency_ms,
      error,
      tested_at,
    });
    if (!model)
      return result({ status: 404, code: 'model_not_found', message: `The catalog has no chat model of '${d.name}'.` });
    const missing = this.registry.unavailableReason(model);
    if (missing) return result({ status: 503, code: 'provider_not_configured', message: missing });
    const started = performance.now();
    try {
      await this.registry.chat(model).complete({
        model: model.upstream_model,
        messages: [{ role: 'user', content: TEST_PROMPT }],
        max_tokens: 1,
      });
      return result(null, Math.round(performance.now() - started));
    } catch (err) {
      const latency = Math.round(performance.now() - started);
      const e = providerErrorToApiError(err, model);
      return result({ status: e.status, code: e.code ?? null, message: e.message }, latency);
    }
  }

  private status(d: ProviderDefinition, health: ProviderStatusDto['health']): ProviderStatusDto {
    const chat = this.chatModels(d);
    const test = this.testModel(d);
    if (!d.env)
      return {
        name: d.name,
        type: d.type,
        jurisdiction: d.jurisdiction,
        configured: true,
        missing: null,
        env_prefix: null,
        base_url: null,
        custom_base_url: false,
        ca_file: null,
        takes_ca_file: false,
        chat_models: chat.length,
        test_model: test?.key ?? null,
        health,
      };
    const env = this.config.provider(d.name);
    const missing = missingProviderCredential(d.env.prefix, env);
    const takesCa = (d.env.extra ?? []).some((v) => v.name === 'CA_FILE');
    return {
      name: d.name,
      type: d.type,
      jurisdiction: d.jurisdiction,
      configured: missing === null,
      missing,
      env_prefix: d.env.prefix,
      base_url: env.baseUrl,
      custom_base_url: env.baseUrl.replace(/\/+$/, '') !== d.env.defaultBaseUrl.replace(/\/+$/, ''),
      ca_file: takesCa ? (env.extra.CA_FILE ?? null) : null,
      takes_ca_file: takesCa,
      chat_models: chat.length,
      test_model: test?.key ?? null,
      health,
    };
  }

  private chatModels(d: ProviderDefinition): ModelEntry[] {
    return this.catalog.list().filter((m) => m.provider === d.name && m.kind === 'chat');
  }

  private testModel(d: ProviderDefinition): ModelEntry | undefined {
    const price = (m: ModelEntry) => m.pricing.input_rub_per_1m + m.pricing.output_rub_per_1m;
    return [...this.chatModels(d)].sort((a, b) => price(a) - price(b) || a.key.localeCompare(b.key))[0];
  }
}
