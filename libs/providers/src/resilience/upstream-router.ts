import { Injectable, Optional } from '@nestjs/common';
import { ApiError, MetricsService, Random, RequestContexts, Sleeper } from '@app/common';
import { AppConfig } from '@app/config';
import { ModelEntry } from '../catalog/model-catalog';
import { ChatProvider } from '../chat-provider';
import { ChatDeployment, ProviderRegistry } from '../provider-registry';
import { upstreamErrorKind } from '../provider-api-error';
import { ProviderError } from '../types';
import { DeploymentCooldowns } from './deployment-cooldowns';
import { pickDeployment } from './deployment-pick';
import { ResilienceEvents } from './resilience-events';
import { findProviderDefinition } from '../provider-definitions';
import { residencyAllows, type DataPolicy } from '@app/data-protection/policy';
import { BackoffSettings, isRetryableError, retryDelayMs } from './retry-policy';

/** Where a routed call stands; updated as it goes, so a failure still tells which model and how many tries. */
export interface RouteProgress<C> {
  /** the candidate of the last attempt (the one that served, on success) */
  candidate: C;
  deployment: string;
  /** upstream attempts made, all candidates together */
  attempts: number;
  /** retries (attempts after a retryable failure of the same candidate) */
  retries: number;
  /** candidates given up on (failed after their retries, or unavailable) */
  fallbacks: number;
}

export interface RouteOptions<C> {
  signal?: AbortSignal;
  requestId?: string;
  /**
   * True once something reached the client (a stream forwarded its first chunk): from then on a
   * failure is final — never retried, never handed to a fallback.
   */
  committed?: () => boolean;
  /** filled in as the call goes (counts for metrics, the candidate for error messages) */
  progress?: RouteProgress<C>;
  /** the caller's data policy: with residency "ru_only" only models of Russian providers are called */
  policy?: Pick<DataPolicy, 'residency'> | null;
}

/**
 * Runs one upstream call with the resilience rules:
 * - each candidate model (the requested one, then its fallbacks) is tried in order;
 * - within a candidate, a retryable failure is retried up to <PROVIDER>_MAX_RETRIES times after a
 *   backoff (full jitter, or the provider's Retry-After capped at RETRY_AFTER_MAX_MS) slept through
 *   the injectable Sleeper;
 * - each attempt picks one of the model's deployments by weight, skipping deployments that failed
 *   within DEPLOYMENT_COOLDOWN_SECONDS (shared through Redis when configured) while another is warm;
 *   a deployment whose key is refused (401/403) cools down and the call moves to another deployment;
 * - a candidate whose provider has no credentials (503) is skipped for the next one;
 * - the caller's data policy is enforced here, before any attempt: a requested model it does not
 *   allow (residency "ru_only" and a provider abroad) is refused with 403 model_not_allowed_by_policy,
 *   and the chain of fallbacks stops at the last model it allows;
 * - nothing is retried once `committed()` says bytes went to the client, or after the caller aborted;
 *   a non-retryable failure (e.g. a provider 400) is thrown at once.
 * The error thrown is the last attempt's, untouched; `progress.candidate` says whose it was.
 *
 * Metrics: every failed attempt is one gateway_upstream_errors_total (by the attempted model), every
 * retry one gateway_upstream_retries_total, every move to the next candidate one
 * gateway_fallbacks_total. Callers count nothing themselves.
 */
@Injectable()
export class UpstreamRouter {
  /** [0, 1) draws for jitter and weighted picks, from the injected Random */
  private readonly random: () => number;

  constructor(
    private readonly registry: ProviderRegistry,
    private readonly cooldowns: DeploymentCooldowns,
    private readonly sleeper: Sleeper,
    private readonly events: ResilienceEvents,
    private readonly config: AppConfig,
    private readonly metrics: MetricsService = new MetricsService(),
    rng: Random = new Random(),
    /** the contexts of the requests in flight: each attempt is noted on its request's (request log) */
    @Optional() private readonly requests?: RequestContexts,
  ) {
    this.random = () => rng.next();
  }

