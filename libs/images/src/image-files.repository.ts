import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { LessThan, Repository } from 'typeorm';
import { GatewaySecretEntity, ImageFileEntity } from './entities/image-file.entity';

@Injectable()
export class ImageFilesRepository {
  constructor(
    @InjectRepository(ImageFileEntity) private readonly files: Repository<ImageFileEntity>,
    @InjectRepository(GatewaySecretEntity) private readonly secrets: Repository<GatewaySecretEntity>,
  ) {}

  /** All of one answer's images in one statement (all stored or none). */
  async insertMany(rows: ImageFileEntity[]): Promise<void> {
    if (rows.length > 0) await this.files.insert(rows);
  }

  findById(id: string): Promise<ImageFileEntity | null> {
    return this.files.findOneBy({ id });
  }

  async deleteExpired(now: number): Promise<number> {
    const res = await this.files.delete({ expiresAt: LessThan(now) });
    return res.affected ?? 0;
  }

  /** The named secret; the first replica to ask creates it, every other one reads the same value. */
  async secret(name: string, candidate: string, now: number): Promise<string> {
    await this.secrets
      .createQueryBuilder()
      .insert()
      .into(GatewaySecretEntity)
      .values({ name, value: candidate, createdAt: now })
      .orIgnore()
      .execute();
    const row = await this.secrets.findOneBy({ name });
    return row ? row.value : candidate;
  }
}
