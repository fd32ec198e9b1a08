import { Injectable } from '@nestjs/common';
import { ApiError } from '@app/common';
import { AppConfig } from '@app/config';
import { loadCatalog, ModelEntry, ModelKind } from './catalog/model-catalog';
import { PROVIDER_NAMES } from './provider-definitions';
import { ProviderRegistry } from './provider-registry';

/** The model catalog (built-in + MODELS_FILE), validated once at start. */
@Injectable()
export class ModelCatalogService {
  private readonly models: ModelEntry[];
  private readonly byKey: Map<string, ModelEntry>;

  constructor(
    config: AppConfig,
    private readonly registry: ProviderRegistry,
  ) {
    this.models = loadCatalog(config.modelsFile, [...PROVIDER_NAMES]);
    this.byKey = new Map(this.models.map((m) => [m.key, m]));
  }

  list(): ModelEntry[] {
    return this.models;
  }

  find(key: string): ModelEntry | undefined {
    return this.byKey.get(key);
  }

  /** The entry for `key` of the given kind; 404 model_not_found otherwise (param "model"). */
  require(key: string, kind: ModelKind): ModelEntry {
    const m = this.byKey.get(key);
    if (!m)
      throw ApiError.notFound(
        `The model '${key}' does not exist. GET /v1/models lists the available models.`,
        'model_not_found',
        'model',
      );
    if (m.kind !== kind)
      throw ApiError.badRequest(
        `The model '${key}' is a ${m.kind} model and cannot be used here (expected a ${kind} model).`,
        'model',
        'invalid_model',
      );
    return m;
  }

  isAvailable(m: ModelEntry): boolean {
    return this.registry.isAvailable(m);
  }
}
