/**
 * rxmcp/redis: the cluster stores on Redis. Import this entry only where the
 * `redis` package (node-redis 6) is installed.
 *
 * @module rxmcp/redis
 */
export { clusterKeys, type ClusterKeys } from './keys.js';
export { LuaScript } from './lua-script.js';
export { nodeRedisLink, type RedisLink, type RedisReply, type NodeRedisLinkOptions } from './link.js';
export { connectRedis, type RedisTarget, type ConnectRedisOptions } from './connect.js';
export { redisCluster, type RedisClusterOptions, type RedisClusterHandle, type RedisLegacyOptions } from './cluster.js';
export { RedisEventBus, createRedisEventBus, DEFAULT_MAX_BUS_MESSAGE_BYTES, type RedisEventBusOptions } from './event-bus.js';
export { loadRequestStateKeys, rotateRequestStateKey, requestStateKeysKey, type KeyRingOptions, type RotateOptions } from './key-ring.js';
export { RedisApprovalLedger, redisApprovalLedger, type RedisApprovalLedgerOptions } from './approval-ledger.js';
export { RedisPermitPool, permitKeys, type RedisPermitPoolOptions, type RedisPermitsOptions } from './permits.js';
export { redisSessionDirectory, type RedisSessionDirectory, type RedisSessionDirectoryOptions } from './session-directory.js';
export { RedisEventStore, type RedisEventStoreOptions } from './event-store.js';
export { RedisTaskStore, redisTaskStore, RUNNER_GONE, TASK_STORE_UNAVAILABLE, type RedisTaskStoreOptions } from './task-store.js';
