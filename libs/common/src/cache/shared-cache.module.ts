import { CacheModule } from '@nestjs/cache-manager';
import { Global, Module } from '@nestjs/common';
import KeyvRedis from '@keyv/redis';
import { Keyv } from 'keyv';
import { AppConfig } from '@app/config';
import { BoundedMemoryStore } from './bounded-memory-store';
import { ClusterBus } from './cluster-bus';
import { SharedCache } from './shared-cache';

/**
 * @nestjs/cache-manager (cache-manager 7) with a Keyv store: @keyv/redis (the maintained successor
 * of cache-manager-redis-yet) when REDIS_URL is set, Keyv's in-process Map otherwise.
 * Keys are namespaced with REDIS_KEY_PREFIX. In-process values are stored by reference: callers must
 * treat what they get as read-only.
 */
@Global()
@Module({
  imports: [
    CacheModule.registerAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => {
        if (!config.redisUrl) {
          // in-process: values are kept by reference (no JSON round trip), so binary payloads such as
          // rerank embeddings (Buffer / Float32Array) cost no copy or decode on a hit
          // bounded in bytes and by TTL (an unbounded Map here once leaked every rerank embedding)
          const memory = new Keyv({
            store: new BoundedMemoryStore(config.memoryCacheBytes),
            namespace: config.redisKeyPrefix,
          });
          memory.serialize = undefined;
          memory.deserialize = undefined;
          return { stores: [memory] };
        }
        const store = new KeyvRedis(config.redisUrl, {
          throwOnConnectError: false,
          throwOnErrors: true,
          connectionTimeout: 1000,
        });
        const keyv = new Keyv({ store, namespace: config.redisKeyPrefix, useKeyPrefix: false });
        keyv.on('error', () => undefined); // surfaced through SharedCache's guarded calls instead
        return { stores: [keyv] };
      },
    }),
  ],
  providers: [SharedCache, ClusterBus],
  exports: [SharedCache, ClusterBus],
})
export class SharedCacheModule {}
