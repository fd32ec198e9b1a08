import { DynamicModule, Global, Module } from '@nestjs/common';
import { AppConfig } from './app-config';
import { ProviderEnvDeclaration } from './env.schema';

/** Global module: AppConfig is validated once (at import) and injectable everywhere. */
@Global()
@Module({})
export class ConfigModule {
  /** `config` as given, or loaded from the environment with the variables of `providers`. */
  static forRoot(
    config: AppConfig | { providers: readonly ProviderEnvDeclaration[] } = { providers: [] },
  ): DynamicModule {
    const value = config instanceof AppConfig ? config : AppConfig.load(config.providers);
    return { module: ConfigModule, providers: [{ provide: AppConfig, useValue: value }], exports: [AppConfig] };
  }
}
