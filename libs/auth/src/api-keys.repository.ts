import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { ApiKeyEntity } from './entities/api-key.entity';

@Injectable()
export class ApiKeysRepository {
  constructor(@InjectRepository(ApiKeyEntity) private readonly keys: Repository<ApiKeyEntity>) {}

  findByHash(keyHash: string): Promise<ApiKeyEntity | null> {
    return this.keys.findOneBy({ keyHash });
  }

  count(): Promise<number> {
    return this.keys.count();
  }

  findById(id: string): Promise<ApiKeyEntity | null> {
    return this.keys.findOneBy({ id });
  }

  async insert(key: ApiKeyEntity): Promise<void> {
    await this.keys.insert(key);
  }

  /** Insert unless a key with the same hash exists (idempotent bootstrap across replicas). */
  async insertIfAbsent(key: ApiKeyEntity): Promise<void> {
    await this.keys.createQueryBuilder().insert().into(ApiKeyEntity).values(key).orIgnore().execute();
  }

  async revoke(id: string, now: number): Promise<ApiKeyEntity | null> {
    await this.keys.createQueryBuilder().update(ApiKeyEntity).set({ revokedAt: now }).where('id = :id AND revoked_at IS NULL', { id }).execute();
    return this.findById(id);
  }

  async touch(id: string, now: number): Promise<void> {
    await this.keys.update({ id }, { lastUsedAt: now });
  }
}
