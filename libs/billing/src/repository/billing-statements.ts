import { DataSource, EntityManager, IsNull, Repository } from 'typeorm';
import { PgGroupCommit, RawSql, SqliteGroupCommit, TransactionRunner } from '@app/database';
import { LedgerEntryEntity } from '../entities/ledger-entry.entity';
import { ReservationEntity } from '../entities/reservation.entity';
import { TeamEntity } from '../entities/team.entity';
import { ApiKeySpendEntity } from '../entities/api-key-spend.entity';

/** What every part of BillingRepository writes and reads through: the connection, tables and writers. */
export interface BillingDb {
  ds: DataSource;
  tx: TransactionRunner;
  teams: Repository<TeamEntity>;
  reservations: Repository<ReservationEntity>;
  ledger: Repository<LedgerEntryEntity>;
  spendRows: Repository<ApiKeySpendEntity>;
  sqliteBatch: SqliteGroupCommit;
  pgBatch: PgGroupCommit;
}

/**
 * The base of BillingRepository and of the statements it is made of (holds, credit grants, spend):
 * raw SQL on the billing tables, group commit for the per-request paths, and the two reads they
 * all need.
 */
export abstract class BillingStatements {
  protected readonly sql: RawSql;
  protected readonly pg: boolean;
  protected readonly T: { teams: string; reservations: string; ledger: string; spend: string };
  protected readonly tx: TransactionRunner;
  protected readonly teams: Repository<TeamEntity>;
  protected readonly reservations: Repository<ReservationEntity>;
  protected readonly ledger: Repository<LedgerEntryEntity>;
  protected readonly spendRows: Repository<ApiKeySpendEntity>;
  protected readonly sqliteBatch: SqliteGroupCommit;
  protected readonly pgBatch: PgGroupCommit;

  constructor(db: BillingDb) {
    this.tx = db.tx;
    this.teams = db.teams;
    this.reservations = db.reservations;
    this.ledger = db.ledger;
    this.spendRows = db.spendRows;
    this.sqliteBatch = db.sqliteBatch;
    this.pgBatch = db.pgBatch;
    this.sql = new RawSql(db.ds);
    this.pg = this.sql.pg;
    this.T = {
      teams: this.sql.table(TeamEntity),
      reservations: this.sql.table(ReservationEntity),
      ledger: this.sql.table(LedgerEntryEntity),
      spend: this.sql.table(ApiKeySpendEntity),
    };
  }

  findTeam(id: string, m?: EntityManager): Promise<TeamEntity | null> {
    return (m ? m.getRepository(TeamEntity) : this.teams).findOneBy({ id, deletedAt: IsNull() });
  }

  findReservation(id: string): Promise<ReservationEntity | null> {
    return this.reservations.findOneBy({ id });
  }
}
