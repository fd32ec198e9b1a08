import { Body, Controller, Get, HttpCode, Param, Post, Put, Req, UploadedFile, UseInterceptors } from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import { ApiBody, ApiConsumes, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { AdminAuth } from '@app/auth';
import { actorOf } from '@app/accounts/audit';
import { MarkPaidDto, MarkPaidResultDto } from './dto/invoices.dto';
import { SellerRequisitesDto, SellerRequisitesViewDto } from './dto/requisites.dto';
import { BankStatementDto, StatementUploadDto } from './dto/statements.dto';
import { InvoicesService } from './invoices/invoices.service';
import { RequisitesService } from './requisites/requisites.service';
import { StatementsService } from './statements/statements.service';

/** A statement file may be this large. */
const MAX_STATEMENT_BYTES = 20 * 1024 * 1024;

@ApiTags('Documents (operator)')
@AdminAuth()
@Controller('api/v1/admin')
export class DocumentsAdminController {
  constructor(
    private readonly requisites: RequisitesService,
    private readonly statements: StatementsService,
    private readonly invoices: InvoicesService,
  ) {}

  @Put('seller')
  @ApiOperation({ summary: 'Set the seller’s requisites (check digits of ИНН, ОГРН, accounts verified)' })
  @ApiOkResponse({ type: SellerRequisitesViewDto })
  putSeller(@Body() body: SellerRequisitesDto, @Req() req: Request): Promise<SellerRequisitesViewDto> {
    return this.requisites.putSeller(body, actorOf(req));
  }

  @Get('seller')
  @ApiOperation({ summary: 'The seller’s requisites (404 seller_requisites_missing before they are set)' })
  @ApiOkResponse({ type: SellerRequisitesViewDto })
  getSeller(): Promise<SellerRequisitesViewDto> {
    return this.requisites.getSeller();
  }

  @Post('bank-statements')
  @HttpCode(201)
  @ApiOperation({
    summary: 'Upload a bank statement (1CClientBankExchange): matched payments credit their invoices once',
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({ type: StatementUploadDto })
  @ApiCreatedResponse({ type: BankStatementDto })
  @UseInterceptors(FileInterceptor('file', { limits: { fileSize: MAX_STATEMENT_BYTES, files: 1, fields: 5 } }))
  upload(@UploadedFile() file: { buffer: Buffer } | undefined, @Req() req: Request): Promise<BankStatementDto> {
    return this.statements.upload(file?.buffer, actorOf(req));
  }

  @Get('bank-statements/:id')
  @ApiOperation({
    summary: 'An uploaded statement: each payment credited, already credited, or unmatched with the reason',
  })
  @ApiOkResponse({ type: BankStatementDto })
  getStatement(@Param('id') statementId: string): Promise<BankStatementDto> {
    return this.statements.get(statementId);
  }

  @Post('invoices/:id/mark-paid')
  @HttpCode(200)
  @ApiOperation({ summary: 'Record an invoice’s payment by hand: credits its amount once and marks it paid' })
  @ApiOkResponse({ type: MarkPaidResultDto })
  markPaid(@Param('id') invoiceId: string, @Body() body: MarkPaidDto, @Req() req: Request): Promise<MarkPaidResultDto> {
    return this.invoices.markPaid(invoiceId, body.reference, actorOf(req));
  }
}
