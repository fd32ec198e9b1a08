import { Global, Module } from '@nestjs/common';
import { Clock } from '@app/common';

@Global()
@Module({ providers: [Clock], exports: [Clock] })
export class ClockModule {}
