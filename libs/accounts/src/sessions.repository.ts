import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { SessionEntity } from './entities/session.entity';
import { SessionStore } from './session-store';

/** Sessions in the database (the store without REDIS_URL). */
@Injectable()
export class DatabaseSessionStore extends SessionStore {
  constructor(@InjectDataSource() private readonly ds: DataSource) {
    super();
  }

  async insert(s: SessionEntity, m: EntityManager): Promise<void> {
    await m.insert(SessionEntity, { ...s });
  }

  findByHash(tokenHash: string): Promise<SessionEntity | null> {
    return this.ds.getRepository(SessionEntity).findOneBy({ tokenHash });
  }

  async touch(s: SessionEntity, now: number): Promise<void> {
    await this.ds.getRepository(SessionEntity).update({ id: s.id }, { lastSeenAt: now });
  }

  async delete(s: SessionEntity): Promise<void> {
    await this.ds.getRepository(SessionEntity).delete({ id: s.id });
  }

  async deleteOfUser(userId: string, id: string, m: EntityManager): Promise<boolean> {
    const r = await m.delete(SessionEntity, { id, userId });
    return (r.affected ?? 0) > 0;
  }

  async deleteAllOfUser(userId: string, keep: string | null, m: EntityManager): Promise<void> {
    const q = m.createQueryBuilder().delete().from(SessionEntity).where('user_id = :userId', { userId });
    if (keep !== null) q.andWhere('id <> :keep', { keep });
    await q.execute();
  }

  listOfUser(userId: string): Promise<SessionEntity[]> {
    return this.ds.getRepository(SessionEntity).find({ where: { userId }, order: { createdAt: 'DESC' } });
  }

  async deleteStale(now: number, idleMs: number): Promise<number> {
    const r = await this.ds
      .getRepository(SessionEntity)
      .createQueryBuilder()
      .delete()
      .where('expires_at <= :now OR last_seen_at <= :idle', { now, idle: now - idleMs })
      .execute();
    return r.affected ?? 0;
  }
}
