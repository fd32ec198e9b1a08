import { Global, Module } from '@nestjs/common';
import { Clock } from './clock';
import { Sleeper } from './sleeper';

/** The clock (and the sleeper) every lib injects (tests replace them); global, so libs work without the app. */
@Global()
@Module({ providers: [Clock, Sleeper], exports: [Clock, Sleeper] })
export class ClockModule {}
