import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '@app/auth';
import { BillingModule } from '@app/billing';
import { ProvidersModule } from '@app/providers';
import { GatewaySecretEntity, ImageFileEntity } from './entities/image-file.entity';
import { ImageFilesRepository } from './image-files.repository';
import { ImagesController } from './images.controller';
import { ImagesService } from './images.service';

@Module({
  imports: [
    TypeOrmModule.forFeature([ImageFileEntity, GatewaySecretEntity]),
    AuthModule,
    BillingModule,
    ProvidersModule,
  ],
  controllers: [ImagesController],
  providers: [ImageFilesRepository, ImagesService],
  exports: [ImagesService],
})
export class ImagesModule {}
