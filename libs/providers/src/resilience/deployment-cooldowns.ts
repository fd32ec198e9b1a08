import { Injectable } from '@nestjs/common';
import { Clock, SharedCache } from '@app/common';
import { AppConfig } from '@app/config';

/**
 * Which deployments failed recently: one shared-cache key per cooling deployment with a TTL of
 * DEPLOYMENT_COOLDOWN_SECONDS — in Redis when REDIS_URL is set (all replicas skip it), in-process
 * otherwise. A cache outage reads as "nothing is cooling".
 */
@Injectable()
export class DeploymentCooldowns {
  constructor(
    private readonly cache: SharedCache,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  get cooldownMs(): number {
    return this.config.resilience.deploymentCooldownMs;
  }

  async cooling(modelKey: string, ids: readonly string[]): Promise<Set<string>> {
    if (this.cooldownMs <= 0 || ids.length === 0) return new Set();
    const values = await this.cache.mget<number>(ids.map((id) => this.key(modelKey, id)));
    return new Set(ids.filter((_, i) => values[i] !== undefined));
  }

  async coolDown(modelKey: string, id: string): Promise<void> {
    if (this.cooldownMs <= 0) return;
    await this.cache.set(this.key(modelKey, id), this.clock.now(), this.cooldownMs);
  }

  private key(modelKey: string, id: string): string {
    return `cooldown:${modelKey}:${id}`;
  }
}
