import { Module } from '@nestjs/common';
import { ParserPool } from './parser-pool';

/** The pool of parser workers: one per process (modules are singletons), shared by every module that imports this. */
@Module({ providers: [ParserPool], exports: [ParserPool] })
export class IsolationModule {}