  async run<C extends { model: ModelEntry }, T>(
    candidates: readonly C[],
    attempt: (candidate: C, provider: ChatProvider) => Promise<T>,
    opts: RouteOptions<C> = {},
  ): Promise<{ result: T } & RouteProgress<C>> {
    if (candidates.length === 0) throw new Error('UpstreamRouter.run: no candidates');
    candidates = allowedChain(candidates, opts.policy);
    const progress: RouteProgress<C> = opts.progress ?? {
      candidate: candidates[0],
      deployment: '',
      attempts: 0,
      retries: 0,
      fallbacks: 0,
    };
    progress.candidate = candidates[0];
    let lastError: unknown;
    for (let ci = 0; ci < candidates.length; ci++) {
      const candidate = candidates[ci];
      const next = candidates[ci + 1];
      progress.candidate = candidate;
      let deployments: ChatDeployment[];
      try {
        deployments = this.registry.chatDeployments(candidate.model);
      } catch (err) {
        if (next && isUnavailable(err)) {
          this.fallback(progress, candidate, next, 'unavailable', opts.requestId);
          lastError = err;
          continue;
        }
        throw err;
      }
      const maxRetries = this.registry.maxRetries(candidate.model);
      const failedHere = new Set<string>();
      for (let retry = 0; ; retry++) {
        const deployment = await this.pick(candidate.model, deployments, failedHere);
        progress.deployment = deployment.id;
        progress.attempts++;
        this.noteAttempt(opts.requestId, candidate.model);
        try {
          const result = await attempt(candidate, deployment.provider);
          return { result, ...progress };
        } catch (err) {
          if (opts.signal?.aborted) throw err;
          this.failed(candidate.model, err);
          if (opts.committed?.()) throw err;
          // a deployment whose credentials are refused is broken, not the request: another deployment may serve it
          const rejectedKey = deployments.length > 1 && err instanceof ProviderError && err.kind === 'auth';
          if (!isRetryableError(err) && !rejectedKey) throw err;
          lastError = err;
          if (deployments.length > 1) {
            failedHere.add(deployment.id);
            await this.cooldowns.coolDown(candidate.model.key, deployment.id);
            this.events.emit({
              type: 'cooldown',
              model: candidate.model.key,
              deployment: deployment.id,
              ms: this.cooldowns.cooldownMs,
            });
          }
          if (rejectedKey && !isRetryableError(err)) {
            if (failedHere.size >= deployments.length) throw err;
            retry--; // straight to another deployment: no backoff, and no retry used up
            continue;
          }
          if (retry >= maxRetries) break;
          const delayMs = retryDelayMs(err, retry, this.backoff, this.random);
          this.events.emit({
            type: 'retry',
            model: candidate.model.key,
            provider: candidate.model.provider,
            deployment: deployment.id,
            retry: retry + 1,
            delayMs,
            status: err instanceof ProviderError ? (err.upstreamStatus ?? null) : null,
            requestId: opts.requestId,
          });
          progress.retries++;
          this.metrics.upstreamRetry(candidate.model.provider, candidate.model.key);
          await this.sleeper.sleep(delayMs, opts.signal);
          if (opts.signal?.aborted) throw err;
        }
      }
      if (!next) break;
      this.fallback(progress, candidate, next, 'failed', opts.requestId);
    }
    throw lastError;
  }

