import { Global, Module } from '@nestjs/common';
import { Clock } from './clock';

/** The clock every lib injects (tests replace it); global, so libs work without the app. */
@Global()
@Module({ providers: [Clock], exports: [Clock] })
export class ClockModule {}
