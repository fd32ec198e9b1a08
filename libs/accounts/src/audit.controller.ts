import { Controller, Get, Query, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentPrincipal, PeopleAuth, Principal } from './access';
import { AuditLogService } from './audit-log.service';
import { AuditFilterQueryDto, AuditListDto, AuditQueryDto } from './dto/audit.dto';

@ApiTags('Audit log')
@PeopleAuth()
@Controller('api/v1/audit-log')
export class AuditController {
  constructor(private readonly audit: AuditLogService) {}

  @Get()
  @ApiOperation({
    summary: 'The audit log, newest first (operators: every team; team admins and owners: their team with team_id)',
  })
  @ApiOkResponse({ type: AuditListDto })
  @ApiProduces('application/json', 'text/csv')
  async list(
    @CurrentPrincipal() p: Principal,
    @Query() q: AuditQueryDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<AuditListDto | string> {
    this.audit.authorize(p, q);
    const { list } = await this.audit.page(q);
    if (q.format === 'csv') {
      res.setHeader('content-type', 'text/csv; charset=utf-8');
      res.setHeader('content-disposition', 'attachment; filename="audit-log.csv"');
      if (list.next_cursor !== null) res.setHeader('x-next-cursor', String(list.next_cursor));
      return this.audit.pageCsv(list);
    }
    return list;
  }

  @Get('export.csv')
  @ApiOperation({
    summary:
      'Every record matching the filters as CSV, newest first, streamed: names and e-mails beside the ids, readable details',
  })
  @ApiProduces('text/csv')
  @ApiOkResponse({
    description: 'RFC 4180 CSV; cells a spreadsheet would run as a formula start with an apostrophe',
    schema: { type: 'string' },
  })
  async export(@CurrentPrincipal() p: Principal, @Query() q: AuditFilterQueryDto, @Res() res: Response): Promise<void> {
    this.audit.authorize(p, q);
    res.status(200);
    res.setHeader('content-type', 'text/csv; charset=utf-8');
    res.setHeader('content-disposition', 'attachment; filename="audit-log.csv"');
    res.setHeader('cache-control', 'no-store');
    let closed = false;
    res.on('close', () => (closed = true));
    try {
      await this.audit.exportCsv(q, async (chunk) => {
        if (closed) throw new Error('client went away');
        if (!res.write(chunk)) await new Promise<void>((resolve) => res.once('drain', resolve).once('close', resolve));
      });
    } catch (err) {
      if (!res.headersSent) throw err;
      if (!closed) res.destroy(err as Error);
      return;
    }
    res.end();
  }
}
