import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '@app/auth';
import { FxController } from './fx.controller';
import { FX_ENTITIES } from './fx.entities';
import { FxRepository } from './fx.repository';
import { FxService } from './fx.service';

/** The CBR USD rate: fetched daily, stored by date, served to the pricing of USD-priced models. */
@Module({
  imports: [TypeOrmModule.forFeature(FX_ENTITIES), AuthModule],
  controllers: [FxController],
  providers: [FxRepository, FxService],
  exports: [FxService],
})
export class FxModule {}
