import { Injectable } from '@nestjs/common';
import { ApiError } from '@app/common';
import { AppConfig } from '@app/config';
import { CatalogError, loadCatalog, ModelEntry, ModelKind } from './catalog/model-catalog';
import { findProviderDefinition, Jurisdiction, PROVIDER_NAMES } from './provider-definitions';
import { ProviderRegistry } from './provider-registry';

/** The model catalog (built-in + MODELS_FILE) and MODEL_ALIASES, validated once at start. */
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
    // an alias answers to its model's entry; a catalog key always wins over an alias of the same name
    for (const [alias, key] of Object.entries(config.modelAliases ?? {})) {
      const target = this.byKey.get(key);
      if (!target) throw new CatalogError(`MODEL_ALIASES: "${alias}" names "${key}", which is not in the catalog`);
      if (!this.byKey.has(alias)) this.aliases.set(alias, target);
    }
  }

  private readonly aliases = new Map<string, ModelEntry>();

  list(): ModelEntry[] {
    return this.models;
  }

  /** The entry of a catalog key or of a MODEL_ALIASES name. */
  find(key: string): ModelEntry | undefined {
    return this.byKey.get(key) ?? this.aliases.get(key);
  }

  /** The entry for `key` of the given kind; 404 model_not_found otherwise (param "model"). */
  require(key: string, kind: ModelKind): ModelEntry {
    const m = this.find(key);
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

  /** Why the model is unavailable (the credentials to set), or null when it is available. */
  unavailableReason(m: ModelEntry): string | null {
    return this.registry.unavailableReason(m);
  }

  /** Where the model's provider keeps the data (its definition's `jurisdiction`). */
  jurisdiction(m: ModelEntry): Jurisdiction {
    const d = findProviderDefinition(m.provider);
    if (!d) throw new Error(`Model ${m.key}: unknown provider "${m.provider}"`); // the catalog refuses these at start
    return d.jurisdiction;
  }
}
