import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { IsolationModule } from '@app/common';
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
import { ProjectContextSource } from '@app/chat/context/ports';
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
    IsolationModule,
    AuditModule,
  ],
  controllers: [ProjectsController, WebhooksController],
  providers: [
    ProjectsRepository,
    ProjectsService,
    IntegrationSecrets,
    IntegrationsService,
    ProjectContextService,
    { provide: ProjectContextSource, useExisting: ProjectContextService },
  ],
  exports: [ProjectContextSource, ProjectsService],
})
export class ProjectsModule {
  /**
   * Registered once by the app, as a global module: the ProjectContextSource it binds reaches chat,
   * which does not import projects (projects uses knowledge, which chat's other ports come from).
   */
  static forRoot(): DynamicModule {
    return { module: ProjectsModule, global: true };
  }
}
