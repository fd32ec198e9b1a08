import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '@app/auth';
import { AuditModule } from '@app/accounts/audit';
import { KnowledgeModule } from '@app/knowledge';
import {
  ProjectEntity,
  ProjectIntegrationEntity,
  ProjectMaterialEntity,
  WebhookEventEntity,
} from './entities/project.entities';
import { IntegrationSecrets } from './integrations/integration-secrets';
import { IntegrationsService } from './integrations/integrations.service';
import { ProjectContextSource } from './project-context.port';
import { ProjectContextService } from './project-context.service';
import { ProjectsController } from './projects.controller';
import { ProjectsRepository } from './projects.repository';
import { ProjectsService } from './projects.service';
import { WebhooksController } from './webhooks.controller';

/** Projects, their materials (stored in a project-owned knowledge store) and API integrations; provides ProjectContextSource to chat. */
@Module({
  imports: [
    TypeOrmModule.forFeature([ProjectEntity, ProjectMaterialEntity, ProjectIntegrationEntity, WebhookEventEntity]),
    AuthModule,
    KnowledgeModule,
    AuditModule,
  ],
  controllers: [ProjectsController, WebhooksController],
  providers: [
    ProjectsRepository,
    ProjectsService,
    IntegrationSecrets,
    IntegrationsService,
    { provide: ProjectContextSource, useClass: ProjectContextService },
  ],
  exports: [ProjectContextSource, ProjectsService],
})
export class ProjectsModule {}
