import { Global, Module } from '@nestjs/common';
import { Clock } from './clock';
import { Random } from './random';
import { Sleeper } from './sleeper';

/** The clock, the sleeper and the random source every lib injects (tests replace them); global, so libs work without the app. */
@Global()
@Module({ providers: [Clock, Sleeper, Random], exports: [Clock, Sleeper, Random] })
export class ClockModule {}
