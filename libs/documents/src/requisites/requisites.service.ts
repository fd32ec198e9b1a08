import { Injectable } from '@nestjs/common';
import { ApiError, Clock } from '@app/common';
import type { Actor } from '@app/accounts/audit';
import { DocumentsRepository } from '../documents.repository';
import {
  SellerRequisitesDto,
  SellerRequisitesViewDto,
  TeamRequisitesDto,
  TeamRequisitesViewDto,
} from '../dto/requisites.dto';
import type { DocumentParties, SellerRequisites, TeamRequisites } from './requisites.types';
import { accountProblem, bikProblem, corrAccountProblem, innProblem, kppProblem, ogrnProblem } from './validators';

/** The seller's and teams' requisites: validated (check digits included), stored, audit-logged. */
@Injectable()
export class RequisitesService {
  constructor(
    private readonly repo: DocumentsRepository,
    private readonly clock: Clock,
  ) {}

  async putSeller(dto: SellerRequisitesDto, actor: Actor): Promise<SellerRequisitesViewDto> {
    const inn = dto.inn.trim();
    const kpp = blankToNull(dto.kpp);
    const ogrn = dto.ogrn.trim();
    const bik = dto.bik.trim();
    check('inn', innProblem(inn));
    if (inn.length === 10 && kpp === null) throw invalid('kpp', 'is required for a company (10-digit ИНН)');
    if (kpp !== null) check('kpp', kppProblem(kpp));
    check('ogrn', ogrnProblem(ogrn));
    if ((inn.length === 10) !== (ogrn.length === 13))
      throw invalid('ogrn', 'must be an ОГРН (13 digits) for a company ИНН and an ОГРНИП (15) for a 12-digit one');
    check('bik', bikProblem(bik));
    check('account', accountProblem(dto.account.trim(), bik));
    check('corr_account', corrAccountProblem(dto.corr_account.trim(), bik));
    const seller: SellerRequisites = {
      legalName: dto.legal_name.trim(),
      inn,
      kpp,
      ogrn,
      address: dto.address.trim(),
      bankName: dto.bank_name.trim(),
      bik,
      account: dto.account.trim(),
      corrAccount: dto.corr_account.trim(),
      vatRate: dto.vat_rate,
      signatory: dto.signatory.trim(),
      accountant: blankToNull(dto.accountant),
    };
    const now = this.clock.now();
    await this.repo.putSeller(JSON.stringify(seller), now, {
      actor,
      teamId: null,
      action: 'seller.requisites.update',
      targetType: 'seller',
      targetId: 'seller',
    });
    return sellerView(seller, now);
  }

  async getSeller(): Promise<SellerRequisitesViewDto> {
    const row = await this.repo.seller();
    if (!row) throw sellerMissing();
    return sellerView(JSON.parse(row.data) as SellerRequisites, row.updatedAt);
  }

  async putTeam(teamId: string, dto: TeamRequisitesDto, actor: Actor): Promise<TeamRequisitesViewDto> {
    const inn = dto.inn.trim();
    const kpp = blankToNull(dto.kpp);
    check('inn', innProblem(inn));
    if (kpp !== null) check('kpp', kppProblem(kpp));
    const team: TeamRequisites = {
      legalName: dto.legal_name.trim(),
      inn,
      kpp,
      address: dto.address.trim(),
      emailForDocuments: blankToNull(dto.email_for_documents),
    };
    const now = this.clock.now();
    await this.repo.putTeamRequisites(teamId, JSON.stringify(team), now, {
      actor,
      teamId,
      action: 'team.requisites.update',
      targetType: 'team',
      targetId: teamId,
    });
    return teamView(teamId, team, now);
  }

  async getTeam(teamId: string): Promise<TeamRequisitesViewDto> {
    const row = await this.repo.teamRequisites(teamId);
    if (!row) throw requisitesMissing(404);
    return teamView(teamId, JSON.parse(row.data) as TeamRequisites, row.updatedAt);
  }

  /** Both parties of a new document; 409 when either has no requisites yet. */
  async parties(teamId: string): Promise<DocumentParties> {
    const [seller, buyer] = await Promise.all([this.repo.seller(), this.repo.teamRequisites(teamId)]);
    if (!buyer) throw requisitesMissing(409);
    if (!seller) throw sellerMissing(409);
    return { seller: JSON.parse(seller.data) as SellerRequisites, buyer: JSON.parse(buyer.data) as TeamRequisites };
  }

  async sellerRequisites(): Promise<SellerRequisites | null> {
    const row = await this.repo.seller();
    return row ? (JSON.parse(row.data) as SellerRequisites) : null;
  }
}

function check(field: string, problem: string | null): void {
  if (problem) throw invalid(field, problem);
}

function invalid(field: string, problem: string): ApiError {
  return ApiError.badRequest(`${field}: ${problem}.`, field, 'invalid_requisites');
}

function blankToNull(v: string | null | undefined): string | null {
  const t = v?.trim();
  return t ? t : null;
}

function requisitesMissing(status: 404 | 409): ApiError {
  const message = 'The team has no requisites yet: set them with PUT /api/v1/teams/{team_id}/requisites.';
  return status === 404
    ? ApiError.notFound(message, 'requisites_missing')
    : new ApiError(409, 'invalid_request_error', message, 'requisites_missing');
}

function sellerMissing(status: 404 | 409 = 404): ApiError {
  const message = 'The seller’s requisites are not set: the operator sets them with PUT /api/v1/admin/seller.';
  return status === 404
    ? ApiError.notFound(message, 'seller_requisites_missing')
    : new ApiError(409, 'invalid_request_error', message, 'seller_requisites_missing');
}

function sellerView(s: SellerRequisites, updatedAt: number): SellerRequisitesViewDto {
  return {
    legal_name: s.legalName,
    inn: s.inn,
    kpp: s.kpp,
    ogrn: s.ogrn,
    address: s.address,
    bank_name: s.bankName,
    bik: s.bik,
    account: s.account,
    corr_account: s.corrAccount,
    vat_rate: s.vatRate,
    signatory: s.signatory,
    accountant: s.accountant,
    updated_at: new Date(updatedAt).toISOString(),
  };
}

function teamView(teamId: string, t: TeamRequisites, updatedAt: number): TeamRequisitesViewDto {
  return {
    team_id: teamId,
    legal_name: t.legalName,
    inn: t.inn,
    kpp: t.kpp,
    address: t.address,
    email_for_documents: t.emailForDocuments,
    updated_at: new Date(updatedAt).toISOString(),
  };
}