  /**
   * The retry rule alone, for calls with a single upstream and nothing streamed (embeddings
   * batches, image generations): a retryable failure is retried up to the provider's
   * <PROVIDER>_MAX_RETRIES after the same backoff; anything else is thrown at once.
   */
  async retry<T>(
    model: ModelEntry,
    call: () => Promise<T>,
    opts: { signal?: AbortSignal; requestId?: string; policy?: Pick<DataPolicy, 'residency'> | null } = {},
  ): Promise<T> {
    allowedChain([{ model }], opts.policy);
    const maxRetries = this.registry.maxRetries(model);
    for (let retry = 0; ; retry++) {
      this.noteAttempt(opts.requestId, model);
      try {
        return await call();
      } catch (err) {
        if (opts.signal?.aborted) throw err;
        this.failed(model, err);
        if (retry >= maxRetries || !isRetryableError(err)) throw err;
        const delayMs = retryDelayMs(err, retry, this.backoff, this.random);
        this.events.emit({
          type: 'retry',
          model: model.key,
          provider: model.provider,
          deployment: 'default',
          retry: retry + 1,
          delayMs,
          status: err instanceof ProviderError ? (err.upstreamStatus ?? null) : null,
          requestId: opts.requestId,
        });
        this.metrics.upstreamRetry(model.provider, model.key);
        await this.sleeper.sleep(delayMs, opts.signal);
        if (opts.signal?.aborted) throw err;
      }
    }
  }

  private noteAttempt(requestId: string | undefined, model: ModelEntry): void {
    if (requestId !== undefined) this.requests?.get(requestId)?.addAttempt(model.key, model.provider);
  }

  private get backoff(): BackoffSettings {
    const r = this.config.resilience;
    return { baseDelayMs: r.retryBaseDelayMs, maxDelayMs: r.retryMaxDelayMs, retryAfterMaxMs: r.retryAfterMaxMs };
  }

  private fallback(
    progress: RouteProgress<unknown>,
    from: { model: ModelEntry },
    to: { model: ModelEntry },
    reason: 'failed' | 'unavailable',
    requestId?: string,
  ): void {
    progress.fallbacks++;
    this.metrics.fallback(from.model.key, to.model.key);
    this.events.emit({ type: 'fallback', from: from.model.key, to: to.model.key, reason, requestId });
  }

  /** One failed upstream attempt (not a caller abort, not a refusal by the gateway itself). */
  private failed(model: ModelEntry, err: unknown): void {
    const kind = upstreamErrorKind(err);
    if (kind) this.metrics.upstreamError(model.provider, model.key, kind);
  }

  private async pick(
    model: ModelEntry,
    deployments: ChatDeployment[],
    failedHere: ReadonlySet<string>,
  ): Promise<ChatDeployment> {
    if (deployments.length === 1) return deployments[0];
    const cooling = await this.cooldowns.cooling(
      model.key,
      deployments.map((d) => d.id),
    );
    for (const id of failedHere) cooling.add(id);
    return pickDeployment(deployments, cooling, this.random);
  }
}

/** True when the policy lets a call reach this model (residency by its provider's jurisdiction). */
export function policyAllowsModel(
  policy: Pick<DataPolicy, 'residency'> | null | undefined,
  model: ModelEntry,
): boolean {
  if (!policy || policy.residency === 'any') return true;
  return residencyAllows(policy as DataPolicy, findProviderDefinition(model.provider)?.jurisdiction ?? 'foreign');
}

/** 403 model_not_allowed_by_policy for a model the caller's data policy does not let a call reach. */
export function modelRefusedByPolicy(modelKey: string, param: string | null = 'model'): ApiError {
  return new ApiError(
    403,
    'permission_error',
    `The model '${modelKey}' is served outside Russia, and the data policy of this team or key allows only models whose provider keeps data in Russia (residency "ru_only").`,
    'model_not_allowed_by_policy',
    param,
  );
}

/** The candidates up to (not including) the first the policy refuses; 403 when that is the first. */
function allowedChain<C extends { model: ModelEntry }>(
  candidates: readonly C[],
  policy: Pick<DataPolicy, 'residency'> | null | undefined,
): readonly C[] {
  const stop = candidates.findIndex((c) => !policyAllowsModel(policy, c.model));
  if (stop === 0) throw modelRefusedByPolicy(candidates[0].model.key);
  return stop < 0 ? candidates : candidates.slice(0, stop);
}

function isUnavailable(err: unknown): boolean {
  return err instanceof ApiError && err.status === 503;
}
