import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Clock } from '@app/common';
import { AppConfig } from '@app/config';
import { AuthModule } from '@app/auth';
import { BillingModule } from '@app/billing';
import { AdminModule } from '@app/admin';
import { PrincipalGuard } from './access';
import { AccountsBootstrapService } from './accounts-bootstrap.service';
import { AccountsRepository } from './accounts.repository';
import { AccountsService } from './accounts.service';
import { AuditModule } from './audit';
import { AuditNamesRepository } from './audit/audit-names.repository';
import { AuditLogService } from './audit-log.service';
import { AuditController } from './audit.controller';
import { AuthController } from './auth.controller';
import { InvitationEntity } from './entities/invitation.entity';
import { MembershipEntity } from './entities/membership.entity';
import { LoginThrottleEntity } from './entities/login-throttle.entity';
import { SessionEntity } from './entities/session.entity';
import { UserEntity } from './entities/user.entity';
import { DatabaseLoginThrottleStore } from './database-login-throttle';
import { InvitationMailer } from './invitation-mailer';
import { InvitationsController } from './invitations.controller';
import { LoginThrottleStore, MemoryLoginThrottleStore, RedisLoginThrottleStore } from './login-throttle';
import { OidcController } from './oidc.controller';
import { OidcService } from './oidc.service';
import { PasswordHasher } from './password-hasher';
import { PasswordPolicy } from './password-policy';
import { PasswordStrength } from './password-strength/password-strength';
import { RedisSessionStore } from './redis-session-store';
import { SessionStore } from './session-store';
import { DatabaseSessionStore } from './sessions.repository';
import { SessionsService } from './sessions.service';
import { TeamPeopleService } from './team-people.service';
import { TeamsController } from './teams.controller';
import { UsersAdminController } from './users-admin.controller';

/** People: users, sessions, team roles, invitations and the audit log. */
@Module({
  imports: [
    TypeOrmModule.forFeature([UserEntity, SessionEntity, MembershipEntity, InvitationEntity, LoginThrottleEntity]),
    AuthModule,
    BillingModule,
    AdminModule,
    AuditModule,
  ],
  controllers: [
    AuthController,
    OidcController,
    TeamsController,
    InvitationsController,
    UsersAdminController,
    AuditController,
  ],
  providers: [
    AccountsRepository,
    AccountsService,
    SessionsService,
    PasswordHasher,
    PasswordPolicy,
    PasswordStrength,
    TeamPeopleService,
    InvitationMailer,
    PrincipalGuard,
    AccountsBootstrapService,
    OidcService,
    AuditLogService,
    AuditNamesRepository,
    DatabaseSessionStore,
    {
      provide: SessionStore,
      inject: [AppConfig, Clock, DatabaseSessionStore],
      useFactory: (config: AppConfig, clock: Clock, db: DatabaseSessionStore) =>
        config.redisUrl ? new RedisSessionStore(config, clock) : db,
    },
    DatabaseLoginThrottleStore,
    {
      // Redis when configured; otherwise the database on Postgres (several replicas share it), the
      // process on SQLite (the embedded default runs one process)
      provide: LoginThrottleStore,
      inject: [AppConfig, DatabaseLoginThrottleStore],
      useFactory: (config: AppConfig, db: DatabaseLoginThrottleStore) =>
        config.redisUrl
          ? new RedisLoginThrottleStore(config)
          : config.databaseKind === 'postgres'
            ? db
            : new MemoryLoginThrottleStore(config.accounts.loginThrottleWindowMs),
    },
  ],
  exports: [AccountsService, AccountsBootstrapService, LoginThrottleStore],
})
export class AccountsModule {}
