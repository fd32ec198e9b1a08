import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AdminGuard, ApiKeyGuard } from './guards';
import { ApiKeysRepository } from './api-keys.repository';
import { ApiKeysService } from './api-keys.service';
import { ApiKeyEntity } from './entities/api-key.entity';
import { AuthThrottle } from './auth-throttle';

@Module({
  imports: [TypeOrmModule.forFeature([ApiKeyEntity])],
  providers: [ApiKeysRepository, ApiKeysService, AuthThrottle, ApiKeyGuard, AdminGuard],
  exports: [ApiKeysService, AuthThrottle, ApiKeyGuard, AdminGuard],
})
export class AuthModule {}
