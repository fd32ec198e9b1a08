import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '@app/accounts/audit';
import { AuthModule } from '@app/auth';
import { BillingModule } from '@app/billing';
import { ActsService } from './acts/acts.service';
import { DocumentMailer } from './document-mailer';
import { DocumentsAdminController } from './documents-admin.controller';
import { DocumentsController } from './documents.controller';
import { DocumentsRepository } from './documents.repository';
import { DOCUMENT_ENTITIES } from './entities/documents.entities';
import { InvoicesService } from './invoices/invoices.service';
import { RequisitesService } from './requisites/requisites.service';
import { StatementsService } from './statements/statements.service';

/**
 * Company documents: the seller's and teams' requisites, invoices and their PDFs, bank statements
 * (1C exchange format) that credit paid invoices through BillingService.topUp, and monthly acts.
 */
@Module({
  imports: [TypeOrmModule.forFeature(DOCUMENT_ENTITIES), AuthModule, BillingModule, AuditModule],
  controllers: [DocumentsController, DocumentsAdminController],
  providers: [DocumentsRepository, RequisitesService, InvoicesService, StatementsService, ActsService, DocumentMailer],
  exports: [],
})
export class DocumentsModule {}
