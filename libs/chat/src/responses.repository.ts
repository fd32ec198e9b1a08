import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { LessThanOrEqual, MoreThan, Repository } from 'typeorm';
import { StoredResponseEntity } from './entities/stored-response.entity';

/** Stored /v1/responses answers, per team; an expired row reads as absent. */
@Injectable()
export class ResponsesRepository {
  constructor(@InjectRepository(StoredResponseEntity) private readonly rows: Repository<StoredResponseEntity>) {}

  async insert(row: StoredResponseEntity): Promise<void> {
    await this.rows.insert(row);
  }

  /** The team's stored response, or null (unknown, another team's, deleted or expired). */
  find(teamId: string, id: string, now: number): Promise<StoredResponseEntity | null> {
    return this.rows.findOneBy({ teamId, id, expiresAt: MoreThan(now) });
  }

  /** true when the team's response existed (and was not expired) */
  async delete(teamId: string, id: string, now: number): Promise<boolean> {
    const res = await this.rows.delete({ teamId, id, expiresAt: MoreThan(now) });
    return (res.affected ?? 0) > 0;
  }

  /** Removes every response past its retention. */
  async purgeExpired(now: number): Promise<void> {
    await this.rows.delete({ expiresAt: LessThanOrEqual(now) });
  }
}
