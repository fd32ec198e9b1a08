import { Body, Controller, Get, Header, Param, Post, Put, Query, Req, StreamableFile } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { PeopleAuth, TeamAccess } from '@app/accounts';
import { actorOf } from '@app/accounts/audit';
import { ActsService } from './acts/acts.service';
import { ActDto, ActQueryDto } from './dto/acts.dto';
import { CreateInvoiceDto, InvoiceDto, InvoiceListDto } from './dto/invoices.dto';
import { TeamRequisitesDto, TeamRequisitesViewDto } from './dto/requisites.dto';
import { InvoicesService } from './invoices/invoices.service';
import { RequisitesService } from './requisites/requisites.service';

const pdfFile = (name: string, pdf: Buffer) =>
  new StreamableFile(pdf, { type: 'application/pdf', disposition: `attachment; filename="${name}.pdf"` });

/** A team's requisites, invoices and monthly acts (a session with a role in the team, or the operator). */
@ApiTags('Documents')
@PeopleAuth()
@Controller('api/v1/teams/:team_id')
export class DocumentsController {
  constructor(
    private readonly requisites: RequisitesService,
    private readonly invoices: InvoicesService,
    private readonly acts: ActsService,
  ) {}

  @Put('requisites')
  @TeamAccess('admin')
  @ApiOperation({ summary: 'Set the team’s company requisites (owner or admin)' })
  @ApiOkResponse({ type: TeamRequisitesViewDto })
  putRequisites(
    @Param('team_id') teamId: string,
    @Body() body: TeamRequisitesDto,
    @Req() req: Request,
  ): Promise<TeamRequisitesViewDto> {
    return this.requisites.putTeam(teamId, body, actorOf(req));
  }

  @Get('requisites')
  @TeamAccess('viewer')
  @ApiOperation({ summary: 'The team’s company requisites (404 requisites_missing before they are set)' })
  @ApiOkResponse({ type: TeamRequisitesViewDto })
  getRequisites(@Param('team_id') teamId: string): Promise<TeamRequisitesViewDto> {
    return this.requisites.getTeam(teamId);
  }

  @Post('invoices')
  @TeamAccess('admin')
  @ApiOperation({ summary: 'Issue an invoice for a bank transfer (owner or admin; 409 requisites_missing)' })
  @ApiCreatedResponse({ type: InvoiceDto })
  issue(@Param('team_id') teamId: string, @Body() body: CreateInvoiceDto, @Req() req: Request): Promise<InvoiceDto> {
    return this.invoices.issue(teamId, body.amount_rub, actorOf(req));
  }

  @Get('invoices')
  @TeamAccess('viewer')
  @ApiOperation({ summary: 'The team’s invoices, newest first' })
  @ApiOkResponse({ type: InvoiceListDto })
  list(@Param('team_id') teamId: string): Promise<InvoiceListDto> {
    return this.invoices.list(teamId);
  }

  @Get('invoices/:invoice_id/pdf')
  @TeamAccess('viewer')
  @Header('cache-control', 'no-store')
  @ApiOperation({ summary: 'The invoice as PDF (счёт на оплату)' })
  @ApiProduces('application/pdf')
  @ApiOkResponse({ description: 'application/pdf', schema: { type: 'string', format: 'binary' } })
  async invoicePdf(@Param('team_id') teamId: string, @Param('invoice_id') invoiceId: string): Promise<StreamableFile> {
    const { number, pdf } = await this.invoices.pdf(teamId, invoiceId);
    return pdfFile(number, pdf);
  }

  @Get('acts')
  @TeamAccess('viewer')
  @ApiOperation({
    summary: 'The act for a month’s services: preliminary while the month is open, final (frozen) once closed',
  })
  @ApiOkResponse({ type: ActDto })
  act(@Param('team_id') teamId: string, @Query() q: ActQueryDto): Promise<ActDto> {
    return this.acts.act(teamId, q.month);
  }

  @Get('acts/:month/pdf')
  @TeamAccess('viewer')
  @Header('cache-control', 'no-store')
  @ApiOperation({ summary: 'The month’s act as PDF (акт оказанных услуг)' })
  @ApiParam({ name: 'month', description: 'YYYY-MM', example: '2026-11' })
  @ApiProduces('application/pdf')
  @ApiOkResponse({ description: 'application/pdf', schema: { type: 'string', format: 'binary' } })
  async actPdf(@Param('team_id') teamId: string, @Param('month') month: string): Promise<StreamableFile> {
    const { number, pdf } = await this.acts.pdf(teamId, month);
    return pdfFile(number, pdf);
  }
}
